// Under load: a watcher that stops reading is cut without holding anyone
// up, and many watches with thousands of writes all get every event.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "test/apiserver/apiserver_test_util.h"

namespace ksched::testing {
namespace {

using LineStatus = HttpsConnection::LineStatus;

class LoadTest : public ApiServerTest {};

TEST_F(LoadTest, SlowWatcherIsCutInsteadOfBlocking) {
  TestApiServerOptions options;
  options.watch_backlog_limit_bytes = 256 * 1024;
  StartServer(options);
  auto slow = OpenWatch("/api/v1/pods?watch=true&resourceVersion=" +
                        std::to_string(server_->ResourceVersion()));
  auto fast = OpenWatch("/api/v1/pods?watch=true&resourceVersion=" +
                        std::to_string(server_->ResourceVersion()));
  WaitForWatches(2);
  const int kPods = 300;
  std::atomic<int> fast_events{0};
  std::thread reader([&] {
    std::string line;
    while (fast_events < kPods &&
           fast->ReadLine(&line, std::chrono::seconds(20)) ==
               LineStatus::kLine) {
      ++fast_events;
    }
  });
  // 64 KiB per event: the slow reader's backlog passes any socket buffer.
  // Writes are paced by the reading watcher, whose backlog so stays small.
  const std::string big(64 * 1024, 'x');
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kPods; ++i) {
    const auto by = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (fast_events < i && std::chrono::steady_clock::now() < by) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    ASSERT_EQ(
        server_
            ->Create(
                "/api/v1/namespaces/default/pods",
                R"({"metadata":{"name":"p)" + std::to_string(i) +
                    R"(","annotations":{"blob":")" + big +
                    R"("}},"spec":{"containers":[{"name":"c","image":"i"}]}})")
            .code,
        201);
  }
  const auto writing = std::chrono::steady_clock::now() - start;
  reader.join();
  EXPECT_EQ(fast_events, kPods);
  // Writers never waited on the slow reader (which read nothing).
  EXPECT_LT(writing, std::chrono::seconds(15));
  // The slow watch was ended: reading what was sent, the stream ends.
  const auto by = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (server_->ActiveWatchCount() > 1 &&
         std::chrono::steady_clock::now() < by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server_->ActiveWatchCount(), 1);
  std::string line;
  int slow_events = 0;
  LineStatus status;
  while ((status = slow->ReadLine(&line, std::chrono::seconds(10))) ==
         LineStatus::kLine) {
    ++slow_events;
  }
  EXPECT_EQ(status, LineStatus::kEnd);
  EXPECT_LT(slow_events, kPods);
}

TEST_F(LoadTest, ManyWatchesAndThousandsOfWrites) {
  const int kWatches = 50;
  const int kPods = 2000;
  const int kWriters = 4;
  std::vector<std::unique_ptr<HttpsConnection>> watches;
  const std::string from = std::to_string(server_->ResourceVersion());
  for (int i = 0; i < kWatches; ++i) {
    watches.push_back(
        OpenWatch("/api/v1/pods?watch=true&resourceVersion=" + from));
  }
  WaitForWatches(kWatches);
  std::vector<int> counts(kWatches, 0);
  std::vector<std::thread> readers;
  for (int i = 0; i < kWatches; ++i) {
    readers.emplace_back([&, i] {
      std::string line;
      int added = 0;
      int modified = 0;
      while (added + modified < 2 * kPods &&
             watches[i]->ReadLine(&line, std::chrono::seconds(30)) ==
                 LineStatus::kLine) {
        if (line.rfind(R"({"type":"ADDED")", 0) == 0) ++added;
        if (line.rfind(R"({"type":"MODIFIED")", 0) == 0) ++modified;
      }
      counts[i] = added * 10000 + modified;
    });
  }
  std::atomic<int> created{0};
  std::atomic<int> bound{0};
  std::vector<std::thread> writers;
  const auto start = std::chrono::steady_clock::now();
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      HttpsConnection connection(server_->port(), server_->ca_pem());
      for (int i = w; i < kPods; i += kWriters) {
        const std::string name = "p" + std::to_string(i);
        if (connection
                .RoundTrip(Request("POST", "/api/v1/namespaces/default/pods",
                                   PodJson(name)))
                .code == 201) {
          ++created;
        }
      }
      for (int i = w; i < kPods; i += kWriters) {
        const std::string name = "p" + std::to_string(i);
        if (connection
                .RoundTrip(Request(
                    "POST",
                    "/api/v1/namespaces/default/pods/" + name + "/binding",
                    BindingJson(name, "node-" + std::to_string(i % 7))))
                .code == 201) {
          ++bound;
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  for (auto& t : readers) t.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(created, kPods);
  EXPECT_EQ(bound, kPods);
  for (int i = 0; i < kWatches; ++i) {
    EXPECT_EQ(counts[i], kPods * 10000 + kPods) << "watch " << i;
  }
  EXPECT_EQ(server_->Bindings().size(), static_cast<size_t>(kPods));
  // A figure for the log, not an assertion.
  std::cout << "[ figures  ] " << kPods << " creates + " << kPods
            << " binds with " << kWatches << " watches: " << seconds << " s\n";
}

}  // namespace
}  // namespace ksched::testing

#include "pkg/apiwriter/rest_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

#include "pkg/util/fake_clock.h"
#include "pkg/util/random.h"

namespace ksched::apiwriter {
namespace {

using client::HttpRequest;
using client::HttpResponse;

// Answers every request through `answer`, recording what was asked; safe
// to call from the event thread.
class FunctionTransport final : public client::Transport {
 public:
  using AnswerFn = std::function<util::Result<HttpResponse>(int call)>;
  explicit FunctionTransport(AnswerFn answer) : answer_(std::move(answer)) {}

  util::Result<HttpResponse> RoundTrip(const HttpRequest& request) override {
    std::lock_guard lock(mu_);
    requests_.push_back(request);
    return answer_(static_cast<int>(requests_.size()));
  }
  util::Result<client::StreamedResponse> Stream(const HttpRequest&,
                                                util::Cancellation&) override {
    return util::Error("not streamed here");
  }
  std::vector<HttpRequest> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  AnswerFn answer_;
  mutable std::mutex mu_;
  std::vector<HttpRequest> requests_;
};

HttpResponse Answer(int code, std::string body = "{}") {
  return {.code = code, .body = std::move(body)};
}

class RestWriterTest : public ::testing::Test {
 protected:
  // A writer over `answer`; event retries come after `retry_interval` of
  // the fake clock (which only the client's waits move).
  std::unique_ptr<RestWriter> Writer(
      FunctionTransport::AnswerFn answer,
      util::Clock::Duration retry_interval = std::chrono::seconds(0)) {
    auto transport = std::make_unique<FunctionTransport>(std::move(answer));
    transport_ = transport.get();
    client::RestClientOptions client_options;
    client_options.qps = 1e6;
    client_options.burst = 1000000;
    client_ = std::make_unique<client::RestClient>(
        std::move(transport), clock_, random_,
        [this](util::Clock::Duration d) {
          std::lock_guard lock(sleeps_mu_);
          sleeps_.push_back(d);
          clock_.Advance(d);
        },
        client_options);
    RestWriterOptions options;
    options.host = "test-host";
    options.event_tries = 3;
    options.event_retry_interval = retry_interval;
    return std::make_unique<RestWriter>(*client_, clock_, log_, options);
  }

  static api::Pod Pod() {
    api::Pod pod;
    pod.metadata.name = "web-1";
    pod.metadata.ns = "shop";
    pod.metadata.uid = "uid-1";
    pod.spec.scheduler_name = "ksched";
    return pod;
  }

  int EventPosts() const {
    int n = 0;
    for (const HttpRequest& r : transport_->requests()) {
      if (r.method == "POST" && r.path.find("/events") != std::string::npos) {
        ++n;
      }
    }
    return n;
  }

  std::vector<util::Clock::Duration> Sleeps() const {
    std::lock_guard lock(sleeps_mu_);
    return sleeps_;
  }

  int StatusPatches() const {
    int n = 0;
    for (const HttpRequest& r : transport_->requests()) {
      n += r.method == "PATCH" &&
           r.path == "/api/v1/namespaces/shop/pods/web-1/status";
    }
    return n;
  }

  mutable std::mutex sleeps_mu_;
  std::vector<util::Clock::Duration> sleeps_;
  util::FakeClock clock_;
  util::DefaultRandom random_{7};
  util::RecordingLogger log_;
  FunctionTransport* transport_ = nullptr;
  std::unique_ptr<client::RestClient> client_;
};

TEST_F(RestWriterTest, BindPostsABindingAndReportsRefusals) {
  auto writer = Writer([](int call) -> util::Result<HttpResponse> {
    if (call == 1)
      return Answer(201, R"({"kind":"Status","status":"Success"})");
    return Answer(409, R"({"kind":"Status","apiVersion":"v1","status":"Failure",
      "message":"pod web-1 is already assigned to node \"b\"",
      "reason":"Conflict","code":409})");
  });
  EXPECT_TRUE(writer->Bind(Pod(), "a").IsSuccess());
  const framework::Status conflict = writer->Bind(Pod(), "a");
  EXPECT_FALSE(conflict.IsSuccess());
  EXPECT_NE(conflict.Message().find("already assigned"), std::string::npos)
      << conflict.Message();
  const auto requests = transport_->requests();
  ASSERT_EQ(requests.size(), 2u) << "a 409 is not retried";
  EXPECT_EQ(requests[0].path, "/api/v1/namespaces/shop/pods/web-1/binding");
  EXPECT_NE(requests[0].body.find(R"("uid":"uid-1")"), std::string::npos);
}

HttpResponse Refusal(int code, const std::string& reason) {
  return Answer(code, R"({"kind":"Status","apiVersion":"v1","status":"Failure",
      "message":"refused","reason":")" +
                          reason + R"(","code":)" + std::to_string(code) + "}");
}

framework::PodStatusUpdate Unschedulable() {
  framework::PodStatusUpdate update;
  update.condition = api::PodCondition{
      .type = "PodScheduled", .status = "False", .reason = "Unschedulable"};
  return update;
}

// v1.36 tries a conflicting pod status patch again (util.Retriable), as it
// did a server error: retry.DefaultBackoff's waits, 10 ms then 50 ms.
TEST_F(RestWriterTest, ConflictingPodStatusPatchIsTriedAgain) {
  auto writer = Writer([](int call) -> util::Result<HttpResponse> {
    if (call <= 2) return Refusal(409, "Conflict");
    return Answer(200);
  });
  EXPECT_TRUE(writer->UpdatePodStatus(Pod(), Unschedulable()).IsSuccess());
  EXPECT_EQ(StatusPatches(), 3);
  EXPECT_EQ(Sleeps(),
            (std::vector<util::Clock::Duration>{
                std::chrono::milliseconds(10), std::chrono::milliseconds(50)}));
}

TEST_F(RestWriterTest, PodStatusPatchGivesUpAfterFourTries) {
  auto writer = Writer([](int) -> util::Result<HttpResponse> {
    return Refusal(500, "InternalError");
  });
  const framework::Status s = writer->UpdatePodStatus(Pod(), Unschedulable());
  EXPECT_EQ(s.code(), framework::Code::kError);
  EXPECT_EQ(s.Message(), "refused");
  EXPECT_EQ(StatusPatches(), 4);
  EXPECT_EQ(Sleeps(),
            (std::vector<util::Clock::Duration>{
                std::chrono::milliseconds(10), std::chrono::milliseconds(50),
                std::chrono::milliseconds(250)}));
}

TEST_F(RestWriterTest, WhatPodStatusPatchesTryAgain) {
  struct Case {
    const char* name;
    util::Result<HttpResponse> answer;
    int patches;
  };
  const Case cases[] = {
      {"conflict", Refusal(409, "Conflict"), 4},
      {"internal error", Refusal(500, "InternalError"), 4},
      {"unavailable, no Status", Answer(503, "upstream down"), 4},
      {"connection refused",
       util::Error("PATCH https://10.0.0.1:6443/api/v1/namespaces/shop/pods/"
                   "web-1/status: connect to 10.0.0.1:6443: connection "
                   "refused"),
       4},
      {"connection reset (the patch may have been applied)",
       util::Error("connection reset"), 1},
      {"invalid", Refusal(422, "Invalid"), 1},
      {"not found", Refusal(404, "NotFound"), 1},
      {"forbidden", Refusal(403, "Forbidden"), 1},
  };
  for (const Case& c : cases) {
    auto writer =
        Writer([&c](int) -> util::Result<HttpResponse> { return c.answer; });
    EXPECT_FALSE(writer->UpdatePodStatus(Pod(), Unschedulable()).IsSuccess())
        << c.name;
    EXPECT_EQ(StatusPatches(), c.patches) << c.name;
  }
}

// No answer: tried again; written once the server answers.
TEST_F(RestWriterTest, EventWithoutAnAnswerIsTriedAgain) {
  auto writer = Writer([](int call) -> util::Result<HttpResponse> {
    if (call <= 2) return util::Error("connection refused");
    return Answer(201);
  });
  writer->RecordEvent(Pod(), "Normal", "Scheduled", "Binding", "assigned");
  writer->FlushEvents();
  // The retries wait for the event thread's next pass (at most 1 s).
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (writer->events_written() == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(writer->events_written(), 1);
  EXPECT_EQ(EventPosts(), 3);
  EXPECT_EQ(writer->events_dropped(), 0);
}

// Unreachable for good: given up after event_tries.
TEST_F(RestWriterTest, EventIsGivenUpAfterItsTries) {
  auto writer = Writer([](int) -> util::Result<HttpResponse> {
    return util::Error("connection refused");
  });
  writer->RecordEvent(Pod(), "Normal", "Scheduled", "Binding", "assigned");
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (writer->events_dropped() == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(writer->events_dropped(), 1);
  EXPECT_EQ(EventPosts(), 3);
  EXPECT_EQ(writer->events_written(), 0);
}

// Refused (an answer): not tried again, it would be refused again.
TEST_F(RestWriterTest, RefusedEventIsNotTriedAgain) {
  auto writer = Writer([](int) -> util::Result<HttpResponse> {
    return Answer(403, R"({"kind":"Status","apiVersion":"v1","status":"Failure",
      "message":"forbidden","reason":"Forbidden","code":403})");
  });
  writer->RecordEvent(Pod(), "Normal", "Scheduled", "Binding", "assigned");
  writer->FlushEvents();
  EXPECT_EQ(EventPosts(), 1);
  EXPECT_EQ(writer->events_dropped(), 1);
  // Two passes of the event thread later, still one.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_EQ(EventPosts(), 1);
}

// Shutdown does not wait out an unreachable server.
TEST_F(RestWriterTest, ShutdownDropsPendingRetries) {
  auto writer = Writer(
      [](int) -> util::Result<HttpResponse> {
        return util::Error("connection refused");
      },
      std::chrono::hours(1));
  writer->RecordEvent(Pod(), "Normal", "Scheduled", "Binding", "assigned");
  writer->FlushEvents();
  const auto start = std::chrono::steady_clock::now();
  writer.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(EventPosts(), 1) << "the retry was not due yet";
  bool warned = false;
  for (const auto& line : log_.lines()) {
    warned |= line.message.find("could not be reached") != std::string::npos;
  }
  EXPECT_TRUE(warned);
}

// A scheduler that lost its lease writes nothing more: the events queued,
// in the batch under way or waiting for a retry are dropped, and a flush
// against a server that does not answer gives up at its bound.
TEST_F(RestWriterTest, UnsentEventsCanBeDroppedAtOnce) {
  std::mutex mu;
  std::condition_variable cv;
  bool answer = false;
  std::atomic<int> calls{0};
  // (The fake transport holds its own lock while it answers: the test
  // counts the calls here rather than asking it.)
  auto writer = Writer([&](int) -> util::Result<HttpResponse> {
    ++calls;
    std::unique_lock lock(mu);
    cv.wait_for(lock, std::chrono::seconds(20), [&] { return answer; });
    return Answer(201);
  });
  for (int i = 0; i < 5; ++i) {
    api::Pod pod = Pod();
    pod.metadata.name = "web-" + std::to_string(i);
    writer->RecordEvent(pod, "Normal", "Scheduled", "Binding", "assigned");
  }
  // The first write hangs; the others wait behind it.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (calls.load() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(calls.load(), 1);
  EXPECT_FALSE(writer->FlushEvents(std::chrono::milliseconds(50)));
  EXPECT_EQ(writer->UnsentEvents(), 4u);
  EXPECT_EQ(writer->DropUnsentEvents(), 4u);
  {
    std::lock_guard lock(mu);
    answer = true;
  }
  cv.notify_all();
  writer.reset();
  EXPECT_EQ(EventPosts(), 1) << "nothing written after the drop";
}

}  // namespace
}  // namespace ksched::apiwriter

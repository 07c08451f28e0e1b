// apiserver_throughput: how fast the test API server takes writes over
// HTTPS from concurrent clients (each on its own kept-alive connection),
// as the scheduler benchmark will drive it: nodes, then pods, then one
// binding per pod, while watches stream every change. Prints figures.
//
//   apiserver_throughput [--clients 8] [--nodes 1000] [--pods 5000]
//                        [--watches 2]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "pkg/util/flags.h"
#include "test/apiserver/https_test_client.h"
#include "test/apiserver/test_api_server.h"
#include "test/apiserver/test_objects.h"

namespace {

using Clock = std::chrono::steady_clock;
using ksched::testing::HttpsConnection;
using ksched::testing::RequestOptions;
using ksched::testing::TestApiServer;

std::string NodeJson(int i) {
  const std::string name = "node-" + std::to_string(i);
  return ksched::testing::NodeJson(
      {.name = name,
       .cpu = "32",
       .memory = "128Gi",
       .labels = R"("kubernetes.io/hostname":")" + name + "\""});
}

std::string PodJson(int i) {
  return ksched::testing::PodJson({.name = "pod-" + std::to_string(i),
                                   .memory = "128Mi",
                                   .scheduler = "ksched",
                                   .labels = R"("app":"load")"});
}

std::string BindingJson(int i, int nodes) {
  return R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"pod-)" +
         std::to_string(i) +
         R"(","namespace":"default"},"target":{"apiVersion":"v1","kind":"Node",)"
         R"("name":"node-)" +
         std::to_string(i % nodes) + R"("}})";
}

struct Phase {
  std::string name;
  int count;
  double seconds;
  std::vector<double> latencies_ms;
};

// Sends request(i) for i in [0, n) from `clients` connections at once.
Phase Run(const std::string& name, int n, int clients,
          const TestApiServer& server,
          const std::function<RequestOptions(int)>& request, int want_code) {
  std::atomic<int> next{0};
  std::atomic<int> failed{0};
  std::vector<std::vector<double>> latencies(clients);
  std::vector<std::thread> threads;
  const auto start = Clock::now();
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      HttpsConnection connection(server.port(), server.ca_pem());
      for (int i = next++; i < n; i = next++) {
        const auto sent = Clock::now();
        if (connection.RoundTrip(request(i)).code != want_code) ++failed;
        latencies[c].push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - sent)
                .count());
      }
    });
  }
  for (auto& t : threads) t.join();
  Phase phase{
      name, n, std::chrono::duration<double>(Clock::now() - start).count(), {}};
  for (const auto& l : latencies) {
    phase.latencies_ms.insert(phase.latencies_ms.end(), l.begin(), l.end());
  }
  if (failed > 0) std::cerr << name << ": " << failed << " failed\n";
  return phase;
}

void Print(Phase phase) {
  std::sort(phase.latencies_ms.begin(), phase.latencies_ms.end());
  auto at = [&](double q) {
    return phase.latencies_ms.empty()
               ? 0.0
               : phase.latencies_ms[static_cast<size_t>(
                     q * (phase.latencies_ms.size() - 1))];
  };
  std::cout << phase.name << ": " << phase.count << " in " << phase.seconds
            << " s = " << static_cast<int>(phase.count / phase.seconds)
            << "/s (p50 " << at(0.5) << " ms, p99 " << at(0.99) << " ms)\n";
}

}  // namespace

int main(int argc, char** argv) {
  int64_t clients = 8;
  int64_t nodes = 1000;
  int64_t pods = 5000;
  int64_t watches = 2;
  ksched::util::FlagSet flags("apiserver_throughput [flags]");
  flags.Int("clients", &clients, "Concurrent HTTPS connections.");
  flags.Int("nodes", &nodes, "Nodes to create.");
  flags.Int("pods", &pods, "Pods to create and bind.");
  flags.Int("watches", &watches, "Pod watches streaming meanwhile.");
  auto args = flags.Parse(std::vector<std::string>(argv + 1, argv + argc));
  if (!args.ok() || flags.help_requested()) {
    std::cerr << (args.ok() ? "" : args.error().message() + "\n")
              << flags.Usage();
    return args.ok() ? 0 : 2;
  }
  auto server = TestApiServer::Start();
  if (server == nullptr) return 1;
  const std::string token = server->token();
  auto make = [&](std::string target, std::string body) {
    RequestOptions r;
    r.method = "POST";
    r.target = std::move(target);
    r.body = std::move(body);
    r.token = token;
    return r;
  };

  std::atomic<int64_t> events{0};
  std::vector<std::unique_ptr<HttpsConnection>> streams;
  std::vector<std::thread> readers;
  for (int w = 0; w < watches; ++w) {
    streams.push_back(
        std::make_unique<HttpsConnection>(server->port(), server->ca_pem()));
    RequestOptions watch;
    watch.target = "/api/v1/pods?watch=true&allowWatchBookmarks=true";
    watch.token = token;
    streams.back()->Open(watch);
    readers.emplace_back([&, w] {
      std::string line;
      while (streams[w]->ReadLine(&line, std::chrono::seconds(5)) ==
             HttpsConnection::LineStatus::kLine) {
        ++events;
      }
    });
  }

  std::cout << "clients " << clients << ", watches " << watches << "\n";
  Print(Run(
      "node creates", static_cast<int>(nodes), static_cast<int>(clients),
      *server, [&](int i) { return make("/api/v1/nodes", NodeJson(i)); }, 201));
  Print(Run(
      "pod creates", static_cast<int>(pods), static_cast<int>(clients), *server,
      [&](int i) {
        return make("/api/v1/namespaces/default/pods", PodJson(i));
      },
      201));
  Print(Run(
      "bindings", static_cast<int>(pods), static_cast<int>(clients), *server,
      [&](int i) {
        return make("/api/v1/namespaces/default/pods/pod-" + std::to_string(i) +
                        "/binding",
                    BindingJson(i, static_cast<int>(nodes)));
      },
      201));
  // Let the watches catch up (every pod: ADDED, then MODIFIED by its
  // binding) before ending them.
  const int64_t expected = watches * 2 * pods;
  const auto by = Clock::now() + std::chrono::seconds(30);
  while (events < expected && Clock::now() < by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  server->DropWatches();
  for (auto& t : readers) t.join();
  std::cout << "watch events received: " << events << " (of " << expected
            << " changes, plus bookmarks)\n";
  return 0;
}

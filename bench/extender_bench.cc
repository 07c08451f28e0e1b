// Extender latency: ksched's extender server on loopback, with a cache of
// N nodes holding 10 pods each, answering the requests a stock
// kube-scheduler sends for one pod: filter and prioritize by node names
// (nodeCacheCapable) and filter with the whole NodeList (each node the
// recorded kube-apiserver node, renamed). Time is from sending the request
// to having the answer, over HTTP keep-alive, one request at a time.
//
//   build/bench/extender_bench [--nodes 5000] [--requests 200]
//
// It prints figures; it asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/client/cpprest_transport.h"
#include "pkg/client/testing/loopback.h"
#include "pkg/config/config.h"
#include "pkg/extender/server.h"
#include "pkg/extender/testing/fixtures.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/registry.h"
#include "pkg/util/clock.h"
#include "pkg/util/logger.h"

namespace {

using Clock = std::chrono::steady_clock;
using ksched::testing::NodeBuilder;
using ksched::testing::PodBuilder;

struct Figures {
  double p50_ms, p99_ms;
};

template <typename Fn>
Figures Measure(int n, Fn send) {
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    const auto start = Clock::now();
    send();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)]};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ksched;
  int nodes = 5000;
  int requests = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--nodes") nodes = std::stoi(argv[i + 1]);
    if (flag == "--requests") requests = std::stoi(argv[i + 1]);
  }

  util::RealClock clock;
  cache::Cache cache(clock, std::chrono::nanoseconds(0));
  std::vector<std::string> names;
  for (int i = 0; i < nodes; ++i) {
    const std::string name = "node-" + std::to_string(i);
    names.push_back(name);
    cache.AddNode(
        NodeBuilder(name)
            .Label("kubernetes.io/hostname", name)
            .Label("topology.kubernetes.io/zone",
                   "zone-" + std::to_string(i % 3))
            .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}})
            .Ptr());
    for (int p = 0; p < 10; ++p) {
      const std::string pod = name + "-pod-" + std::to_string(p);
      (void)cache.AddPod(framework::PodInfo::CreateBound(
          PodBuilder(pod)
              .Uid(pod)
              .Node(name)
              .Label("app", "app-" + std::to_string(p))
              .Req({{"cpu", "500m"}, {"memory", "1Gi"}})
              .Obj(),
          &cache.label_sets()));
    }
  }

  framework::Registry registry = plugins::NewInTreeRegistry();
  util::RecordingLogger log;
  auto service = extender::ExtenderService::Create(
      config::DefaultConfig(), registry, cache, {.clock = &clock});
  if (!service.ok()) {
    std::fprintf(stderr, "%s\n", service.error().message().c_str());
    return 1;
  }
  extender::ServerOptions options;
  options.routes.default_profile = "ksched";
  options.bind_address =
      "127.0.0.1:" + std::to_string(client::testing::FreePort());
  auto server = extender::ExtenderServer::Start(**service, options, log);
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", server.error().message().c_str());
    return 1;
  }
  client::RestConfig config;
  config.server = (*server)->url();
  auto transport = client::CpprestTransport::Create(config, clock, {});

  // The pod of the fixtures (500m, 256Mi), and the request bodies.
  const std::string fixture =
      extender::testing::Fixture("filter_args_node_names.json");
  auto doc = api::ParseJson(fixture);
  rapidjson::StringBuffer pod_json;
  rapidjson::Writer<rapidjson::StringBuffer> w(pod_json);
  (*doc)["Pod"].Accept(w);
  std::string by_names = std::string(R"({"Pod":)") + pod_json.GetString() +
                         R"(,"Nodes":null,"NodeNames":[)";
  for (int i = 0; i < nodes; ++i) {
    by_names += (i ? ",\"" : "\"") + names[i] + "\"";
  }
  by_names += "]}";
  auto full_doc =
      api::ParseJson(extender::testing::Fixture("filter_args_nodes.json"));
  rapidjson::StringBuffer node_json;
  rapidjson::Writer<rapidjson::StringBuffer> nw(node_json);
  (*full_doc)["Nodes"]["items"][0].Accept(nw);
  const std::string node_template = node_json.GetString();
  std::string full = std::string(R"({"Pod":)") + pod_json.GetString() +
                     R"(,"Nodes":{"metadata":{},"items":[)";
  for (int i = 0; i < nodes; ++i) {
    std::string node = node_template;
    for (size_t at = node.find("\"node-1\""); at != std::string::npos;
         at = node.find("\"node-1\"", at + 1)) {
      node.replace(at, 8, "\"" + names[i] + "\"");
    }
    full += (i ? "," : "") + node;
  }
  full += R"(]},"NodeNames":null})";

  int failures = 0;
  auto post = [&](const std::string& path, const std::string& body) {
    auto r = (*transport)
                 ->RoundTrip({.method = "POST",
                              .path = path,
                              .body = body,
                              .content_type = "application/json"});
    if (!r.ok() || r->code != 200) ++failures;
  };
  std::printf("nodes=%d (10 pods each), one request at a time\n", nodes);
  const Figures names_filter =
      Measure(requests, [&] { post("/filter", by_names); });
  std::printf("filter, NodeNames (%zu KiB): p50 %.2f ms, p99 %.2f ms\n",
              by_names.size() / 1024, names_filter.p50_ms, names_filter.p99_ms);
  const Figures prioritize =
      Measure(requests, [&] { post("/prioritize", by_names); });
  std::printf("prioritize, NodeNames: p50 %.2f ms, p99 %.2f ms\n",
              prioritize.p50_ms, prioritize.p99_ms);
  const Figures full_filter =
      Measure(std::max(5, requests / 10), [&] { post("/filter", full); });
  std::printf("filter, whole NodeList (%zu MiB): p50 %.1f ms, p99 %.1f ms\n",
              full.size() >> 20, full_filter.p50_ms, full_filter.p99_ms);
  std::printf("failed requests: %d\n", failures);
  return failures == 0 ? 0 : 1;
}

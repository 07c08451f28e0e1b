// End-to-end throughput and latency: the real ksched binary schedules pods
// created in the test API server, over HTTPS, as it would in a cluster.
//
//   apiserver_load_bench [--nodes 1000] [--pods 5000] [--mode stream|backlog]
//                        [--rate PODS_PER_S] [--parallelism N]
//                        [--ksched-args "..."]
//
// stream:  ksched starts first; the pods are then created as fast as the
//          server takes them, and each pod's time from creation to its
//          Binding is measured (p50/p99), with the bind rate. With
//          --rate, pods are created at that steady rate instead, so the
//          latency is that of a scheduler keeping up, not of a queue
//          draining a burst.
// backlog: the pods exist before ksched starts (as in the design notes'
//          kube-scheduler figures): time from start to all bound.
// It prints figures; it asserts nothing.
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test/apiserver/test_api_server.h"
#include "test/apiserver/test_objects.h"
#include "test/integration/ksched_process.h"

namespace {

using Clock = std::chrono::steady_clock;
using ksched::testing::KschedProcess;
using ksched::testing::TestApiServer;

std::string NodeJson(int i) {
  const std::string name = "node-" + std::to_string(i);
  return ksched::testing::NodeJson(
      {.name = name,
       .cpu = "32",
       .memory = "128Gi",
       .labels = R"("kubernetes.io/hostname":")" + name +
                 R"(","topology.kubernetes.io/zone":"zone-)" +
                 std::to_string(i % 10) + "\""});
}

std::string PodJson(int i) {
  return ksched::testing::PodJson({.name = "pod-" + std::to_string(i),
                                   .memory = "128Mi",
                                   .scheduler = "ksched",
                                   .labels = R"("app":"load")"});
}

double Ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// User + system CPU seconds of this process (the API server) or of the
// finished children (ksched).
double CpuSeconds(int who) {
  rusage usage{};
  getrusage(who, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
  int nodes = 1000;
  int pods = 5000;
  std::string mode = "stream";
  std::string extra;
  int parallelism = 16;  // kube-scheduler's default
  double rate = 0;       // pods/s; 0: as fast as the server takes them
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--nodes") nodes = std::stoi(argv[i + 1]);
    if (flag == "--pods") pods = std::stoi(argv[i + 1]);
    if (flag == "--mode") mode = argv[i + 1];
    if (flag == "--ksched-args") extra = argv[i + 1];
    if (flag == "--parallelism") parallelism = std::stoi(argv[i + 1]);
    if (flag == "--rate") rate = std::stod(argv[i + 1]);
  }
  auto server = TestApiServer::Start({});
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ksched-load-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string kubeconfig = dir / "kubeconfig";
  server->WriteKubeconfig(kubeconfig);
  const std::string config = dir / "config.yaml";
  {
    // Client limits as in the design notes' kube-scheduler runs.
    std::FILE* f = std::fopen(config.c_str(), "w");
    const std::string yaml =
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "parallelism: " +
        std::to_string(parallelism) +
        "\n"
        "clientConnection:\n  qps: 5000\n  burst: 5000\n"
        "profiles:\n- schedulerName: ksched\n";
    std::fputs(yaml.c_str(), f);
    std::fclose(f);
  }
  for (int i = 0; i < nodes; ++i) {
    server->Create("/api/v1/nodes", NodeJson(i));
  }
  std::vector<std::string> args = {"--kubeconfig",
                                   kubeconfig,
                                   "--config",
                                   config,
                                   "--extender-bind-address=",
                                   "--metrics-bind-address="};
  for (auto& a : Split(extra)) args.push_back(a);

  std::map<std::string, Clock::time_point> created;
  auto create_pods = [&] {
    const Clock::time_point begin = Clock::now();
    for (int i = 0; i < pods; ++i) {
      if (rate > 0) {
        std::this_thread::sleep_until(
            begin + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(i / rate)));
      }
      const auto reply =
          server->Create("/api/v1/namespaces/default/pods", PodJson(i));
      created["pod-" + std::to_string(i)] = Clock::now();
      if (reply.code != 201) {
        std::cerr << "create failed: " << reply.body << "\n";
        return false;
      }
    }
    return true;
  };

  Clock::time_point start;
  std::unique_ptr<KschedProcess> ksched;
  if (mode == "backlog") {
    if (!create_pods()) return 1;
    start = Clock::now();
    ksched = std::make_unique<KschedProcess>(args, dir / "ksched.log");
  } else {
    ksched = std::make_unique<KschedProcess>(args, dir / "ksched.log");
    // Scheduling starts once the informers synced.
    ksched::testing::WaitUntil(
        [&] {
          return ksched->Log().find("caches synced") != std::string::npos;
        },
        std::chrono::seconds(60));
    start = Clock::now();
    if (!create_pods()) return 1;
  }
  const auto created_all = Clock::now();
  auto bound = [&] {
    int n = 0;
    for (const auto& b : server->Bindings()) n += b.code == 201;
    return n;
  };
  const bool done = ksched::testing::WaitUntil([&] { return bound() >= pods; },
                                               std::chrono::seconds(600));
  const auto records = server->Bindings();
  const long peak_rss_kib = ksched->PeakRssKiB();
  ksched->Terminate();

  std::vector<double> latency;
  Clock::time_point first_bind = Clock::time_point::max(), last_bind{};
  int failed = 0;
  for (const auto& b : records) {
    if (b.code != 201) {
      ++failed;
      continue;
    }
    latency.push_back(Ms(b.at - created[b.name]));
    first_bind = std::min(first_bind, b.at);
    last_bind = std::max(last_bind, b.at);
  }
  std::sort(latency.begin(), latency.end());
  auto pct = [&](double p) {
    if (latency.empty()) return 0.0;
    return latency[std::min(latency.size() - 1,
                            static_cast<size_t>(p * latency.size()))];
  };
  std::printf(
      "mode=%s nodes=%d pods=%d rate=%s bound=%zu failed_bindings=%d%s\n",
      mode.c_str(), nodes, pods,
      rate > 0 ? std::to_string(static_cast<int>(rate)).c_str() : "max",
      latency.size(), failed, done ? "" : " (timed out)");
  std::printf("creating all pods took %.0f ms\n", Ms(created_all - start));
  std::printf("start to last binding: %.0f ms -> %.0f pods/s\n",
              Ms(last_bind - start),
              latency.size() / (Ms(last_bind - start) / 1000.0));
  std::printf(
      "first to last binding: %.0f ms -> %.0f pods/s\n",
      Ms(last_bind - first_bind),
      latency.size() / std::max(1e-9, Ms(last_bind - first_bind) / 1000.0));
  std::printf("creation to binding: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
              pct(0.50), pct(0.99), latency.empty() ? 0.0 : latency.back());
  std::printf("ksched peak RSS: %ld MiB\n", peak_rss_kib / 1024);
  // Both share this machine's cores: where the CPU went says what bounds
  // the rate.
  std::printf("CPU seconds: ksched %.1f, test API server and load %.1f\n",
              CpuSeconds(RUSAGE_CHILDREN), CpuSeconds(RUSAGE_SELF));
  std::filesystem::remove_all(dir);
  return done ? 0 : 1;
}

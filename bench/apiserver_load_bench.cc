// End-to-end throughput, CPU and memory: the real ksched binary schedules
// pods created in the test API server, over HTTPS, as it would in a cluster.
//
//   apiserver_load_bench [--workload basic|anti-affinity|spread|dra
//                         |dra-partitions|gpu-cluster]
//                        [--nodes N] [--pods N] [--running-pods N]
//                        [--mode stream|backlog] [--rate PODS_PER_S]
//                        [--parallelism N] [--ksched-args "..."]
//                        [--perf "record -F 499 -g -o FILE"]
//                        [--ksched-binary PATH]
//                        [--node-shape CPU,MEMORY,ZONES[,POOLS]]
//                        [--objects recorded|minimal]
//
// --workload picks one of the shapes in bench/workloads.h (scheduler_perf's
//          SchedulingBasic, SchedulingPodAntiAffinity and TopologySpreading);
//          with it the defaults become 5,000 nodes, the workload's pod count
//          and backlog mode, as in the design notes' side-by-side runs.
//          Without it: basic pods, 1,000 nodes, 5,000 pods, stream mode.
//          dra is scheduler_perf's SchedulingWithResourceClaimTemplate:
//          500 nodes of 10 devices, 5,000 pods of one device each from a
//          ResourceClaimTemplate; this process plays the resourceclaim
//          controller (the claim, then the pod's resourceClaimStatuses)
//          right after creating each pod. dra-partitions takes GPU
//          partitions instead; gpu-cluster is 5,000 nodes of which 1,000
//          have 8 GPUs, and 2,000 pods claiming 1, 2, 4 or 8 from eight
//          templates (half h100 only), each pod's claim made likewise.
// --running-pods: pods already bound to the nodes (round robin) before
//          ksched starts, which its informers list at start-up.
// --node-shape: the nodes' capacity and zones (default 32,128Gi,10;
//          16,64Gi,50 is a large cloud cluster's), and with a fourth
//          number how many node pools their node-pool label spreads
//          them over.
// --objects: recorded (the default) creates nodes and pods as `kubectl
//          apply` does, so that they come back as large as the objects
//          recorded from a real API server: the last-applied annotation,
//          a Node's arch and os labels, and every pod's service-account
//          token volume (added by the server's admission, as a real one
//          adds it). minimal creates the bare objects, without the token
//          volume, as the bench did before.
// stream:  ksched starts first; the pods are then created as fast as the
//          server takes them, and each pod's time from creation to its
//          Binding is measured (p50/p99), with the bind rate. With
//          --rate, pods are created at that steady rate instead, so the
//          latency is that of a scheduler keeping up, not of a queue
//          draining a burst.
// backlog: the pods exist before ksched starts: time from start to all
//          bound.
// CPU is split at the "caches synced" log line: before it is start-up
// (listing and decoding everything), after it is the cost of scheduling and
// binding, divided per bound pod. The test API server runs in this process,
// so this process's CPU over the same interval is the server's.
// --ksched-binary runs another build of ksched (paired before/after runs).
// --perf runs `perf ARGS -p KSCHED_PID` from the sync to the last binding,
// so a profile covers scheduling and binding only.
// Filling the server (nodes and running pods, then a backlog) is timed, with
// this process's RSS, which is mostly the test API server's objects.
// A ksched that cannot start or exits early ends the run with its log tail.
// It prints figures; it asserts nothing.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/workloads.h"
#include "pkg/api/pod.h"
#include "pkg/client/rest_list_watch.h"
#include "test/apiserver/test_api_server.h"
#include "test/integration/ksched_process.h"

namespace {

using Clock = std::chrono::steady_clock;
using ksched::bench::Workload;
using ksched::testing::KschedProcess;
using ksched::testing::TestApiServer;

double Ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// User + system CPU seconds of this process: the test API server, the pod
// creation and the polling.
double SelfCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// User + system CPU seconds of a running process, from /proc/PID/stat
// (fields 14 and 15, after the parenthesised command name).
double ProcessCpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return static_cast<double>(utime + stime) / sysconf(_SC_CLK_TCK);
}

// This process's resident set now (VmRSS), in KiB.
long SelfRssKiB() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// This process's resident-set high-water mark, in KiB.
long SelfPeakRssKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

struct Options {
  std::optional<Workload> workload;
  int nodes = 1000;
  int pods = 5000;
  int running_pods = 0;
  std::string mode = "stream";
  std::string extra;
  int parallelism = 16;  // kube-scheduler's default
  double rate = 0;       // pods/s; 0: as fast as the server takes them
  std::string perf;      // perf's arguments, without -p
  std::string binary = KSCHED_BINARY;
  ksched::bench::NodeShape node_shape;
  bool recorded_objects = true;
};

std::optional<Options> ParseOptions(int argc, char** argv) {
  Options o;
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) {
      std::cerr << "flag " << argv[i] << " needs a value\n";
      return std::nullopt;
    }
    flags[argv[i]] = argv[i + 1];
  }
  if (flags.count("--workload")) {
    o.workload = ksched::bench::ParseWorkload(flags["--workload"]);
    if (!o.workload) {
      std::cerr << "unknown workload " << flags["--workload"]
                << " (basic, anti-affinity, spread, dra, dra-partitions, "
                   "gpu-cluster)\n";
      return std::nullopt;
    }
    o.nodes = ksched::bench::DefaultNodes(*o.workload);
    o.pods = ksched::bench::DefaultPods(*o.workload);
    o.mode = "backlog";
  }
  for (const auto& [flag, value] : flags) {
    if (flag == "--workload") continue;
    if (flag == "--nodes") {
      o.nodes = std::stoi(value);
    } else if (flag == "--pods") {
      o.pods = std::stoi(value);
    } else if (flag == "--running-pods") {
      o.running_pods = std::stoi(value);
    } else if (flag == "--mode") {
      o.mode = value;
    } else if (flag == "--ksched-args") {
      o.extra = value;
    } else if (flag == "--parallelism") {
      o.parallelism = std::stoi(value);
    } else if (flag == "--rate") {
      o.rate = std::stod(value);
    } else if (flag == "--ksched-binary") {
      o.binary = value;
    } else if (flag == "--perf") {
      o.perf = value;
    } else if (flag == "--node-shape") {
      auto shape = ksched::bench::ParseNodeShape(value);
      if (!shape) {
        std::cerr
            << "--node-shape is CPU,MEMORY,ZONES[,POOLS] (e.g. 16,64Gi,50 "
               "or 16,64Gi,50,20)\n";
        return std::nullopt;
      }
      o.node_shape = *shape;
    } else if (flag == "--objects") {
      if (value != "recorded" && value != "minimal") {
        std::cerr << "--objects is recorded or minimal\n";
        return std::nullopt;
      }
      o.recorded_objects = value == "recorded";
    } else {
      std::cerr << "unknown flag " << flag << "\n";
      return std::nullopt;
    }
  }
  if (o.mode != "stream" && o.mode != "backlog") {
    std::cerr << "--mode is stream or backlog\n";
    return std::nullopt;
  }
  return o;
}

// Pods not bound whose PodScheduled condition is False for reason
// Unschedulable: the scheduler found no node for them.
int CountUnschedulablePods(TestApiServer& server) {
  const auto reply = server.List("/api/v1/pods");
  if (reply.code != 200) return 0;
  auto page = ksched::client::DecodeListPage<ksched::api::Pod>(reply.body);
  if (!page.ok()) return 0;
  return static_cast<int>(std::count_if(
      page->items.begin(), page->items.end(), [](const ksched::api::Pod& p) {
        return p.spec.node_name.empty() &&
               std::any_of(
                   p.status.conditions.begin(), p.status.conditions.end(),
                   [](const ksched::api::PodCondition& c) {
                     return c.type == ksched::api::kPodScheduled &&
                            c.status == "False" && c.reason == "Unschedulable";
                   });
      }));
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<Options> parsed = ParseOptions(argc, argv);
  if (!parsed) return 2;
  const Options& o = *parsed;
  const Workload workload = o.workload.value_or(Workload::kBasic);

  auto server =
      TestApiServer::Start({.mount_service_account_token = o.recorded_objects});
  // Nodes and pods as the user's kubectl would create them.
  auto applied = [&o](std::string json) {
    return o.recorded_objects ? ksched::bench::AsKubectlApplied(json) : json;
  };
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ksched-load-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string kubeconfig = dir / "kubeconfig";
  server->WriteKubeconfig(kubeconfig);
  const std::string config = dir / "config.yaml";
  {
    // Client limits as in the design notes' kube-scheduler runs.
    std::ofstream f(config);
    f << "apiVersion: kubescheduler.config.k8s.io/v1\n"
         "kind: KubeSchedulerConfiguration\n"
         "parallelism: "
      << o.parallelism
      << "\n"
         "clientConnection:\n  qps: 5000\n  burst: 5000\n"
         "profiles:\n- schedulerName: ksched\n";
  }
  // Filling the server is timed apart from scheduling: at 100,000 nodes it
  // is the bulk of a run's wall time.
  const Clock::time_point fill_begin = Clock::now();
  for (int i = 0; i < o.nodes; ++i) {
    const auto reply = server->Create(
        "/api/v1/nodes", applied(ksched::bench::NodeJson(i, o.node_shape)));
    if (reply.code != 201) {
      std::cerr << "create failed: " << reply.body << "\n";
      return 1;
    }
  }
  int slices = 0;
  int device_objects = 0;
  if (ksched::bench::IsDra(workload)) {
    for (const std::string& object :
         ksched::bench::DeviceObjectsJson(workload)) {
      const bool template_object =
          object.find("ResourceClaimTemplate") != std::string::npos;
      const auto reply = server->Create(
          template_object ? "/apis/resource.k8s.io/v1/namespaces/default/"
                            "resourceclaimtemplates"
                          : "/apis/resource.k8s.io/v1/deviceclasses",
          object);
      if (reply.code != 201) {
        std::cerr << "create failed: " << reply.body << "\n";
        return 1;
      }
      ++device_objects;
    }
    for (int i = 0; i < o.nodes; ++i) {
      for (const std::string& slice :
           ksched::bench::ResourceSlicesJson(workload, i)) {
        server->Create("/apis/resource.k8s.io/v1/resourceslices", slice);
        ++slices;
      }
    }
  }
  for (int i = 0; i < o.running_pods; ++i) {
    const auto reply = server->Create(
        "/api/v1/namespaces/default/pods",
        applied(ksched::bench::RunningPodJson(
            i, "node-" + std::to_string(i % std::max(1, o.nodes)))));
    if (reply.code != 201) {
      std::cerr << "create failed: " << reply.body << "\n";
      return 1;
    }
  }
  const Clock::duration fill_time = Clock::now() - fill_begin;
  std::vector<std::string> args = {"--kubeconfig",
                                   kubeconfig,
                                   "--config",
                                   config,
                                   "--extender-bind-address=",
                                   "--metrics-bind-address="};
  for (auto& a : Split(o.extra)) args.push_back(a);

  std::map<std::string, Clock::time_point> created;
  // The resourceclaim controller's two writes for pod i.
  auto make_claim = [&](int i, const std::string& pod_body) {
    const std::string key = R"("uid":")";
    const size_t at = pod_body.find(key);
    if (at == std::string::npos) return false;
    const size_t end = pod_body.find('"', at + key.size());
    const std::string uid =
        pod_body.substr(at + key.size(), end - at - key.size());
    const auto claim = server->Create(
        "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims",
        ksched::bench::GeneratedClaimJson(workload, i, uid));
    const auto patched = server->Patch(
        "/api/v1/namespaces/default/pods/pod-" + std::to_string(i) + "/status",
        ksched::bench::ClaimStatusPatch(workload, i));
    if (claim.code != 201 || patched.code != 200) {
      std::cerr << "claim for pod-" << i << " failed: " << claim.body << " "
                << patched.body << "\n";
      return false;
    }
    return true;
  };
  auto create_pods = [&] {
    const Clock::time_point begin = Clock::now();
    for (int i = 0; i < o.pods; ++i) {
      if (o.rate > 0) {
        std::this_thread::sleep_until(
            begin + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(i / o.rate)));
      }
      const auto reply = server->Create(
          "/api/v1/namespaces/default/pods",
          applied(ksched::bench::PendingPodJson(workload, i, "ksched")));
      created["pod-" + std::to_string(i)] = Clock::now();
      if (reply.code != 201) {
        std::cerr << "create failed: " << reply.body << "\n";
        return false;
      }
      if (ksched::bench::IsDra(workload) && !make_claim(i, reply.body)) {
        return false;
      }
    }
    return true;
  };
  auto synced = [](const KschedProcess& p) {
    return p.Log().find("caches synced") != std::string::npos;
  };

  const Clock::time_point backlog_begin = Clock::now();
  if (o.mode == "backlog" && !create_pods()) return 1;
  const Clock::duration backlog_time = Clock::now() - backlog_begin;
  const long filled_rss_kib = SelfRssKiB();
  // Printed now: they stand even if ksched then fails.
  const int filled =
      o.nodes + o.running_pods +
      (ksched::bench::IsDra(workload) ? slices + device_objects : 0);
  std::printf(
      "filling the server: %d objects in %.0f ms (%.0f objects/s), %.1f MiB "
      "RSS then\n",
      filled, Ms(fill_time), filled / std::max(1e-9, Ms(fill_time) / 1000.0),
      filled_rss_kib / 1024.0);
  if (o.mode == "backlog") {
    std::printf("creating the pending pods: %d in %.0f ms\n", o.pods,
                Ms(backlog_time));
  }
  std::fflush(stdout);
  const Clock::time_point start = Clock::now();
  const double server_cpu_at_start = SelfCpuSeconds();
  KschedProcess ksched(args, dir / "ksched.log", o.binary);
  if (!ksched.started()) {
    std::cerr << ksched.error() << "\n";
    return 1;
  }
  // Start-up ends when the informers synced; the CPU spent until then is
  // listing and decoding. Polled often so that little scheduling CPU falls
  // on the start-up side. A ksched that exits first ends the run at once.
  ksched::testing::WaitUntil(
      [&] { return synced(ksched) || !ksched.Running(); },
      std::chrono::seconds(300));
  if (!synced(ksched)) {
    std::cerr << "ksched "
              << (ksched.Running()
                      ? "did not report caches synced within 300 s"
                      : ksched.ending() + " before its caches synced")
              << ksched.Tail() << "\n";
    return 1;
  }
  const Clock::time_point synced_at = Clock::now();
  const double ksched_cpu_at_sync = ProcessCpuSeconds(ksched.pid());
  const double server_cpu_at_sync = SelfCpuSeconds();
  // Listing and decoding the cluster's objects: the peak so far.
  const long rss_at_sync_kib = ksched.PeakRssKiB();
  pid_t perf = -1;
  if (!o.perf.empty()) {
    perf = fork();
    if (perf == 0) {
      std::vector<std::string> argv = {"perf"};
      for (auto& a : Split(o.perf)) argv.push_back(a);
      argv.push_back("-p");
      argv.push_back(std::to_string(ksched.pid()));
      std::vector<char*> raw;
      for (std::string& a : argv) raw.push_back(a.data());
      raw.push_back(nullptr);
      execvp(raw[0], raw.data());
      _exit(127);
    }
  }
  if (o.mode == "stream" && !create_pods()) return 1;
  const auto created_all = Clock::now();
  // The run ends when every pod is bound, or when bindings have stopped
  // and each pod left is unschedulable: a shape can leave a few (in
  // gpu-cluster, where the smaller pods went, which ties decide at random,
  // can leave no whole GPU node for the last 8-GPU pods). CPU is read at
  // the last binding, so the wait that proves the stop costs nothing.
  int bound_seen = -1;
  int unschedulable = 0;
  Clock::time_point last_progress = Clock::now();
  double ksched_cpu_at_end = ProcessCpuSeconds(ksched.pid());
  double server_cpu_at_end = SelfCpuSeconds();
  const bool done =
      ksched::testing::WaitUntil(
          [&] {
            if (!ksched.Running()) return true;
            const int bound_now = server->CountBindings(201);
            if (bound_now != bound_seen) {
              bound_seen = bound_now;
              last_progress = Clock::now();
              ksched_cpu_at_end = ProcessCpuSeconds(ksched.pid());
              server_cpu_at_end = SelfCpuSeconds();
              return bound_now >= o.pods;
            }
            // Longer than the longest pod backoff (10 s), so that no pod
            // still due for a retry is taken for a settled one.
            if (Clock::now() - last_progress < std::chrono::seconds(12)) {
              return false;
            }
            last_progress = Clock::now();
            unschedulable = CountUnschedulablePods(*server);
            return bound_now + unschedulable >= o.pods;
          },
          std::chrono::seconds(900)) &&
      server->CountBindings(201) + unschedulable >= o.pods;
  const bool exited = !done && !ksched.Running();
  if (exited) {
    std::cerr << "ksched " << ksched.ending() << " before binding every pod"
              << ksched.Tail() << "\n";
  }
  if (!done) {
    ksched_cpu_at_end = ProcessCpuSeconds(ksched.pid());
    server_cpu_at_end = SelfCpuSeconds();
  }
  const auto records = server->Bindings();
  const long peak_rss_kib = ksched.PeakRssKiB();
  if (perf > 0) {
    // perf writes its file when interrupted.
    kill(perf, SIGINT);
    waitpid(perf, nullptr, 0);
  }
  ksched.Terminate();

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
  const double bound = static_cast<double>(latency.size());
  const double per_pod = bound > 0 ? 1000.0 / bound : 0;
  std::printf(
      "workload=%s mode=%s nodes=%d running_pods=%d pods=%d rate=%s "
      "bound=%zu unschedulable=%d failed_bindings=%d%s\n",
      std::string(ksched::bench::WorkloadName(workload)).c_str(),
      o.mode.c_str(), o.nodes, o.running_pods, o.pods,
      o.rate > 0 ? std::to_string(static_cast<int>(o.rate)).c_str() : "max",
      latency.size(), unschedulable, failed,
      done ? "" : (exited ? " (ksched exited)" : " (timed out)"));
  std::printf("this process (test API server) peak RSS: %.1f MiB\n",
              SelfPeakRssKiB() / 1024.0);
  std::printf(
      "start-up: %.0f ms to caches synced, ksched CPU %.2f s, test API "
      "server CPU %.2f s\n",
      Ms(synced_at - start), ksched_cpu_at_sync,
      server_cpu_at_sync - server_cpu_at_start);
  if (o.mode == "stream") {
    std::printf("creating all pods took %.0f ms\n",
                Ms(created_all - synced_at));
  }
  std::printf("synced to last binding: %.0f ms -> %.0f pods/s\n",
              Ms(last_bind - synced_at),
              bound / std::max(1e-9, Ms(last_bind - synced_at) / 1000.0));
  std::printf("start to last binding: %.0f ms -> %.0f pods/s\n",
              Ms(last_bind - start),
              bound / std::max(1e-9, Ms(last_bind - start) / 1000.0));
  std::printf("creation to binding: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
              pct(0.50), pct(0.99), latency.empty() ? 0.0 : latency.back());
  // Both share this machine's cores: where the CPU went says what bounds
  // the rate.
  std::printf(
      "CPU per bound pod after sync: ksched %.3f ms, test API server %.3f "
      "ms\n",
      (ksched_cpu_at_end - ksched_cpu_at_sync) * per_pod,
      (server_cpu_at_end - server_cpu_at_sync) * per_pod);
  std::printf("ksched CPU in all: %.2f s\n", ksched_cpu_at_end);
  std::printf("ksched peak RSS: %.1f MiB (%.1f MiB at caches synced)\n",
              peak_rss_kib / 1024.0, rss_at_sync_kib / 1024.0);
  std::filesystem::remove_all(dir);
  return done ? 0 : 1;
}

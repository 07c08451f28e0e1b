// gpu_plan_bench: `ksched simulate` end to end, planning a GPU cluster as a
// platform engineer would: CPU-only nodes with running pods that leave too
// little CPU for a GPU pod, GPU nodes publishing 8 GPUs each in a
// ResourceSlice (most of them held whole by a running pod's allocated
// claim), and pending pods each with a claim from a template for 1, 2, 4
// or 8 GPUs. It writes the cluster file once, then runs the real
// binary for each question and prints its wall time, CPU time (user +
// system), peak RSS and what it answered:
//   plain       will the pending pods fit (`simulate --stats`);
//   until-fits  how many GPU nodes like gpu-0 are needed
//               (`--add-nodes-until-fits`: runs made, nodes needed);
//   capacity    how many more 8-GPU pods fit (`--capacity`).
//
//   gpu_plan_bench [--cpu-nodes 4000] [--gpu-nodes 1000]
//                  [--busy-gpu-nodes 800] [--pending 500]
//                  [--questions plain,until-fits,capacity] [--dir /tmp]
//                  [--ksched-binary PATH]
//
// It prints figures; it asserts nothing.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/util/flags.h"
#include "pkg/util/json.h"

extern char** environ;

namespace {

struct Shape {
  int cpu_nodes = 4000;
  int gpu_nodes = 1000;
  int busy_gpu_nodes = 800;  // each running a pod that holds its 8 GPUs
  int pending = 500;
};

std::string ClusterJson(const Shape& shape) {
  std::string j = R"({"apiVersion":"v1","kind":"List","items":[)";
  j +=
      R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu.example.com"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \"gpu.example.com\""}}]}})";
  j += R"(,{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ml"}})";
  for (int i = 0; i < shape.cpu_nodes; ++i) {
    const std::string n = "cpu-" + std::to_string(i);
    j +=
        R"(,{"apiVersion":"v1","kind":"Node","metadata":{"name":")" + n +
        R"(","labels":{"kubernetes.io/hostname":")" + n +
        R"(","topology.kubernetes.io/zone":"z)" + std::to_string(i % 10) +
        R"("}},"status":{"allocatable":{"cpu":"16","memory":"64Gi","pods":"110"}}})";
    // A running pod leaves 4 of 16 CPUs: no GPU pod (8 CPUs) fits.
    j +=
        R"(,{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-)" +
        std::to_string(i) + R"(","namespace":"ml"},"spec":{"nodeName":")" + n +
        R"(","containers":[{"name":"c","resources":{"requests":{"cpu":"12","memory":"16Gi"}}}]},"status":{"phase":"Running"}})";
  }
  std::string devices;
  for (int d = 0; d < 8; ++d) {
    devices += std::string(d > 0 ? "," : "") + R"({"name":"gpu-)" +
               std::to_string(d) +
               R"(","attributes":{"model":{"string":"H100"}}})";
  }
  for (int i = 0; i < shape.gpu_nodes; ++i) {
    const std::string n = "gpu-" + std::to_string(i);
    j +=
        R"(,{"apiVersion":"v1","kind":"Node","metadata":{"name":")" + n +
        R"(","labels":{"kubernetes.io/hostname":")" + n +
        R"(","topology.kubernetes.io/zone":"z)" + std::to_string(i % 10) +
        R"("}},"status":{"allocatable":{"cpu":"96","memory":"768Gi","pods":"110"}}})";
    j +=
        R"(,{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":")" +
        n + R"(-gpus"},"spec":{"driver":"gpu.example.com","nodeName":")" + n +
        R"(","pool":{"name":")" + n +
        R"(","generation":1,"resourceSliceCount":1},"devices":[)" + devices +
        "]}}";
  }
  // Busy GPU nodes: a running pod holds all 8 GPUs through a claim the
  // scheduler allocated.
  for (int i = 0; i < shape.busy_gpu_nodes && i < shape.gpu_nodes; ++i) {
    const std::string n = "gpu-" + std::to_string(i);
    const std::string pod = "trainer-" + std::to_string(i);
    const std::string uid = "uid-" + pod;
    std::string results;
    for (int d = 0; d < 8; ++d) {
      results += std::string(d > 0 ? "," : "") +
                 R"({"request":"gpus","driver":"gpu.example.com","pool":")" +
                 n + R"(","device":"gpu-)" + std::to_string(d) + R"("})";
    }
    j +=
        R"(,{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":")" +
        pod +
        R"(-gpus","namespace":"ml"},"spec":{"devices":{"requests":[{"name":"gpus","exactly":{"deviceClassName":"gpu.example.com","count":8}}]}},"status":{"allocation":{"devices":{"results":[)" +
        results +
        R"(]},"nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":[")" +
        n + R"("]}]}]}},"reservedFor":[{"resource":"pods","name":")" + pod +
        R"(","uid":")" + uid + R"("}]}})";
    j +=
        R"(,{"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + pod +
        R"(","namespace":"ml","uid":")" + uid + R"("},"spec":{"nodeName":")" +
        n +
        R"(","containers":[{"name":"c","resources":{"requests":{"cpu":"32","memory":"256Gi"},"claims":[{"name":"gpus"}]}}],"resourceClaims":[{"name":"gpus","resourceClaimName":")" +
        pod + R"(-gpus"}]},"status":{"phase":"Running"}})";
  }
  for (int c : {1, 2, 4, 8}) {
    j +=
        R"(,{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"gpu-)" +
        std::to_string(c) +
        R"(","namespace":"ml"},"spec":{"spec":{"devices":{"requests":[{"name":"gpus","exactly":{"deviceClassName":"gpu.example.com","count":)" +
        std::to_string(c) + "}}]}}}}";
  }
  // Sizes drawn from a fixed sequence, the same every run.
  uint64_t state = 1;
  for (int i = 0; i < shape.pending; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int gpus = 1 << ((state >> 33) % 4);
    j +=
        R"(,{"apiVersion":"v1","kind":"Pod","metadata":{"name":"job-)" +
        std::to_string(i) +
        R"(","namespace":"ml"},"spec":{"schedulerName":"ksched","containers":[{"name":"c","resources":{"requests":{"cpu":"8","memory":"32Gi"},"claims":[{"name":"gpus"}]}}],"resourceClaims":[{"name":"gpus","resourceClaimTemplateName":"gpu-)" +
        std::to_string(gpus) + R"("}]}})";
  }
  j += "]}\n";
  return j;
}

constexpr std::string_view kTemplateNode = R"(apiVersion: v1
kind: Node
metadata: {name: gpu-new, labels: {topology.kubernetes.io/zone: z0}}
status: {allocatable: {cpu: "96", memory: 768Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-new-gpus}
spec:
  driver: gpu.example.com
  nodeName: gpu-new
  pool: {name: gpu-new, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}, {name: gpu-2}, {name: gpu-3}, {name: gpu-4}, {name: gpu-5}, {name: gpu-6}, {name: gpu-7}]
)";

constexpr std::string_view kEightGpuPod = R"(apiVersion: v1
kind: Pod
metadata: {name: train, namespace: ml}
spec:
  schedulerName: ksched
  containers:
  - name: c
    resources:
      requests: {cpu: "8", memory: 32Gi}
      claims: [{name: gpus}]
  resourceClaims: [{name: gpus, resourceClaimTemplateName: gpu-8}]
)";

struct Run {
  int exit_code = -1;
  double wall = 0;
  double cpu = 0;
  double peak_rss_mib = 0;
  std::string out;
};

// Runs the binary with `args`, its stdout to `out_path`, and measures it.
Run Measure(const std::string& binary, const std::vector<std::string>& args,
            const std::string& out_path) {
  std::vector<std::string> argv_strings = {binary};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  Run run;
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(),
                  environ) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return run;
  }
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  run.wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  run.cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  run.peak_rss_mib = usage.ru_maxrss / 1024.0;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(out_path);
  std::stringstream text;
  text << in.rdbuf();
  run.out = text.str();
  return run;
}

void Write(const std::string& path, std::string_view text) {
  std::ofstream(path) << text;
}

}  // namespace

int main(int argc, char** argv) {
  Shape shape;
  int64_t cpu_nodes = shape.cpu_nodes, gpu_nodes = shape.gpu_nodes,
          busy = shape.busy_gpu_nodes, pending = shape.pending;
  std::string dir = "/tmp";
  std::string binary = KSCHED_BINARY;
  std::vector<std::string> questions = {"plain", "until-fits", "capacity"};
  std::string questions_flag;
  ksched::util::FlagSet flags("gpu_plan_bench");
  flags.Int("cpu-nodes", &cpu_nodes, "CPU-only nodes");
  flags.Int("gpu-nodes", &gpu_nodes, "nodes with 8 GPUs each");
  flags.Int("busy-gpu-nodes", &busy,
            "GPU nodes whose 8 GPUs a running pod holds");
  flags.Int("pending", &pending, "pending pods, each claiming 1-8 GPUs");
  flags.String("questions", &questions_flag,
               "comma-separated: plain, until-fits, capacity");
  flags.String("dir", &dir, "where the files are written");
  flags.String("ksched-binary", &binary, "the ksched binary to run");
  std::vector<std::string> args(argv + 1, argv + argc);
  if (auto parsed = flags.Parse(args); !parsed.ok()) {
    std::cerr << parsed.error().message() << "\n";
    return 2;
  }
  if (!questions_flag.empty()) {
    questions.clear();
    std::stringstream in(questions_flag);
    for (std::string q; std::getline(in, q, ',');) questions.push_back(q);
  }
  shape = {static_cast<int>(cpu_nodes), static_cast<int>(gpu_nodes),
           static_cast<int>(busy), static_cast<int>(pending)};
  const std::string base =
      dir + "/gpu-plan-" + std::to_string(shape.cpu_nodes) + "-" +
      std::to_string(shape.gpu_nodes) + "-" + std::to_string(shape.pending);
  const std::string cluster = base + ".json";
  Write(cluster, ClusterJson(shape));
  Write(base + "-node.yaml", kTemplateNode);
  Write(base + "-train.yaml", kEightGpuPod);
  std::printf(
      "gpu_plan_bench: %d CPU-only nodes, %d GPU nodes (8 GPUs each, %d of "
      "them held whole by a running pod), %d pending pods claiming 1, 2, 4 "
      "or 8 GPUs\n",
      shape.cpu_nodes, shape.gpu_nodes, shape.busy_gpu_nodes, shape.pending);
  for (const std::string& q : questions) {
    std::vector<std::string> run_args = {"simulate", "--quiet", "--cluster",
                                         cluster,    "-o",      "json"};
    if (q == "until-fits") {
      run_args.insert(run_args.end(), {"--node-template", base + "-node.yaml",
                                       "--add-nodes-until-fits"});
    } else if (q == "capacity") {
      run_args.insert(run_args.end(), {"--capacity", base + "-train.yaml"});
    } else if (q != "plain") {
      std::cerr << "unknown question " << q << "\n";
      return 2;
    }
    const Run run = Measure(binary, run_args, base + "-" + q + ".out.json");
    rapidjson::Document doc;
    doc.Parse(run.out.c_str());
    std::string answer;
    if (run.exit_code != 0 || doc.HasParseError() || !doc.IsObject()) {
      answer = "exit " + std::to_string(run.exit_code);
    } else {
      int unscheduled = 0;
      for (const auto& p : doc["pods"].GetArray())
        unscheduled += p["node"].IsNull();
      answer = std::to_string(unscheduled) + " of " +
               std::to_string(doc["pods"].Size()) + " pods unscheduled";
      if (doc.HasMember("nodeSearch")) {
        const auto& s = doc["nodeSearch"];
        answer += "; " + std::to_string(doc["nodesNeeded"].GetInt()) +
                  " GPU nodes needed (" + (s["found"].GetBool() ? "" : "not ") +
                  "found), " + std::to_string(s["runs"].GetInt()) +
                  " runs, search " + std::to_string(s["seconds"].GetDouble()) +
                  " s";
      }
      if (doc.HasMember("capacity")) {
        answer += "; " + std::to_string(doc["capacity"]["fits"].GetInt()) +
                  " more 8-GPU pods fit";
      }
    }
    std::printf("%-11s wall %8.2f s  cpu %8.2f s  peak RSS %7.1f MiB  %s\n",
                q.c_str(), run.wall, run.cpu, run.peak_rss_mib, answer.c_str());
  }
  return 0;
}

// cluster_load_bench: `ksched simulate` end to end on large cluster files,
// as kubectl prints a real cluster (`kubectl get nodes,pods -A -o json`:
// managed fields, conditions, node images, container statuses), in JSON
// and in YAML. For each file it runs the real binary with --stats and
// prints the load time and the peak RSS once loaded, then scheduling's
// pods/s and the run's peak RSS.
//
//   cluster_load_bench [--nodes 5000] [--pods 10000,50000] [--pending 1000]
//                      [--shapes basic,spread] [--formats json,yaml]
//                      [--dir /tmp] [--ksched-binary PATH]
//
// Shapes (scheduler_perf's): basic, requests only; spread, each pod of a
// group also spread over zones (maxSkew 1) with required anti-affinity on
// the hostname. The files are written once into --dir and reused.
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/api/yaml.h"
#include "pkg/util/flags.h"
#include "pkg/util/json.h"

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void Str(Writer& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
void KV(Writer& w, const char* k, const std::string& v) {
  w.Key(k);
  Str(w, v);
}

void ManagedFields(Writer& w, const char* manager) {
  w.Key("managedFields");
  w.StartArray();
  for (int i = 0; i < 2; ++i) {
    w.StartObject();
    KV(w, "apiVersion", "v1");
    KV(w, "fieldsType", "FieldsV1");
    w.Key("fieldsV1");
    w.StartObject();
    w.Key("f:metadata");
    w.StartObject();
    w.Key("f:labels");
    w.StartObject();
    w.Key(".");
    w.StartObject();
    w.EndObject();
    w.Key("f:app");
    w.StartObject();
    w.EndObject();
    w.EndObject();
    w.EndObject();
    w.EndObject();
    KV(w, "manager", manager);
    KV(w, "operation", "Update");
    KV(w, "time", "2026-11-20T10:00:00Z");
    w.EndObject();
  }
  w.EndArray();
}

void Node(Writer& w, int i) {
  const std::string name = "node-" + std::to_string(i);
  w.StartObject();
  KV(w, "apiVersion", "v1");
  KV(w, "kind", "Node");
  w.Key("metadata");
  w.StartObject();
  KV(w, "name", name);
  KV(w, "uid", "uid-" + name);
  KV(w, "resourceVersion", std::to_string(1000 + i));
  KV(w, "creationTimestamp", "2026-11-01T00:00:00Z");
  w.Key("labels");
  w.StartObject();
  KV(w, "kubernetes.io/hostname", name);
  KV(w, "kubernetes.io/os", "linux");
  KV(w, "kubernetes.io/arch", "amd64");
  KV(w, "topology.kubernetes.io/zone", "zone-" + std::to_string(i % 10));
  KV(w, "node.kubernetes.io/instance-type", "m5.8xlarge");
  w.EndObject();
  ManagedFields(w, "kubelet");
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  KV(w, "providerID", "aws:///zone/i-" + std::to_string(i));
  w.EndObject();
  w.Key("status");
  w.StartObject();
  for (const char* key : {"capacity", "allocatable"}) {
    w.Key(key);
    w.StartObject();
    KV(w, "cpu", "32");
    KV(w, "memory", "128Gi");
    KV(w, "pods", "110");
    KV(w, "ephemeral-storage", "100Gi");
    w.EndObject();
  }
  w.Key("conditions");
  w.StartArray();
  for (const char* type :
       {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}) {
    const bool ready = std::string(type) == "Ready";
    w.StartObject();
    KV(w, "type", type);
    KV(w, "status", ready ? "True" : "False");
    KV(w, "lastHeartbeatTime", "2026-11-25T00:00:00Z");
    KV(w, "lastTransitionTime", "2026-11-01T00:00:00Z");
    KV(w, "reason", std::string("Kubelet") + (ready ? "Ready" : type));
    KV(w, "message", "kubelet is posting its status");
    w.EndObject();
  }
  w.EndArray();
  w.Key("nodeInfo");
  w.StartObject();
  KV(w, "kernelVersion", "6.1.0");
  KV(w, "osImage", "Debian GNU/Linux 12");
  KV(w, "containerRuntimeVersion", "containerd://1.7");
  KV(w, "kubeletVersion", "v1.32.0");
  KV(w, "operatingSystem", "linux");
  KV(w, "architecture", "amd64");
  w.EndObject();
  w.Key("images");
  w.StartArray();
  for (int j = 0; j < 20; ++j) {
    w.StartObject();
    w.Key("names");
    w.StartArray();
    Str(w, "registry.example.com/app-" + std::to_string(j) +
               "@sha256:" + std::string(64, static_cast<char>('a' + j % 6)));
    Str(w, "registry.example.com/app-" + std::to_string(j) + ":v1");
    w.EndArray();
    w.Key("sizeBytes");
    w.Int64(100000000 + j);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
}

// Pod i of group i % 100; running on `node`, or pending when empty.
void Pod(Writer& w, int i, const std::string& node, bool spread) {
  const std::string group = "app-" + std::to_string(i % 100);
  w.StartObject();
  KV(w, "apiVersion", "v1");
  KV(w, "kind", "Pod");
  w.Key("metadata");
  w.StartObject();
  KV(w, "name", (node.empty() ? "pending-" : "pod-") + std::to_string(i));
  KV(w, "namespace", "default");
  KV(w, "uid", "uid-pod-" + std::to_string(i) + (node.empty() ? "p" : ""));
  KV(w, "creationTimestamp", "2026-11-20T10:00:00Z");
  w.Key("labels");
  w.StartObject();
  KV(w, "app", group);
  KV(w, "pod-template-hash", "5d8f7c9b4");
  w.EndObject();
  w.Key("ownerReferences");
  w.StartArray();
  w.StartObject();
  KV(w, "apiVersion", "apps/v1");
  KV(w, "kind", "ReplicaSet");
  KV(w, "name", group + "-5d8f7c9b4");
  KV(w, "uid", "rs-" + group);
  w.Key("controller");
  w.Bool(true);
  w.EndObject();
  w.EndArray();
  ManagedFields(w, "kube-controller-manager");
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  if (!node.empty()) KV(w, "nodeName", node);
  KV(w, "schedulerName", "ksched");
  w.Key("priority");
  w.Int(0);
  w.Key("containers");
  w.StartArray();
  w.StartObject();
  KV(w, "name", "c");
  KV(w, "image", "registry.example.com/app-" + std::to_string(i % 20) + ":v1");
  w.Key("resources");
  w.StartObject();
  w.Key("requests");
  w.StartObject();
  KV(w, "cpu", "100m");
  KV(w, "memory", "500Mi");
  w.EndObject();
  w.EndObject();
  KV(w, "terminationMessagePath", "/dev/termination-log");
  KV(w, "imagePullPolicy", "IfNotPresent");
  w.EndObject();
  w.EndArray();
  w.Key("tolerations");
  w.StartArray();
  for (const char* key :
       {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    w.StartObject();
    KV(w, "key", key);
    KV(w, "operator", "Exists");
    KV(w, "effect", "NoExecute");
    w.Key("tolerationSeconds");
    w.Int(300);
    w.EndObject();
  }
  w.EndArray();
  if (spread) {
    w.Key("topologySpreadConstraints");
    w.StartArray();
    w.StartObject();
    w.Key("maxSkew");
    w.Int(1);
    KV(w, "topologyKey", "topology.kubernetes.io/zone");
    KV(w, "whenUnsatisfiable", "DoNotSchedule");
    w.Key("labelSelector");
    w.StartObject();
    w.Key("matchLabels");
    w.StartObject();
    KV(w, "app", group);
    w.EndObject();
    w.EndObject();
    w.EndObject();
    w.EndArray();
    w.Key("affinity");
    w.StartObject();
    w.Key("podAntiAffinity");
    w.StartObject();
    w.Key("requiredDuringSchedulingIgnoredDuringExecution");
    w.StartArray();
    w.StartObject();
    KV(w, "topologyKey", "kubernetes.io/hostname");
    w.Key("labelSelector");
    w.StartObject();
    w.Key("matchLabels");
    w.StartObject();
    KV(w, "app", group);
    w.EndObject();
    w.EndObject();
    w.EndObject();
    w.EndArray();
    w.EndObject();
    w.EndObject();
  }
  w.EndObject();
  w.Key("status");
  w.StartObject();
  KV(w, "phase", node.empty() ? "Pending" : "Running");
  if (!node.empty()) {
    KV(w, "qosClass", "Burstable");
    KV(w, "podIP", "10.1.0." + std::to_string(i % 250));
    w.Key("conditions");
    w.StartArray();
    for (const char* type :
         {"Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
      w.StartObject();
      KV(w, "type", type);
      KV(w, "status", "True");
      KV(w, "lastTransitionTime", "2026-11-20T10:00:05Z");
      w.EndObject();
    }
    w.EndArray();
    w.Key("containerStatuses");
    w.StartArray();
    w.StartObject();
    KV(w, "name", "c");
    w.Key("ready");
    w.Bool(true);
    w.Key("restartCount");
    w.Int(0);
    KV(w, "imageID", "sha256:" + std::string(64, 'f'));
    KV(w, "containerID", "containerd://" + std::string(64, 'e'));
    w.EndObject();
    w.EndArray();
  }
  w.EndObject();
  w.EndObject();
}

std::string ClusterJson(int nodes, int pods, int pending, bool spread) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  KV(w, "apiVersion", "v1");
  w.Key("items");
  w.StartArray();
  for (int i = 0; i < nodes; ++i) Node(w, i);
  // Running pods: on distinct nodes per group (anti-affinity holds) where
  // the shape asks for it.
  for (int i = 0; i < pods; ++i) {
    Pod(w, i, "node-" + std::to_string((i / 100 + i * 37) % nodes), spread);
  }
  for (int i = 0; i < pending; ++i) Pod(w, pods + i, "", spread);
  w.EndArray();
  KV(w, "kind", "List");
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && st.st_size > 0;
}

double MiB(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_size / 1048576.0 : 0;
}

std::vector<std::string> Split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t nodes = 5000, pending = 1000;
  std::string pods_list = "10000,50000", shapes = "basic,spread",
              formats = "json,yaml", dir = "/tmp", binary = KSCHED_BINARY;
  ksched::util::FlagSet flags("cluster_load_bench [flags]");
  flags.Int("nodes", &nodes, "Nodes in each file");
  flags.String("pods", &pods_list, "Running pods, comma separated counts");
  flags.Int("pending", &pending, "Pending pods to schedule after loading");
  flags.String("shapes", &shapes, "basic and/or spread");
  flags.String("formats", &formats, "json and/or yaml");
  flags.String("dir", &dir, "Where the files are written (and reused)");
  flags.String("ksched-binary", &binary, "The ksched binary to run");
  auto rest = flags.Parse(std::vector<std::string>(argv + 1, argv + argc));
  if (!rest.ok() || !rest->empty()) {
    std::cerr << (rest.ok() ? "unexpected argument" : rest.error().message())
              << "\n"
              << flags.Usage();
    return 2;
  }
  if (flags.help_requested()) {
    std::cout << flags.Usage();
    return 0;
  }
  std::printf("%-7s %7s %-5s %9s  %-44s\n", "shape", "pods", "file", "size",
              "ksched simulate --stats");
  for (const std::string& shape : Split(shapes)) {
    for (const std::string& count : Split(pods_list)) {
      const int pods = std::stoi(count);
      const std::string base = dir + "/ksched-load-" + shape + "-" +
                               std::to_string(nodes) + "-" + count + "-" +
                               std::to_string(pending);
      std::string json;
      for (const std::string& format : Split(formats)) {
        const std::string path = base + "." + format;
        if (!Exists(path)) {
          if (json.empty()) {
            json = ClusterJson(static_cast<int>(nodes), pods,
                               static_cast<int>(pending), shape == "spread");
          }
          std::ofstream out(path, std::ios::binary);
          if (format == "json") {
            out << json;
          } else {
            rapidjson::Document doc;
            doc.Parse(json.data(), json.size());
            out << ksched::api::JsonToYaml(doc);
          }
        }
        const std::string command = binary +
                                    " simulate --quiet --stats --cluster " +
                                    path + " 2>&1 >/dev/null";
        FILE* pipe = popen(command.c_str(), "r");
        std::string output;
        char buf[512];
        while (pipe != nullptr && std::fgets(buf, sizeof(buf), pipe)) {
          output += buf;
        }
        if (pipe != nullptr) pclose(pipe);
        std::string stats;
        std::stringstream lines(output);
        std::string line;
        while (std::getline(lines, line)) {
          if (line.rfind("stats: ", 0) == 0) stats = line.substr(7);
        }
        std::printf("%-7s %7d %-5s %6.1f MiB  %s\n", shape.c_str(), pods,
                    format.c_str(), MiB(path),
                    stats.empty() ? output.c_str() : stats.c_str());
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

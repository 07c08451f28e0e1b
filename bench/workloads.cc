#include "bench/workloads.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

#include "test/apiserver/json_util.h"
#include "test/apiserver/test_objects.h"

namespace ksched::bench {
namespace {

constexpr int kAntiAffinityGroups = 100;
constexpr int kSpreadGroups = 20;

std::string GroupLabel(int group) {
  return R"("group":"group-)" + std::to_string(group) + "\"";
}

std::string GroupSelector(int group) {
  return R"({"matchLabels":{)" + GroupLabel(group) + "}}";
}

// kGpuCluster's pod i: 1, 2, 4 or 8 GPUs in the weights 4:3:2:1, every
// other run of ten pods h100 only.
int GpusOfPod(int i) {
  const int slot = i % 10;
  return slot < 4 ? 1 : slot < 7 ? 2 : slot < 9 ? 4 : 8;
}
bool H100Only(int i) { return (i / 10) % 2 == 0; }
std::string GpuTemplateName(int gpus, bool h100) {
  return "gpu-" + std::to_string(gpus) + (h100 ? "-h100" : "");
}
std::string GpuTemplateName(int pod) {
  return GpuTemplateName(GpusOfPod(pod), H100Only(pod));
}

}  // namespace

std::optional<Workload> ParseWorkload(std::string_view name) {
  if (name == "basic") return Workload::kBasic;
  if (name == "anti-affinity") return Workload::kAntiAffinity;
  if (name == "spread") return Workload::kSpread;
  if (name == "dra") return Workload::kDra;
  if (name == "dra-partitions") return Workload::kDraPartitions;
  if (name == "gpu-cluster") return Workload::kGpuCluster;
  return std::nullopt;
}

std::string_view WorkloadName(Workload workload) {
  switch (workload) {
    case Workload::kBasic:
      return "basic";
    case Workload::kAntiAffinity:
      return "anti-affinity";
    case Workload::kSpread:
      return "spread";
    case Workload::kDra:
      return "dra";
    case Workload::kDraPartitions:
      return "dra-partitions";
    case Workload::kGpuCluster:
      return "gpu-cluster";
  }
  return "";
}

int DefaultPods(Workload workload) {
  switch (workload) {
    case Workload::kBasic:
      return 10000;
    case Workload::kAntiAffinity:
      return 3000;
    case Workload::kSpread:
      return 5000;
    case Workload::kDra:
    case Workload::kDraPartitions:
      return kDraNodes * kDraDevicesPerNode;
    case Workload::kGpuCluster:
      return 2000;
  }
  return 0;
}

int DefaultNodes(Workload workload) {
  return workload == Workload::kDra || workload == Workload::kDraPartitions
             ? kDraNodes
             : 5000;
}

namespace {

// A count of 1 to 999,999 written in decimal digits, or nullopt.
std::optional<int> ParseCount(std::string_view text) {
  if (text.empty() || text.size() > 6 ||
      text.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  const int n = std::stoi(std::string(text));
  if (n < 1) return std::nullopt;
  return n;
}

}  // namespace

std::optional<NodeShape> ParseNodeShape(std::string_view text) {
  const size_t first = text.find(',');
  const size_t second =
      first == std::string_view::npos ? first : text.find(',', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const size_t third = text.find(',', second + 1);
  NodeShape shape;
  shape.cpu = std::string(text.substr(0, first));
  shape.memory = std::string(text.substr(first + 1, second - first - 1));
  if (shape.cpu.empty() || shape.memory.empty()) return std::nullopt;
  const std::optional<int> zones = ParseCount(text.substr(
      second + 1, third == std::string_view::npos ? std::string_view::npos
                                                  : third - second - 1));
  if (!zones) return std::nullopt;
  shape.zones = *zones;
  if (third != std::string_view::npos) {
    const std::optional<int> pools = ParseCount(text.substr(third + 1));
    if (!pools) return std::nullopt;
    shape.pools = *pools;
  }
  return shape;
}

std::string NodeJson(int i, const NodeShape& shape) {
  const std::string name = "node-" + std::to_string(i);
  return testing::NodeJson(
      {.name = name,
       .cpu = shape.cpu,
       .memory = shape.memory,
       .labels = R"("kubernetes.io/hostname":")" + name +
                 R"(","topology.kubernetes.io/zone":"zone-)" +
                 std::to_string(i % shape.zones) + "\"" +
                 (shape.pools > 0 ? R"(,"node-pool":"pool-)" +
                                        std::to_string(i % shape.pools) + "\""
                                  : std::string())});
}

std::string PendingPodJson(Workload workload, int i,
                           const std::string& scheduler) {
  // scheduler_perf's pod-default requests.
  testing::PodFixture pod{.name = "pod-" + std::to_string(i),
                          .cpu = "100m",
                          .memory = "500Mi",
                          .scheduler = scheduler};
  switch (workload) {
    case Workload::kBasic:
      break;
    case Workload::kAntiAffinity: {
      const int group = i % kAntiAffinityGroups;
      pod.labels = GroupLabel(group);
      pod.extra_spec =
          R"("affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":)" +
          GroupSelector(group) +
          R"(,"topologyKey":"kubernetes.io/hostname"}]}})";
      break;
    }
    case Workload::kSpread: {
      const int group = i % kSpreadGroups;
      pod.labels = GroupLabel(group);
      pod.extra_spec =
          R"("topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":)" +
          GroupSelector(group) + "}]";
      break;
    }
    case Workload::kDra:
    case Workload::kDraPartitions:
      pod.extra_spec =
          R"("resourceClaims":[{"name":"resource","resourceClaimTemplateName":"test-claim-template"}])";
      break;
    case Workload::kGpuCluster:
      pod.extra_spec =
          R"("resourceClaims":[{"name":"gpus","resourceClaimTemplateName":")" +
          GpuTemplateName(i) + R"("}])";
      break;
  }
  return testing::PodJson(pod);
}

std::string DeviceClassJson() {
  return R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
    "metadata":{"name":"test-class"},
    "spec":{"selectors":[{"cel":{"expression":"device.driver == \"test-driver.cdi.k8s.io\""}}]}})";
}

std::string ResourceClaimTemplateJson() {
  return R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate",
    "metadata":{"name":"test-claim-template","namespace":"default"},
    "spec":{"spec":{"devices":{"requests":[{"name":"req-0",
      "exactly":{"deviceClassName":"test-class"}}]}}}})";
}

// scheduler_perf's resourceSlice(): the same attributes and capacity on
// every device.
std::string ResourceSliceJson(int node) {
  const std::string name = "node-" + std::to_string(node);
  std::string devices;
  for (int d = 0; d < kDraDevicesPerNode; ++d) {
    if (d > 0) devices += ",";
    devices += R"({"name":"instance-)" + std::to_string(d) +
               R"(","attributes":{"model":{"string":"A100"},)"
               R"("family":{"string":"GPU"},)"
               R"("driverVersion":{"version":"1.2.3"},)"
               R"("dra.example.com/numa":{"int":)" +
               std::to_string(d) +
               R"(}},"capacity":{"memory":{"value":"1Gi"}}})";
  }
  return R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
    "metadata":{"name":")" +
         name + R"("},"spec":{"driver":"test-driver.cdi.k8s.io","nodeName":")" +
         name + R"(","pool":{"name":")" + name +
         R"(","generation":0,"resourceSliceCount":1},"devices":[)" + devices +
         "]}}";
}

std::vector<std::string> DeviceObjectsJson(Workload workload) {
  if (workload != Workload::kGpuCluster) {
    return {DeviceClassJson(), ResourceClaimTemplateJson()};
  }
  std::vector<std::string> out = {
      R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
    "metadata":{"name":"gpu.example.com"},
    "spec":{"selectors":[{"cel":{"expression":"device.driver == \"gpu.example.com\""}}]}})"};
  for (int gpus : {1, 2, 4, 8}) {
    for (bool h100 : {false, true}) {
      const std::string selectors =
          h100
              ? R"(,"selectors":[{"cel":{"expression":"device.attributes[\"gpu.example.com\"].model == \"h100\""}}])"
              : "";
      out.push_back(
          R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate",
    "metadata":{"name":")" +
          GpuTemplateName(gpus, h100) + R"(","namespace":"default"},
    "spec":{"spec":{"devices":{"requests":[{"name":"gpus",
      "exactly":{"deviceClassName":"gpu.example.com","count":)" +
          std::to_string(gpus) + selectors + "}}]}}}}");
    }
  }
  return out;
}

std::vector<std::string> ResourceSlicesJson(Workload workload, int node) {
  if (workload == Workload::kGpuCluster) {
    if (node % kGpuNodeEvery != 0) return {};
    const std::string name = "node-" + std::to_string(node);
    const std::string model = (node / kGpuNodeEvery) % 2 == 0 ? "h100" : "a100";
    std::string devices;
    for (int d = 0; d < kGpusPerNode; ++d) {
      if (d > 0) devices += ",";
      devices += R"({"name":"gpu-)" + std::to_string(d) +
                 R"(","attributes":{"model":{"string":")" + model + R"("}}})";
    }
    return {R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
    "metadata":{"name":")" +
            name +
            R"(-gpus"},"spec":{"driver":"gpu.example.com","nodeName":")" +
            name + R"(","pool":{"name":")" + name +
            R"(","generation":1,"resourceSliceCount":1},"devices":[)" +
            devices + "]}}"};
  }
  if (workload != Workload::kDraPartitions) return {ResourceSliceJson(node)};
  const std::string name = "node-" + std::to_string(node);
  const std::string pool =
      R"("driver":"test-driver.cdi.k8s.io","pool":{"name":")" + name +
      R"(","generation":0,"resourceSliceCount":2})";
  std::string sets, devices;
  for (int g = 0; g < kPartitionGpusPerNode; ++g) {
    const std::string gpu = "gpu-" + std::to_string(g);
    if (g > 0) sets += ",";
    sets +=
        R"({"name":")" + gpu +
        R"(-counters","counters":{"memory":{"value":"80Gi"},"slices":{"value":")" +
        std::to_string(kPartitionsPerGpu) + R"("}}})";
    for (int p = 0; p < kPartitionsPerGpu; ++p) {
      if (!devices.empty()) devices += ",";
      devices +=
          R"({"name":")" + gpu + "-part-" + std::to_string(p) +
          R"(","attributes":{"model":{"string":"A100"},"parentGPU":{"string":")" +
          gpu + R"("}},"consumesCounters":[{"counterSet":")" + gpu +
          R"(-counters","counters":{"memory":{"value":"10Gi"},"slices":{"value":"1"}}}]})";
    }
  }
  return {R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
    "metadata":{"name":")" +
              name + R"(-counters"},"spec":{)" + pool + R"(,"nodeName":")" +
              name + R"(","sharedCounters":[)" + sets + "]}}",
          R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
    "metadata":{"name":")" +
              name + R"(-devices"},"spec":{)" + pool + R"(,"nodeName":")" +
              name + R"(","devices":[)" + devices + "]}}"};
}

std::string GeneratedClaimName(int pod) {
  return "pod-" + std::to_string(pod) + "-resource-bench";
}

std::string GeneratedClaimJson(Workload workload, int pod,
                               const std::string& pod_uid) {
  const bool gpus = workload == Workload::kGpuCluster;
  std::string request;
  if (gpus) {
    request =
        R"({"name":"gpus","exactly":{"deviceClassName":"gpu.example.com","count":)" +
        std::to_string(GpusOfPod(pod)) +
        (H100Only(pod)
             ? R"(,"selectors":[{"cel":{"expression":"device.attributes[\"gpu.example.com\"].model == \"h100\""}}])"
             : "") +
        "}}";
  } else {
    request = R"({"name":"req-0","exactly":{"deviceClassName":"test-class"}})";
  }
  return R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
    "metadata":{"name":")" +
         GeneratedClaimName(pod) +
         R"(","annotations":{"resource.kubernetes.io/pod-claim-name":")" +
         (gpus ? "gpus" : "resource") + R"("},
      "ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"pod-)" +
         std::to_string(pod) + R"(","uid":")" + pod_uid +
         R"(","controller":true,"blockOwnerDeletion":true}]},
    "spec":{"devices":{"requests":[)" +
         request + "]}}}";
}

std::string ClaimStatusPatch(Workload workload, int pod) {
  const char* name = workload == Workload::kGpuCluster ? "gpus" : "resource";
  return R"({"status":{"resourceClaimStatuses":[{"name":")" +
         std::string(name) + R"(","resourceClaimName":")" +
         GeneratedClaimName(pod) + R"("}]}})";
}

std::string RunningPodJson(int i, const std::string& node) {
  return testing::PodJson({.name = "running-" + std::to_string(i),
                           .cpu = "100m",
                           .memory = "500Mi",
                           .labels = R"("app":"running")",
                           .extra_spec = R"("nodeName":")" + node + "\""});
}

namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// `value` with every object's keys in byte order, as kubectl's encoding
// of its map writes them.
void WriteSorted(const rapidjson::Value& value, JsonWriter& out) {
  if (value.IsObject()) {
    std::vector<const rapidjson::Value::Member*> members;
    for (const auto& m : value.GetObject()) members.push_back(&m);
    std::sort(members.begin(), members.end(), [](auto* a, auto* b) {
      return std::string_view(a->name.GetString(), a->name.GetStringLength()) <
             std::string_view(b->name.GetString(), b->name.GetStringLength());
    });
    out.StartObject();
    for (const auto* m : members) {
      out.String(m->name.GetString(), m->name.GetStringLength());
      WriteSorted(m->value, out);
    }
    out.EndObject();
  } else if (value.IsArray()) {
    out.StartArray();
    for (const auto& v : value.GetArray()) WriteSorted(v, out);
    out.EndArray();
  } else {
    value.Accept(out);
  }
}

void SetIfAbsent(rapidjson::Value& object, std::string_view key,
                 std::string_view value,
                 rapidjson::Document::AllocatorType& a) {
  if (testing::apiserver::Member(object, key) != nullptr) return;
  testing::apiserver::SetString(object, key, value, a);
}

}  // namespace

std::string AsKubectlApplied(std::string_view object_json) {
  rapidjson::Document doc;
  doc.Parse(object_json.data(), object_json.size());
  if (doc.HasParseError() || !doc.IsObject()) return std::string(object_json);
  auto& a = doc.GetAllocator();
  rapidjson::Value& metadata =
      testing::apiserver::EnsureObject(doc, "metadata", a);
  if (doc.HasMember("kind") && doc["kind"] == "Node") {
    rapidjson::Value& labels =
        testing::apiserver::EnsureObject(metadata, "labels", a);
    SetIfAbsent(labels, "kubernetes.io/arch", "amd64", a);
    SetIfAbsent(labels, "kubernetes.io/os", "linux", a);
    if (doc.HasMember("status") && doc["status"].HasMember("conditions")) {
      for (auto& c : doc["status"]["conditions"].GetArray()) {
        if (!(c.HasMember("type") && c["type"] == "Ready")) continue;
        SetIfAbsent(c, "reason", "KubeletReady", a);
        SetIfAbsent(c, "message", "kubelet is posting ready status", a);
      }
    }
  }
  rapidjson::Value& annotations =
      testing::apiserver::EnsureObject(metadata, "annotations", a);
  rapidjson::StringBuffer applied;
  {
    JsonWriter writer(applied);
    WriteSorted(doc, writer);
  }
  std::string config = applied.GetString();
  config += "\n";
  annotations.AddMember(
      "kubectl.kubernetes.io/last-applied-configuration",
      rapidjson::Value(config.data(),
                       static_cast<rapidjson::SizeType>(config.size()), a),
      a);
  rapidjson::StringBuffer out;
  JsonWriter writer(out);
  doc.Accept(writer);
  return out.GetString();
}

}  // namespace ksched::bench

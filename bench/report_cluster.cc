#include "bench/report_cluster.h"

#include <algorithm>
#include <array>
#include <string>

namespace ksched::bench {
namespace report_cluster_detail {
namespace {

constexpr int kZones = 10;

struct NodeType {
  const char* name;
  int cpu;
  int memory_gi;
};
constexpr std::array<NodeType, 3> kTypes = {{
    {"m6i.2xlarge", 8, 32},
    {"m6i.4xlarge", 16, 64},
    {"m6i.8xlarge", 32, 128},
}};

std::string Node(int i) {
  const std::string name = "node-" + std::to_string(i);
  const NodeType& type = kTypes[i % kTypes.size()];
  const bool gpu = i % 50 == 7;
  const bool cordoned = i % 100 == 3;
  const std::string cpu = std::to_string(type.cpu * 1000 - 90) + "m";
  const std::string memory = std::to_string(type.memory_gi - 1) + "Gi";
  std::string json =
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
      R"(","labels":{"kubernetes.io/hostname":")" + name +
      R"(","topology.kubernetes.io/zone":"zone-)" + std::to_string(i % kZones) +
      R"(","node.kubernetes.io/instance-type":")" + type.name +
      "\"}},\"spec\":{";
  if (gpu) {
    json +=
        R"("taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}])";
  }
  if (cordoned) {
    json += std::string(gpu ? "," : "") + R"("unschedulable":true)";
  }
  json += R"(},"status":{"allocatable":{"cpu":")" + cpu + R"(","memory":")" +
          memory + R"(","pods":"110")" +
          (gpu ? R"(,"nvidia.com/gpu":"8")" : "") + "}}}";
  return json;
}

// `resources` is the container's resources object.
std::string Pod(const std::string& name, const std::string& resources,
                const std::string& extra_spec) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"apps","uid":")" + name +
         R"("},"spec":{"schedulerName":"ksched",)" + extra_spec +
         R"("containers":[{"name":"c","image":"app","resources":)" + resources +
         "}]}}";
}

std::string Requests(const std::string& cpu, const std::string& memory) {
  return R"({"requests":{"cpu":")" + cpu + R"(","memory":")" + memory + "\"}}";
}

}  // namespace
}  // namespace report_cluster_detail
using namespace report_cluster_detail;

std::string ReportClusterJson(const ReportClusterShape& shape) {
  std::string json = R"({"apiVersion":"v1","kind":"List","items":[)";
  bool first = true;
  auto add = [&](const std::string& item) {
    if (!first) json += ",";
    first = false;
    json += item;
  };
  int running = 0;
  for (int i = 0; i < shape.nodes; ++i) {
    add(Node(i));
    // Running pods of 2 cores and 4Gi each, from none to a full node,
    // spread so that zones and types differ.
    const NodeType& type = kTypes[i % kTypes.size()];
    const int slots = type.cpu / 2;
    // Zone 0 the fullest, the last zone nearly empty.
    const int zone = i % kZones;
    const int fill =
        std::clamp(slots * (kZones - zone) / kZones - 1 + (i / kZones) % 3 - 1,
                   0, slots - 1);
    for (int k = 0; k < fill; ++k) {
      add(Pod("running-" + std::to_string(running++), Requests("2", "4Gi"),
              R"("nodeName":"node-)" + std::to_string(i) + "\","));
    }
  }
  for (int i = 0; i < shape.pending; ++i) {
    add(Pod("web-" + std::to_string(i), Requests("250m", "512Mi"), ""));
  }
  for (int i = 0; i < kReportHugePods; ++i) {
    add(Pod("huge-" + std::to_string(i), Requests("40", "16Gi"), ""));
  }
  for (int i = 0; i < kReportGpuPods; ++i) {
    add(Pod(
        "gpu-" + std::to_string(i),
        R"({"requests":{"cpu":"4","nvidia.com/gpu":"16"},"limits":{"nvidia.com/gpu":"16"}})",
        ""));
  }
  for (int i = 0; i < kReportPinnedPods; ++i) {
    add(Pod("pinned-" + std::to_string(i), Requests("1", "1Gi"),
            R"("nodeSelector":{"topology.kubernetes.io/zone":"zone-99"},)"));
  }
  json += "]}\n";
  return json;
}

}  // namespace ksched::bench

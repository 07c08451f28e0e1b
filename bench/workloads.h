// The cluster shapes of the end-to-end benchmarks, after scheduler_perf's
// SchedulingBasic, SchedulingPodAntiAffinity, TopologySpreading and DRA's
// SchedulingWithResourceClaimTemplate: nodes with 32 CPU and 128 Gi in ten
// zones (or another NodeShape), and pods as the API server would receive
// them from a user.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::bench {

enum class Workload {
  kBasic,         // requests only
  kAntiAffinity,  // required anti-affinity on the hostname within its group
  kSpread,        // zone spread, maxSkew 1, DoNotSchedule, within its group
  // One device from a ResourceClaimTemplate per pod; each node publishes a
  // slice of kDraDevicesPerNode devices (scheduler_perf's test driver), so
  // the default 5,000 pods fill 500 nodes exactly.
  kDra,
  // The same pods, each taking one partition of a GPU: every node
  // publishes kPartitionGpusPerNode GPUs as counter sets, each offered as
  // kPartitionsPerGpu partitions drawing on it (a counter slice and a
  // device slice per node's pool).
  kDraPartitions,
  // A GPU cluster: one node in kGpuNodeEvery publishes kGpusPerNode GPUs
  // (model h100 or a100, alternately); each pod claims 1, 2, 4 or 8 GPUs
  // (weights 4:3:2:1) through a template, half of them h100 only.
  kGpuCluster,
};

inline constexpr int kDraDevicesPerNode = 10;
inline constexpr int kDraNodes = 500;
inline constexpr int kPartitionGpusPerNode = 4;
inline constexpr int kPartitionsPerGpu = 8;
inline constexpr int kGpuNodeEvery = 5;
inline constexpr int kGpusPerNode = 8;

// Whether the workload's pods claim devices (kDra, kDraPartitions,
// kGpuCluster).
inline bool IsDra(Workload w) {
  return w == Workload::kDra || w == Workload::kDraPartitions ||
         w == Workload::kGpuCluster;
}

std::optional<Workload> ParseWorkload(std::string_view name);
std::string_view WorkloadName(Workload workload);

// The pods each workload schedules by default (as in the design notes),
// and the nodes it has.
int DefaultPods(Workload workload);
int DefaultNodes(Workload workload);

// The nodes' capacity and the zones they are spread over: by default 32
// CPU and 128 Gi in 10 zones; "16,64Gi,50" is a large cloud cluster's.
// With node pools, each node also carries a pool label, as managed
// clusters label their node pools.
struct NodeShape {
  std::string cpu = "32";
  std::string memory = "128Gi";
  int zones = 10;
  int pools = 0;  // 0: no pool label
};
// "CPU,MEMORY,ZONES[,POOLS]", e.g. "16,64Gi,50" or "16,64Gi,50,20";
// nullopt when malformed.
std::optional<NodeShape> ParseNodeShape(std::string_view text);

// Node i of `shape`: hostname and zone labels (zone-<i % zones>), with
// pools a node-pool label (pool-<i % pools>), Ready.
std::string NodeJson(int i, const NodeShape& shape = {});

// Pending pod i of `workload` for `scheduler`.
std::string PendingPodJson(Workload workload, int i,
                           const std::string& scheduler);

// DRA's objects (kDra): the class, the template the pods name, node i's
// slice, and the claim the resourceclaim controller makes for pending pod
// i (whose UID the pod's creation returned). ClaimStatusPatch is the
// controller's record of it in the pod's status.
std::string DeviceClassJson();
std::string ResourceClaimTemplateJson();
// The workload's DeviceClasses and ResourceClaimTemplates.
std::vector<std::string> DeviceObjectsJson(Workload workload);
std::string ResourceSliceJson(int node);
// Node i's slices for the workload: kDra's one, kDraPartitions' counter
// slice and device slice, kGpuCluster's GPUs (on one node in
// kGpuNodeEvery; none on the others).
std::vector<std::string> ResourceSlicesJson(Workload workload, int node);
// The claim the resourceclaim controller makes from pending pod i's
// template (kDra's and kDraPartitions' one device, kGpuCluster's GPUs).
std::string GeneratedClaimName(int pod);
std::string GeneratedClaimJson(Workload workload, int pod,
                               const std::string& pod_uid);
std::string ClaimStatusPatch(Workload workload, int pod);

// A pod already running on `node` (requests only), as a cluster has before
// the scheduler starts: what the informers list at start-up.
std::string RunningPodJson(int i, const std::string& node);

// `object_json` as `kubectl apply` would have created it, as the objects
// recorded from a real API server (../shared/apiserver/v1.35/) were: with
// the kubectl.kubernetes.io/last-applied-configuration annotation (the
// applied object, keys sorted, "annotations":{} in its metadata), and a
// Node with the arch and os labels and a Ready condition's reason and
// message. The API server adds the rest (defaults, managedFields, a pod's
// token volume). The same text back when it is not a JSON object.
std::string AsKubectlApplied(std::string_view object_json);

}  // namespace ksched::bench

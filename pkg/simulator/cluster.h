// A cluster described by manifests: what `ksched simulate` schedules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/objects.h"
#include "pkg/api/pod.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/policy.h"
#include "pkg/api/resource.h"
#include "pkg/api/storage.h"
#include "pkg/api/workloads.h"
#include "pkg/util/result.h"

namespace ksched::simulator {

// Where a workload sits in a Cluster: its kind's vector and its index there.
struct WorkloadRef {
  enum class Kind : uint8_t {
    kDeployment,
    kReplicaSet,
    kStatefulSet,
    kDaemonSet,
    kJob,
    kCronJob
  };
  Kind kind;
  size_t index;
  friend bool operator==(const WorkloadRef&, const WorkloadRef&) = default;
};

struct Cluster {
  std::vector<api::Node> nodes;
  std::vector<api::Pod> pods;
  std::vector<api::PriorityClass> priority_classes;
  std::vector<api::Namespace> namespaces;
  std::vector<api::PersistentVolumeClaim> persistent_volume_claims;
  std::vector<api::PersistentVolume> persistent_volumes;
  std::vector<api::StorageClass> storage_classes;
  std::vector<api::CsiNode> csi_nodes;
  std::vector<api::CsiDriver> csi_drivers;
  std::vector<api::VolumeAttachment> volume_attachments;
  std::vector<api::PodDisruptionBudget> pod_disruption_budgets;
  // scheduler-plugins' PodGroups (gangs, for the Coscheduling plugin).
  std::vector<api::PodGroup> pod_groups;
  // resource.k8s.io/v1 (Dynamic Resource Allocation), for DynamicResources.
  std::vector<api::DeviceClass> device_classes;
  std::vector<api::ResourceSlice> resource_slices;
  std::vector<api::ResourceClaim> resource_claims;
  std::vector<api::ResourceClaimTemplate> resource_claim_templates;
  // Whether the cluster serves resource.k8s.io/v1 (a live cluster older
  // than v1.34 does not): without it DynamicResources holds pods with
  // claims, as a ksched running there would.
  bool dra_served = true;
  // Workloads, which ExpandWorkloads (workloads.h) turns into pods.
  std::vector<api::Deployment> deployments;
  std::vector<api::ReplicaSet> replica_sets;
  std::vector<api::StatefulSet> stateful_sets;
  std::vector<api::DaemonSet> daemon_sets;
  std::vector<api::Job> jobs;
  std::vector<api::CronJob> cron_jobs;
  // Every workload above in the order the files gave them (whatever their
  // kind): controllers create pods in the order the workloads were created,
  // and a file written top to bottom is that order.
  std::vector<WorkloadRef> workload_order;
  // Objects of kinds the simulator does not use, counted by kind.
  std::map<std::string, int> ignored_kinds;
  // How a file was read, where a person should know ("FILE: not valid
  // JSON (...): read as YAML, as kubectl reads it"), one line each.
  std::vector<std::string> read_notes;
};

// How many of a file's `total` bytes the reader has got through.
using LoadProgress = std::function<void(uint64_t bytes, uint64_t total)>;

// Reads Node, Pod, PriorityClass, Namespace, PersistentVolumeClaim,
// PersistentVolume, StorageClass, PodDisruptionBudget, PodGroup, DeviceClass,
// ResourceSlice, ResourceClaim, ResourceClaimTemplate (and the workload
// kinds) objects from
// multi-document YAML or JSON, bare or inside List kinds (as `kubectl get -o
// yaml` prints them). Then applies what admission would have: a pod's priority
// and preemption policy from its PriorityClass, the default scheduler name, and
// a UID where a hand-written manifest has none.
// `on_progress` (optional) hears how many bytes of the text have been read
// as items are (where the reader can tell), for a progress line.
// `threads`: how many threads may read a long JSON List (20,000 items or
// more a thread); 0 for one a core, up to 8; 1 reads in one pass.
util::Result<Cluster> ParseCluster(std::string_view text,
                                   const LoadProgress& on_progress = {},
                                   int threads = 0);
// Adds `more` (another file, `--add`) to `into`. Errors: a node, a pod, a
// DeviceClass, a ResourceSlice, a ResourceClaim or a ResourceClaimTemplate
// (namespace/name for the namespaced ones) that `into` has already.
util::Status MergeCluster(Cluster& into, Cluster more);
// Admission's priority for pods that have none yet (from their
// PriorityClass, or the global default), as ParseCluster applies it.
util::Status ResolvePriorities(Cluster& cluster);
util::Result<Cluster> LoadClusterFile(const std::string& path,
                                      const LoadProgress& on_progress = {});

// Every workload of `cluster` once: those in workload_order in that order,
// then any it does not list (a Cluster built in code) kind by kind.
std::vector<WorkloadRef> WorkloadsInFileOrder(const Cluster& cluster);
// The metadata of the workload `ref` names.
const api::ObjectMeta& WorkloadMeta(const Cluster& cluster, WorkloadRef ref);

}  // namespace ksched::simulator

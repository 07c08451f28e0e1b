// A cluster described by manifests: what `ksched simulate` schedules.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/objects.h"
#include "pkg/api/pod.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/policy.h"
#include "pkg/api/storage.h"
#include "pkg/api/workloads.h"
#include "pkg/util/result.h"

namespace ksched::simulator {

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
  // Workloads, which ExpandWorkloads (workloads.h) turns into pods.
  std::vector<api::Deployment> deployments;
  std::vector<api::ReplicaSet> replica_sets;
  std::vector<api::StatefulSet> stateful_sets;
  std::vector<api::DaemonSet> daemon_sets;
  std::vector<api::Job> jobs;
  std::vector<api::CronJob> cron_jobs;
  // Objects of kinds the simulator does not use, counted by kind.
  std::map<std::string, int> ignored_kinds;
};

// Reads Node, Pod, PriorityClass, Namespace, PersistentVolumeClaim,
// PersistentVolume, StorageClass, PodDisruptionBudget, PodGroup (and the
// workload kinds) objects from
// multi-document YAML or JSON, bare or inside List kinds (as `kubectl get -o
// yaml` prints them). Then applies what admission would have: a pod's priority
// and preemption policy from its PriorityClass, the default scheduler name, and
// a UID where a hand-written manifest has none.
util::Result<Cluster> ParseCluster(std::string_view text);
// Adds `more` (another file, `--add`) to `into`. Errors: a node or a pod
// (namespace/name) that `into` has already.
util::Status MergeCluster(Cluster& into, Cluster more);
// Admission's priority for pods that have none yet (from their
// PriorityClass, or the global default), as ParseCluster applies it.
util::Status ResolvePriorities(Cluster& cluster);
util::Result<Cluster> LoadClusterFile(const std::string& path);

}  // namespace ksched::simulator

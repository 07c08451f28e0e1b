// A what-if plan: a cluster (from a file or a live snapshot) with changes
// applied, workloads expanded and, for "how many more fit", copies of a
// pod, ready for Simulate. Kept apart from the command so that capacity
// searches can prepare it again with other numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/api/pod_resources.h"
#include "pkg/config/feature_gates.h"
#include "pkg/config/types.h"
#include "pkg/simulator/changes.h"
#include "pkg/simulator/cluster.h"
#include "pkg/simulator/simulator.h"
#include "pkg/simulator/workloads.h"
#include "pkg/util/result.h"

namespace ksched::simulator {

struct PlanInput {
  ClusterChanges changes;
  bool cron_jobs = false;
  uint64_t seed = 1;
  // Copies of this pod added last, pending, named <name>-1, <name>-2, ...:
  // at most capacity_copies, and no more than the nodes' free resources
  // could take plus one (CapacityUpperBound), to show what stops them.
  std::optional<api::Pod> capacity_template;
  int capacity_copies = 0;
  // ResourceClaimTemplates the --capacity file brings along; added unless
  // the cluster has one of the same namespace/name. Each copy gets claims
  // of its own from its templates (the resourceclaim controller's part,
  // claim_controller.h, in Simulate).
  std::vector<api::ResourceClaimTemplate> capacity_claim_templates;
  // The gates the simulation runs with (SimulationOptions::features): how
  // CapacityUpperBound counts requests.
  config::FeatureGates features;
};

struct Plan {
  Cluster cluster;
  AppliedChanges applied;
  std::vector<WorkloadPods> workloads;
  // Pods of workloads and re-created pods whose schedulerName is not a
  // profile: given to the first profile, as planning them means
  // scheduling them.
  int reassigned = 0;
  // The same for the --capacity copies (how many were made is no figure
  // anyone asked for: only those up to the first that does not fit count).
  bool capacity_reassigned = false;
  std::vector<std::string> capacity_pods;  // namespace/name, in order

  // Points `options` at what the report needs from the plan.
  void Into(SimulationOptions& options) const;
};

util::Result<Plan> PreparePlan(Cluster base, const PlanInput& input,
                               const config::KubeSchedulerConfiguration& cfg);

// The pod a --capacity file describes: a Pod, or the pod template of a
// Deployment, ReplicaSet, StatefulSet, DaemonSet or Job, the one such
// object of the file (several are an error). The file's
// ResourceClaimTemplates go to `claim_templates`, how it was read
// (Cluster::read_notes) to `notes`.
util::Result<api::Pod> LoadCapacityTemplate(
    const std::string& path,
    std::vector<api::ResourceClaimTemplate>* claim_templates = nullptr,
    std::vector<std::string>* notes = nullptr);

// An upper bound on how many copies of `pod` the nodes could take, from
// their free CPU, memory and pod slots, and the free devices of the
// cluster's ResourceSlices when each copy gets claims of its own from
// templates (DeviceCapacityUpperBound); other constraints only lower it.
// Requests are counted as the scheduler counts them under `features`: the
// pods on nodes as they run (a resize in their status included), the copy
// as NodeResourcesFit asks for it.
int CapacityUpperBound(const Cluster& cluster, const api::Pod& pod,
                       const api::ResourceFeatures& features = {});

// No fewer nodes like `node_template` can make every pod of `pods`
// (namespace/name, pending in `cluster`) fit: for CPU, memory, pod slots,
// each extended resource and devices, what the pods ask for beyond what
// the cluster's nodes have free, divided by what one template node brings
// (1 at least). Devices count as one kind: the claims' exact counts
// (claims from templates per pod, a shared claim once) against every free
// device, so the bound holds whatever the classes select.
int NodeCountLowerBound(const Cluster& cluster, const api::Node& node_template,
                        const std::vector<api::ResourceSlice>& template_slices,
                        const std::set<std::string>& pods,
                        const api::ResourceFeatures& features = {});

// Free devices (not allocated, newest pool generations) divided by the
// fewest devices the claims of one copy's templates can take; unbounded
// (INT_MAX - 1) for a pod without such claims, or one whose claims may
// take none (admin access, All mode).
int DeviceCapacityUpperBound(const Cluster& cluster, const api::Pod& pod);

}  // namespace ksched::simulator

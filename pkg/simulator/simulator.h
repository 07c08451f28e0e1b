// `ksched simulate`: schedules a cluster's pending pods in-process, with the
// same profiles and plugins as a live ksched, and reports where each landed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/config/feature_gates.h"
#include "pkg/config/types.h"
#include "pkg/explain/explanation.h"
#include "pkg/framework/cycle_recorder.h"
#include "pkg/framework/registry.h"
#include "pkg/simulator/changes.h"
#include "pkg/simulator/cluster.h"
#include "pkg/simulator/workloads.h"
#include "pkg/util/result.h"

namespace ksched::simulator {

// One device a claim's allocation holds (DRA), as status.allocation lists it.
struct AllocatedDevice {
  std::string request;  // "<request>" or "<request>/<subrequest>"
  std::string driver;
  std::string pool;
  std::string device;
  bool admin_access = false;
  // A partition: the counter sets it draws on (its GPU's).
  std::vector<std::string> counter_sets;
  // A share of a device that allows several: its shareID and what it
  // consumes ("bandwidth" -> "35Gi").
  std::optional<std::string> share_id;
  std::vector<std::pair<std::string, std::string>> consumed_capacity;
  // The device's NoSchedule/NoExecute taints, which the claim tolerated.
  std::vector<std::string> taints;
};

// A counter set of a pool of partitionable devices at the end: each
// counter's value and what allocated devices leave of it.
struct CounterSetOutcome {
  std::string node;  // where the pool's devices are; "" when not one node
  std::string driver;
  std::string pool;
  std::string name;
  struct Counter {
    std::string name;
    std::string left;
    std::string total;
    bool spent = false;
  };
  std::vector<Counter> counters;
};

// A device that allows several allocations and has shares at the end.
struct SharedDeviceOutcome {
  std::string node;
  std::string driver;
  std::string pool;
  std::string device;
  int shares = 0;
  struct Capacity {
    std::string name;
    std::string consumed;
    std::string total;
  };
  std::vector<Capacity> capacity;
};

// A device with a NoSchedule or NoExecute taint, and the claim that holds
// it despite the taint ("" when none).
struct TaintedDeviceOutcome {
  std::string node;
  std::string driver;
  std::string pool;
  std::string device;
  std::vector<std::string> taints;
  std::string held_by;
};

// How the devices that need more than a yes or no stand at the end.
struct DeviceUsage {
  std::vector<CounterSetOutcome> counter_sets;
  std::vector<SharedDeviceOutcome> shared_devices;
  std::vector<TaintedDeviceOutcome> tainted_devices;
  bool empty() const {
    return counter_sets.empty() && shared_devices.empty() &&
           tainted_devices.empty();
  }
};

// One of a scheduled pod's ResourceClaims at the end of the simulation,
// as the simulated API server holds it.
struct PodClaimOutcome {
  std::string pod_claim;                 // the pod's spec.resourceClaims[].name
  std::string claim;                     // the ResourceClaim's name
  std::vector<AllocatedDevice> devices;  // empty: not allocated
};

struct PodOutcome {
  std::string ns;
  std::string name;
  std::string profile;
  std::optional<std::string> node;  // nullopt: not scheduled
  // Why not ("0/6 nodes are available: ..."); empty when scheduled.
  std::string message;
  std::string nominated_node;  // set when preemption nominated one
  // With SimulationOptions::explain: the pod's last scheduling cycle, as
  // recorded, and what it says (held apart: an explanation is 470 bytes,
  // and most outcomes have none).
  std::shared_ptr<const framework::CycleRecorder> record;
  std::shared_ptr<const explain::Explanation> explanation;
  // A scheduled pod's claims in spec order, with their devices.
  std::vector<PodClaimOutcome> claims;
  // An unschedulable pod rejected for several reasons: the one that would
  // have to change for it to fit, from the nodes that only one plugin
  // rejects at the end (its claims, when only the GPU nodes pass
  // everything else), not the one given for most nodes. Empty when the
  // message says it alone (PrimaryReason in report.h reads it there).
  std::string primary_reason;
  // An unschedulable pod whose claims could not be allocated: what they
  // lack on a node, one with devices of their class where there is one
  // ("gpu-h100-1: claim ml/train-gpus-x, request gpus: 4 of 8 matching
  // devices free, 8 needed"), as --explain says it.
  std::string device_shortage;
};

// The devices of one driver that ResourceSlices publish for a node
// (spec.nodeName), and how many of them allocations hold at the end.
struct NodeDevices {
  std::string driver;
  int allocated = 0;
  int total = 0;
};

struct NodeSummary {
  std::string name;
  api::ResourceList requested;  // sum of the requests of its pods
  // The same before the simulation: of the pods the input had running.
  api::ResourceList requested_before;
  api::ResourceList allocatable;  // status.allocatable
  int pods = 0;
  int pods_before = 0;  // of the input's running pods
  int64_t allowed_pods = 0;
  bool unschedulable = false;
  std::vector<std::string> taints;   // "key=value:Effect"
  std::vector<NodeDevices> devices;  // by driver
  api::StringMap labels;             // the node's, for grouping by topology
};

struct PreemptedPod {
  std::string ns;
  std::string name;
  std::string node;
  std::string by;  // namespace/name of the preemptor
};

// A workload's replicas after the simulation (workloads.h).
struct WorkloadOutcome {
  std::string kind;
  std::string ns;
  std::string name;
  int desired = 0;
  int scheduled = 0;      // running before, or placed by the simulation
  int unschedulable = 0;  // pending at the end
  std::string message;    // the first unschedulable pod's reason
};

// A PodGroup (gang) after the simulation: scheduled whole or not at all.
struct PodGroupOutcome {
  std::string ns;
  std::string name;
  int32_t min_member = 0;
  int members = 0;      // its pods, running before or pending
  int scheduled = 0;    // bound at the end
  int most_placed = 0;  // the most members placed at once (held or bound)
  std::string message;  // why fewer than minMember are scheduled
};

// A pod a change (drain, node removal) took off its node, and where its
// replacement went.
struct DisplacedOutcome {
  std::string pod;
  std::string node;
  DisplacedPod::Fate fate = DisplacedPod::Fate::kDeleted;
  std::string recreated;                // "" when nothing replaces it
  std::optional<std::string> new_node;  // the replacement's node
  std::string message;                  // why it has none
};

// --capacity: how many more copies of a pod fit.
struct CapacityOutcome {
  std::string pod;  // namespace/name of the template
  int fits = 0;     // copies scheduled before the first that was not
  std::map<std::string, int> nodes;  // where they went
  std::string stopped_by;            // the first unschedulable copy's reason
  std::string stopped_devices;       // its PodOutcome::device_shortage
  bool reached_max = false;          // every copy up to --max fitted
  int max = 0;
};

// --add-nodes-until-fits: how the count of nodes was found.
struct NodeSearchSummary {
  // Every pending pod a node like the template can take fits with
  // SimulationResult::nodes_needed more; when false, not even with that
  // many (the most tried: one a pending pod, or --max).
  bool found = true;
  bool stopped_at_max = false;  // the most tried was --max
  // Pods no node like the template can take, each with why: the verdicts
  // on such a node of every plugin that rejects it.
  std::vector<std::pair<std::string, std::string>> cannot_take;
  // !found: pods a node like the template would take that are still
  // pending with the most nodes tried.
  std::vector<std::string> not_within;
  std::vector<int> tried;  // the counts simulated, in order
  int runs = 0;            // simulations: those and the probe's
  double seconds = 0;      // the search's wall time, the probe included
};

struct SimulationResult {
  std::vector<PodOutcome> pods;  // in scheduling order
  std::vector<WorkloadOutcome> workloads;
  std::vector<PodGroupOutcome> pod_groups;
  // PodGroups in the input while no profile runs Coscheduling: their pods
  // were scheduled one by one, and pod_groups is empty.
  int pod_groups_ignored = 0;
  std::vector<DisplacedOutcome> displaced;
  std::vector<std::string> added_nodes;
  std::vector<NodeSummary> nodes;
  // Partitions' counter sets, shared devices and tainted devices.
  DeviceUsage device_usage;
  // Running pods deleted to make room for higher-priority ones.
  std::vector<PreemptedPod> preempted;
  // Scheduling cycles run (a pod may take several: backoff, preemption).
  int cycles = 0;
  // Nodes that passed filtering on an answer kept from an earlier cycle
  // (scheduler/node_result_memo.h).
  int64_t memoized_filter_passes = 0;
  // Nodes rejected on a Filter plugin's candidates without being filtered
  // (a GPU pod's CPU-only nodes).
  int64_t filter_candidate_rejections = 0;
  // Pending pods left alone because their schedulerName is not a profile.
  std::vector<std::string> other_scheduler_pods;
  std::vector<std::string> warnings;
  std::optional<CapacityOutcome> capacity;
  // --add-nodes-until-fits: the nodes of the template that made every
  // pending pod fit (-1: not asked).
  int nodes_needed = -1;
  std::string node_template;
  std::optional<NodeSearchSummary> node_search;
};

// The --capacity copies' outcome, from the copies in the order they were
// added.
CapacityOutcome SummarizeCapacity(const SimulationResult& result,
                                  const std::vector<std::string>& copies,
                                  const std::string& template_pod, int max);

// Whether a pod of a workload, or one a change displaced, is left
// unschedulable (--fail-on-unschedulable).
bool PlannedPodsUnschedulable(const SimulationResult& result);
// Whether any pending pod the profiles schedule is left unscheduled.
bool AnyPodUnschedulable(const SimulationResult& result);

struct SimulationOptions {
  // Seeds the tie-break between equally scored nodes: a fixed seed gives a
  // reproducible placement.
  uint64_t seed = 1;
  // Schedule every pending pod with the first profile, whatever its
  // schedulerName.
  bool all_pods = false;
  // Keep node-local Filter and Score answers across cycles (the
  // scheduler's default); off only to show that decisions do not change.
  bool memoize_node_results = true;
  // Reject the nodes a Filter plugin's candidates leave out unfiltered (the
  // scheduler's default); off only to show that decisions do not change.
  bool use_filter_candidates = true;
  // Feature gates and the version they emulate (kube-scheduler v1.35's
  // defaults unless --emulated-version or --feature-gates say otherwise).
  config::FeatureGates features;
  // Pods (namespace/name) whose last scheduling cycle is recorded and
  // explained; an empty set explains every pending pod.
  std::optional<std::set<std::string>> explain;
  // Nodes listed per explained pod: best scored, closest to fitting.
  int explain_top = 5;
  // A bound pod to explain as if it were pending (`ksched explain`): its
  // node is kept in the explanation ("would it still fit there").
  std::string rescheduled_pod;
  std::string rescheduled_from;
  // The workloads ExpandWorkloads expanded the cluster's into, reported
  // as units. Not owned; may be null.
  const std::vector<WorkloadPods>* workloads = nullptr;
  // The changes applied to the cluster before (ApplyChanges), reported
  // with where displaced pods went. Not owned; may be null.
  const AppliedChanges* changes = nullptr;
  // Instead of scheduling: each pending pod is tried on this node alone
  // (every Filter plugin, after PreFilter over the whole cluster), with
  // nothing scheduled, so the pods do not compete for it. A pod the node
  // would take comes back with `node` set; any other with every plugin's
  // reason in `message` ("DynamicResources: cannot allocate all claims
  // (...)"). For --add-nodes-until-fits: which pods no such node can take.
  std::string probe_node;
  // The pods (namespace/name) probe_node tries; empty: every pending pod.
  std::set<std::string> probe_pods;
  // Called as the scheduling loop goes, every few hundred cycles (and once
  // before the first): `tried` of the `pending` pods have had a scheduling
  // cycle. For a progress line; it must not touch the simulation.
  std::function<void(int tried, int pending)> on_progress;
};

util::Result<SimulationResult> Simulate(
    const Cluster& cluster, const config::KubeSchedulerConfiguration& cfg,
    const framework::Registry& registry, const SimulationOptions& options);
// The same, taking the cluster's nodes and pods instead of copying them (a
// large cluster's pods are most of its memory): `cluster` is left without
// nodes and pods, everything else in it unchanged.
util::Result<SimulationResult> Simulate(
    Cluster&& cluster, const config::KubeSchedulerConfiguration& cfg,
    const framework::Registry& registry, const SimulationOptions& options);

}  // namespace ksched::simulator

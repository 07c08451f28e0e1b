#include "pkg/plugins/defaultpreemption/default_preemption.h"

#include <algorithm>

#include "pkg/config/field_errors.h"
#include "pkg/config/validation_pluginargs.h"
#include "pkg/framework/registry.h"

namespace ksched::plugins {
namespace {

using defaultpreemption::CompiledPdb;
using defaultpreemption::Eligibility;
using defaultpreemption::MoreImportantPod;
using defaultpreemption::PodPriority;
using defaultpreemption::Victims;
using framework::Code;
using framework::PodInfoPtr;
using framework::Status;

// Deleted by the scheduler to make room for a preemptor (the victim's
// DisruptionTarget condition says so), as opposed to terminating for any
// other reason.
bool PodTerminatingByPreemption(const framework::PodInfo& pod) {
  if (!pod.terminating()) return false;
  const api::PodCondition* c = pod.disruption_target();
  return c != nullptr && c->status == "True" &&
         c->reason == "PreemptionByScheduler";
}

// Errors from PreFilter extensions end the node's dry run as errors.
Status AsError(const Status& s) {
  return s.code() == Code::kError ? s : Status::Error(s.Message());
}

}  // namespace

DefaultPreemption::DefaultPreemption(const config::DefaultPreemptionArgs& args,
                                     framework::Handle& handle,
                                     util::Random& random)
    : args_(args),
      handle_(handle),
      random_(&random),
      evaluator_(names::kDefaultPreemption, handle, *this,
                 handle.features().Enabled(
                     config::Feature::kSchedulerAsyncPreemption)) {}

DefaultPreemption::DefaultPreemption(const config::DefaultPreemptionArgs& args,
                                     framework::Handle& handle)
    : args_(args),
      handle_(handle),
      owned_random_(std::make_unique<util::DefaultRandom>()),
      random_(owned_random_.get()),
      evaluator_(names::kDefaultPreemption, handle, *this,
                 handle.features().Enabled(
                     config::Feature::kSchedulerAsyncPreemption)) {}

std::vector<framework::ClusterEventWithHint>
DefaultPreemption::EventsToRegister() const {
  if (!evaluator_.async()) return {};
  return {{{framework::EventResource::kPod, framework::kDelete},
           [](const api::Pod&, const framework::EventObjects&) {
             return framework::QueueingHint::kQueueSkip;
           }}};
}

Status DefaultPreemption::PreEnqueue(const api::Pod& pod) const {
  if (!evaluator_.async()) return Status();
  if (evaluator_.IsPodRunningPreemption(pod.metadata.uid)) {
    return Status::Unresolvable(
        "waiting for the preemption for this pod to be finished");
  }
  return Status();
}

Status DefaultPreemption::PostFilter(framework::CycleState& state,
                                     const framework::PodInfo& pod,
                                     const framework::NodeToStatus& filtered,
                                     framework::PostFilterResult* result) {
  Status s = evaluator_.Preempt(state, pod, filtered, result);
  std::string message = s.Message();
  if (message.empty()) return s;
  return Status(s.code(), "preemption: " + message);
}

int32_t DefaultPreemption::CalculateNumCandidates(int32_t num_nodes) const {
  int64_t n = int64_t{num_nodes} * args_.min_candidate_nodes_percentage / 100;
  n = std::max<int64_t>(n, args_.min_candidate_nodes_absolute);
  return static_cast<int32_t>(std::min<int64_t>(n, num_nodes));
}

std::pair<int32_t, int32_t> DefaultPreemption::GetOffsetAndNumCandidates(
    int32_t num_nodes) {
  // A random start spreads preemption over the cluster instead of always
  // hitting the first nodes in the list.
  int32_t offset =
      num_nodes > 0 ? static_cast<int32_t>(random_->Intn(num_nodes)) : 0;
  return {offset, CalculateNumCandidates(num_nodes)};
}

Eligibility DefaultPreemption::PodEligibleToPreemptOthers(
    const api::Pod& pod, const Status& nominated_node_status) const {
  if (pod.spec.preemption_policy == api::PreemptionPolicy::kNever) {
    return {false, "not eligible due to preemptionPolicy=Never."};
  }
  const std::string& nominated = pod.status.nominated_node_name;
  if (nominated.empty()) return {};
  // The nominated node no longer works at all: preempt elsewhere.
  if (nominated_node_status.code() == Code::kUnschedulableAndUnresolvable) {
    return {};
  }
  // An earlier preemption's victims are still leaving the nominated node;
  // preempting again would evict more pods than needed.
  if (const framework::NodeInfo* node = handle_.snapshot().Get(nominated)) {
    const int32_t priority = PodPriority(pod);
    for (const PodInfoPtr& p : node->pods()) {
      if (p->priority() < priority && PodTerminatingByPreemption(*p)) {
        return {false,
                "not eligible due to a terminating pod on the nominated "
                "node."};
      }
    }
  }
  return {};
}

Status DefaultPreemption::SelectVictimsOnNode(
    framework::CycleState& state, const framework::PodInfo& pod,
    framework::NodeInfo& node, const std::vector<CompiledPdb>& pdbs,
    Victims* out) const {
  auto remove = [&](const PodInfoPtr& p) -> Status {
    if (!node.RemovePod(p->uid())) {
      return Status::Error("no corresponding pod " + p->name() +
                           " in pods of node " + node.name());
    }
    Status s = handle_.RunPreFilterExtensionRemovePod(state, pod, p, node);
    return s.IsSuccess() ? s : AsError(s);
  };
  auto add = [&](const PodInfoPtr& p) -> Status {
    node.AddPod(p);
    Status s = handle_.RunPreFilterExtensionAddPod(state, pod, p, node);
    return s.IsSuccess() ? s : AsError(s);
  };

  // First remove every lower-priority pod and see whether that is enough.
  const int32_t priority = PodPriority(pod.pod());
  std::vector<PodInfoPtr> potential;
  for (const PodInfoPtr& p : node.pods()) {
    if (p->priority() < priority) potential.push_back(p);
  }
  for (const PodInfoPtr& p : potential) {
    Status s = remove(p);
    if (!s.IsSuccess()) return s;
  }
  if (potential.empty()) {
    return Status::Unresolvable("No preemption victims found for incoming pod");
  }
  // Preemption does not try to satisfy the pod's affinity to its victims
  // (a configuration kube does not recommend): if the pod does not fit
  // without them all, the node is out.
  if (Status s = handle_.RunFilterPluginsWithNominatedPods(state, pod, node);
      !s.IsSuccess()) {
    return s;
  }

  // Give back as many pods as still let the pod fit, most important first,
  // starting with those whose eviction would violate a PDB.
  const api::Timestamp now =
      std::chrono::time_point_cast<std::chrono::microseconds>(
          handle_.clock().WallNow());
  auto more_important = [now](const PodInfoPtr& a, const PodInfoPtr& b) {
    return MoreImportantPod(*a, *b, now);
  };
  std::stable_sort(potential.begin(), potential.end(), more_important);
  std::vector<PodInfoPtr> violating;
  std::vector<PodInfoPtr> non_violating;
  defaultpreemption::SplitByPdbViolation(potential, pdbs, &violating,
                                         &non_violating);
  Victims victims;
  auto reprieve = [&](const PodInfoPtr& p, bool* fits) -> Status {
    if (Status s = add(p); !s.IsSuccess()) return s;
    *fits =
        handle_.RunFilterPluginsWithNominatedPods(state, pod, node).IsSuccess();
    if (!*fits) {
      if (Status s = remove(p); !s.IsSuccess()) return s;
      victims.pods.push_back(p);
    }
    return Status();
  };
  for (const PodInfoPtr& p : violating) {
    bool fits = false;
    if (Status s = reprieve(p, &fits); !s.IsSuccess()) return s;
    if (!fits) ++victims.num_pdb_violations;
  }
  for (const PodInfoPtr& p : non_violating) {
    bool fits = false;
    if (Status s = reprieve(p, &fits); !s.IsSuccess()) return s;
  }
  // Two groups were appended one after the other; candidates compare by
  // the most important victim first, so restore the order.
  if (!violating.empty() && !non_violating.empty()) {
    std::stable_sort(victims.pods.begin(), victims.pods.end(), more_important);
  }
  *out = std::move(victims);
  return Status();
}

namespace {

util::Result<config::DefaultPreemptionArgs> ValidatedArgs(
    const config::PluginArgs* args) {
  auto typed = framework::ArgsAs<config::DefaultPreemptionArgs>(
      args, names::kDefaultPreemption);
  if (!typed.ok()) return typed.error();
  config::v1::DefaultPreemptionArgs v1;
  v1.min_candidate_nodes_percentage = typed->min_candidate_nodes_percentage;
  v1.min_candidate_nodes_absolute = typed->min_candidate_nodes_absolute;
  config::FieldErrors errs =
      config::v1::ValidateDefaultPreemptionArgs(config::FieldPath(), v1);
  if (!errs.empty()) return util::Error(config::AggregateMessage(errs));
  return *typed;
}

}  // namespace

util::Result<std::unique_ptr<framework::Plugin>> NewDefaultPreemption(
    const config::PluginArgs* args, framework::Handle& handle) {
  auto a = ValidatedArgs(args);
  if (!a.ok()) return a.error();
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<DefaultPreemption>(*a, handle));
}

util::Result<std::unique_ptr<framework::Plugin>> NewDefaultPreemptionWithRandom(
    const config::PluginArgs* args, framework::Handle& handle,
    util::Random& random) {
  auto a = ValidatedArgs(args);
  if (!a.ok()) return a.error();
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<DefaultPreemption>(*a, handle, random));
}

}  // namespace ksched::plugins

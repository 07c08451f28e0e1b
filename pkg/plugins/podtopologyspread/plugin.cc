#include "pkg/plugins/podtopologyspread/plugin.h"

#include <string>
#include <utility>

#include "pkg/framework/registry.h"

namespace ksched::plugins {
namespace {

using podtopologyspread::Constraint;
using podtopologyspread::Constraints;
using Action = api::UnsatisfiableConstraintAction;
using framework::QueueingHint;

// systemDefaultConstraints: soft spreading over nodes and zones.
std::vector<api::TopologySpreadConstraint> SystemDefaultConstraints() {
  api::TopologySpreadConstraint hostname;
  hostname.topology_key = std::string(podtopologyspread::kLabelHostname);
  hostname.when_unsatisfiable = Action::kScheduleAnyway;
  hostname.max_skew = 3;
  api::TopologySpreadConstraint zone;
  zone.topology_key = std::string(podtopologyspread::kLabelTopologyZone);
  zone.when_unsatisfiable = Action::kScheduleAnyway;
  zone.max_skew = 5;
  return {hostname, zone};
}

// involvedInTopologySpreading: the rejected pod itself, or a bound pod of
// its namespace (only those are counted).
bool Involved(const api::Pod& incoming, const api::Pod& spreading) {
  return incoming.metadata.uid == spreading.metadata.uid ||
         (!incoming.spec.node_name.empty() &&
          incoming.metadata.ns == spreading.metadata.ns);
}

bool HasHonorTaintsPolicy(const Constraints& constraints) {
  for (const Constraint& c : constraints) {
    if (c.node_taints_policy == api::NodeInclusionPolicy::kHonor) return true;
  }
  return false;
}

std::string_view LabelOrEmpty(const api::StringMap& labels,
                              std::string_view key) {
  const std::string* v = labels.Find(key);
  return v == nullptr ? std::string_view() : std::string_view(*v);
}

// checkTopologyKeyLabelsChanged: an absent label reads as "", as in Go.
bool TopologyKeyLabelsChanged(const api::StringMap& before,
                              const api::StringMap& after,
                              const Constraints& constraints) {
  for (const Constraint& c : constraints) {
    if (LabelOrEmpty(before, c.topology_key) !=
        LabelOrEmpty(after, c.topology_key)) {
      return true;
    }
  }
  return false;
}

}  // namespace

PodTopologySpread::PodTopologySpread(
    framework::Handle& handle,
    std::vector<api::TopologySpreadConstraint> defaults, bool system_defaulted,
    DefaultSelectorFn default_selector)
    : handle_(handle),
      incremental_counts_(
          std::make_unique<podtopologyspread::IncrementalCounts>()),
      default_constraints_(std::move(defaults)),
      system_defaulted_(system_defaulted),
      default_selector_(std::move(default_selector)) {}

util::Result<Constraints> PodTopologySpread::GetConstraints(
    const api::Pod& pod, Action action, std::string_view kind) const {
  if (!pod.spec.topology_spread_constraints.empty()) {
    auto constraints = podtopologyspread::FilterConstraints(
        pod.spec.topology_spread_constraints, pod.metadata.labels, action);
    if (!constraints.ok()) {
      return constraints.error().Wrap("obtaining pod's " + std::string(kind) +
                                      " topology spread constraints");
    }
    return constraints;
  }
  // buildDefaultConstraints: the defaults spread the pod's workload, so
  // they take its selector; without one they do not apply.
  auto constraints = podtopologyspread::FilterConstraints(
      default_constraints_, pod.metadata.labels, action);
  if (!constraints.ok()) {
    return constraints.error().Wrap("setting default " + std::string(kind) +
                                    " topology spread constraints");
  }
  if (constraints->empty()) return constraints;
  api::Selector selector =
      default_selector_ ? default_selector_(pod) : api::Selector::Everything();
  if (selector.IsEverything()) return Constraints{};
  for (Constraint& c : *constraints) c.selector = selector;
  return constraints;
}

std::vector<framework::ClusterEventWithHint>
PodTopologySpread::EventsToRegister() const {
  // kube-scheduler v1.32 with queueing hints on (its default). Pods: one
  // added or deleted changes the counts, a label change may make it match
  // or not, and the rejected pod's new tolerations matter under
  // nodeTaintsPolicy Honor. Nodes: added, deleted, relabelled (topology
  // keys) or retainted (inclusion policies; also the stand-in for adds that
  // preCheck hides in kube).
  return {
      {{framework::EventResource::kPod,
        framework::kAdd | framework::kUpdatePodLabel |
            framework::kUpdatePodToleration | framework::kDelete},
       [this](const api::Pod& pod, const framework::EventObjects& objs) {
         return HintAfterPodChange(pod, objs);
       }},
      {{framework::EventResource::kNode, framework::kAdd | framework::kDelete |
                                             framework::kUpdateNodeLabel |
                                             framework::kUpdateNodeTaint},
       [this](const api::Pod& pod, const framework::EventObjects& objs) {
         return HintAfterNodeChange(pod, objs);
       }},
  };
}

QueueingHint PodTopologySpread::HintAfterPodChange(
    const api::Pod& pod, const framework::EventObjects& objs) const {
  const api::Pod* before = objs.old_pod;
  const api::Pod* after = objs.new_pod;
  if ((after != nullptr && !Involved(*after, pod)) ||
      (before != nullptr && !Involved(*before, pod))) {
    return QueueingHint::kQueueSkip;
  }
  // Only DoNotSchedule constraints can have rejected the pod.
  auto constraints = GetConstraints(pod, Action::kDoNotSchedule, "hard");
  if (!constraints.ok()) return QueueingHint::kQueue;

  if (before != nullptr && after != nullptr) {
    if (after->metadata.uid == pod.metadata.uid &&
        after->spec.tolerations != before->spec.tolerations &&
        HasHonorTaintsPolicy(*constraints)) {
      return QueueingHint::kQueue;
    }
    if (after->metadata.labels == before->metadata.labels) {
      return QueueingHint::kQueueSkip;
    }
    for (const Constraint& c : *constraints) {
      if (c.selector.Matches(before->metadata.labels) !=
          c.selector.Matches(after->metadata.labels)) {
        return QueueingHint::kQueue;
      }
    }
    return QueueingHint::kQueueSkip;
  }
  const api::Pod* changed = after != nullptr ? after : before;
  if (changed == nullptr) return QueueingHint::kQueue;
  return podtopologyspread::PodLabelsMatchConstraints(*constraints,
                                                      changed->metadata.labels)
             ? QueueingHint::kQueue
             : QueueingHint::kQueueSkip;
}

QueueingHint PodTopologySpread::HintAfterNodeChange(
    const api::Pod& pod, const framework::EventObjects& objs) const {
  const api::Node* before = objs.old_node;
  const api::Node* after = objs.new_node;
  auto constraints = GetConstraints(pod, Action::kDoNotSchedule, "hard");
  if (!constraints.ok()) return QueueingHint::kQueue;
  bool before_matches =
      before != nullptr && podtopologyspread::NodeLabelsMatchConstraints(
                               before->metadata.labels, *constraints);
  bool after_matches =
      after != nullptr && podtopologyspread::NodeLabelsMatchConstraints(
                              after->metadata.labels, *constraints);
  if (before != nullptr && after != nullptr) {
    if (before_matches != after_matches) return QueueingHint::kQueue;
    if (after_matches &&
        (TopologyKeyLabelsChanged(before->metadata.labels,
                                  after->metadata.labels, *constraints) ||
         before->spec.taints != after->spec.taints)) {
      return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  }
  if (after != nullptr) {
    return after_matches ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  }
  if (before != nullptr) {
    return before_matches ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  }
  return QueueingHint::kQueue;
}

util::Result<std::unique_ptr<framework::Plugin>> NewPodTopologySpread(
    const config::PluginArgs* args, framework::Handle& handle) {
  // No workload listers in ksched yet: no selector function.
  return NewPodTopologySpreadWithSelector(args, handle, nullptr);
}

util::Result<std::unique_ptr<framework::Plugin>>
NewPodTopologySpreadWithSelector(
    const config::PluginArgs* args, framework::Handle& handle,
    PodTopologySpread::DefaultSelectorFn default_selector) {
  auto typed = framework::ArgsAs<config::PodTopologySpreadArgs>(
      args, names::kPodTopologySpread);
  if (!typed.ok()) return typed.error();
  bool system =
      typed->defaulting_type == config::PodTopologySpreadDefaulting::kSystem;
  if (system && !typed->default_constraints.empty()) {
    return util::Error(
        "defaultingType: Invalid value: \"System\": when .defaultConstraints "
        "are not empty");
  }
  std::vector<api::TopologySpreadConstraint> defaults =
      system ? SystemDefaultConstraints() : typed->default_constraints;
  return std::unique_ptr<framework::Plugin>(std::make_unique<PodTopologySpread>(
      handle, std::move(defaults), system, std::move(default_selector)));
}

bool PodTopologySpread::SignPod(const api::Pod& pod, api::Pod& into) const {
  // Spreading counts pods across domains: its answers on a node depend on
  // every other node, so a pod it acts on cannot be signed. As kube v1.35
  // does, no pod is signed while default constraints are configured (the
  // system defaults included), even one they would not apply to: batching
  // then never takes part in a profile that spreads by default.
  (void)into;
  if (!pod.spec.topology_spread_constraints.empty()) return false;
  return default_constraints_.empty();
}

}  // namespace ksched::plugins

#include "pkg/plugins/interpodaffinity/plugin.h"

#include <string>

#include "pkg/api/string_map.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/registry.h"

namespace ksched::plugins {
namespace {

using framework::AffinityTerm;
using framework::QueueingHint;

// The hints parse the rejected pod's terms on every event; the PodInfo only
// lives for the call, so it may borrow the pod instead of copying it.
framework::PodInfoPtr BorrowedPodInfo(const api::Pod& pod) {
  return framework::PodInfo::Create(
      std::shared_ptr<const api::Pod>(std::shared_ptr<const api::Pod>(), &pod));
}

// kube's hints parse only the required terms and requeue when they do not
// parse. PodInfo empties a list that failed, so a list shorter than the
// spec's is one that failed.
bool RequiredTermsBroken(const framework::PodInfo& info) {
  if (info.parse_error().empty()) return false;
  const api::Affinity* a = info.pod().spec.affinity.get();
  size_t affinity = a && a->pod_affinity ? a->pod_affinity->required.size() : 0;
  size_t anti =
      a && a->pod_anti_affinity ? a->pod_anti_affinity->required.size() : 0;
  return info.affinity().required_affinity.size() != affinity ||
         info.affinity().required_anti_affinity.size() != anti;
}

// podMatchesAllAffinityTerms as the hints call it: without namespace labels
// (kube's hints do not resolve namespaceSelectors either).
bool MatchesAll(const std::vector<AffinityTerm>& terms, const api::Pod& pod) {
  static const api::StringMap kNoLabels;
  if (terms.empty()) return false;
  for (const AffinityTerm& term : terms) {
    if (!term.Matches(pod.metadata.ns, pod.metadata.labels, kNoLabels)) {
      return false;
    }
  }
  return true;
}

// isSchedulableAfterPodChange: an assigned pod that starts matching the
// rejected pod's affinity (added or relabelled), or stops matching its
// anti-affinity (relabelled or deleted).
QueueingHint IsSchedulableAfterPodChange(const api::Pod& pod,
                                         const framework::EventObjects& objs) {
  const api::Pod* old_pod = objs.old_pod;
  const api::Pod* new_pod = objs.new_pod;
  if ((new_pod != nullptr && new_pod->spec.node_name.empty()) ||
      (old_pod != nullptr && old_pod->spec.node_name.empty())) {
    return QueueingHint::kQueueSkip;
  }
  framework::PodInfoPtr info = BorrowedPodInfo(pod);
  if (RequiredTermsBroken(*info)) return QueueingHint::kQueue;
  const auto& terms = info->affinity().required_affinity;
  const auto& anti_terms = info->affinity().required_anti_affinity;
  // One existing pod must satisfy all affinity terms at once, so "matches
  // all" is the test on both sides of an update.
  if (old_pod != nullptr && new_pod != nullptr) {
    if (!MatchesAll(terms, *old_pod) && MatchesAll(terms, *new_pod)) {
      return QueueingHint::kQueue;
    }
    if (MatchesAll(anti_terms, *old_pod) && !MatchesAll(anti_terms, *new_pod)) {
      return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  }
  if (new_pod != nullptr) {
    return MatchesAll(terms, *new_pod) ? QueueingHint::kQueue
                                       : QueueingHint::kQueueSkip;
  }
  if (old_pod == nullptr) return QueueingHint::kQueue;
  return MatchesAll(anti_terms, *old_pod) ? QueueingHint::kQueue
                                          : QueueingHint::kQueueSkip;
}

// isSchedulableAfterNodeChange (v1.32, after kubernetes#127470): a node
// change that can create a domain the rejected pod fits in. For affinity, a
// node gaining a term's topology key (added with it, or relabelled to it) or
// moving to another value. For anti-affinity, any new node (a node without
// the key passes anti-affinity), or a node losing the key or changing its
// value.
QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                          const framework::EventObjects& objs) {
  const api::Node* old_node = objs.old_node;
  const api::Node* new_node = objs.new_node;
  if (new_node == nullptr) return QueueingHint::kQueue;
  framework::PodInfoPtr info = BorrowedPodInfo(pod);
  if (RequiredTermsBroken(*info)) return QueueingHint::kQueue;
  auto value_of = [](const api::Node* node, const std::string& key) {
    return node->metadata.labels.Find(key);
  };
  for (const AffinityTerm& term : info->affinity().required_affinity) {
    const std::string* now = value_of(new_node, term.topology_key);
    if (now == nullptr) continue;
    if (old_node == nullptr) return QueueingHint::kQueue;
    const std::string* before = value_of(old_node, term.topology_key);
    if (before == nullptr || *before != *now) return QueueingHint::kQueue;
  }
  for (const AffinityTerm& term : info->affinity().required_anti_affinity) {
    if (old_node == nullptr) return QueueingHint::kQueue;
    const std::string* before = value_of(old_node, term.topology_key);
    if (before == nullptr) continue;
    const std::string* now = value_of(new_node, term.topology_key);
    if (now == nullptr || *before != *now) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

}  // namespace

InterPodAffinity::InterPodAffinity(const config::InterPodAffinityArgs& args,
                                   framework::Handle& handle)
    : hard_pod_affinity_weight_(args.hard_pod_affinity_weight),
      ignore_preferred_terms_of_existing_pods_(
          args.ignore_preferred_terms_of_existing_pods),
      handle_(handle) {}

std::vector<framework::ClusterEventWithHint>
InterPodAffinity::EventsToRegister() const {
  // kube-scheduler v1.32 with queueing hints on (its default): pods added,
  // relabelled or deleted; nodes added or relabelled (UpdateNodeTaint is
  // only registered when hints are off, to make up for preCheck).
  return {
      {{framework::EventResource::kPod,
        framework::kAdd | framework::kUpdatePodLabel | framework::kDelete},
       IsSchedulableAfterPodChange},
      {{framework::EventResource::kNode,
        framework::kAdd | framework::kUpdateNodeLabel},
       IsSchedulableAfterNodeChange},
  };
}

util::Result<std::unique_ptr<framework::Plugin>> NewInterPodAffinity(
    const config::PluginArgs* args, framework::Handle& handle) {
  auto typed = framework::ArgsAs<config::InterPodAffinityArgs>(
      args, names::kInterPodAffinity);
  if (!typed.ok()) return typed.error();
  // validation.ValidateInterPodAffinityArgs, which kube's New runs too.
  int32_t weight = typed->hard_pod_affinity_weight;
  if (weight < 0 || weight > 100) {
    return util::Error(
        "hardPodAffinityWeight: Invalid value: " + std::to_string(weight) +
        ": not in valid range [0, 100]");
  }
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<InterPodAffinity>(*typed, handle));
}

bool InterPodAffinity::SignPod(const api::Pod& pod, api::Pod& into) const {
  // The pod's own (anti-)affinity terms count pods across a topology
  // domain, beyond one node: not signable. Without them the plugin still
  // matches other pods' terms against this pod's labels and namespace.
  if (pod.spec.affinity && (pod.spec.affinity->pod_affinity ||
                            pod.spec.affinity->pod_anti_affinity)) {
    return false;
  }
  into.metadata.ns = pod.metadata.ns;
  into.metadata.labels = pod.metadata.labels;
  return true;
}

}  // namespace ksched::plugins

#include "pkg/plugins/nodeaffinity/node_affinity.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <string>

#include "pkg/framework/registry.h"
#include "pkg/framework/signature.h"
#include "pkg/plugins/helper/normalize_score.h"
#include "pkg/plugins/nodeaffinity/parse_errors.h"

namespace ksched::plugins {
namespace {

constexpr framework::StateKey kPreFilterKey{"PreFilterNodeAffinity"};
constexpr framework::StateKey kPreScoreKey{"PreScoreNodeAffinity"};
constexpr std::string_view kNodeNameField = "metadata.name";

// The pod's nodeSelector and required affinity, compiled once per cycle.
// Immutable after PreFilter, so clones share it.
class PreFilterState final : public framework::StateData {
 public:
  explicit PreFilterState(const api::Pod& pod)
      : affinity_(std::make_shared<const api::RequiredNodeAffinity>(pod)) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreFilterState>(*this);
  }
  const api::RequiredNodeAffinity& affinity() const { return *affinity_; }

 private:
  std::shared_ptr<const api::RequiredNodeAffinity> affinity_;
};

// The pod's preferred terms compiled once per cycle; null when it has none.
class PreScoreState final : public framework::StateData {
 public:
  explicit PreScoreState(std::shared_ptr<const api::CompiledPreferredTerms> t)
      : terms_(std::move(t)) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreScoreState>(*this);
  }
  const api::CompiledPreferredTerms* terms() const { return terms_.get(); }

 private:
  std::shared_ptr<const api::CompiledPreferredTerms> terms_;
};

const api::NodeAffinity* NodeAffinityOf(const api::Pod& pod) {
  const api::Affinity* affinity = pod.spec.affinity.get();
  if (affinity == nullptr || !affinity->node_affinity) return nullptr;
  return &*affinity->node_affinity;
}

const api::NodeSelector* RequiredOf(const api::Pod& pod) {
  const api::NodeAffinity* na = NodeAffinityOf(pod);
  return na != nullptr && na->required ? &*na->required : nullptr;
}

// An empty list behaves as an absent one (Go tells nil from empty here, with
// the same scores either way).
const std::vector<api::PreferredSchedulingTerm>* PreferredOf(
    const api::Pod& pod) {
  const api::NodeAffinity* na = NodeAffinityOf(pod);
  return na != nullptr && !na->preferred.empty() ? &na->preferred : nullptr;
}

// Compiles the pod's preferred terms, or explains why they do not parse.
util::Result<std::shared_ptr<const api::CompiledPreferredTerms>>
CompilePreferred(const api::Pod& pod) {
  const auto* preferred = PreferredOf(pod);
  if (preferred == nullptr) {
    return std::shared_ptr<const api::CompiledPreferredTerms>();
  }
  auto errors = nodeaffinity::PreferredTermsErrors(*preferred);
  if (!errors.empty()) {
    return util::Error(nodeaffinity::AggregateMessage(errors));
  }
  return std::make_shared<const api::CompiledPreferredTerms>(*preferred);
}

// The node names a required term pins with `metadata.name In` fields (ANDed,
// so intersected); nullopt when it pins none and may match any node.
std::optional<std::set<std::string>> PinnedNames(
    const api::NodeSelectorTerm& term) {
  std::optional<std::set<std::string>> names;
  for (const api::NodeSelectorRequirement& r : term.match_fields) {
    if (r.key != kNodeNameField || r.op != api::NodeSelectorOperator::kIn) {
      continue;
    }
    std::set<std::string> values(r.values.begin(), r.values.end());
    if (!names) {
      names = std::move(values);
      continue;
    }
    std::set<std::string> both;
    std::set_intersection(names->begin(), names->end(), values.begin(),
                          values.end(), std::inserter(both, both.end()));
    names = std::move(both);
  }
  return names;
}

}  // namespace

NodeAffinity::NodeAffinity(
    std::optional<api::CompiledNodeSelector> added_required,
    std::optional<api::CompiledPreferredTerms> added_preferred)
    : added_required_(std::move(added_required)),
      added_preferred_(std::move(added_preferred)) {}

std::vector<framework::ClusterEventWithHint> NodeAffinity::EventsToRegister()
    const {
  // kube-scheduler v1.32 with queueing hints on (its default): a node added
  // or relabelled. kube's hint requeues only when the node starts matching;
  // without a hint function every such event requeues.
  return {{{framework::EventResource::kNode,
            framework::kAdd | framework::kUpdateNodeLabel},
           nullptr}};
}

framework::Status NodeAffinity::PreFilter(
    framework::CycleState& state, const framework::PodInfo& pod_info,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/,
    framework::PreFilterResult* result) {
  const api::Pod& pod = pod_info.pod();
  const api::NodeSelector* required = RequiredOf(pod);
  if (required == nullptr && !added_required_ &&
      pod.spec.node_selector.empty()) {
    return framework::Status::Skip();
  }
  state.Write(kPreFilterKey, std::make_shared<PreFilterState>(pod));
  if (required == nullptr) return framework::Status();

  // Terms are ORed: the pod can only land on the union of the names each
  // term pins, and on any node as soon as one term pins none.
  std::optional<std::set<std::string>> names;
  for (const api::NodeSelectorTerm& term : required->node_selector_terms) {
    std::optional<std::set<std::string>> pinned = PinnedNames(term);
    if (!pinned) return framework::Status();
    if (!names) names.emplace();
    names->merge(*pinned);
  }
  if (!names) return framework::Status();  // no terms at all
  if (names->empty()) {
    // Every term pins contradictory names: no node can ever match.
    return framework::Status::Unresolvable(
        std::string(kNodeAffinityErrReasonConflict));
  }
  if (result != nullptr) result->node_names = std::move(names);
  return framework::Status();
}

framework::Status NodeAffinity::Filter(const framework::CycleState& state,
                                       const framework::PodInfo& pod,
                                       const framework::NodeInfo& info) const {
  const api::Node* node = info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  if (added_required_ && !added_required_->Matches(*node)) {
    static const framework::Status::Constant kEnforced(
        framework::Code::kUnschedulableAndUnresolvable,
        std::string(kNodeAffinityErrReasonEnforced),
        std::string(names::kNodeAffinity));
    return kEnforced.status();
  }
  // Terms that do not parse match nothing, as kube ignores their errors here
  // for backwards compatibility.
  bool matches;
  if (const auto* s = state.Read<PreFilterState>(kPreFilterKey)) {
    matches = s->affinity().Matches(*node);
  } else {
    // PreFilter disabled in this profile: compile per node.
    matches = api::RequiredNodeAffinity(pod.pod()).Matches(*node);
  }
  if (!matches) {
    static const framework::Status::Constant kMismatch(
        framework::Code::kUnschedulableAndUnresolvable,
        std::string(kNodeAffinityErrReasonPod),
        std::string(names::kNodeAffinity));
    return kMismatch.status();
  }
  return framework::Status();
}

framework::Status NodeAffinity::PreScore(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/) {
  auto preferred = CompilePreferred(pod.pod());
  if (!preferred.ok()) {
    return framework::Status::Error(preferred.error().message());
  }
  if (*preferred == nullptr && !added_preferred_) {
    return framework::Status::Skip();
  }
  state.Write(kPreScoreKey,
              std::make_shared<PreScoreState>(std::move(*preferred)));
  return framework::Status();
}

framework::Status NodeAffinity::Score(const framework::CycleState& state,
                                      const framework::PodInfo& pod,
                                      const framework::NodeInfo& info,
                                      int64_t* score) const {
  const api::Node* node = info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  int64_t count = 0;
  if (added_preferred_) count += added_preferred_->Score(*node);
  if (const auto* s = state.Read<PreScoreState>(kPreScoreKey)) {
    if (s->terms() != nullptr) count += s->terms()->Score(*node);
  } else {
    // PreScore disabled in this profile: compile per node.
    auto preferred = CompilePreferred(pod.pod());
    if (!preferred.ok()) {
      return framework::Status::Error(preferred.error().message());
    }
    if (*preferred != nullptr) count += (*preferred)->Score(*node);
  }
  *score = count;
  return framework::Status();
}

framework::Status NodeAffinity::NormalizeScore(
    const framework::CycleState& /*state*/, const framework::PodInfo& /*pod*/,
    framework::NodeScoreList& scores) const {
  helper::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/false,
                                scores);
  return framework::Status();
}

util::Result<std::unique_ptr<framework::Plugin>> NewNodeAffinity(
    const config::PluginArgs* args, framework::Handle& /*handle*/) {
  auto typed =
      framework::ArgsAs<config::NodeAffinityArgs>(args, names::kNodeAffinity);
  if (!typed.ok()) return typed.error();
  std::optional<api::CompiledNodeSelector> added_required;
  std::optional<api::CompiledPreferredTerms> added_preferred;
  if (typed->added_affinity) {
    const api::NodeAffinity& added = *typed->added_affinity;
    if (added.required) {
      auto errors = nodeaffinity::NodeSelectorErrors(*added.required);
      if (!errors.empty()) {
        return util::Error(
            "parsing addedAffinity.requiredDuringSchedulingIgnoredDuring"
            "Execution: " +
            nodeaffinity::AggregateMessage(errors));
      }
      added_required.emplace(*added.required);
    }
    if (!added.preferred.empty()) {
      auto errors = nodeaffinity::PreferredTermsErrors(added.preferred);
      if (!errors.empty()) {
        return util::Error(
            "parsing addedAffinity.preferredDuringSchedulingIgnoredDuring"
            "Execution: " +
            nodeaffinity::AggregateMessage(errors));
      }
      added_preferred.emplace(added.preferred);
    }
  }
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeAffinity>(
      std::move(added_required), std::move(added_preferred)));
}

bool NodeAffinity::SignPod(const api::Pod& pod, api::Pod& into) const {
  // The profile's addedAffinity is the same for every pod of the profile.
  framework::signature::CopyNodeSelection(pod, into);
  return true;
}

}  // namespace ksched::plugins

#include "pkg/plugins/dynamicresources/dynamic_resources.h"

#include "pkg/plugins/helper/normalize_score.h"

namespace ksched::plugins {
namespace {

constexpr framework::StateKey kStateKey{"DynamicResources"};

// What PreFilter learnt about the pod's claims for the later points. Only
// pods without claims get this far, so it records just that.
struct DynamicResourcesState final : framework::StateData {
  bool has_claims = false;
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<DynamicResourcesState>(*this);
  }
};

// kube's getStateData fails when PreFilter did not run for the pod (another
// PreFilter rejected it first); the points after it report the cycle state's
// bare "not found" as an error. In v1.35 that is what a pod refused at
// PreFilter (say, for an unbound immediate claim) reads after its filter
// reasons, and DefaultPreemption, which comes after, does not run.
const DynamicResourcesState* ReadState(const framework::CycleState& state) {
  return state.Read<DynamicResourcesState>(kStateKey);
}

framework::Status StateNotFound() {
  return framework::Status::Error("not found");
}

}  // namespace

std::vector<framework::ClusterEventWithHint>
DynamicResources::EventsToRegister() const {
  if (!enabled_) return {};
  // Claims, classes and slices are not watched yet; a node change is the
  // only event that can matter to a pod this plugin rejected.
  return {{{framework::EventResource::kNode,
            framework::kAdd | framework::kUpdateNodeLabel |
                framework::kUpdateNodeAllocatable},
           nullptr}};
}

framework::Status DynamicResources::PreEnqueue(const api::Pod& pod) const {
  if (!enabled_ || pod.spec.resource_claims.empty()) return {};
  return framework::Status::Unresolvable(
      "pod \"" + pod.metadata.ns + "/" + pod.metadata.name +
      "\": ksched does not allocate ResourceClaims (" +
      pod.spec.resource_claims.front().name +
      "): the pod is left to a scheduler that does");
}

framework::Status DynamicResources::PreFilter(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/,
    framework::PreFilterResult* /*result*/) {
  if (!enabled_) return framework::Status::Skip();
  auto data = std::make_shared<DynamicResourcesState>();
  data->has_claims = !pod.pod().spec.resource_claims.empty();
  state.Write(kStateKey, data);
  // A pod with claims never reaches here in the scheduler (PreEnqueue holds
  // it); as an extender, the calling kube-scheduler allocates its devices,
  // so the pod's claims are no reason to refuse a node.
  return framework::Status::Skip();
}

framework::Status DynamicResources::Filter(
    const framework::CycleState& state, const framework::PodInfo& /*pod*/,
    const framework::NodeInfo& /*node*/) const {
  if (!enabled_) return {};
  if (ReadState(state) == nullptr) return StateNotFound();
  return {};
}

framework::Status DynamicResources::PostFilter(
    framework::CycleState& state, const framework::PodInfo& /*pod*/,
    const framework::NodeToStatus& /*filtered*/,
    framework::PostFilterResult* /*result*/) {
  if (!enabled_) return framework::Status::Unschedulable("plugin disabled");
  const DynamicResourcesState* data = ReadState(state);
  if (data == nullptr) return StateNotFound();
  if (!data->has_claims) {
    return framework::Status::Unschedulable(std::string(kNoClaimsToDeallocate));
  }
  return framework::Status::Unschedulable("still not schedulable");
}

framework::Status DynamicResources::Score(const framework::CycleState& state,
                                          const framework::PodInfo& /*pod*/,
                                          const framework::NodeInfo& /*node*/,
                                          int64_t* score) const {
  *score = 0;
  // Scoring only ranks prioritized-list alternatives of allocated claims.
  if (!enabled_) return {};
  if (ReadState(state) == nullptr) return StateNotFound();
  return {};
}

framework::Status DynamicResources::NormalizeScore(
    const framework::CycleState& /*state*/, const framework::PodInfo& /*pod*/,
    framework::NodeScoreList& scores) const {
  if (!enabled_) return {};
  helper::DefaultNormalizeScore(framework::kMaxNodeScore, false, scores);
  return {};
}

framework::Status DynamicResources::Reserve(framework::CycleState& state,
                                            const framework::PodInfo& /*pod*/,
                                            const std::string& /*node*/) {
  if (!enabled_) return {};
  if (ReadState(state) == nullptr) return StateNotFound();
  return {};
}

void DynamicResources::Unreserve(framework::CycleState& /*state*/,
                                 const framework::PodInfo& /*pod*/,
                                 const std::string& /*node*/) {}

framework::Status DynamicResources::PreBindPreFlight(
    framework::CycleState& state, const framework::PodInfo& /*pod*/,
    const std::string& /*node*/) {
  if (!enabled_) return framework::Status::Skip();
  if (ReadState(state) == nullptr) return StateNotFound();
  return framework::Status::Skip();
}

framework::Status DynamicResources::PreBind(framework::CycleState& state,
                                            const framework::PodInfo& /*pod*/,
                                            const std::string& /*node*/) {
  if (!enabled_) return {};
  if (ReadState(state) == nullptr) return StateNotFound();
  return {};
}

bool DynamicResources::SignPod(const api::Pod& pod, api::Pod& /*into*/) const {
  // Nothing of a pod without claims matters here; a pod with claims depends
  // on cluster state beyond the node, so it cannot be batched.
  return pod.spec.resource_claims.empty();
}

util::Result<std::unique_ptr<framework::Plugin>> NewDynamicResources(
    const config::PluginArgs* /*args*/, framework::Handle& handle) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<DynamicResources>(
      handle.features().Enabled(config::Feature::kDynamicResourceAllocation)));
}

}  // namespace ksched::plugins

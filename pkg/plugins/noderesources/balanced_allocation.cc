#include "pkg/plugins/noderesources/balanced_allocation.h"

#include <cmath>
#include <utility>

#include "pkg/config/field_errors.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/registry.h"
#include "pkg/framework/signature.h"
#include "pkg/framework/types.h"
#include "pkg/plugins/noderesources/args_validation.h"

namespace ksched::plugins {
namespace {

constexpr framework::StateKey kPreScoreStateKey{
    "PreScoreNodeResourcesBalancedAllocation"};

class PreScoreState final : public framework::StateData {
 public:
  explicit PreScoreState(std::vector<int64_t> pod_requests)
      : pod_requests_(std::move(pod_requests)) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreScoreState>(*this);
  }
  const std::vector<int64_t>& pod_requests() const { return pod_requests_; }

 private:
  std::vector<int64_t> pod_requests_;
};

}  // namespace

namespace noderesources {

int64_t BalancedResourceScore(std::span<const int64_t> requested,
                              std::span<const int64_t> allocatable) {
  // Float arithmetic in kube's order of operations, so that results on the
  // edge of an integer truncate the same way.
  // Two passes over the inputs rather than a list of fractions: this runs
  // for every node of every cycle and must not allocate.
  auto fraction_of = [&](size_t i) {
    double fraction =
        static_cast<double>(requested[i]) / static_cast<double>(allocatable[i]);
    // An overcommitted resource counts as full, not beyond.
    return fraction > 1 ? 1.0 : fraction;
  };
  size_t count = 0;
  double total = 0;
  double first = 0;
  double second = 0;
  for (size_t i = 0; i < requested.size(); ++i) {
    if (allocatable[i] == 0) continue;
    double fraction = fraction_of(i);
    total += fraction;
    if (count == 0) first = fraction;
    if (count == 1) second = fraction;
    ++count;
  }
  double std_dev = 0;
  if (count == 2) {
    // The common cpu+memory case: the deviation of two values is half their
    // distance.
    std_dev = std::abs((first - second) / 2);
  } else if (count > 2) {
    double mean = total / static_cast<double>(count);
    double sum = 0;
    for (size_t i = 0; i < requested.size(); ++i) {
      if (allocatable[i] == 0) continue;
      double f = fraction_of(i);
      sum = sum + (f - mean) * (f - mean);
    }
    std_dev = std::sqrt(sum / static_cast<double>(count));
  }
  // Go's float64 -> int64 conversion truncates toward zero, as the cast.
  return static_cast<int64_t>((1 - std_dev) *
                              static_cast<double>(framework::kMaxNodeScore));
}

int64_t BalancedResourceScorer(std::span<const int64_t> requested,
                               std::span<const int64_t> allocated,
                               std::span<const int64_t> allocatable) {
  // Not behind a gate: kube v1.36 scores so under every emulated version.
  const int64_t with_pod = BalancedResourceScore(requested, allocatable);
  const int64_t without_pod = BalancedResourceScore(allocated, allocatable);
  constexpr int64_t kHalf = framework::kMaxNodeScore / 2;
  return kHalf + (kHalf + with_pod - without_pod) / 2;
}

}  // namespace noderesources

NodeResourcesBalancedAllocation::NodeResourcesBalancedAllocation(
    std::vector<config::ResourceSpec> resources, api::ResourceFeatures features)
    // Balance is judged on what pods really request, not on the non-zero
    // defaults NodeResourcesFit's strategies use.
    : scorer_(std::move(resources), /*use_requested=*/true,
              noderesources::BalancedResourceScorer, features) {}

framework::Status NodeResourcesBalancedAllocation::PreScore(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/) {
  std::vector<int64_t> requests = scorer_.PodRequests(pod.pod());
  // A pod that requests nothing would score every node by the balance it
  // already has, piling best-effort pods onto the same node (kube
  // #129138); since v1.33 such pods are not scored here, whatever the gates.
  if (noderesources::ResourceAllocationScorer::IsBestEffort(requests)) {
    return framework::Status::Skip();
  }
  state.Write(kPreScoreStateKey,
              std::make_shared<PreScoreState>(std::move(requests)));
  return framework::Status();
}

framework::Status NodeResourcesBalancedAllocation::Score(
    const framework::CycleState& state, const framework::PodInfo& pod,
    const framework::NodeInfo& node, int64_t* score) const {
  if (const auto* s = state.Read<PreScoreState>(kPreScoreStateKey)) {
    return scorer_.Score(node, s->pod_requests(), score);
  }
  // Without PreScore: a best-effort pod scores 0 on every node.
  std::vector<int64_t> requests = scorer_.PodRequests(pod.pod());
  if (noderesources::ResourceAllocationScorer::IsBestEffort(requests)) {
    *score = 0;
    return framework::Status();
  }
  return scorer_.Score(node, requests, score);
}

util::Result<std::unique_ptr<framework::Plugin>>
NewNodeResourcesBalancedAllocation(const config::PluginArgs* args,
                                   framework::Handle& handle) {
  const config::FeatureGates& features = handle.features();
  auto typed = framework::ArgsAs<config::NodeResourcesBalancedAllocationArgs>(
      args, names::kNodeResourcesBalancedAllocation);
  if (!typed.ok()) return typed.error();
  config::NodeResourcesBalancedAllocationArgs a = std::move(*typed);
  if (args == nullptr) a.resources = noderesources::DefaultResourceSpecs();
  config::FieldErrors errs = noderesources::ValidateBalancedAllocationArgs(a);
  if (!errs.empty()) return util::Error(config::AggregateMessage(errs));
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<NodeResourcesBalancedAllocation>(
          std::move(a.resources), framework::ResourceFeaturesOf(features)));
}

bool NodeResourcesBalancedAllocation::SignPod(const api::Pod& pod,
                                              api::Pod& into) const {
  framework::signature::CopyResources(pod, into);
  return true;
}

}  // namespace ksched::plugins

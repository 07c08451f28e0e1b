// NodeResourcesBalancedAllocation: favors nodes whose resource utilizations
// (with the pod placed) are close to each other, scoring
// (1 - standard deviation of the fractions) * 100 (kube-scheduler v1.35,
// noderesources/balanced_allocation.go). Pods that request none of the
// scored resources are not scored at all.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/plugins/noderesources/resource_allocation.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

class NodeResourcesBalancedAllocation final : public framework::SignPlugin,
                                              public framework::PreScorePlugin,
                                              public framework::ScorePlugin {
 public:
  // `features`: how pod requests are counted (pod-level resources).
  explicit NodeResourcesBalancedAllocation(
      std::vector<config::ResourceSpec> resources,
      api::ResourceFeatures features = {});

  std::string_view Name() const override {
    return names::kNodeResourcesBalancedAllocation;
  }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  // Answers from the pod and the node alone.
  bool NodeLocal() const override { return true; }
  framework::Status PreScore(
      framework::CycleState& state, const framework::PodInfo& pod,
      const std::vector<framework::NodeInfoPtr>& nodes) override;
  framework::Status Score(const framework::CycleState& state,
                          const framework::PodInfo& pod,
                          const framework::NodeInfo& node,
                          int64_t* score) const override;

 private:
  noderesources::ResourceAllocationScorer scorer_;
};

namespace noderesources {
// balancedResourceScore: (1 - std) * 100 of the per-resource fractions
// requested/allocatable, each capped at 1 (an allocatable of 0 leaves the
// resource out).
int64_t BalancedResourceScore(std::span<const int64_t> requested,
                              std::span<const int64_t> allocatable);
// balancedResourceScorer (v1.36): how much placing the pod improves the
// node's balance, 50 + (50 + with - without) / 2 in integer arithmetic,
// where `with` and `without` are BalancedResourceScore of the node's
// requests with and without the pod. Both lie in [50, 100], so the score
// does too: 75 for a pod that leaves the balance as it was.
int64_t BalancedResourceScorer(std::span<const int64_t> requested,
                               std::span<const int64_t> allocated,
                               std::span<const int64_t> allocatable);
}  // namespace noderesources

// Fails, with kube's field errors, on args that do not validate. Without
// args it scores cpu and memory, as kube's defaulted args do.
util::Result<std::unique_ptr<framework::Plugin>>
NewNodeResourcesBalancedAllocation(const config::PluginArgs* args,
                                   framework::Handle& handle);

}  // namespace ksched::plugins

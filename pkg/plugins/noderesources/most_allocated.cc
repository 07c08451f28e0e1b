#include <utility>

#include "pkg/framework/types.h"
#include "pkg/plugins/noderesources/scorers.h"

namespace ksched::plugins::noderesources {
namespace {

// The used share of one resource on 0..kMaxNodeScore.
int64_t MostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  // Pods without requests count with the non-zero defaults, which can add
  // up to more than the node has: such a node is simply full.
  if (requested > capacity) requested = capacity;
  return WrapMul(requested, framework::kMaxNodeScore) / capacity;
}

}  // namespace

ResourceScorerFn MostResourceScorer(
    std::vector<config::ResourceSpec> resources) {
  return [resources = std::move(resources)](
             std::span<const int64_t> requested,
             std::span<const int64_t> allocatable) -> int64_t {
    int64_t node_score = 0;
    int64_t weight_sum = 0;
    for (size_t i = 0; i < requested.size(); ++i) {
      if (allocatable[i] == 0) continue;
      int64_t weight = resources[i].weight;
      node_score = WrapAdd(
          node_score,
          WrapMul(MostRequestedScore(requested[i], allocatable[i]), weight));
      weight_sum += weight;
    }
    if (weight_sum == 0) return 0;
    return node_score / weight_sum;
  };
}

}  // namespace ksched::plugins::noderesources

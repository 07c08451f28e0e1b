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
  return WeightedMeanScorer(std::move(resources), MostRequestedScore);
}

}  // namespace ksched::plugins::noderesources

#include <utility>

#include "pkg/framework/types.h"
#include "pkg/plugins/noderesources/scorers.h"

namespace ksched::plugins::noderesources {
namespace {

// The unused share of one resource on 0..kMaxNodeScore.
int64_t LeastRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) return 0;
  return WrapMul(WrapSub(capacity, requested), framework::kMaxNodeScore) /
         capacity;
}

}  // namespace

ResourceScorerFn LeastResourceScorer(
    std::vector<config::ResourceSpec> resources) {
  return WeightedMeanScorer(std::move(resources), LeastRequestedScore);
}

}  // namespace ksched::plugins::noderesources

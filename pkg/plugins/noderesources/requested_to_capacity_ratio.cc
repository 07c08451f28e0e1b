#include <cmath>
#include <utility>

#include "pkg/framework/types.h"
#include "pkg/plugins/noderesources/scorers.h"

namespace ksched::plugins::noderesources {
namespace {

constexpr int64_t kMaxUtilization = 100;
// config.MaxCustomPriorityScore: shape scores are given on 0..10.
constexpr int64_t kMaxCustomPriorityScore = 10;

}  // namespace

std::function<int64_t(int64_t)> BuildBrokenLinearFunction(
    std::vector<FunctionShapePoint> shape) {
  return [shape = std::move(shape)](int64_t p) -> int64_t {
    for (size_t i = 0; i < shape.size(); ++i) {
      if (p > shape[i].utilization) continue;
      if (i == 0) return shape[0].score;
      const FunctionShapePoint& lo = shape[i - 1];
      const FunctionShapePoint& hi = shape[i];
      // Multiply before dividing, truncating toward zero, exactly as Go.
      return lo.score + WrapMul(hi.score - lo.score, p - lo.utilization) /
                            (hi.utilization - lo.utilization);
    }
    return shape.back().score;
  };
}

ResourceScorerFn RequestedToCapacityRatioScorer(
    std::vector<config::ResourceSpec> resources,
    const std::vector<config::UtilizationShapePoint>& shape) {
  std::vector<FunctionShapePoint> points;
  points.reserve(shape.size());
  for (const config::UtilizationShapePoint& p : shape) {
    // The configured 0..10 scores are scaled to the scheduler's 0..100.
    points.push_back(
        {p.utilization, int64_t{p.score} * (framework::kMaxNodeScore /
                                            kMaxCustomPriorityScore)});
  }
  auto raw = BuildBrokenLinearFunction(std::move(points));
  auto resource_score = [raw](int64_t requested, int64_t capacity) {
    // An overcommitted (or capacity-less) resource scores as fully used.
    if (capacity == 0 || requested > capacity) return raw(kMaxUtilization);
    return raw(WrapMul(requested, kMaxUtilization) / capacity);
  };
  return [resources = std::move(resources), resource_score](
             std::span<const int64_t> requested,
             std::span<const int64_t> /*allocated*/,
             std::span<const int64_t> allocatable) -> int64_t {
    int64_t node_score = 0;
    int64_t weight_sum = 0;
    for (size_t i = 0; i < requested.size(); ++i) {
      if (allocatable[i] == 0) continue;
      int64_t weight = resources[i].weight;
      int64_t score = resource_score(requested[i], allocatable[i]);
      // A resource scoring 0 drops out of the mean, as in kube, rather than
      // pulling it down.
      if (score > 0) {
        node_score = WrapAdd(node_score, WrapMul(score, weight));
        weight_sum += weight;
      }
    }
    if (weight_sum == 0) return 0;
    // math.Round: halves away from zero, as std::round.
    return static_cast<int64_t>(std::round(static_cast<double>(node_score) /
                                           static_cast<double>(weight_sum)));
  };
}

}  // namespace ksched::plugins::noderesources

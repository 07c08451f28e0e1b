// The scoring strategies of NodeResourcesFit (least_allocated.go,
// most_allocated.go, requested_to_capacity_ratio.go) and the piecewise
// linear shape function (helper/shape_score.go), kube-scheduler v1.32.
// Every division is int64 division truncating toward zero, as Go's, so
// scores equal kube's to the unit.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/plugins/noderesources/resource_allocation.h"

namespace ksched::plugins::noderesources {

// Favors nodes with more unallocated capacity:
// sum(weight * (capacity - requested) * 100 / capacity) / sum(weight).
ResourceScorerFn LeastResourceScorer(
    std::vector<config::ResourceSpec> resources);

// Favors nodes with less unallocated capacity (bin packing):
// sum(weight * min(requested, capacity) * 100 / capacity) / sum(weight).
ResourceScorerFn MostResourceScorer(
    std::vector<config::ResourceSpec> resources);

// Scores each resource's utilization through the user's shape (scores
// 0..config's 10, scaled to 0..100) and rounds the weighted mean of the
// non-zero resource scores.
ResourceScorerFn RequestedToCapacityRatioScorer(
    std::vector<config::ResourceSpec> resources,
    const std::vector<config::UtilizationShapePoint>& shape);

struct FunctionShapePoint {
  int64_t utilization = 0;
  int64_t score = 0;
};

// helper.BuildBrokenLinearFunction: shape[0].score below the first point,
// the last score above the last point, linear (integer) in between. `shape`
// must be non-empty and sorted by utilization (args validation ensures it).
std::function<int64_t(int64_t)> BuildBrokenLinearFunction(
    std::vector<FunctionShapePoint> shape);

}  // namespace ksched::plugins::noderesources

// The scoring machinery NodeResourcesFit and NodeResourcesBalancedAllocation
// share (kube-scheduler's resourceAllocationScorer, resource_allocation.go,
// v1.36): per configured resource, what the node would have requested with
// the pod on it, what it has requested without it, and what it can allocate,
// folded into one score by a strategy function.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/api/pod_resources.h"
#include "pkg/config/types.h"
#include "pkg/framework/node_info.h"
#include "pkg/framework/status.h"

namespace ksched::plugins::noderesources {

// Go's int64 arithmetic wraps on overflow where C++'s is undefined; the
// scores must equal kube's even for absurd quantities, so products and sums
// of resource amounts go through these.
inline int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
inline int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) -
                              static_cast<uint64_t>(b));
}
inline int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

// Folds the per-resource amounts, in the order of the configured resources,
// into a node score: `requested` with the pod on the node, `allocated`
// without it (what the node's pods already request), `allocatable` what the
// node offers. An allocatable of 0 marks a resource left out of this node's
// score (all three are 0 there).
using ResourceScorerFn = std::function<int64_t(
    std::span<const int64_t> requested, std::span<const int64_t> allocated,
    std::span<const int64_t> allocatable)>;

class ResourceAllocationScorer {
 public:
  // `use_requested`: score cpu and memory by what pods really request
  // (BalancedAllocation); otherwise by the requests with the non-zero
  // defaults (the NodeResourcesFit strategies), so that pods that declare
  // nothing still spread. `features`: how pod requests are counted (status
  // and pod-level resources).
  ResourceAllocationScorer(std::vector<config::ResourceSpec> resources,
                           bool use_requested, ResourceScorerFn scorer,
                           api::ResourceFeatures features = {});

  const std::vector<config::ResourceSpec>& resources() const {
    return resources_;
  }

  // The pod's request of every configured resource, in their order
  // (calculatePodResourceRequestList): cpu in milli-units, the rest in
  // units, overhead included, pod-level requests in place of the
  // containers' where set.
  std::vector<int64_t> PodRequests(const api::Pod& pod) const;

  // isBestEffortPod: the pod requests none of the configured resources
  // (`pod_requests` from PodRequests).
  static bool IsBestEffort(std::span<const int64_t> pod_requests);

  // Scores `node` for a pod requesting `pod_requests` (from PodRequests).
  framework::Status Score(const framework::NodeInfo& node,
                          std::span<const int64_t> pod_requests,
                          int64_t* score) const;

 private:
  struct AllocatableAllocated {
    int64_t allocatable = 0;
    int64_t allocated = 0;
  };
  // How a configured resource is read off a NodeInfo, decided once.
  enum class Kind : uint8_t { kCpu, kMemory, kEphemeralStorage, kScalar };
  // What the node offers of resource `index` and what its pods request.
  AllocatableAllocated AllocatableAndAllocated(const framework::NodeInfo& node,
                                               size_t index) const;

  std::vector<config::ResourceSpec> resources_;
  std::vector<Kind> kinds_;     // per resource
  std::vector<bool> extended_;  // per resource: IsScalarResourceName
  bool use_requested_;
  ResourceScorerFn scorer_;
  api::ResourceFeatures features_;
};

// The resources both plugins score when no args are given at all, as
// kube-scheduler's v1 defaulting fills them in (cpu:1, memory:1).
std::vector<config::ResourceSpec> DefaultResourceSpecs();

// sum(weight * per_resource(requested, allocatable)) / sum(weight) over the
// resources the node offers; the shape both LeastAllocated and
// MostAllocated share.
ResourceScorerFn WeightedMeanScorer(std::vector<config::ResourceSpec> resources,
                                    int64_t (*per_resource)(int64_t requested,
                                                            int64_t capacity));

}  // namespace ksched::plugins::noderesources

#include "pkg/plugins/noderesources/resource_allocation.h"

#include <utility>

#include "pkg/api/pod_resources.h"
#include "pkg/api/resource_names.h"

namespace ksched::plugins::noderesources {

ResourceAllocationScorer::ResourceAllocationScorer(
    std::vector<config::ResourceSpec> resources, bool use_requested,
    ResourceScorerFn scorer, api::ResourceFeatures features)
    : resources_(std::move(resources)),
      use_requested_(use_requested),
      scorer_(std::move(scorer)),
      features_(features) {
  for (const config::ResourceSpec& r : resources_) {
    if (r.name == api::kResourceCpu) {
      kinds_.push_back(Kind::kCpu);
    } else if (r.name == api::kResourceMemory) {
      kinds_.push_back(Kind::kMemory);
    } else if (r.name == api::kResourceEphemeralStorage) {
      kinds_.push_back(Kind::kEphemeralStorage);
    } else {
      kinds_.push_back(Kind::kScalar);
    }
    extended_.push_back(api::IsScalarResourceName(r.name));
  }
}

std::vector<int64_t> ResourceAllocationScorer::PodRequests(
    const api::Pod& pod) const {
  // One pass over the containers serves every resource; kube recomputes per
  // resource with the same options, which yields the same numbers.
  api::PodResourcesOptions options = api::PodResourcesOptionsFor(features_);
  // Unlike NodeInfo's non-zero sums, both defaults apply to every container
  // even with pod-level requests set; those then replace the sum anyway.
  if (!use_requested_) {
    options.non_missing_container_requests = api::NonZeroDefaultRequests();
  }
  api::ResourceList requests = api::PodRequests(pod, options);
  std::vector<int64_t> out(resources_.size(), 0);
  for (size_t i = 0; i < resources_.size(); ++i) {
    const api::Quantity* q = requests.Find(resources_[i].name);
    if (q == nullptr) continue;
    out[i] =
        resources_[i].name == api::kResourceCpu ? q->MilliValue() : q->Value();
  }
  return out;
}

bool ResourceAllocationScorer::IsBestEffort(
    std::span<const int64_t> pod_requests) {
  for (int64_t request : pod_requests) {
    if (request != 0) return false;
  }
  return true;
}

ResourceAllocationScorer::AllocatableAllocated
ResourceAllocationScorer::AllocatableAndAllocated(
    const framework::NodeInfo& node, size_t index) const {
  const framework::Resource& allocatable = node.allocatable();
  const framework::Resource& requested =
      use_requested_ ? node.requested() : node.non_zero_requested();
  switch (kinds_[index]) {
    case Kind::kCpu:
      return {allocatable.milli_cpu, requested.milli_cpu};
    case Kind::kMemory:
      return {allocatable.memory, requested.memory};
    case Kind::kEphemeralStorage:
      // Never defaulted: always the real requests.
      return {allocatable.ephemeral_storage,
              node.requested().ephemeral_storage};
    case Kind::kScalar:
      break;
  }
  // Any other name (scalar or not, e.g. "pods") is looked up among the
  // node's scalar resources; absent means left out. Present with 0 is left
  // out by Score as well, so absence needs no separate test.
  const std::string& resource = resources_[index].name;
  return {allocatable.Scalar(resource), node.requested().Scalar(resource)};
}

framework::Status ResourceAllocationScorer::Score(
    const framework::NodeInfo& node, std::span<const int64_t> pod_requests,
    int64_t* score) const {
  *score = 0;
  if (resources_.empty()) {
    return framework::Status::Error("resources not found");
  }
  // Runs for every node of every cycle: a handful of resources fit on the
  // stack; only unusually long resource lists allocate.
  constexpr size_t kInline = 8;
  const size_t n = resources_.size();
  int64_t inline_buffer[3 * kInline] = {};
  std::vector<int64_t> heap_buffer;
  int64_t* buffer = inline_buffer;
  if (n > kInline) {
    heap_buffer.assign(3 * n, 0);
    buffer = heap_buffer.data();
  }
  std::span<int64_t> requested(buffer, n);
  std::span<int64_t> allocated(buffer + n, n);
  std::span<int64_t> allocatable(buffer + 2 * n, n);
  for (size_t i = 0; i < n; ++i) {
    int64_t pod_request = i < pod_requests.size() ? pod_requests[i] : 0;
    // An extended resource the pod does not ask for is left out of the
    // score, so that nodes are not ranked by resources irrelevant to the pod.
    if (pod_request == 0 && extended_[i]) continue;
    AllocatableAllocated aa = AllocatableAndAllocated(node, i);
    // All three stay 0 for a resource the node does not offer.
    if (aa.allocatable == 0) continue;
    allocatable[i] = aa.allocatable;
    allocated[i] = aa.allocated;
    requested[i] = WrapAdd(aa.allocated, pod_request);
  }
  *score = scorer_(requested, allocated, allocatable);
  return framework::Status();
}

std::vector<config::ResourceSpec> DefaultResourceSpecs() {
  return {{std::string(api::kResourceCpu), 1},
          {std::string(api::kResourceMemory), 1}};
}

ResourceScorerFn WeightedMeanScorer(std::vector<config::ResourceSpec> resources,
                                    int64_t (*per_resource)(int64_t requested,
                                                            int64_t capacity)) {
  return [resources = std::move(resources), per_resource](
             std::span<const int64_t> requested,
             std::span<const int64_t> /*allocated*/,
             std::span<const int64_t> allocatable) -> int64_t {
    int64_t node_score = 0;
    int64_t weight_sum = 0;
    for (size_t i = 0; i < requested.size(); ++i) {
      // Resources the node does not offer (or the pod does not want, for
      // extended ones) carry no weight at all.
      if (allocatable[i] == 0) continue;
      int64_t weight = resources[i].weight;
      node_score =
          WrapAdd(node_score,
                  WrapMul(per_resource(requested[i], allocatable[i]), weight));
      weight_sum += weight;
    }
    if (weight_sum == 0) return 0;
    return node_score / weight_sum;
  };
}

}  // namespace ksched::plugins::noderesources

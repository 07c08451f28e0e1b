// What DynamicResources' PreFilter learns about a pod and the later
// extension points share (kube's stateData): the pod's claims, the node
// selectors of those already allocated, the allocator of this cycle, the
// allocation found per node, and the claims Filter found unavailable.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/api/node_selector.h"
#include "pkg/api/resource.h"
#include "pkg/dra/allocator.h"
#include "pkg/framework/cycle_state.h"

namespace ksched::plugins::dynamic_resources {

struct ClaimInfo {
  // An allocated claim's status.allocation.nodeSelector: only nodes it
  // selects can run the pod. Unset: any node.
  std::shared_ptr<const api::CompiledNodeSelector> available_on_nodes;
  // What Reserve picked for a claim allocated in this cycle.
  std::optional<api::AllocationResult> allocation;
};

struct DraState final : framework::StateData,
                        std::enable_shared_from_this<DraState> {
  // The pod's claims in spec order (template entries the controller
  // decided need no claim are left out). Empty when PreFilter found none
  // or rejected the pod.
  std::vector<std::shared_ptr<const api::ResourceClaim>> claims;
  std::vector<ClaimInfo> infos;  // by index of claims
  // Set when some claim has no allocation yet.
  std::shared_ptr<const dra::Allocator> allocator;
  // Whether Filter builds each node's results (Score ranks the
  // prioritized-list alternatives they chose); otherwise only Reserve's
  // node gets them.
  bool needs_results_per_node = false;

  // Filter runs in parallel over nodes; these two are written there.
  mutable std::mutex mu;
  mutable std::set<size_t> unavailable_claims;
  // Per node Filter passed, one result per unallocated claim in claim
  // order, or none yet (see needs_results_per_node).
  mutable std::map<std::string, std::vector<api::AllocationResult>>
      node_allocations;

  // Indices of the claims without an allocation, in order.
  std::vector<size_t> ToAllocate() const {
    std::vector<size_t> out;
    for (size_t i = 0; i < claims.size(); ++i) {
      if (!claims[i]->status.allocation) out.push_back(i);
    }
    return out;
  }

  // kube's stateData.Clone hands out the same object: preemption's what-if
  // copies of the cycle state share the claims and allocations.
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<DraState>(shared_from_this());
  }
};

}  // namespace ksched::plugins::dynamic_resources

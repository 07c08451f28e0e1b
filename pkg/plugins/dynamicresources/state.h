// What DynamicResources' PreFilter learns about a pod and the later
// extension points share (kube's stateData): the pod's claims, the node
// selectors of those already allocated, the allocator of this cycle, the
// allocation found per node, and the claims Filter found unavailable.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
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

// What Filter found for one node.
struct NodeAllocation {
  // One result per unallocated claim in claim order, or none yet (see
  // DraState::needs_results_per_node).
  std::vector<api::AllocationResult> results;
  // The claim for the pod's extended resources as this node needs it
  // (null when the node's allocatable serves them all).
  std::shared_ptr<const api::ResourceClaim> extended_claim;
  std::vector<api::ContainerExtendedResourceRequest> mappings;
  // Which claims `results` are for follows from `extended_claim`
  // (DraState::ClaimIndicesOf): Filter stores an entry for every node that
  // passes, so it holds nothing it can work out later.
};

// What Filter found per node. Filter runs on many threads at once, so the
// nodes are spread over shards with a lock each: with one lock for all,
// the threads spent more time waiting for it than allocating.
//
// Most entries are empty (the claims fit there; Reserve searches again on
// the node it gets): those are kept as names in one string per shard, so
// a GPU pod's hundreds of passing nodes cost no allocation each, to make
// or to free.
class NodeAllocations {
 public:
  void Put(const std::string& node, NodeAllocation allocation) {
    const size_t hash = Hash(node);
    Shard& shard = shards_[hash % kShards];
    std::lock_guard lock(shard.mu);
    if (!IsEmpty(allocation)) {
      shard.by_node.insert_or_assign(node, std::move(allocation));
      return;
    }
    // An entry with content wins over an empty one in lookups: replace its
    // content, if there is one.
    if (!shard.by_node.empty()) {
      auto it = shard.by_node.find(node);
      if (it != shard.by_node.end()) {
        it->second = std::move(allocation);
        return;
      }
    }
    shard.empty.push_back({hash,
                           static_cast<uint32_t>(shard.empty_names.size()),
                           static_cast<uint32_t>(node.size())});
    shard.empty_names.append(node);
  }
  // A copy of the node's entry, taken under its lock.
  std::optional<NodeAllocation> Get(std::string_view node) const {
    const size_t hash = Hash(node);
    const Shard& shard = shards_[hash % kShards];
    std::lock_guard lock(shard.mu);
    const NodeAllocation* found = FindLocked(shard, node, hash);
    if (found == nullptr) return std::nullopt;
    return *found;
  }
  // The node's entry, or null. What it points to lives as long as the
  // state; a later Put for the node may leave it stale, so it is read
  // right away (Score, once Filter is over).
  const NodeAllocation* Find(std::string_view node) const {
    const size_t hash = Hash(node);
    const Shard& shard = shards_[hash % kShards];
    std::lock_guard lock(shard.mu);
    return FindLocked(shard, node, hash);
  }

 private:
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>()(s);
    }
  };
  struct EmptyEntry {
    size_t hash;
    uint32_t begin;  // in empty_names
    uint32_t size;
  };
  struct Shard {
    mutable std::mutex mu;
    std::unordered_map<std::string, NodeAllocation, NameHash, std::equal_to<>>
        by_node;
    std::vector<EmptyEntry> empty;
    std::string empty_names;
  };
  static constexpr size_t kShards = 16;
  static size_t Hash(std::string_view node) { return NameHash()(node); }
  static bool IsEmpty(const NodeAllocation& a) {
    return a.results.empty() && a.extended_claim == nullptr &&
           a.mappings.empty();
  }
  const NodeAllocation* FindLocked(const Shard& shard, std::string_view node,
                                   size_t hash) const {
    if (!shard.by_node.empty()) {
      auto it = shard.by_node.find(node);
      if (it != shard.by_node.end()) return &it->second;
    }
    for (const EmptyEntry& e : shard.empty) {
      if (e.hash == hash &&
          std::string_view(shard.empty_names).substr(e.begin, e.size) == node) {
        return &empty_;
      }
    }
    return nullptr;
  }
  std::array<Shard, kShards> shards_;
  const NodeAllocation empty_{};
};

struct DraState final : framework::StateData,
                        std::enable_shared_from_this<DraState> {
  // The pod's claims in spec order (template entries the controller
  // decided need no claim are left out), then, when the pod asks for
  // extended resources a DeviceClass serves, the claim for those. Empty
  // when PreFilter found none or rejected the pod.
  std::vector<std::shared_ptr<const api::ResourceClaim>> claims;
  // How many of `claims` are the pod's own; a further one is the extended
  // resource claim.
  size_t num_user_claims = 0;
  // The extended resource claim's UID when PreFilter found or made it (the
  // in-flight allocation is kept under it).
  std::string initial_extended_claim_uid;
  // The pod's requests of extended resources, in whole units, when some
  // class serves one of them.
  std::map<std::string, int64_t, std::less<>> extended_requests;
  // Reserve's node's version of the extended resource claim, and which of
  // its requests serves which container (PreBind writes both).
  std::shared_ptr<const api::ResourceClaim> chosen_extended_claim;
  std::vector<api::ContainerExtendedResourceRequest> chosen_mappings;
  std::vector<ClaimInfo> infos;  // by index of claims
  // Set when some claim has no allocation yet.
  std::shared_ptr<const dra::Allocator> allocator;
  // The pod's own claims without an allocation (the extended resource
  // claim left out: its requests differ per node), as indices into
  // `claims` and as the list Filter hands the allocator. Worked out once:
  // Filter asks every node about them.
  std::vector<size_t> user_claims_to_allocate;
  std::vector<const api::ResourceClaim*> user_claims_to_allocate_ptrs;
  // The allocator's count check for those claims; it refers to
  // `allocator`, declared before it so it goes after.
  std::unique_ptr<const dra::CountCheck> count_check;
  // Whether Filter builds each node's results (Score ranks the
  // prioritized-list alternatives they chose); otherwise only Reserve's
  // node gets them.
  bool needs_results_per_node = false;
  // Whether a request of any claim (allocated or not) is a prioritized
  // list: otherwise Score gives every node 0 without looking it up.
  bool has_alternatives = false;

  // Filter runs in parallel over nodes; these two are written there.
  mutable std::mutex mu;  // guards unavailable_claims
  mutable std::set<size_t> unavailable_claims;
  // Per node Filter passed.
  mutable NodeAllocations node_allocations;

  // The extended resource claim, or null.
  const api::ResourceClaim* ExtendedClaim() const {
    return claims.size() > num_user_claims ? claims[num_user_claims].get()
                                           : nullptr;
  }
  bool IsExtendedClaim(size_t index) const {
    return index == num_user_claims && index < claims.size();
  }

  // The claims a node's entry is for (indices into `claims`): the pod's
  // own unallocated ones, then the extended resource claim where that node
  // needs devices for it (where its allocatable serves every extended
  // resource, that claim has nothing to allocate there).
  std::vector<size_t> ClaimIndicesOf(const NodeAllocation& found) const {
    std::vector<size_t> out = user_claims_to_allocate;
    if (found.extended_claim != nullptr) out.push_back(num_user_claims);
    return out;
  }

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

#include "pkg/plugins/dynamicresources/dynamic_resources.h"

#include <algorithm>
#include <map>
#include <span>
#include <utility>

#include "pkg/dra/resourceclaim.h"
#include "pkg/framework/cancel_cause.h"
#include "pkg/framework/cycle_recorder.h"
#include "pkg/plugins/dynamicresources/binding_conditions.h"
#include "pkg/plugins/dynamicresources/state.h"
#include "pkg/plugins/helper/normalize_score.h"

namespace ksched::plugins {
namespace dynamic_resources_detail {
namespace {

using dynamic_resources::DraState;

constexpr framework::StateKey kStateKey{"DynamicResources"};

// kube's getStateData fails when PreFilter did not run for the pod (another
// PreFilter rejected it first); the points after it report the cycle
// state's bare "not found" as an error.
DraState* ReadState(const framework::CycleState& state) {
  return state.Read<DraState>(kStateKey);
}

framework::Status StateNotFound() {
  return framework::Status::Error("not found");
}

// The rejection most nodes of a GPU cluster give a GPU pod: one set of
// reasons for all of them, not one allocation per node.
framework::Status CannotAllocateAllClaims() {
  static const framework::Status::Constant kCannotAllocate(
      framework::Code::kUnschedulableAndUnresolvable,
      "cannot allocate all claims", std::string(names::kDynamicResources));
  return kCannotAllocate.status();
}

std::string ClaimRef(const api::ResourceClaim& c) {
  return c.metadata.ns + "/" + c.metadata.name;
}

// The size of kube's LRU of compiled selectors is not observable (compiling
// is pure); a larger one spares recompiling a cluster's few expressions.
constexpr size_t kSelectorCacheSize = 256;

}  // namespace
}  // namespace dynamic_resources_detail
using namespace dynamic_resources_detail;

DynamicResources::DynamicResources(Options options, framework::Handle& handle)
    : options_(options),
      handle_(handle),
      manager_(handle.dra_manager()),
      selectors_(std::make_shared<cel::dra::SelectorCache>(
          kSelectorCacheSize,
          cel::dra::Features{.consumable_capacity =
                                 options.features.consumable_capacity})) {}

// ---------------------------------------------------------------- claims

util::Result<std::vector<std::shared_ptr<const api::ResourceClaim>>>
DynamicResources::PodClaims(const api::Pod& pod) const {
  std::vector<std::shared_ptr<const api::ResourceClaim>> claims;
  claims.reserve(pod.spec.resource_claims.size());
  for (const api::PodResourceClaim& pod_claim : pod.spec.resource_claims) {
    auto name = dra::ClaimName(pod, pod_claim);
    if (!name.ok()) return name.error();
    // The controller decided this entry needs no claim.
    if (!name->name) continue;
    std::shared_ptr<const api::ResourceClaim> claim =
        manager_->GetResourceClaim(pod.metadata.ns, *name->name);
    if (claim == nullptr) {
      return util::Error("could not find ResourceClaim \"" + pod.metadata.ns +
                         "/" + *name->name + "\"");
    }
    if (claim->metadata.deletion_timestamp) {
      return util::Error("resourceclaim \"" + claim->metadata.name +
                         "\" is being deleted");
    }
    if (name->must_check_owner) {
      if (auto owned = dra::IsForPod(pod, *claim); !owned.ok()) {
        return owned.error();
      }
    }
    claims.push_back(std::move(claim));
  }
  return claims;
}

// ---------------------------------------------------------------- events

std::vector<framework::ClusterEventWithHint>
DynamicResources::EventsToRegister() const {
  if (!options_.enabled) return {};
  using framework::EventResource;
  std::vector<framework::ClusterEventWithHint> events = {
      // A node that appears or gets labels or allocatable may be one a
      // claim's allocation or a slice's node selector allows. (Taint
      // changes are NodeUnschedulable's and TaintToleration's business
      // with queueing hints on, as they are in v1.35.)
      {{EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel |
                                  framework::kUpdateNodeAllocatable},
       nullptr}};
  if (manager_ == nullptr) return events;
  events.push_back(
      {{EventResource::kResourceClaim, framework::kAdd | framework::kUpdate},
       [this](const api::Pod& pod, const framework::EventObjects& objs) {
         return IsSchedulableAfterClaimChange(pod, objs.old_claim,
                                              objs.new_claim);
       }});
  events.push_back(
      {{EventResource::kPod, framework::kUpdatePodGeneratedResourceClaim},
       [this](const api::Pod& pod, const framework::EventObjects& objs) {
         return IsSchedulableAfterPodChange(pod, objs.old_pod, objs.new_pod);
       }});
  // A new or changed class or slice may offer devices; no hint.
  events.push_back(
      {{EventResource::kDeviceClass, framework::kAdd | framework::kUpdate},
       nullptr});
  events.push_back(
      {{EventResource::kResourceSlice, framework::kAdd | framework::kUpdate},
       nullptr});
  return events;
}

framework::QueueingHint DynamicResources::IsSchedulableAfterClaimChange(
    const api::Pod& pod, const api::ResourceClaim* old_claim,
    const api::ResourceClaim* new_claim) const {
  using framework::QueueingHint;
  // Deletes are not registered; a call without a claim is not a change
  // that can help.
  if (new_claim == nullptr) return QueueingHint::kQueueSkip;
  auto claims = PodClaims(pod);
  // Still waiting for some other claim: this one cannot help yet.
  if (!claims.ok()) return QueueingHint::kQueueSkip;
  // A deallocation frees devices any pod may want.
  if (old_claim != nullptr && old_claim->status.allocation &&
      !new_claim->status.allocation) {
    return QueueingHint::kQueue;
  }
  const bool uses =
      std::any_of(claims->begin(), claims->end(), [&](const auto& c) {
        return c->metadata.uid == new_claim->metadata.uid;
      });
  if (!uses) return QueueingHint::kQueueSkip;
  if (old_claim == nullptr) return QueueingHint::kQueue;
  // A finalizer or a label changed: nothing the pod waits for.
  if (old_claim->status == new_claim->status) return QueueingHint::kQueueSkip;
  return QueueingHint::kQueue;
}

framework::QueueingHint DynamicResources::IsSchedulableAfterPodChange(
    const api::Pod& pod, const api::Pod* /*old_pod*/,
    const api::Pod* new_pod) const {
  using framework::QueueingHint;
  if (new_pod == nullptr) return QueueingHint::kQueue;
  if (new_pod->metadata.uid != pod.metadata.uid) {
    return QueueingHint::kQueueSkip;
  }
  return PodClaims(*new_pod).ok() ? QueueingHint::kQueue
                                  : QueueingHint::kQueueSkip;
}

// ---------------------------------------------------------------- PreEnqueue

framework::Status DynamicResources::PreEnqueue(const api::Pod& pod) const {
  if (!options_.enabled || pod.spec.resource_claims.empty()) return {};
  if (manager_ == nullptr || !manager_->served()) {
    return framework::Status::Unresolvable(
        "pod \"" + pod.metadata.ns + "/" + pod.metadata.name +
        "\": its ResourceClaims cannot be allocated: the API server does "
        "not serve resource.k8s.io/v1 to ksched");
  }
  if (auto claims = PodClaims(pod); !claims.ok()) {
    return framework::Status::Unresolvable(claims.error().message());
  }
  return {};
}

// ---------------------------------------------------------------- PreFilter

framework::Status DynamicResources::ValidateDeviceClass(
    std::string_view class_name, const std::string& request) const {
  if (class_name.empty()) {
    return framework::Status::Error("request " + request +
                                    ": unsupported request type");
  }
  if (manager_->GetDeviceClass(class_name) == nullptr) {
    return framework::Status::Unresolvable(
        "request " + request + ": device class " + std::string(class_name) +
        " does not exist");
  }
  return {};
}

framework::Status DynamicResources::PreFilter(
    framework::CycleState& state, const framework::PodInfo& pod_info,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/,
    framework::PreFilterResult* /*result*/) {
  if (!options_.enabled) return framework::Status::Skip();
  // Written first, so the later points find a state even when PreFilter
  // rejects the pod.
  auto data = std::make_shared<DraState>();
  state.Write(kStateKey, data);
  const api::Pod& pod = pod_info.pod();
  // As an extender kube-scheduler allocates; nothing to do here then.
  if (manager_ == nullptr) return framework::Status::Skip();
  auto claims = PodClaims(pod);
  if (!claims.ok()) {
    return framework::Status::Unresolvable(claims.error().message());
  }
  data->num_user_claims = claims->size();
  // Extended resources a DeviceClass serves: the claim an earlier cycle
  // made for them, or a new one in memory.
  if (options_.extended_resources) {
    data->extended_requests =
        dynamic_resources::DraBackedRequests(pod, ClassResolver());
    if (!data->extended_requests.empty()) {
      std::shared_ptr<const api::ResourceClaim> extended =
          dynamic_resources::FindExtendedResourceClaim(
              pod, manager_->ListResourceClaims());
      if (extended == nullptr) {
        extended = std::make_shared<const api::ResourceClaim>(
            dynamic_resources::NewExtendedResourceClaim(pod, NewClaimUid()));
      }
      data->initial_extended_claim_uid = extended->metadata.uid;
      claims->push_back(std::move(extended));
    }
  }
  if (claims->empty()) return framework::Status::Skip();

  std::vector<dynamic_resources::ClaimInfo> infos(claims->size());
  size_t to_allocate = 0;
  for (size_t i = 0; i < claims->size(); ++i) {
    const api::ResourceClaim& claim = *(*claims)[i];
    if (claim.status.allocation) {
      if (claim.status.allocation->node_selector) {
        infos[i].available_on_nodes =
            std::make_shared<const api::CompiledNodeSelector>(
                *claim.status.allocation->node_selector);
      }
      continue;
    }
    ++to_allocate;
    if (manager_->ClaimHasPendingAllocation(claim.metadata.uid)) {
      return framework::Status::Unresolvable(
          "resource claim " + ClaimRef(claim) +
          " is in the process of being allocated");
    }
    // The extended resource claim gets its requests per node in Filter.
    if (i == data->num_user_claims) continue;
    for (const api::DeviceRequest& request : claim.spec.devices.requests) {
      if (request.exactly) {
        framework::Status s = ValidateDeviceClass(
            request.exactly->device_class_name, request.name);
        if (!s.IsSuccess()) return s;
      } else if (!request.first_available.empty()) {
        if (!options_.features.prioritized_list) {
          return framework::Status::Unresolvable(
              "resource claim " + ClaimRef(claim) + ", request " +
              request.name +
              ": has subrequests, but the DRAPrioritizedList feature is "
              "disabled");
        }
        for (const api::DeviceSubRequest& sub : request.first_available) {
          framework::Status s = ValidateDeviceClass(
              sub.device_class_name, request.name + "/" + sub.name);
          if (!s.IsSuccess()) return s;
        }
      } else {
        return framework::Status::Unresolvable(
            "resource claim " + ClaimRef(claim) + ", request " + request.name +
            ": unknown request type");
      }
    }
  }
  if (to_allocate > 0) {
    for (size_t i = 0; i < claims->size(); ++i) {
      if ((*claims)[i]->status.allocation) continue;
      for (const api::DeviceRequest& request :
           (*claims)[i]->spec.devices.requests) {
        if (!request.first_available.empty()) {
          data->needs_results_per_node = options_.features.prioritized_list;
        }
      }
    }
    // The classes the claims name, looked up once for every node's search
    // (Filter's threads then share no lock).
    auto classes = std::make_shared<std::map<
        std::string, std::shared_ptr<const api::DeviceClass>, std::less<>>>();
    for (const auto& claim : *claims) {
      if (claim->status.allocation) continue;
      for (const api::DeviceRequest& request : claim->spec.devices.requests) {
        auto add = [&](const std::string& name) {
          if (auto cls = manager_->GetDeviceClass(name)) {
            classes->emplace(name, std::move(cls));
          }
        };
        if (request.exactly) add(request.exactly->device_class_name);
        for (const api::DeviceSubRequest& sub : request.first_available) {
          add(sub.device_class_name);
        }
      }
    }
    // The classes Filter's requests for extended resources will name.
    for (const auto& [resource, quantity] : data->extended_requests) {
      if (auto cls = manager_->DeviceClassForResource(resource)) {
        classes->emplace(cls->metadata.name, std::move(cls));
      }
    }
    // The slices and the devices taken (allocated, or in flight in other
    // cycles), read together and frozen for this cycle as kube does.
    dra::DraManager::AllocationState taken = manager_->SnapshotForAllocation();
    data->allocator = std::make_shared<const dra::Allocator>(
        options_.features, std::move(taken.taken), std::move(taken.shared),
        [classes](
            std::string_view name) -> std::shared_ptr<const api::DeviceClass> {
          auto it = classes->find(name);
          return it == classes->end() ? nullptr : it->second;
        },
        std::move(taken.slices), selectors_);
    for (size_t i = 0; i < data->num_user_claims; ++i) {
      if ((*claims)[i]->status.allocation) continue;
      data->user_claims_to_allocate.push_back(i);
      data->user_claims_to_allocate_ptrs.push_back((*claims)[i].get());
    }
    if (!data->user_claims_to_allocate.empty()) {
      data->count_check =
          data->allocator->MakeCountCheck(data->user_claims_to_allocate_ptrs);
    }
  }
  data->infos = std::move(infos);
  data->claims = std::move(*claims);
  for (const auto& claim : data->claims) {
    for (const api::DeviceRequest& request : claim->spec.devices.requests) {
      if (!request.exactly && !request.first_available.empty()) {
        data->has_alternatives = true;
      }
    }
  }
  return {};
}

// ---------------------------------------------------------------- Filter

framework::Status DynamicResources::Filter(
    const framework::CycleState& state, const framework::PodInfo& pod_info,
    const framework::NodeInfo& node_info) const {
  if (!options_.enabled) return {};
  const DraState* data = ReadState(state);
  if (data == nullptr) return StateNotFound();
  if (data->claims.empty()) return {};
  const api::Node& node = *node_info.node();

  // The extended resource claim as this node needs it (kube's
  // filterExtendedResources).
  std::shared_ptr<const api::ResourceClaim> node_extended_claim;
  std::vector<api::ContainerExtendedResourceRequest> mappings;
  if (const api::ResourceClaim* extended = data->ExtendedClaim()) {
    // Made by an earlier cycle that did not bind: PostFilter deletes it
    // and the next attempt starts anew.
    if (!extended->spec.devices.requests.empty()) {
      return framework::Status::Unresolvable(
          "cannot schedule extended resource claim");
    }
    std::map<std::string, int64_t, std::less<>> from_dra;
    const framework::Resource& allocatable = node_info.allocatable();
    for (const auto& request : data->extended_requests) {
      // Named, not a structured binding: lambdas cannot capture those in
      // every compiler this builds with.
      const std::string& name = request.first;
      const int64_t quantity = request.second;
      if (quantity == 0) continue;
      const bool backed = manager_->DeviceClassForResource(name) != nullptr;
      if (backed && allocatable.Scalar(name) == 0) {
        from_dra.emplace(name, quantity);
      } else if (std::none_of(allocatable.scalar_resources.begin(),
                              allocatable.scalar_resources.end(),
                              [&](const auto& r) { return r.first == name; })) {
        return framework::Status::Unresolvable("cannot fit resource");
      }
    }
    if (data->num_user_claims == 0 && from_dra.empty()) return {};
    if (!extended->status.allocation && !from_dra.empty()) {
      auto claim = std::make_shared<api::ResourceClaim>(*extended);
      auto made = dynamic_resources::CreateRequestsAndMappings(
          pod_info.pod(), from_dra, ClassResolver());
      claim->spec.devices.requests = std::move(made.requests);
      mappings = std::move(made.mappings);
      node_extended_claim = std::move(claim);
    }
  }

  std::vector<size_t> unavailable;
  for (size_t i = 0; i < data->claims.size(); ++i) {
    const auto& selector = data->infos[i].available_on_nodes;
    if (selector != nullptr && !selector->Matches(node)) {
      unavailable.push_back(i);
      continue;
    }
    // An allocated claim whose binding failed, or that has waited past
    // bindingTimeout, is given back by PostFilter so other devices can be
    // tried.
    const api::ResourceClaim& claim = *data->claims[i];
    if (claim.status.allocation && binding_conditions()) {
      util::Result<bool> ready = dynamic_resources::ClaimReadyForBinding(claim);
      if (!ready.ok() ||
          (!*ready && dynamic_resources::ClaimBindingTimedOut(
                          claim, options_.binding_timeout, WallNow()))) {
        unavailable.push_back(i);
      }
    }
  }

  std::vector<api::AllocationResult> allocations;
  // The claims to allocate: the pod's own unallocated ones, then the
  // extended resource claim where this node needs devices for it. (Where
  // the node's allocatable serves every extended resource that claim has
  // nothing to allocate; kube hands its empty in-memory claim to the
  // allocator there and then fails in Reserve.)
  std::span<const api::ResourceClaim* const> to_allocate =
      data->user_claims_to_allocate_ptrs;
  std::vector<const api::ResourceClaim*> with_extended;
  if (data->allocator != nullptr) {
    // Set only for an extended resource claim without an allocation
    // (DraState::ClaimIndicesOf lists the same claims).
    if (node_extended_claim != nullptr) {
      with_extended = data->user_claims_to_allocate_ptrs;
      with_extended.push_back(node_extended_claim.get());
      to_allocate = with_extended;
    }
    if (to_allocate.empty()) return {};
    dra::AllocateLimits limits;
    // Results are built for the node Reserve picks; Score needs them per
    // node only to rank prioritized-list alternatives.
    limits.build_results = data->needs_results_per_node;
    if (options_.filter_timeout.count() > 0) {
      limits.clock = &handle_.clock();
      limits.timeout = options_.filter_timeout;
    }
    dra::AllocateResult r = data->allocator->Allocate(
        node, node_info.name(), to_allocate, limits,
        with_extended.empty() ? data->count_check.get() : nullptr);
    using Code = dra::AllocateResult::Code;
    switch (r.code) {
      case Code::kTimedOut:
        // Possibly transient: an error retries after backoff rather than
        // waiting for a cluster event. The node's slices may be the cause,
        // so it is named.
        return framework::Status::Error("node " + node_info.name() +
                                        ": timed out trying to allocate "
                                        "devices");
      case Code::kFailedOnNode:
        return framework::Status::Unresolvable(r.message);
      case Code::kCanceled:
        return framework::Status::Unresolvable(
            "asked by caller to stop allocating devices: " +
            std::string(limits.cancel_cause));
      case Code::kError:
        // A CEL error, a vanished class: the attempt fails and is retried
        // with backoff, never silently taken for a mismatch.
        return framework::Status::Error(r.message);
      case Code::kNoFit:
        // For explain: which request lacked devices on this node.
        if (framework::CycleRecorder* recorder = state.recorder()) {
          recorder->Detail(node_info, Name(),
                           data->allocator->Diagnose(node, to_allocate));
        }
        return CannotAllocateAllClaims();
      case Code::kAllocated:
        if (limits.build_results &&
            r.allocations.size() != to_allocate.size()) {
          return CannotAllocateAllClaims();
        }
        allocations = std::move(r.allocations);
        break;
    }
  }

  if (!unavailable.empty()) {
    std::lock_guard lock(data->mu);
    data->unavailable_claims.insert(unavailable.begin(), unavailable.end());
    return framework::Status::Unresolvable(
        "resourceclaim not available on the node");
  }
  if (data->allocator != nullptr) {
    data->node_allocations.Put(
        node_info.name(),
        dynamic_resources::NodeAllocation{std::move(allocations),
                                          std::move(node_extended_claim),
                                          std::move(mappings)});
  }
  return {};
}

std::shared_ptr<const framework::NodeNames> DynamicResources::FilterCandidates(
    const framework::CycleState& state) const {
  if (!options_.enabled) return nullptr;
  const DraState* data = ReadState(state);
  // Filter takes the count check's answer only without an extended
  // resource claim, whose requests differ per node.
  if (data == nullptr || data->allocator == nullptr ||
      data->count_check == nullptr || data->ExtendedClaim() != nullptr) {
    return nullptr;
  }
  return data->allocator->NodesThatMayFit(*data->count_check);
}

// ---------------------------------------------------------------- PostFilter

framework::Status DynamicResources::PostFilter(
    framework::CycleState& state, const framework::PodInfo& pod_info,
    const framework::NodeToStatus& /*filtered*/,
    framework::PostFilterResult* /*result*/) {
  if (!options_.enabled)
    return framework::Status::Unschedulable("plugin disabled");
  DraState* data = ReadState(state);
  if (data == nullptr) return StateNotFound();
  if (data->claims.empty()) {
    return framework::Status::Unschedulable(std::string(kNoClaimsToDeallocate));
  }
  const api::Pod& pod = pod_info.pod();
  std::set<size_t> unavailable;
  {
    std::lock_guard lock(data->mu);
    unavailable = data->unavailable_claims;
  }
  const api::ResourceClaim* extended = data->ExtendedClaim();
  const bool extended_written =
      extended != nullptr &&
      extended->metadata.name != dynamic_resources::kInMemoryClaimName;
  // kube takes the unavailable claims in map order (random); ascending
  // index is one of its possible orders.
  for (size_t index : unavailable) {
    if (data->IsExtendedClaim(index)) {
      if (extended_written) break;  // deleted below
      continue;
    }
    const api::ResourceClaim& claim = *data->claims[index];
    const auto& reserved = claim.status.reserved_for;
    if (!(reserved.empty() ||
          (reserved.size() == 1 && reserved[0].uid == pod.metadata.uid))) {
      continue;
    }
    framework::ClusterWriter* writer = handle_.writer();
    if (writer == nullptr) break;
    api::ResourceClaim copy = claim;
    copy.status.reserved_for.clear();
    copy.status.allocation.reset();
    copy.status.devices.clear();
    framework::ClaimWrite w = writer->UpdateResourceClaimStatus(copy);
    if (!w.ok()) return framework::Status::Error(w.error);
    return framework::Status::Unschedulable(
        "deallocation of ResourceClaim completed");
  }
  // A claim an earlier cycle made for the pod's extended resources, which
  // did not bind: deleted, so the next attempt starts anew.
  if (extended_written) {
    framework::Status s = DeleteExtendedResourceClaim(*extended);
    if (!s.IsSuccess()) return s;
    return framework::Status::Unschedulable(
        "deletion of ResourceClaim completed");
  }
  return framework::Status::Unschedulable("still not schedulable");
}

// ---------------------------------------------------------------- Score

framework::Status DynamicResources::Score(const framework::CycleState& state,
                                          const framework::PodInfo& /*pod*/,
                                          const framework::NodeInfo& node,
                                          int64_t* score) const {
  *score = 0;
  if (!options_.enabled || !options_.features.prioritized_list) return {};
  const DraState* data = ReadState(state);
  if (data == nullptr) return StateNotFound();
  if (data->claims.empty() || !data->has_alternatives) return {};
  const dynamic_resources::NodeAllocation* found =
      data->node_allocations.Find(node.name());
  if (found == nullptr) return {};
  const std::vector<api::AllocationResult>* allocations = &found->results;
  // Earlier alternatives of a prioritized list score higher: 8 for the
  // first sub-request, 7 for the second, ...
  size_t unallocated = 0;
  for (const auto& claim : data->claims) {
    const api::AllocationResult* allocation;
    if (claim->status.allocation) {
      allocation = &*claim->status.allocation;
    } else if (!data->needs_results_per_node) {
      // No unallocated claim has a prioritized list: nothing of theirs
      // scores, and Filter did not build their results.
      continue;
    } else {
      if (unallocated >= allocations->size()) {
        return framework::Status::Error(
            "number of allocations " + std::to_string(allocations->size()) +
            " is smaller than number of claims needing allocation");
      }
      allocation = &(*allocations)[unallocated++];
    }
    for (const api::DeviceRequest& request : claim->spec.devices.requests) {
      if (request.exactly) continue;
      for (size_t i = 0; i < request.first_available.size(); ++i) {
        const std::string ref =
            request.name + "/" + request.first_available[i].name;
        const bool allocated =
            std::any_of(allocation->devices.results.begin(),
                        allocation->devices.results.end(),
                        [&](const api::DeviceRequestAllocationResult& r) {
                          return r.request == ref;
                        });
        if (allocated) {
          *score += dra::kFirstAvailableDeviceRequestMaxSize -
                    static_cast<int64_t>(i);
        }
      }
    }
  }
  return {};
}

framework::Status DynamicResources::NormalizeScore(
    const framework::CycleState& /*state*/, const framework::PodInfo& /*pod*/,
    framework::NodeScoreList& scores) const {
  if (!options_.enabled) return {};
  helper::DefaultNormalizeScore(framework::kMaxNodeScore, false, scores);
  return {};
}

// ---------------------------------------------------------------- Reserve

framework::Status DynamicResources::Reserve(framework::CycleState& state,
                                            const framework::PodInfo& /*pod*/,
                                            const std::string& node) {
  if (!options_.enabled) return {};
  DraState* data = ReadState(state);
  if (data == nullptr) return StateNotFound();
  if (data->claims.empty()) return {};
  if (data->ToAllocate().empty() || data->allocator == nullptr) return {};
  dynamic_resources::NodeAllocation found;
  bool feasible = false;
  if (auto kept = data->node_allocations.Get(node)) {
    feasible = true;
    found = std::move(*kept);
  }
  const std::vector<size_t> to_allocate =
      feasible ? data->ClaimIndicesOf(found) : std::vector<size_t>();
  // Only the extended resource claim was to be allocated, and the node's
  // allocatable serves it: nothing to reserve.
  if (to_allocate.empty()) {
    bool user_claims = false;
    for (size_t i : data->ToAllocate()) {
      if (!data->IsExtendedClaim(i)) user_claims = true;
    }
    if (!user_claims) return {};
  }
  std::vector<api::AllocationResult> results = std::move(found.results);
  if (feasible && results.empty() && !to_allocate.empty()) {
    // Filter only learnt that the claims fit here: the same search on the
    // same frozen state gives the same devices, now with their results.
    if (const framework::NodeInfo* info = handle_.snapshot().Get(node)) {
      std::vector<const api::ResourceClaim*> claims;
      for (size_t i : to_allocate) {
        claims.push_back(data->IsExtendedClaim(i) ? found.extended_claim.get()
                                                  : data->claims[i].get());
      }
      dra::AllocateResult r = data->allocator->Allocate(*info->node(), claims);
      if (r.code == dra::AllocateResult::Code::kAllocated) {
        results = std::move(r.allocations);
      }
    }
  }
  if (results.empty()) {
    return framework::Status::Error("claim allocation not found for node");
  }
  if (results.size() != to_allocate.size()) {
    return framework::Status::Error(
        "internal error, have " + std::to_string(results.size()) +
        " allocations, " + std::to_string(to_allocate.size()) +
        " claims to allocate, want " + std::to_string(to_allocate.size()) +
        " claims");
  }
  for (size_t k = 0; k < to_allocate.size(); ++k) {
    const size_t index = to_allocate[k];
    data->infos[index].allocation = results[k];
    // The extended resource claim goes in flight as this node needs it.
    const api::ResourceClaim& source = data->IsExtendedClaim(index)
                                           ? *found.extended_claim
                                           : *data->claims[index];
    if (data->IsExtendedClaim(index)) {
      data->chosen_extended_claim = found.extended_claim;
      data->chosen_mappings = found.mappings;
    }
    auto claim = std::make_shared<api::ResourceClaim>(source);
    auto& finalizers = claim->metadata.finalizers;
    if (std::find(finalizers.begin(), finalizers.end(),
                  api::kResourceClaimFinalizer) == finalizers.end()) {
      finalizers.emplace_back(api::kResourceClaimFinalizer);
    }
    claim->status.allocation = std::move(results[k]);
    const std::string uid = claim->metadata.uid;
    manager_->SignalClaimPendingAllocation(uid, std::move(claim));
  }
  return {};
}

void DynamicResources::Unreserve(framework::CycleState& state,
                                 const framework::PodInfo& pod_info,
                                 const std::string& /*node*/) {
  if (!options_.enabled || manager_ == nullptr) return;
  DraState* data = ReadState(state);
  if (data == nullptr || data->claims.empty()) return;
  const api::Pod& pod = pod_info.pod();
  for (size_t i = 0; i < data->num_user_claims; ++i) {
    const auto& claim = data->claims[i];
    if (manager_->RemoveClaimPendingAllocation(claim->metadata.uid)) {
      manager_->AssumedClaimRestore(claim->metadata.ns, claim->metadata.name);
    }
    // The claim as PreBind left it: reserved for the pod if PreBind got
    // that far. The allocation stays (the claim's controller or a later
    // PostFilter frees it); a failure here is not the pod's problem.
    if (claim->status.allocation && dra::IsReservedForPod(pod, *claim)) {
      if (framework::ClusterWriter* writer = handle_.writer()) {
        (void)writer->UnreserveResourceClaim(*claim, pod.metadata.uid);
      }
    }
  }
  // The extended resource claim is the scheduler's own: once written it
  // is deleted, so no claim is left behind for a pod that did not bind.
  if (const api::ResourceClaim* extended = data->ExtendedClaim()) {
    if (manager_->RemoveClaimPendingAllocation(
            data->initial_extended_claim_uid)) {
      manager_->AssumedClaimRestore(extended->metadata.ns,
                                    extended->metadata.name);
    }
    if (extended->metadata.name != dynamic_resources::kInMemoryClaimName) {
      (void)DeleteExtendedResourceClaim(*extended);
    }
  }
}

// ---------------------------------------------------------------- PreBind

framework::Status DynamicResources::PreBindPreFlight(
    framework::CycleState& state, const framework::PodInfo& /*pod*/,
    const std::string& /*node*/, framework::PreBindPreFlightResult& result) {
  // Its writes touch only the pod's claims (v1.36).
  result.allow_parallel = true;
  if (!options_.enabled) return framework::Status::Skip();
  const DraState* data = ReadState(state);
  if (data == nullptr) return StateNotFound();
  if (data->claims.empty()) return framework::Status::Skip();
  return {};
}

framework::Status DynamicResources::PreBind(framework::CycleState& state,
                                            const framework::PodInfo& pod_info,
                                            const std::string& node) {
  if (!options_.enabled) return {};
  DraState* data = ReadState(state);
  if (data == nullptr) return StateNotFound();
  if (data->claims.empty()) return {};
  const api::Pod& pod = pod_info.pod();
  for (size_t i = 0; i < data->claims.size(); ++i) {
    if (dra::IsReservedForPod(pod, *data->claims[i])) continue;
    const bool extended = data->IsExtendedClaim(i);
    // Extended resources the node's allocatable serves: no claim.
    if (extended && !data->infos[i].allocation &&
        data->claims[i]->spec.devices.requests.empty()) {
      continue;
    }
    // Preempted, or a PreBind running beside this one failed.
    if (const framework::CancelCause* cancel = state.binding_cancellation();
        cancel != nullptr && cancel->cancelled()) {
      return framework::Status::Error(cancel->cause());
    }
    std::string pending_uid = data->claims[i]->metadata.uid;
    if (extended && data->claims[i]->metadata.name ==
                        dynamic_resources::kInMemoryClaimName) {
      auto created = CreateExtendedResourceClaim(*data, pod);
      if (!created.ok()) {
        // Nothing was written: its devices are no longer in flight (kube's
        // bindClaim lets them go on every way out).
        manager_->RemoveClaimPendingAllocation(
            data->initial_extended_claim_uid);
        return framework::Status::Error(created.error().message());
      }
      pending_uid = data->initial_extended_claim_uid;
      // From now on Unreserve deletes what was written.
      data->claims[i] = std::move(*created);
    }
    auto bound = BindClaim(*data->claims[i], data->infos[i].allocation, pod,
                           pending_uid, /*wait_for_informer=*/extended);
    if (!bound.ok()) return framework::Status::Error(bound.error().message());
    data->claims[i] = std::move(*bound);
    if (extended) {
      framework::Status s = WriteExtendedResourceClaimStatus(
          pod, data->claims[i]->metadata.name, data->chosen_mappings);
      if (!s.IsSuccess()) return s;
    }
  }
  if (!binding_conditions() ||
      !dynamic_resources::AnyBindingConditions(data->claims)) {
    return {};
  }
  return WaitForBindingConditions(state, data->claims, pod, node);
}

bool DynamicResources::SignPod(const api::Pod& pod, api::Pod& /*into*/) const {
  // Nothing of a pod without claims matters here; a pod with claims depends
  // on cluster state beyond the node, so it cannot be batched.
  return pod.spec.resource_claims.empty();
}

util::Result<std::unique_ptr<framework::Plugin>> NewDynamicResources(
    const config::PluginArgs* args, framework::Handle& handle) {
  const config::FeatureGates& gates = handle.features();
  using config::Feature;
  DynamicResources::Options options;
  options.enabled = gates.Enabled(Feature::kDynamicResourceAllocation);
  options.features.admin_access = gates.Enabled(Feature::kDRAAdminAccess);
  options.features.prioritized_list =
      gates.Enabled(Feature::kDRAPrioritizedList);
  options.features.partitionable_devices =
      gates.Enabled(Feature::kDRAPartitionableDevices);
  options.features.device_taints = gates.Enabled(Feature::kDRADeviceTaints);
  options.extended_resources = gates.Enabled(Feature::kDRAExtendedResource);
  options.features.consumable_capacity =
      gates.Enabled(Feature::kDRAConsumableCapacity);
  options.features.device_binding_and_status =
      gates.Enabled(Feature::kDRADeviceBindingConditions) &&
      gates.Enabled(Feature::kDRAResourceClaimDeviceStatus);
  // What kube's experimental allocator and the alpha extras add is not
  // implemented: refuse them rather than schedule differently than kube.
  if (options.enabled) {
    for (Feature f : {Feature::kDRADeviceTaintRules}) {
      if (gates.Enabled(f)) {
        return util::Error("DynamicResources: feature gate " +
                           std::string(config::FeatureName(f)) +
                           " is not supported by ksched");
      }
    }
  }
  if (const auto* a = dynamic_cast<const config::DynamicResourcesArgs*>(args)) {
    options.filter_timeout = a->filter_timeout;
    if (a->binding_timeout.count() > 0) {
      options.binding_timeout = a->binding_timeout;
    }
  } else if (gates.Enabled(Feature::kDRASchedulerFilterTimeout)) {
    options.filter_timeout = std::chrono::seconds(10);
  }
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<DynamicResources>(options, handle));
}

}  // namespace ksched::plugins

// DynamicResources: allocates the devices a pod asks for through
// ResourceClaims while it is scheduled, as kube-scheduler v1.35's plugin
// does (in the default profile with weight 2, right before
// DefaultPreemption).
//
//   PreEnqueue  every claim exists (a template's claim has been made) and
//               is not being deleted
//   PreFilter   reads the claims; an allocated one pins the pod to its
//               allocation's nodes; for the others checks their classes and
//               builds the cycle's allocator over the devices not taken
//   Filter      allocates the unallocated claims on the node
//   PostFilter  when no node fits, deallocates one claim that blocks it
//   Score       prefers nodes where prioritized lists got earlier choices
//   Reserve     holds the chosen devices in flight, so no other cycle
//               takes them
//   PreBind     writes the finalizer, then the allocation and reservedFor
//               into each claim (retrying conflicts); with binding
//               conditions, waits until the devices' drivers report them
//               (or a failure, or bindingTimeout)
//   Unreserve   lets the in-flight devices go and removes the pod from
//               reservedFor
//
// The claims, classes and slices come from the Handle's dra::DraManager.
// Without one (resource.k8s.io is not served, or ksched runs as an
// extender, where kube-scheduler allocates), a pod with claims is held at
// PreEnqueue when ksched schedules it, and passes as an extender.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "pkg/cel/dra.h"
#include "pkg/config/types.h"
#include "pkg/dra/allocator.h"
#include "pkg/dra/dra_manager.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/dynamicresources/extended_resources.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {
namespace dynamic_resources {
struct DraState;
}  // namespace dynamic_resources

// PostFilter's answer for a pod that has no claim to free.
inline constexpr std::string_view kNoClaimsToDeallocate =
    "no new claims to deallocate";

class DynamicResources final : public framework::PreEnqueuePlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::FilterCandidatesPlugin,
                               public framework::PostFilterPlugin,
                               public framework::ScorePlugin,
                               public framework::ReservePlugin,
                               public framework::PreBindPlugin,
                               public framework::SignPlugin,
                               public framework::EnqueueExtensions {
 public:
  struct Options {
    // The DynamicResourceAllocation gate: off, the plugin does nothing.
    bool enabled = true;
    // DRAExtendedResource: extended resources a DeviceClass serves get a
    // claim of their own.
    bool extended_resources = true;
    dra::Features features;
    // filterTimeout; zero means none.
    std::chrono::nanoseconds filter_timeout{0};
    // bindingTimeout: how long PreBind waits for binding conditions, and
    // after an allocation's timestamp a claim still waiting is given back.
    std::chrono::nanoseconds binding_timeout{std::chrono::minutes(10)};
    // How often PreBind looks at the claims while it waits. kube looks
    // every 5 s; a shorter look binds sooner after a driver reports, and
    // costs a few lookups in the claim cache.
    std::chrono::nanoseconds binding_poll_interval{
        std::chrono::milliseconds(200)};
    // PreBind's waits go through this (tests move a fake clock); null:
    // the thread sleeps.
    std::function<void(std::chrono::nanoseconds)> sleep;
  };
  DynamicResources(Options options, framework::Handle& handle);

  std::string_view Name() const override { return names::kDynamicResources; }
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;
  framework::Status PreEnqueue(const api::Pod& pod) const override;
  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // For a pod whose claims need devices no node without slices of its own
  // could give it: the nodes with slices (Allocator::NodesThatMayFit).
  std::shared_ptr<const framework::NodeNames> FilterCandidates(
      const framework::CycleState& state) const override;
  framework::Status PostFilter(framework::CycleState& state,
                               const framework::PodInfo& pod,
                               const framework::NodeToStatus& filtered,
                               framework::PostFilterResult* result) override;
  framework::Status Score(const framework::CycleState& state,
                          const framework::PodInfo& pod,
                          const framework::NodeInfo& node,
                          int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(
      const framework::CycleState& state, const framework::PodInfo& pod,
      framework::NodeScoreList& scores) const override;
  framework::Status Reserve(framework::CycleState& state,
                            const framework::PodInfo& pod,
                            const std::string& node) override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                 const std::string& node) override;
  // Success when PreBind will write claims, so the framework sets the
  // pod's nominatedNodeName first, as v1.35 does. Its PreBind may run in
  // parallel with VolumeBinding's (v1.36).
  framework::Status PreBindPreFlight(
      framework::CycleState& state, const framework::PodInfo& pod,
      const std::string& node,
      framework::PreBindPreFlightResult& result) override;
  framework::Status PreBind(framework::CycleState& state,
                            const framework::PodInfo& pod,
                            const std::string& node) override;
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  // It signs only pods without claims, for which it always passes and
  // scores 0.
  bool NodeLocal() const override { return true; }

  // The pod's claims in spec order, or the first reason one is missing
  // (kube's foreachPodResourceClaim); template entries needing no claim
  // are skipped.
  util::Result<std::vector<std::shared_ptr<const api::ResourceClaim>>>
  PodClaims(const api::Pod& pod) const;

  // Queueing hints (exposed for tests).
  framework::QueueingHint IsSchedulableAfterClaimChange(
      const api::Pod& pod, const api::ResourceClaim* old_claim,
      const api::ResourceClaim* new_claim) const;
  framework::QueueingHint IsSchedulableAfterPodChange(
      const api::Pod& pod, const api::Pod* old_pod,
      const api::Pod* new_pod) const;

 private:
  // PreBind's write of one claim; the updated claim or kube's error text.
  // `pending_uid`: the UID its in-flight allocation is kept under (the
  // claim's own, or the stand-in of an extended resource claim created
  // just now, which the cache learns of only from the informer: with
  // `wait_for_informer` the written claim is assumed once it has).
  util::Result<std::shared_ptr<const api::ResourceClaim>> BindClaim(
      const api::ResourceClaim& claim,
      const std::optional<api::AllocationResult>& allocation,
      const api::Pod& pod, const std::string& pending_uid,
      bool wait_for_informer);
  // ---- extended resources backed by DRA (extended_resources_plugin.cc)
  // The class that serves an extended resource.
  dynamic_resources::ClassForResource ClassResolver() const;
  // A stand-in UID for a claim that exists only in memory.
  std::string NewClaimUid();
  // POSTs Reserve's node's version of the extended resource claim.
  util::Result<std::shared_ptr<const api::ResourceClaim>>
  CreateExtendedResourceClaim(const dynamic_resources::DraState& data,
                              const api::Pod& pod);
  // Writes pod.status.extendedResourceClaimStatus.
  framework::Status WriteExtendedResourceClaimStatus(
      const api::Pod& pod, const std::string& claim_name,
      const std::vector<api::ContainerExtendedResourceRequest>& mappings);
  // Removes the finalizer (retrying conflicts), then deletes the claim.
  framework::Status DeleteExtendedResourceClaim(
      const api::ResourceClaim& claim);
  framework::Status ValidateDeviceClass(std::string_view class_name,
                                        const std::string& request) const;
  // PreBind's wait for the binding conditions of the pod's devices;
  // `claims` are updated to what the cache holds as the drivers report.
  framework::Status WaitForBindingConditions(
      const framework::CycleState& state,
      std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
      const api::Pod& pod, const std::string& node);
  bool binding_conditions() const {
    return options_.features.device_binding_and_status;
  }
  // The handle's wall clock, as claims' timestamps count.
  api::Timestamp WallNow() const;

  Options options_;
  framework::Handle& handle_;
  std::atomic<uint64_t> claim_uids_{0};
  dra::DraManager* manager_;  // null: inert (see above)
  std::shared_ptr<cel::dra::SelectorCache> selectors_;
};

util::Result<std::unique_ptr<framework::Plugin>> NewDynamicResources(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

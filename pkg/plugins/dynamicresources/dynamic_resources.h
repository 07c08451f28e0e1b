// DynamicResources: allocates the devices a pod asks for through
// ResourceClaims while it is scheduled (kube-scheduler v1.35's plugin, in
// the default profile since DynamicResourceAllocation went GA in 1.34).
//
// This is the part every pod meets. A pod without claims gets an empty
// state at PreFilter and a Skip, passes Filter, scores 0 on every node and,
// when it fits nowhere, the plugin's PostFilter answers "no new claims to
// deallocate" ahead of preemption, which is why every v1.35 failure message
// carries those words. A pod that does reference claims is held at
// PreEnqueue with a message saying ksched does not allocate devices: binding
// it while ignoring its claims would start it on a node without its devices.
// As an extender, where kube-scheduler allocates, such pods pass.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

// PostFilter's answer for a pod that has no claim to free.
inline constexpr std::string_view kNoClaimsToDeallocate =
    "no new claims to deallocate";

class DynamicResources final : public framework::PreEnqueuePlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::PostFilterPlugin,
                               public framework::ScorePlugin,
                               public framework::ReservePlugin,
                               public framework::PreBindPlugin,
                               public framework::SignPlugin,
                               public framework::EnqueueExtensions {
 public:
  // `enabled`: the DynamicResourceAllocation gate. Configured while it is
  // off, the plugin does nothing, as kube's does.
  explicit DynamicResources(bool enabled) : enabled_(enabled) {}

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
  // Skip: a pod that reaches binding has no claims to bind (those with
  // claims are held at PreEnqueue), as v1.35 answers for a pod without
  // claims, so no nominatedNodeName is written ahead of binding for it.
  framework::Status PreBindPreFlight(framework::CycleState& state,
                                     const framework::PodInfo& pod,
                                     const std::string& node) override;
  framework::Status PreBind(framework::CycleState& state,
                            const framework::PodInfo& pod,
                            const std::string& node) override;
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;

 private:
  bool enabled_;
};

util::Result<std::unique_ptr<framework::Plugin>> NewDynamicResources(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

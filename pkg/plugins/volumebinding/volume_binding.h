// VolumeBinding: a pod's PersistentVolumeClaims must be bindable on the
// node (kube-scheduler v1.32's volumebinding plugin).
//
// PreFilter reads the pod's claims (direct and generic ephemeral) and
// rejects the pod while a claim is missing, lost, being deleted, not owned
// by the pod (ephemeral) or unbound in an Immediate class. Filter checks
// bound claims' PVs against the node's labels and, for unbound
// WaitForFirstConsumer claims, looks for an available PV on the node or
// else for dynamic provisioning the node's topology allows. Reserve assumes
// the chosen node's bindings (so the next pods see those PVs taken) and
// Unreserve forgets them. PreBind triggers provisioning as kube does, by
// annotating each claim to provision with volume.kubernetes.io/selected-node.
//
// What ksched does not do, for want of a storage backend:
//  - Static bindings are decided and kept assumed, but not written: ksched
//    has no PersistentVolume write, so the PV's claimRef is never set and
//    no PV controller completes the binding (kube updates the PV in
//    PreBind).
//  - PreBind does not wait for the PV controller or the provisioner to bind
//    the claims (kube polls for up to bindTimeoutSeconds and fails the
//    binding cycle when provisioning fails); the pod is bound right after
//    the annotations are written. bindTimeoutSeconds is accepted, unused.
//  - No CSIStorageCapacity check ("did not have enough free storage" is
//    never reported), no in-tree to CSI PV translation (CSINode), no
//    VolumeAttributesClass matching, and no VolumeCapacityPriority scoring
//    (its gate is off in v1.32, so Score is skipped as in kube).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/plugins/volumebinding/assume_cache.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

inline constexpr std::string_view kVolumeBindingErrReasonUnboundImmediate =
    "pod has unbound immediate PersistentVolumeClaims";

class VolumeBinding final : public framework::SignPlugin,
                            public framework::PreFilterPlugin,
                            public framework::FilterPlugin,
                            public framework::PreScorePlugin,
                            public framework::ScorePlugin,
                            public framework::ReservePlugin,
                            public framework::PreBindPlugin,
                            public framework::EnqueueExtensions {
 public:
  explicit VolumeBinding(framework::Handle& handle);

  std::string_view Name() const override { return names::kVolumeBinding; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;

  // Skip when the pod has no claims.
  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  // Always Skip: scoring needs the VolumeCapacityPriority gate, off in v1.32.
  framework::Status PreScore(
      framework::CycleState& state, const framework::PodInfo& pod,
      const std::vector<framework::NodeInfoPtr>& nodes) override;
  framework::Status Score(const framework::CycleState& state,
                          const framework::PodInfo& pod,
                          const framework::NodeInfo& node,
                          int64_t* score) const override;

  framework::Status Reserve(framework::CycleState& state,
                            const framework::PodInfo& pod,
                            const std::string& node) override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                 const std::string& node) override;
  // Skip when every claim is bound already (PreBind has nothing to do),
  // Success when it will write bindings, an error without a reservation on
  // `node` (v1.35's PreBindPreFlight). Its PreBind may run in parallel with
  // DynamicResources' (v1.36).
  framework::Status PreBindPreFlight(
      framework::CycleState& state, const framework::PodInfo& pod,
      const std::string& node,
      framework::PreBindPreFlightResult& result) override;
  framework::Status PreBind(framework::CycleState& state,
                            const framework::PodInfo& pod,
                            const std::string& node) override;

  // What Reserve assumed and PreBind kept: the bindings kube would write.
  const volumebinding::AssumeCache& assume_cache() const { return cache_; }

 private:
  framework::Handle& handle_;
  volumebinding::AssumeCache cache_;
};

// Fails, as kube's New does, on args that do not validate.
util::Result<std::unique_ptr<framework::Plugin>> NewVolumeBinding(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

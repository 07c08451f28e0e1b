// NodeVolumeLimits: a node attaches at most as many volumes of each CSI
// driver as its CSINode says (kube-scheduler v1.32's CSI limits plugin).
//
// Each volume is identified as "<driver>/<volume handle>": a PV's CSI
// source; an in-tree PV or inline disk translated to the CSI driver that
// took it over (when the node has a CSINode, CSI migration is on); an
// unbound claim by its class's provisioner. Volumes the node's pods already
// use count once, and so do VolumeAttachments to the node; a driver the
// CSINode gives no count for is unlimited.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/storage.h"
#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

inline constexpr std::string_view kNodeVolumeLimitsErrReasonMaxVolumeCount =
    "node(s) exceed max volume count";

class NodeVolumeLimits final : public framework::SignPlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::EnqueueExtensions {
 public:
  explicit NodeVolumeLimits(framework::Handle& handle) : handle_(handle) {}

  std::string_view Name() const override { return names::kNodeVolumeLimits; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;

  // Skip when the pod has no claim, no generic ephemeral volume and no
  // in-tree disk CSI migration knows.
  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  static framework::QueueingHint HintAfterPodDelete(
      const api::Pod& pod, const framework::EventObjects& objs);
  static framework::QueueingHint HintAfterClaimAdd(
      const api::Pod& pod, const framework::EventObjects& objs);

 private:
  // Volume id -> the driver whose limit it counts against.
  using VolumeDrivers = std::map<std::string, std::string>;

  // The pod whose volumes are counted: the incoming one, or one on the
  // node (of which the cache keeps only these facts).
  struct PodVolumes {
    const std::string& ns;
    const std::string& name;
    const std::string& uid;
    const std::vector<api::Volume>& volumes;
  };
  // Adds the pod's attachable volumes to `out`. For the incoming pod a
  // missing claim is an error; an existing pod's is skipped.
  framework::Status AttachableVolumes(const PodVolumes& pod,
                                      const api::CsiNode* csi_node,
                                      bool incoming, VolumeDrivers* out) const;
  // The driver and handle of a claim's volume; empty when not counted.
  std::pair<std::string, std::string> DriverAndHandle(
      const api::CsiNode* csi_node,
      const api::PersistentVolumeClaim& claim) const;
  std::pair<std::string, std::string> DriverAndHandleFromClass(
      const api::CsiNode* csi_node,
      const api::PersistentVolumeClaim& claim) const;
  // The node's attached volumes per VolumeAttachment.
  VolumeDrivers AttachedByVolumeAttachments(const std::string& node) const;

  framework::Handle& handle_;
};

util::Result<std::unique_ptr<framework::Plugin>> NewNodeVolumeLimits(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

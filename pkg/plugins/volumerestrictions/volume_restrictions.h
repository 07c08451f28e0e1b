// VolumeRestrictions: volumes that cannot be shared (kube-scheduler v1.32's
// volumerestrictions plugin).
//
// Two kinds of restriction:
//  - an inline GCE PD, AWS EBS, RBD or iSCSI disk another pod on the node
//    already uses (read-only on both sides is fine, except for EBS);
//  - a ReadWriteOncePod claim another pod anywhere in the cluster uses.
// Both are Unschedulable, not Unresolvable: preempting the user frees the
// volume, which is why PreFilter has AddPod/RemovePod extensions.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

inline constexpr std::string_view kVolumeRestrictionsErrReasonDiskConflict =
    "node(s) had no available disk";
inline constexpr std::string_view
    kVolumeRestrictionsErrReasonReadWriteOncePodConflict =
        "node(s) unavailable due to PersistentVolumeClaim with "
        "ReadWriteOncePod access mode already in-use by another pod";

namespace volumerestrictions {

// Whether `volume` (an inline disk of the incoming pod) conflicts with one
// of another pod's volumes (isVolumeConflict).
bool IsVolumeConflict(const api::Volume& volume,
                      const std::vector<api::Volume>& existing);
// Whether one of the restricted disks among `volumes` is in use by a pod
// with `existing` volumes.
bool HasDiskConflict(const std::vector<api::Volume>& volumes,
                     const std::vector<api::Volume>& existing);

}  // namespace volumerestrictions

class VolumeRestrictions final : public framework::SignPlugin,
                                 public framework::PreFilterPlugin,
                                 public framework::FilterPlugin,
                                 public framework::EnqueueExtensions {
 public:
  explicit VolumeRestrictions(framework::Handle& handle) : handle_(handle) {}

  std::string_view Name() const override { return names::kVolumeRestrictions; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;

  // Skip when the pod has no restricted inline disk and none of its
  // ReadWriteOncePod claims is in use.
  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes,
                              framework::PreFilterResult* result) override;
  bool HasExtensions() const override { return true; }
  framework::Status AddPod(framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::PodInfoPtr& to_add,
                           const framework::NodeInfo& node) const override;
  framework::Status RemovePod(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const framework::PodInfoPtr& to_remove,
                              const framework::NodeInfo& node) const override;
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  static framework::QueueingHint HintAfterPodDelete(
      const api::Pod& pod, const framework::EventObjects& objs);
  static framework::QueueingHint HintAfterClaimAdd(
      const api::Pod& pod, const framework::EventObjects& objs);

 private:
  framework::Handle& handle_;
};

util::Result<std::unique_ptr<framework::Plugin>> NewVolumeRestrictions(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

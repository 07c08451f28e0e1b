// AssumeCache: what VolumeBinding decided about PVs and PVCs before the
// cluster shows it, in the spirit of kube-scheduler's PV and PVC assume
// caches. Reserve assumes a PV bound to its claim (claimRef) and a claim to
// provision on the chosen node (the selected-node annotation); later cycles
// read PVs and PVCs through this cache, so a PV taken by one pod is not
// offered to the next before the cluster catches up.
//
// Only those two fields are overlaid on the current object. An assumption
// is dropped by Restore (Unreserve) or as soon as the cluster's object moved
// on: deleted, a new resourceVersion (kube replaces an assumed object with
// any newer informer version), or already carrying a claimRef / selected
// node / volume name of its own.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/storage.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/util/result.h"

namespace ksched::plugins::volumebinding {

class AssumeCache {
 public:
  // The claim as the binder sees it; nullptr when the cluster has none.
  std::shared_ptr<const api::PersistentVolumeClaim> GetClaim(
      const framework::ClusterObjects& objects, std::string_view ns,
      std::string_view name);
  // The volume as the binder sees it; nullptr when the cluster has none.
  std::shared_ptr<const api::PersistentVolume> GetVolume(
      const framework::ClusterObjects& objects, std::string_view name);
  // Every volume of the class (VolumeClass), as the binder sees it.
  std::vector<std::shared_ptr<const api::PersistentVolume>> ListVolumes(
      const framework::ClusterObjects& objects, std::string_view class_name);

  // Assumes `volume` (the cluster's PV with claimRef set and maybe the
  // bound-by-controller annotation). Fails when the cluster has no such PV.
  util::Result<void> AssumeVolume(const framework::ClusterObjects& objects,
                                  const api::PersistentVolume& volume);
  // Assumes the claim annotated with the selected node. Fails when the
  // cluster has no such claim.
  util::Result<void> AssumeClaim(const framework::ClusterObjects& objects,
                                 const api::PersistentVolumeClaim& claim,
                                 const std::string& node);
  // Forgets an assumption; a no-op without one.
  void RestoreVolume(std::string_view name);
  void RestoreClaim(std::string_view ns, std::string_view name);

  // The claimRef / selected node currently assumed, for inspection.
  std::optional<api::ObjectReference> AssumedClaimRef(
      std::string_view volume) const;
  std::optional<std::string> AssumedSelectedNode(std::string_view ns,
                                                 std::string_view name) const;

 private:
  struct AssumedVolume {
    std::string resource_version;  // of the PV the assumption was made on
    api::ObjectReference claim_ref;
    bool bound_by_controller = false;
  };
  struct AssumedClaim {
    std::string resource_version;
    std::string node;
  };

  // The overlays; they erase an assumption the cluster has overtaken.
  std::shared_ptr<const api::PersistentVolume> OverlayLocked(
      std::shared_ptr<const api::PersistentVolume> current);
  std::shared_ptr<const api::PersistentVolumeClaim> OverlayLocked(
      std::shared_ptr<const api::PersistentVolumeClaim> current,
      const std::string& key);

  mutable std::mutex mu_;
  std::map<std::string, AssumedVolume, std::less<>> volumes_;  // by PV name
  std::map<std::string, AssumedClaim, std::less<>> claims_;    // namespace/name
};

}  // namespace ksched::plugins::volumebinding

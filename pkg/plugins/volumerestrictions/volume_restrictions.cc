#include "pkg/plugins/volumerestrictions/volume_restrictions.h"

#include <algorithm>
#include <utility>

#include "pkg/config/field_errors.h"
#include "pkg/framework/signature.h"

namespace ksched::plugins {
namespace {

using config::GoQuote;
using framework::QueueingHint;

constexpr framework::StateKey kStateKey{"PreFilterVolumeRestrictions"};
constexpr std::string_view kReadWriteOncePod = "ReadWriteOncePod";

class PreFilterState final : public framework::StateData {
 public:
  PreFilterState(bool disk_check,
                 std::shared_ptr<const std::set<std::string>> claims,
                 int conflicting)
      : needs_disk_check(disk_check),
        read_write_once_pod_claims(std::move(claims)),
        conflicting_claim_refs(conflicting) {}
  // The claim names are shared; the count is what preemption's what-ifs
  // change.
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreFilterState>(*this);
  }
  // Whether the pod has an inline disk another pod may hold.
  bool needs_disk_check = false;
  // Names (without namespace) of the pod's ReadWriteOncePod claims.
  std::shared_ptr<const std::set<std::string>> read_write_once_pod_claims;
  // How many of them other pods use.
  int conflicting_claim_refs = 0;
};

bool NeedsRestrictionsCheck(const api::Volume& v) {
  return v.in_tree.gce_persistent_disk || v.in_tree.aws_elastic_block_store ||
         v.in_tree.rbd || v.in_tree.iscsi;
}

bool HaveOverlap(const std::vector<std::string>& a,
                 const std::vector<std::string>& b) {
  for (const std::string& x : a) {
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  }
  return false;
}

// How many of the claim volumes among `volumes` are in `claims` (by name
// only, as kube compares them).
int ClaimUses(const std::vector<api::Volume>& volumes,
              const std::set<std::string>& claims) {
  int n = 0;
  for (const api::Volume& v : volumes) {
    if (v.persistent_volume_claim &&
        claims.contains(v.persistent_volume_claim->claim_name)) {
      ++n;
    }
  }
  return n;
}

framework::Status ReadStateError() {
  return framework::Status::Error(
      "cannot read \"PreFilterVolumeRestrictions\" from cycleState");
}

}  // namespace

namespace volumerestrictions {

bool IsVolumeConflict(const api::Volume& volume,
                      const std::vector<api::Volume>& existing) {
  const api::InTreeVolumeSources& mine = volume.in_tree;
  for (const api::Volume& other : existing) {
    const api::InTreeVolumeSources& theirs = other.in_tree;
    if (mine.gce_persistent_disk && theirs.gce_persistent_disk) {
      const auto& a = *mine.gce_persistent_disk;
      const auto& b = *theirs.gce_persistent_disk;
      // Many readers may share a PD.
      if (a.pd_name == b.pd_name && !(a.read_only && b.read_only)) {
        return true;
      }
    }
    if (mine.aws_elastic_block_store && theirs.aws_elastic_block_store) {
      // An EBS volume attaches to one instance, read-only or not.
      if (mine.aws_elastic_block_store->volume_id ==
          theirs.aws_elastic_block_store->volume_id) {
        return true;
      }
    }
    if (mine.iscsi && theirs.iscsi) {
      // kube compares the IQN alone.
      if (mine.iscsi->iqn == theirs.iscsi->iqn &&
          !(mine.iscsi->read_only && theirs.iscsi->read_only)) {
        return true;
      }
    }
    if (mine.rbd && theirs.rbd) {
      const auto& a = *mine.rbd;
      const auto& b = *theirs.rbd;
      if (HaveOverlap(a.monitors, b.monitors) && a.pool == b.pool &&
          a.image == b.image && !(a.read_only && b.read_only)) {
        return true;
      }
    }
  }
  return false;
}

bool HasDiskConflict(const std::vector<api::Volume>& volumes,
                     const std::vector<api::Volume>& existing) {
  for (const api::Volume& v : volumes) {
    if (NeedsRestrictionsCheck(v) && IsVolumeConflict(v, existing)) {
      return true;
    }
  }
  return false;
}

}  // namespace volumerestrictions

std::vector<framework::ClusterEventWithHint>
VolumeRestrictions::EventsToRegister() const {
  using framework::EventResource;
  // v1.32 with queueing hints on: of node events only additions matter.
  return {
      {{EventResource::kPod, framework::kDelete}, HintAfterPodDelete},
      {{EventResource::kNode, framework::kAdd}, nullptr},
      {{EventResource::kPersistentVolumeClaim, framework::kAdd},
       HintAfterClaimAdd},
  };
}

framework::Status VolumeRestrictions::PreFilter(
    framework::CycleState& state, const framework::PodInfo& pod_info,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/,
    framework::PreFilterResult* /*result*/) {
  const api::Pod& pod = pod_info.pod();
  bool needs_check = false;
  auto claims = std::make_shared<std::set<std::string>>();
  for (const api::Volume& v : pod.spec.volumes) {
    needs_check = needs_check || NeedsRestrictionsCheck(v);
    if (!v.persistent_volume_claim) continue;
    const std::string& name = v.persistent_volume_claim->claim_name;
    // Every claim is looked up, ReadWriteOncePod or not.
    auto claim =
        handle_.objects().GetPersistentVolumeClaim(pod.metadata.ns, name);
    if (claim == nullptr) {
      return framework::Status::Unresolvable("persistentvolumeclaim " +
                                             GoQuote(name) + " not found");
    }
    const auto& modes = claim->spec.access_modes;
    if (std::find(modes.begin(), modes.end(), kReadWriteOncePod) !=
        modes.end()) {
      claims->insert(claim->metadata.name);
    }
  }
  int conflicting = 0;
  for (const std::string& name : *claims) {
    // Any pod in the cluster, assumed ones included: only one may use it.
    if (handle_.snapshot().IsPvcUsedByPods(pod.metadata.ns + "/" + name)) {
      ++conflicting;
    }
  }
  if (!needs_check && conflicting == 0) return framework::Status::Skip();
  state.Write(kStateKey, std::make_shared<PreFilterState>(
                             needs_check, std::move(claims), conflicting));
  return framework::Status();
}

framework::Status VolumeRestrictions::AddPod(
    framework::CycleState& state, const framework::PodInfo& /*pod*/,
    const framework::PodInfoPtr& to_add,
    const framework::NodeInfo& /*node*/) const {
  auto* s = state.Read<PreFilterState>(kStateKey);
  if (s == nullptr) return ReadStateError();
  s->conflicting_claim_refs +=
      ClaimUses(to_add->storage_volumes(), *s->read_write_once_pod_claims);
  return framework::Status();
}

framework::Status VolumeRestrictions::RemovePod(
    framework::CycleState& state, const framework::PodInfo& /*pod*/,
    const framework::PodInfoPtr& to_remove,
    const framework::NodeInfo& /*node*/) const {
  auto* s = state.Read<PreFilterState>(kStateKey);
  if (s == nullptr) return ReadStateError();
  s->conflicting_claim_refs -=
      ClaimUses(to_remove->storage_volumes(), *s->read_write_once_pod_claims);
  return framework::Status();
}

framework::Status VolumeRestrictions::Filter(
    const framework::CycleState& state, const framework::PodInfo& pod,
    const framework::NodeInfo& node) const {
  const auto* s = state.Read<PreFilterState>(kStateKey);
  if (s == nullptr) return ReadStateError();
  if (s->needs_disk_check) {
    for (const framework::PodInfoPtr& existing : node.pods()) {
      if (volumerestrictions::HasDiskConflict(pod.pod().spec.volumes,
                                              existing->storage_volumes())) {
        return framework::Status::Unschedulable(
            std::string(kVolumeRestrictionsErrReasonDiskConflict));
      }
    }
  }
  if (s->conflicting_claim_refs > 0) {
    return framework::Status::Unschedulable(
        std::string(kVolumeRestrictionsErrReasonReadWriteOncePodConflict));
  }
  return framework::Status();
}

QueueingHint VolumeRestrictions::HintAfterPodDelete(
    const api::Pod& pod, const framework::EventObjects& objs) {
  const api::Pod* deleted = objs.old_pod;
  if (deleted == nullptr) return QueueingHint::kQueue;
  if (deleted->metadata.ns != pod.metadata.ns) return QueueingHint::kQueueSkip;
  if (volumerestrictions::HasDiskConflict(pod.spec.volumes,
                                          deleted->spec.volumes)) {
    return QueueingHint::kQueue;
  }
  // A claim the deleted pod used, whatever its access mode.
  std::set<std::string> claims;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.persistent_volume_claim) {
      claims.insert(v.persistent_volume_claim->claim_name);
    }
  }
  return ClaimUses(deleted->spec.volumes, claims) > 0
             ? QueueingHint::kQueue
             : QueueingHint::kQueueSkip;
}

QueueingHint VolumeRestrictions::HintAfterClaimAdd(
    const api::Pod& pod, const framework::EventObjects& objs) {
  const api::PersistentVolumeClaim* claim = objs.new_pvc;
  if (claim == nullptr) return QueueingHint::kQueue;
  if (claim->metadata.ns != pod.metadata.ns) return QueueingHint::kQueueSkip;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.persistent_volume_claim &&
        v.persistent_volume_claim->claim_name == claim->metadata.name) {
      return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kQueueSkip;
}

util::Result<std::unique_ptr<framework::Plugin>> NewVolumeRestrictions(
    const config::PluginArgs* /*args*/, framework::Handle& handle) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<VolumeRestrictions>(handle));
}

bool VolumeRestrictions::SignPod(const api::Pod& pod, api::Pod& into) const {
  if (framework::signature::HasClaims(pod)) return false;
  framework::signature::CopyVolumes(pod, into);
  return true;
}

}  // namespace ksched::plugins

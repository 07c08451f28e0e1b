#include "pkg/plugins/nodevolumelimits/node_volume_limits.h"

#include <utility>

#include "pkg/config/field_errors.h"
#include "pkg/framework/signature.h"
#include "pkg/plugins/nodevolumelimits/csi_translation.h"
#include "pkg/plugins/volumebinding/pv_helpers.h"

namespace ksched::plugins {
namespace {

using config::GoQuote;
using framework::QueueingHint;
namespace translation = csitranslation;

// Stands in for the handle of a claim not bound yet. kube draws a random
// prefix per plugin; any string no driver uses as a handle does, and a
// fixed one keeps simulations reproducible.
constexpr std::string_view kUnboundClaimPrefix = "ksched-unbound-claim";

// The claim of a generic ephemeral volume is "<pod>-<volume>".
std::string EphemeralClaimName(const std::string& pod, const api::Volume& v) {
  return pod + "-" + v.name;
}

bool IsControlledBy(const api::PersistentVolumeClaim& claim,
                    const std::string& uid) {
  for (const api::OwnerReference& ref : claim.metadata.owner_references) {
    if (ref.controller.value_or(false) && ref.uid == uid) return true;
  }
  return false;
}

// Limits per driver, from the CSINode only (v1.32 dropped node allocatable
// attach limits).
std::map<std::string, int64_t> VolumeLimits(const api::CsiNode* csi_node) {
  std::map<std::string, int64_t> limits;
  if (csi_node == nullptr) return limits;
  for (const api::CsiNodeDriver& driver : csi_node->spec.drivers) {
    if (driver.allocatable && driver.allocatable->count) {
      limits[driver.name] = *driver.allocatable->count;
    }
  }
  return limits;
}

}  // namespace

std::vector<framework::ClusterEventWithHint>
NodeVolumeLimits::EventsToRegister() const {
  using framework::EventResource;
  return {
      {{EventResource::kCsiNode, framework::kAdd}, nullptr},
      {{EventResource::kPod, framework::kDelete}, HintAfterPodDelete},
      {{EventResource::kPersistentVolumeClaim, framework::kAdd},
       HintAfterClaimAdd},
      {{EventResource::kVolumeAttachment, framework::kDelete}, nullptr},
  };
}

framework::Status NodeVolumeLimits::PreFilter(
    framework::CycleState& /*state*/, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/,
    framework::PreFilterResult* /*result*/) {
  for (const api::Volume& v : pod.pod().spec.volumes) {
    if (v.persistent_volume_claim || v.ephemeral ||
        translation::InlinePluginName(v)) {
      return framework::Status();
    }
  }
  return framework::Status::Skip();
}

std::pair<std::string, std::string> NodeVolumeLimits::DriverAndHandleFromClass(
    const api::CsiNode* csi_node,
    const api::PersistentVolumeClaim& claim) const {
  // No class: Immediate binding is assumed, and the volume is not counted.
  const std::string class_name = volumebinding::ClaimClass(claim);
  if (class_name.empty()) return {};
  auto storage_class = handle_.objects().GetStorageClass(class_name);
  if (storage_class == nullptr) return {};
  // One handle per claim, so pods sharing it count it once.
  std::string handle = std::string(kUnboundClaimPrefix) + "-" +
                       claim.metadata.ns + "/" + claim.metadata.name;
  const std::string& provisioner = storage_class->provisioner;
  if (std::optional<std::string_view> driver =
          translation::CsiDriverOf(provisioner)) {
    if (!translation::IsCsiMigrationOn(csi_node, provisioner)) return {};
    return {std::string(*driver), std::move(handle)};
  }
  // Otherwise the provisioner is taken to be the CSI driver.
  return {provisioner, std::move(handle)};
}

std::pair<std::string, std::string> NodeVolumeLimits::DriverAndHandle(
    const api::CsiNode* csi_node,
    const api::PersistentVolumeClaim& claim) const {
  const std::string& pv_name = claim.spec.volume_name;
  auto pv = pv_name.empty() ? nullptr
                            : handle_.objects().GetPersistentVolume(pv_name);
  // Unbound, pre-bound to a PV not there yet, or its PV deleted.
  if (pv == nullptr) return DriverAndHandleFromClass(csi_node, claim);
  if (pv->spec.csi) return {pv->spec.csi->driver, pv->spec.csi->volume_handle};
  std::optional<std::string_view> plugin = translation::PvPluginName(*pv);
  if (!plugin || !translation::IsCsiMigrationOn(csi_node, *plugin)) return {};
  util::Result<std::string> handle = translation::PvHandle(*pv);
  if (!handle.ok()) return {};
  return {std::string(*translation::CsiDriverOf(*plugin)), std::move(*handle)};
}

framework::Status NodeVolumeLimits::AttachableVolumes(
    const PodVolumes& pod, const api::CsiNode* csi_node, bool incoming,
    VolumeDrivers* out) const {
  for (const api::Volume& v : pod.volumes) {
    std::string claim_name;
    bool ephemeral = false;
    if (v.persistent_volume_claim) {
      claim_name = v.persistent_volume_claim->claim_name;
    } else if (v.ephemeral) {
      claim_name = EphemeralClaimName(pod.name, v);
      ephemeral = true;
    } else {
      // An inline in-tree disk its CSI driver took over.
      std::optional<std::string_view> plugin = translation::InlinePluginName(v);
      if (!plugin || !translation::IsCsiMigrationOn(csi_node, *plugin)) {
        continue;
      }
      util::Result<std::string> handle = translation::InlineHandle(v);
      if (!handle.ok()) {
        return framework::Status::Error(
            "converting volume(" + v.name +
            ") from inline to csi: " + handle.error().message());
      }
      const std::string driver(*translation::CsiDriverOf(*plugin));
      (*out)[driver + "/" + *handle] = driver;
      continue;
    }
    if (claim_name.empty()) {
      return framework::Status::Error("PersistentVolumeClaim had no name");
    }
    auto claim = handle_.objects().GetPersistentVolumeClaim(pod.ns, claim_name);
    if (claim == nullptr) {
      // An existing pod's missing claim is not counted.
      if (!incoming) continue;
      return framework::Status::Unresolvable(
          "looking up PVC " + pod.ns + "/" + claim_name +
          ": persistentvolumeclaim " + GoQuote(claim_name) + " not found");
    }
    if (ephemeral && !IsControlledBy(*claim, pod.uid)) {
      return framework::Status::Error("PVC " + claim->metadata.ns + "/" +
                                      claim->metadata.name +
                                      " was not created for pod " + pod.ns +
                                      "/" + pod.name + " (pod is not owner)");
    }
    auto [driver, handle] = DriverAndHandle(csi_node, *claim);
    if (driver.empty() || handle.empty()) continue;
    (*out)[driver + "/" + handle] = driver;
  }
  return framework::Status();
}

NodeVolumeLimits::VolumeDrivers NodeVolumeLimits::AttachedByVolumeAttachments(
    const std::string& node) const {
  VolumeDrivers out;
  for (const auto& attachment : handle_.objects().ListVolumeAttachments(node)) {
    const api::VolumeAttachmentSpec& spec = attachment->spec;
    if (spec.attacher.empty() || !spec.source.persistent_volume_name) continue;
    auto pv = handle_.objects().GetPersistentVolume(
        *spec.source.persistent_volume_name);
    // In-tree PVs are not translated here, as in kube.
    if (pv == nullptr || !pv->spec.csi) continue;
    out[spec.attacher + "/" + pv->spec.csi->volume_handle] = spec.attacher;
  }
  return out;
}

framework::Status NodeVolumeLimits::Filter(
    const framework::CycleState& /*state*/, const framework::PodInfo& pod,
    const framework::NodeInfo& info) const {
  if (pod.pod().spec.volumes.empty()) return framework::Status();
  const api::Node* node = info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  // A node without a CSINode has no limits and no migrated plugins.
  std::shared_ptr<const api::CsiNode> csi_node =
      handle_.objects().GetCsiNode(node->metadata.name);
  const api::Pod& p = pod.pod();
  VolumeDrivers incoming;
  framework::Status status = AttachableVolumes(
      {p.metadata.ns, p.metadata.name, p.metadata.uid, p.spec.volumes},
      csi_node.get(), true, &incoming);
  if (!status.IsSuccess()) return status;
  if (incoming.empty()) return framework::Status();
  const std::map<std::string, int64_t> limits = VolumeLimits(csi_node.get());
  if (limits.empty()) return framework::Status();

  VolumeDrivers attached;
  for (const framework::PodInfoPtr& existing : info.pods()) {
    status = AttachableVolumes({existing->ns(), existing->name(),
                                existing->uid(), existing->storage_volumes()},
                               csi_node.get(), false, &attached);
    if (!status.IsSuccess()) {
      return framework::Status::Error(status.Message());
    }
  }
  std::map<std::string, int64_t> attached_count;
  for (const auto& [volume, driver] : attached) {
    // Already on the node: the incoming pod shares it.
    incoming.erase(volume);
    ++attached_count[driver];
  }
  // Attachments of volumes no pod on the node uses (any more, or yet).
  // kube does not check them against the incoming pod's volumes.
  for (const auto& [volume, driver] :
       AttachedByVolumeAttachments(node->metadata.name)) {
    if (!attached.contains(volume)) ++attached_count[driver];
  }
  std::map<std::string, int64_t> new_count;
  for (const auto& [volume, driver] : incoming) ++new_count[driver];
  for (const auto& [driver, count] : new_count) {
    auto limit = limits.find(driver);
    if (limit != limits.end() &&
        attached_count[driver] + count > limit->second) {
      return framework::Status::Unschedulable(
          std::string(kNodeVolumeLimitsErrReasonMaxVolumeCount));
    }
  }
  return framework::Status();
}

QueueingHint NodeVolumeLimits::HintAfterPodDelete(
    const api::Pod& /*pod*/, const framework::EventObjects& objs) {
  const api::Pod* deleted = objs.old_pod;
  if (deleted == nullptr) return QueueingHint::kQueue;
  if (deleted->spec.volumes.empty() || deleted->spec.node_name.empty()) {
    return QueueingHint::kQueueSkip;
  }
  for (const api::Volume& v : deleted->spec.volumes) {
    if (v.persistent_volume_claim || v.ephemeral ||
        translation::InlinePluginName(v)) {
      return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kQueueSkip;
}

QueueingHint NodeVolumeLimits::HintAfterClaimAdd(
    const api::Pod& pod, const framework::EventObjects& objs) {
  const api::PersistentVolumeClaim* claim = objs.new_pvc;
  if (claim == nullptr) return QueueingHint::kQueue;
  if (claim->metadata.ns != pod.metadata.ns) return QueueingHint::kQueueSkip;
  for (const api::Volume& v : pod.spec.volumes) {
    const std::string name =
        v.persistent_volume_claim ? v.persistent_volume_claim->claim_name
        : v.ephemeral             ? EphemeralClaimName(pod.metadata.name, v)
                                  : std::string();
    if (!name.empty() && name == claim->metadata.name) {
      return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kQueueSkip;
}

util::Result<std::unique_ptr<framework::Plugin>> NewNodeVolumeLimits(
    const config::PluginArgs* /*args*/, framework::Handle& handle) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<NodeVolumeLimits>(handle));
}

bool NodeVolumeLimits::SignPod(const api::Pod& pod, api::Pod& into) const {
  if (framework::signature::HasClaims(pod)) return false;
  framework::signature::CopyVolumes(pod, into);
  return true;
}

}  // namespace ksched::plugins

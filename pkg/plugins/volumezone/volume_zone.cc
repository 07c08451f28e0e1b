#include "pkg/plugins/volumezone/volume_zone.h"

#include <array>
#include <cctype>
#include <optional>
#include <utility>

#include "pkg/config/field_errors.h"
#include "pkg/framework/signature.h"
#include "pkg/plugins/volumebinding/pv_helpers.h"

namespace ksched::plugins {
namespace {

using config::GoQuote;
using framework::QueueingHint;
using volumezone::PvTopology;

constexpr framework::StateKey kStateKey{"PreFilterVolumeZone"};

constexpr std::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kBetaRegion =
    "failure-domain.beta.kubernetes.io/region";
constexpr std::string_view kZone = "topology.kubernetes.io/zone";
constexpr std::string_view kRegion = "topology.kubernetes.io/region";
// In kube's order: a PV's labels are read, and a node's checked, in it.
constexpr std::array<std::string_view, 4> kTopologyLabels = {
    kBetaZone, kBetaRegion, kZone, kRegion};

// A beta key on the PV may be matched by the GA key on the node, not the
// other way round.
std::string_view ToGaLabel(std::string_view key) {
  if (key == kBetaZone) return kZone;
  if (key == kBetaRegion) return kRegion;
  return key;
}

// Immutable once written: preemption's clones share it.
class PreFilterState final : public framework::StateData {
 public:
  explicit PreFilterState(std::vector<PvTopology> topologies)
      : topologies(std::move(topologies)) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreFilterState>(*this);
  }
  std::vector<PvTopology> topologies;
};

bool HasTopologyLabel(const api::Node& node) {
  for (std::string_view key : kTopologyLabels) {
    if (node.metadata.labels.Find(key) != nullptr) return true;
  }
  return false;
}

}  // namespace

namespace volumezone {

std::optional<std::set<std::string>> LabelZonesToSet(std::string_view value) {
  std::set<std::string> zones;
  while (true) {
    const size_t cut = value.find("__");
    std::string_view part = value.substr(0, cut);
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part[0]))) {
      part.remove_prefix(1);
    }
    while (!part.empty() &&
           std::isspace(static_cast<unsigned char>(part.back()))) {
      part.remove_suffix(1);
    }
    if (part.empty()) return std::nullopt;
    zones.emplace(part);
    if (cut == std::string_view::npos) break;
    value.remove_prefix(cut + 2);
  }
  return zones;
}

std::vector<PvTopology> PvTopologies(const api::PersistentVolume& pv) {
  std::vector<PvTopology> out;
  for (std::string_view key : kTopologyLabels) {
    const std::string* value = pv.metadata.labels.Find(key);
    if (value == nullptr) continue;
    // kube logs the bad value and goes on without this label.
    std::optional<std::set<std::string>> values = LabelZonesToSet(*value);
    if (!values) continue;
    out.push_back({pv.metadata.name, std::string(key), std::move(*values)});
  }
  return out;
}

}  // namespace volumezone

std::vector<framework::ClusterEventWithHint> VolumeZone::EventsToRegister()
    const {
  using framework::EventResource;
  // v1.32 with queueing hints on: node taints do not matter to this plugin,
  // so only added nodes and label changes are registered for nodes.
  constexpr uint32_t kAddOrUpdate = framework::kAdd | framework::kUpdate;
  return {
      {{EventResource::kStorageClass, framework::kAdd},
       HintAfterStorageClassAdd},
      {{EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel},
       nullptr},
      {{EventResource::kPersistentVolumeClaim, kAddOrUpdate},
       HintAfterClaimChange},
      {{EventResource::kPersistentVolume, kAddOrUpdate}, HintAfterVolumeChange},
  };
}

framework::Status VolumeZone::PodTopologies(
    const api::Pod& pod, std::vector<PvTopology>* out) const {
  const framework::ClusterObjects& objects = handle_.objects();
  for (const api::Volume& volume : pod.spec.volumes) {
    if (!volume.persistent_volume_claim) continue;
    const std::string& claim_name = volume.persistent_volume_claim->claim_name;
    if (claim_name.empty()) {
      return framework::Status::Unresolvable(
          "PersistentVolumeClaim had no name");
    }
    auto claim = objects.GetPersistentVolumeClaim(pod.metadata.ns, claim_name);
    if (claim == nullptr) {
      return framework::Status::Unresolvable(
          "persistentvolumeclaim " + GoQuote(claim_name) + " not found");
    }
    const std::string& pv_name = claim->spec.volume_name;
    if (pv_name.empty()) {
      const std::string class_name = volumebinding::ClaimClass(*claim);
      if (class_name.empty()) {
        return framework::Status::Unresolvable(
            "PersistentVolumeClaim had no pv name and storageClass name");
      }
      auto storage_class = objects.GetStorageClass(class_name);
      if (storage_class == nullptr) {
        return framework::Status::Unresolvable("storageclass.storage.k8s.io " +
                                               GoQuote(class_name) +
                                               " not found");
      }
      if (!storage_class->volume_binding_mode) {
        return framework::Status::Unresolvable(
            "VolumeBindingMode not set for StorageClass " +
            GoQuote(class_name));
      }
      // VolumeBinding picks (or provisions) a PV the node can reach.
      if (*storage_class->volume_binding_mode ==
          api::kVolumeBindingWaitForFirstConsumer) {
        continue;
      }
      return framework::Status::Unresolvable("PersistentVolume had no name");
    }
    auto pv = objects.GetPersistentVolume(pv_name);
    if (pv == nullptr) {
      return framework::Status::Unresolvable("persistentvolume " +
                                             GoQuote(pv_name) + " not found");
    }
    std::vector<PvTopology> topologies = volumezone::PvTopologies(*pv);
    out->insert(out->end(), std::make_move_iterator(topologies.begin()),
                std::make_move_iterator(topologies.end()));
  }
  return framework::Status();
}

framework::Status VolumeZone::PreFilter(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/,
    framework::PreFilterResult* /*result*/) {
  std::vector<PvTopology> topologies;
  framework::Status status = PodTopologies(pod.pod(), &topologies);
  if (!status.IsSuccess()) return status;
  if (topologies.empty()) return framework::Status::Skip();
  state.Write(kStateKey,
              std::make_shared<PreFilterState>(std::move(topologies)));
  return framework::Status();
}

framework::Status VolumeZone::Filter(const framework::CycleState& state,
                                     const framework::PodInfo& pod,
                                     const framework::NodeInfo& info) const {
  if (pod.pod().spec.volumes.empty()) return framework::Status();
  std::vector<PvTopology> computed;
  const std::vector<PvTopology>* topologies = &computed;
  if (const auto* s = state.Read<PreFilterState>(kStateKey)) {
    topologies = &s->topologies;
  } else {
    // PreFilter did not run (or skipped): work it out, as kube does.
    framework::Status status = PodTopologies(pod.pod(), &computed);
    if (!status.IsSuccess()) return status;
  }
  const api::Node* node = info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  // Single-zone clusters label no node: every node fits.
  if (!HasTopologyLabel(*node)) return framework::Status();
  for (const PvTopology& topology : *topologies) {
    const std::string* value = node->metadata.labels.Find(topology.key);
    if (value == nullptr) {
      value = node->metadata.labels.Find(ToGaLabel(topology.key));
    }
    if (value == nullptr || !topology.values.contains(*value)) {
      return framework::Status::Unresolvable(
          std::string(kVolumeZoneErrReasonConflict));
    }
  }
  return framework::Status();
}

QueueingHint VolumeZone::HintAfterClaimChange(
    const api::Pod& pod, const framework::EventObjects& objs) {
  const api::PersistentVolumeClaim* claim = objs.new_pvc;
  if (claim == nullptr) return QueueingHint::kQueue;
  if (claim->metadata.ns != pod.metadata.ns) return QueueingHint::kQueueSkip;
  for (const api::Volume& volume : pod.spec.volumes) {
    if (volume.persistent_volume_claim &&
        volume.persistent_volume_claim->claim_name == claim->metadata.name) {
      return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kQueueSkip;
}

QueueingHint VolumeZone::HintAfterStorageClassAdd(
    const api::Pod& /*pod*/, const framework::EventObjects& objs) {
  const api::StorageClass* storage_class = objs.new_storage_class;
  if (storage_class == nullptr) return QueueingHint::kQueue;
  // Only a class that waits for the first consumer turns a rejection
  // ("PersistentVolume had no name") into a skip.
  return storage_class->volume_binding_mode ==
                 std::optional<std::string>(
                     api::kVolumeBindingWaitForFirstConsumer)
             ? QueueingHint::kQueue
             : QueueingHint::kQueueSkip;
}

QueueingHint VolumeZone::HintAfterVolumeChange(
    const api::Pod& /*pod*/, const framework::EventObjects& objs) {
  if (objs.new_pv == nullptr || objs.old_pv == nullptr) {
    return QueueingHint::kQueue;
  }
  return volumezone::PvTopologies(*objs.old_pv) ==
                 volumezone::PvTopologies(*objs.new_pv)
             ? QueueingHint::kQueueSkip
             : QueueingHint::kQueue;
}

util::Result<std::unique_ptr<framework::Plugin>> NewVolumeZone(
    const config::PluginArgs* /*args*/, framework::Handle& handle) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<VolumeZone>(handle));
}

bool VolumeZone::SignPod(const api::Pod& pod, api::Pod& into) const {
  if (framework::signature::HasClaims(pod)) return false;
  framework::signature::CopyVolumes(pod, into);
  return true;
}

}  // namespace ksched::plugins

// VolumeZone: a pod's bound PersistentVolumes must be in the node's zone and
// region (kube-scheduler v1.32's volumezone plugin).
//
// PreFilter reads the zone and region labels (GA and the deprecated beta
// ones) of every PV the pod's claims are bound to; Filter rejects a node
// whose labels do not match each of them. A node without any topology label
// fits anything (a single-zone cluster), and an unbound claim whose class
// waits for the first consumer is left to VolumeBinding.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/storage.h"
#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

inline constexpr std::string_view kVolumeZoneErrReasonConflict =
    "node(s) had no available volume zone";

namespace volumezone {

// One topology label of a PV: its key and the zones (or regions) its value
// names ("a__b" is two).
struct PvTopology {
  std::string pv_name;
  std::string key;
  std::set<std::string> values;
  friend bool operator==(const PvTopology&, const PvTopology&) = default;
};

// The PV's topology labels, in kube's key order; a value that does not
// parse ("a__") is left out.
std::vector<PvTopology> PvTopologies(const api::PersistentVolume& pv);

// The set a multi-zone label value names, split on "__"; nullopt when a
// part is empty (LabelZonesToSet).
std::optional<std::set<std::string>> LabelZonesToSet(std::string_view value);

}  // namespace volumezone

class VolumeZone final : public framework::SignPlugin,
                         public framework::PreFilterPlugin,
                         public framework::FilterPlugin,
                         public framework::EnqueueExtensions {
 public:
  explicit VolumeZone(framework::Handle& handle) : handle_(handle) {}

  std::string_view Name() const override { return names::kVolumeZone; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;

  // Skip when no claim of the pod is bound to a PV with topology labels.
  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  // Queueing hints (isSchedulableAfter...).
  static framework::QueueingHint HintAfterClaimChange(
      const api::Pod& pod, const framework::EventObjects& objs);
  static framework::QueueingHint HintAfterStorageClassAdd(
      const api::Pod& pod, const framework::EventObjects& objs);
  static framework::QueueingHint HintAfterVolumeChange(
      const api::Pod& pod, const framework::EventObjects& objs);

 private:
  // The topologies of the pod's bound PVs, or the status that rejects it.
  framework::Status PodTopologies(
      const api::Pod& pod, std::vector<volumezone::PvTopology>* out) const;

  framework::Handle& handle_;
};

util::Result<std::unique_ptr<framework::Plugin>> NewVolumeZone(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

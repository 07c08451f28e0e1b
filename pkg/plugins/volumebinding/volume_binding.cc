#include "pkg/plugins/volumebinding/volume_binding.h"

#include <optional>
#include <utility>

#include "pkg/api/storage.h"
#include "pkg/config/field_errors.h"
#include "pkg/framework/cancel_cause.h"
#include "pkg/framework/registry.h"
#include "pkg/framework/signature.h"
#include "pkg/plugins/volumebinding/binder.h"
#include "pkg/plugins/volumebinding/pod_claims.h"
#include "pkg/plugins/volumebinding/pv_helpers.h"

namespace ksched::plugins {
namespace {

namespace vb = volumebinding;
using config::GoQuote;

constexpr framework::StateKey kStateKey{"VolumeBinding"};
// kube's CycleState.Read error (framework.ErrNotFound).
constexpr const char* kStateNotFound = "not found";

// Written by PreFilter (claims) and Reserve (the rest); read by Filter,
// Unreserve and PreBind.
class StateData final : public framework::StateData {
 public:
  StateData() = default;
  explicit StateData(std::shared_ptr<const vb::PodVolumeClaims> c)
      : claims(std::move(c)) {}
  // The claims are immutable and shared; what Reserve sets is copied.
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<StateData>(*this);
  }

  // Null when the pod has no claims (PreFilter returned Skip).
  std::shared_ptr<const vb::PodVolumeClaims> claims;
  // Reserve's verdict: nothing to bind, or what binding on the node takes.
  bool all_bound = false;
  std::string reserved_node;
  std::optional<vb::PodVolumes> reserved;
};

// The Go value of a shape in a field error (%#v).
std::string GoShape(const std::vector<config::UtilizationShapePoint>& shape) {
  std::string out = "[]config.UtilizationShapePoint{";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += "config.UtilizationShapePoint{Utilization:" +
           std::to_string(shape[i].utilization) +
           ", Score:" + std::to_string(shape[i].score) + "}";
  }
  return out + "}";
}

void RestoreAssumed(vb::AssumeCache& cache, const vb::PodVolumes& volumes) {
  for (const vb::StaticBinding& binding : volumes.static_bindings) {
    cache.RestoreVolume(binding.volume->metadata.name);
  }
  for (const vb::ClaimPtr& claim : volumes.dynamic_provisions) {
    cache.RestoreClaim(claim->metadata.ns, claim->metadata.name);
  }
}

}  // namespace

VolumeBinding::VolumeBinding(framework::Handle& handle) : handle_(handle) {}

std::vector<framework::ClusterEventWithHint> VolumeBinding::EventsToRegister()
    const {
  using framework::EventResource;
  // kube-scheduler v1.32 with queueing hints on (its default). kube's hints
  // for StorageClass (allowedTopologies changed), PVC (one of the pod's
  // claims) and CSINode (migrated plugins changed) read the changed object,
  // which EventObjects does not carry: without a hint, every such event
  // requeues. kube's CSIDriver and CSIStorageCapacity events have no
  // EventResource here.
  constexpr uint32_t kAddOrUpdate = framework::kAdd | framework::kUpdate;
  return {
      {{EventResource::kStorageClass, kAddOrUpdate}, nullptr},
      {{EventResource::kPersistentVolumeClaim, kAddOrUpdate}, nullptr},
      {{EventResource::kPersistentVolume, kAddOrUpdate}, nullptr},
      {{EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel},
       nullptr},
      {{EventResource::kCsiNode, kAddOrUpdate}, nullptr},
  };
}

framework::Status VolumeBinding::PreFilter(
    framework::CycleState& state, const framework::PodInfo& pod_info,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/,
    framework::PreFilterResult* /*result*/) {
  const api::Pod& pod = pod_info.pod();
  const framework::ClusterObjects& objects = handle_.objects();
  auto claims = vb::ReadPodClaims(pod, objects, cache_);
  if (!claims.ok()) {
    return framework::Status::Unresolvable(claims.error().message());
  }
  if (claims->empty()) {
    // Reserve and PreBind still run: they find nothing to do.
    state.Write(kStateKey, std::make_shared<StateData>());
    return framework::Status::Skip();
  }
  auto classified = std::make_shared<const vb::PodVolumeClaims>(
      vb::ClassifyClaims(*claims, objects, cache_));
  if (!classified->unbound_immediate.empty()) {
    // The PV controller binds these; the claim's update requeues the pod.
    return framework::Status::Unresolvable(
        std::string(kVolumeBindingErrReasonUnboundImmediate));
  }
  state.Write(kStateKey, std::make_shared<StateData>(std::move(classified)));
  return framework::Status();
}

framework::Status VolumeBinding::Filter(const framework::CycleState& state,
                                        const framework::PodInfo& /*pod*/,
                                        const framework::NodeInfo& info) const {
  const api::Node* node = info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  const auto* s = state.Read<StateData>(kStateKey);
  if (s == nullptr) return framework::Status::Error(kStateNotFound);
  if (s->claims == nullptr) return framework::Status();
  auto found = vb::FindPodVolumes(*s->claims, *node);
  if (!found.ok()) return framework::Status::Error(found.error().message());
  if (!found->reasons.empty()) {
    return framework::Status(framework::Code::kUnschedulableAndUnresolvable,
                             std::move(found->reasons));
  }
  return framework::Status();
}

framework::Status VolumeBinding::PreScore(
    framework::CycleState& /*state*/, const framework::PodInfo& /*pod*/,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/) {
  return framework::Status::Skip();
}

framework::Status VolumeBinding::Score(const framework::CycleState& /*state*/,
                                       const framework::PodInfo& /*pod*/,
                                       const framework::NodeInfo& /*node*/,
                                       int64_t* score) const {
  *score = 0;
  return framework::Status();
}

framework::Status VolumeBinding::Reserve(framework::CycleState& state,
                                         const framework::PodInfo& pod_info,
                                         const std::string& node_name) {
  auto* s = state.Read<StateData>(kStateKey);
  if (s == nullptr) return framework::Status::Error(kStateNotFound);
  s->reserved.reset();
  s->reserved_node.clear();
  s->all_bound = true;
  if (s->claims == nullptr) return framework::Status();

  // kube keeps each node's Filter result; ksched's Filter only reads the
  // cycle state, so the chosen node's result is computed again, with the
  // same inputs and therefore the same answer.
  const framework::NodeInfo* info = handle_.snapshot().Get(node_name);
  if (info == nullptr || info->node() == nullptr) {
    return framework::Status::Error("node " + GoQuote(node_name) +
                                    " not found");
  }
  auto found = vb::FindPodVolumes(*s->claims, *info->node());
  if (!found.ok()) return framework::Status::Error(found.error().message());
  // A node Filter did not pass (its Filter did not run): kube has no volumes
  // for it and leaves them alone.
  if (!found->reasons.empty()) return framework::Status();

  // AssumePodVolumes.
  const framework::ClusterObjects& objects = handle_.objects();
  if (vb::ArePodVolumesBound(pod_info.pod(), objects, cache_)) {
    return framework::Status();
  }
  vb::PodVolumes assumed;
  for (const vb::StaticBinding& binding : found->volumes.static_bindings) {
    auto [volume, dirty] =
        vb::BindVolumeToClaim(*binding.volume, *binding.claim);
    if (dirty) {
      if (auto ok = cache_.AssumeVolume(objects, *volume); !ok.ok()) {
        RestoreAssumed(cache_, assumed);
        return framework::Status::Error(ok.error().message());
      }
    }
    assumed.static_bindings.push_back({binding.claim, std::move(volume)});
  }
  for (const vb::ClaimPtr& claim : found->volumes.dynamic_provisions) {
    if (auto ok = cache_.AssumeClaim(objects, *claim, node_name); !ok.ok()) {
      RestoreAssumed(cache_, assumed);
      return framework::Status::Error(ok.error().message());
    }
    auto annotated = std::make_shared<api::PersistentVolumeClaim>(*claim);
    annotated->metadata.annotations.Set(api::kAnnSelectedNode, node_name);
    assumed.dynamic_provisions.push_back(std::move(annotated));
  }
  s->all_bound = false;
  s->reserved_node = node_name;
  s->reserved = std::move(assumed);
  return framework::Status();
}

void VolumeBinding::Unreserve(framework::CycleState& state,
                              const framework::PodInfo& /*pod*/,
                              const std::string& node_name) {
  const auto* s = state.Read<StateData>(kStateKey);
  if (s == nullptr || !s->reserved || s->reserved_node != node_name) return;
  RestoreAssumed(cache_, *s->reserved);
}

framework::Status VolumeBinding::PreBindPreFlight(
    framework::CycleState& state, const framework::PodInfo& /*pod*/,
    const std::string& node_name, framework::PreBindPreFlightResult& result) {
  // Its writes touch only the pod's claims (v1.36).
  result.allow_parallel = true;
  const auto* s = state.Read<StateData>(kStateKey);
  if (s == nullptr) return framework::Status::Error(kStateNotFound);
  if (s->all_bound) return framework::Status::Skip();
  if (!s->reserved || s->reserved_node != node_name) {
    return framework::Status::Error("no pod volumes found for node " +
                                    GoQuote(node_name));
  }
  return framework::Status();
}

framework::Status VolumeBinding::PreBind(framework::CycleState& state,
                                         const framework::PodInfo& /*pod*/,
                                         const std::string& node_name) {
  const auto* s = state.Read<StateData>(kStateKey);
  if (s == nullptr) return framework::Status::Error(kStateNotFound);
  if (s->all_bound) return framework::Status();
  if (!s->reserved || s->reserved_node != node_name) {
    return framework::Status::Error("no pod volumes found for node " +
                                    GoQuote(node_name));
  }
  // Static bindings: kube writes each PV's claimRef here and the PV
  // controller completes the binding. ksched cannot write a PV; the binding
  // stays assumed in the cache, which keeps the PV from other pods.
  //
  // Dynamic provisioning: the selected-node annotation is what the external
  // provisioner (through the PV controller) acts on.
  for (const vb::ClaimPtr& claim : s->reserved->dynamic_provisions) {
    // Preempted, or a PreBind running beside this one failed.
    if (const framework::CancelCause* cancel = state.binding_cancellation();
        cancel != nullptr && cancel->cancelled()) {
      return framework::Status::Error(cancel->cause());
    }
    framework::ClusterWriter* writer = handle_.writer();
    if (writer == nullptr) {
      return framework::Status::Error(
          "cannot trigger provisioning of PersistentVolumeClaim " +
          GoQuote(vb::ClaimKey(*claim)) + ": no cluster writer");
    }
    framework::Status written = writer->AnnotatePersistentVolumeClaim(
        *claim, api::kAnnSelectedNode, node_name);
    if (!written.IsSuccess()) {
      return framework::Status::Error(written.Message());
    }
  }
  return framework::Status();
}

util::Result<std::unique_ptr<framework::Plugin>> NewVolumeBinding(
    const config::PluginArgs* args, framework::Handle& handle) {
  auto typed =
      framework::ArgsAs<config::VolumeBindingArgs>(args, names::kVolumeBinding);
  if (!typed.ok()) return typed.error();
  // validation.ValidateVolumeBindingArgsWithOptions, gate off.
  config::FieldErrors errs;
  if (typed->bind_timeout_seconds < 0) {
    errs.push_back(config::Invalid(
        config::FieldPath("bindTimeoutSeconds"),
        config::GoValue(typed->bind_timeout_seconds),
        "invalid BindTimeoutSeconds, should not be a negative value"));
  }
  if (!typed->shape.empty()) {
    errs.push_back(config::Invalid(config::FieldPath("shape"),
                                   GoShape(typed->shape),
                                   "unexpected field `shape`, remove it or "
                                   "turn on the feature gate "
                                   "VolumeCapacityPriority"));
  }
  if (!errs.empty()) return util::Error(config::AggregateMessage(errs));
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<VolumeBinding>(handle));
}

bool VolumeBinding::SignPod(const api::Pod& pod, api::Pod& into) const {
  // Claims bind as pods are scheduled: a pod with claims is not signed.
  // Without claims the plugin has nothing to check.
  if (framework::signature::HasClaims(pod)) return false;
  framework::signature::CopyVolumes(pod, into);
  return true;
}

}  // namespace ksched::plugins

#include "pkg/plugins/noderesources/fit.h"

#include <utility>

#include "pkg/api/pod_resources.h"
#include "pkg/api/resource_names.h"
#include "pkg/config/field_errors.h"
#include "pkg/dra/dra_manager.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/registry.h"
#include "pkg/framework/signature.h"
#include "pkg/plugins/noderesources/args_validation.h"
#include "pkg/plugins/noderesources/scorers.h"

namespace ksched::plugins {
namespace {

constexpr framework::StateKey kPreFilterStateKey{"PreFilterNodeResourcesFit"};
constexpr framework::StateKey kPreScoreStateKey{"PreScoreNodeResourcesFit"};

// The pod's requests, computed once per cycle for every node's Filter.
class PreFilterState final : public framework::StateData {
 public:
  explicit PreFilterState(framework::Resource request)
      : request_(std::move(request)) {}
  // Nothing mutates it after PreFilter (no AddPod/RemovePod extensions).
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreFilterState>(*this);
  }
  const framework::Resource& request() const { return request_; }

 private:
  framework::Resource request_;
};

// The pod's request of each scored resource, computed once per cycle.
class PreScoreState final : public framework::StateData {
 public:
  explicit PreScoreState(std::vector<int64_t> pod_requests)
      : pod_requests_(std::move(pod_requests)) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreScoreState>(*this);
  }
  const std::vector<int64_t>& pod_requests() const { return pod_requests_; }

 private:
  std::vector<int64_t> pod_requests_;
};

bool IsIgnored(std::string_view name, const IgnoredResources& ignored) {
  if (ignored.names.empty() && ignored.groups.empty()) return false;
  // Only extended resources can be ignored; kubernetes.io/ and hugepages
  // resources are always enforced.
  if (!api::IsExtendedResourceName(name)) return false;
  if (ignored.names.contains(name)) return true;
  if (ignored.groups.empty()) return false;
  // An extended resource name always has a '/' (API validation).
  return ignored.groups.contains(name.substr(0, name.find('/')));
}

}  // namespace

std::vector<InsufficientResource> FitsRequest(
    const framework::Resource& pod_request, const framework::NodeInfo& node,
    const IgnoredResources& ignored, const DraBackedResource* dra_backed) {
  std::vector<InsufficientResource> out;
  const framework::Resource& allocatable = node.allocatable();
  const framework::Resource& requested = node.requested();

  // Every pod takes a slot, whatever it requests.
  int64_t pods = static_cast<int64_t>(node.pods().size());
  if (pods + 1 > allocatable.allowed_pod_number) {
    out.push_back({std::string(api::kResourcePods), "Too many pods", 1, pods,
                   allocatable.allowed_pod_number});
  }
  if (pod_request.milli_cpu == 0 && pod_request.memory == 0 &&
      pod_request.ephemeral_storage == 0 &&
      pod_request.scalar_resources.empty()) {
    return out;
  }

  // As kube: the request against the free amount (allocatable - requested),
  // and only for resources the pod actually asks for. Reasons are built
  // only for shortfalls: Filter runs for every node.
  auto check = [&](std::string_view name, int64_t want, int64_t used,
                   int64_t capacity) {
    if (want > 0 && want > noderesources::WrapSub(capacity, used)) {
      std::string reason = "Insufficient ";
      reason += name;
      out.push_back({std::string(name), std::move(reason), want, used, capacity,
                     want > capacity});
    }
  };
  check(api::kResourceCpu, pod_request.milli_cpu, requested.milli_cpu,
        allocatable.milli_cpu);
  check(api::kResourceMemory, pod_request.memory, requested.memory,
        allocatable.memory);
  check(api::kResourceEphemeralStorage, pod_request.ephemeral_storage,
        requested.ephemeral_storage, allocatable.ephemeral_storage);
  for (const auto& [name, quantity] : pod_request.scalar_resources) {
    if (quantity == 0 || IsIgnored(name, ignored)) continue;
    // A node without the resource in its allocatable may still have
    // devices a DeviceClass maps to it: DynamicResources decides.
    if (dra_backed != nullptr && allocatable.Scalar(name) <= 0 &&
        (*dra_backed)(name)) {
      continue;
    }
    check(name, quantity, requested.Scalar(name), allocatable.Scalar(name));
  }
  return out;
}

NodeResourcesFitFeatures NodeResourcesFitFeatures::Of(
    const config::FeatureGates& gates) {
  NodeResourcesFitFeatures f;
  f.resources = framework::ResourceFeaturesOf(gates);
  f.sidecar_containers = gates.Enabled(config::Feature::kSidecarContainers);
  f.scheduler_queueing_hints =
      gates.Enabled(config::Feature::kSchedulerQueueingHints);
  return f;
}

std::vector<framework::ClusterEventWithHint>
NodeResourcesFit::EventsToRegister() const {
  // A deleted pod frees its requests; with in-place resize a running pod
  // scaled down does too.
  uint32_t pod_actions = framework::kDelete;
  if (features_.resources.in_place_pod_vertical_scaling) {
    pod_actions |= framework::kUpdatePodScaleDown;
  }
  // With queueing hints only allocatable changes matter; without them kube
  // also registers taint and label updates, which its pre-check needs.
  uint32_t node_actions = framework::kAdd | framework::kUpdateNodeAllocatable;
  if (!features_.scheduler_queueing_hints) {
    node_actions |= framework::kUpdateNodeTaint | framework::kUpdateNodeLabel;
  }
  std::vector<framework::ClusterEventWithHint> events = {
      {{framework::EventResource::kPod, pod_actions},
       [this](const api::Pod& pod, const framework::EventObjects& objs) {
         return HintAfterPodEvent(pod, objs);
       }},
      {{framework::EventResource::kNode, node_actions},
       [this](const api::Pod& pod, const framework::EventObjects& objs) {
         return HintAfterNodeChange(pod, objs);
       }},
  };
  // A pod may wait for a class that serves its extended resource.
  if (dra_backed_) {
    events.push_back(
        {{framework::EventResource::kDeviceClass,
          framework::kAdd | framework::kUpdateOther},
         [this](const api::Pod& pod, const framework::EventObjects& objs) {
           return HintAfterDeviceClassEvent(pod, objs);
         }});
  }
  return events;
}

framework::QueueingHint NodeResourcesFit::HintAfterDeviceClassEvent(
    const api::Pod& pod, const framework::EventObjects& objs) const {
  const api::DeviceClass* before = objs.old_device_class;
  const api::DeviceClass* after = objs.new_device_class;
  if (after == nullptr) return framework::QueueingHint::kQueue;
  const api::ResourceList requests = api::PodRequests(pod, {});
  if (before != nullptr) {
    if (before->spec.extended_resource_name.value_or("") ==
        after->spec.extended_resource_name.value_or("")) {
      return framework::QueueingHint::kQueueSkip;
    }
  } else if (requests.Contains(std::string(api::kDeviceClassResourcePrefix) +
                               after->metadata.name)) {
    // A class's implicit name only appears when it is added.
    return framework::QueueingHint::kQueue;
  }
  if (after->spec.extended_resource_name &&
      requests.Contains(*after->spec.extended_resource_name)) {
    return framework::QueueingHint::kQueue;
  }
  return framework::QueueingHint::kQueueSkip;
}

bool NodeResourcesFit::AsksForDraBackedResource(const api::Pod& pod) const {
  if (!dra_backed_) return false;
  for (const auto& [name, quantity] : PodRequest(pod).scalar_resources) {
    if (quantity != 0 && dra_backed_(name)) return true;
  }
  return false;
}

framework::QueueingHint NodeResourcesFit::HintAfterPodEvent(
    const api::Pod& pod, const framework::EventObjects& objs) const {
  const api::Pod* original = objs.old_pod;
  const api::Pod* modified = objs.new_pod;
  if (original == nullptr) return framework::QueueingHint::kQueue;
  if (modified == nullptr) {
    // An unscheduled pod held nothing; any scheduled one freed something.
    return original->spec.node_name.empty() &&
                   original->status.nominated_node_name.empty()
               ? framework::QueueingHint::kQueueSkip
               : framework::QueueingHint::kQueue;
  }
  // Without in-place resize an update frees nothing.
  if (!features_.resources.in_place_pod_vertical_scaling) {
    return framework::QueueingHint::kQueueSkip;
  }
  return ScaleDownHelps(pod, *original, *modified)
             ? framework::QueueingHint::kQueue
             : framework::QueueingHint::kQueueSkip;
}

bool NodeResourcesFit::ScaleDownHelps(const api::Pod& pod,
                                      const api::Pod& original,
                                      const api::Pod& modified) const {
  // The pod itself scaled down asks for less.
  if (modified.metadata.uid == pod.metadata.uid) return true;
  // An unscheduled pod's requests held nothing on any node.
  if (modified.spec.node_name.empty()) return false;
  // As the resources a running pod holds: status included; pod-level
  // requests are read whatever PodLevelResources says, as kube does here.
  api::PodResourcesOptions options;
  options.use_status_resources =
      features_.resources.in_place_pod_vertical_scaling;
  options.in_place_pod_level_resources_vertical_scaling =
      features_.resources.in_place_pod_level_resources_vertical_scaling;
  framework::Resource before;
  before.SetMaxResource(api::PodRequests(original, options));
  framework::Resource after;
  after.SetMaxResource(api::PodRequests(modified, options));
  for (const auto& [name, quantity] : api::PodRequests(pod, options)) {
    // Only what the pod asks for matters.
    if (quantity.IsZero()) continue;
    if (name == api::kResourceCpu) {
      if (before.milli_cpu > after.milli_cpu) return true;
    } else if (name == api::kResourceMemory) {
      if (before.memory > after.memory) return true;
    } else if (name == api::kResourceEphemeralStorage) {
      if (before.ephemeral_storage > after.ephemeral_storage) return true;
    } else if (api::IsScalarResourceName(name) &&
               before.Scalar(name) > after.Scalar(name)) {
      return true;
    }
  }
  return false;
}

namespace {

// Whether a node update raised the allocatable of something the pod asks
// for, or the number of pods the node takes.
bool RequestedResourceIncreased(const framework::Resource& request,
                                const api::Node& before,
                                const api::Node& after) {
  const framework::Resource old_alloc =
      framework::Resource::FromList(before.status.allocatable);
  const framework::Resource new_alloc =
      framework::Resource::FromList(after.status.allocatable);
  if (new_alloc.allowed_pod_number > old_alloc.allowed_pod_number) return true;
  if ((request.milli_cpu > 0 && new_alloc.milli_cpu > old_alloc.milli_cpu) ||
      (request.memory > 0 && new_alloc.memory > old_alloc.memory) ||
      (request.ephemeral_storage > 0 &&
       new_alloc.ephemeral_storage > old_alloc.ephemeral_storage)) {
    return true;
  }
  for (const auto& [name, quantity] : request.scalar_resources) {
    if (quantity == 0) continue;
    if (new_alloc.Scalar(name) > old_alloc.Scalar(name)) return true;
  }
  return false;
}

}  // namespace

framework::Resource NodeResourcesFit::PodRequest(const api::Pod& pod) const {
  api::PodResourcesOptions options;
  options.skip_pod_level_resources = !features_.resources.pod_level_resources;
  framework::Resource request;
  request.SetMaxResource(api::PodRequests(pod, options));
  return request;
}

framework::QueueingHint NodeResourcesFit::HintAfterNodeChange(
    const api::Pod& pod, const framework::EventObjects& objs) const {
  const api::Node* after = objs.new_node;
  if (after == nullptr) return framework::QueueingHint::kQueue;
  const framework::Resource request = PodRequest(pod);
  // Would the pod fit the node were it empty? If not, nothing changed for
  // it (kube's isFit, which ignores no resources).
  framework::NodeInfo empty;
  empty.SetNode(std::make_shared<const api::Node>(*after));
  if (!FitsRequest(request, empty, IgnoredResources{}, dra_backed()).empty()) {
    return framework::QueueingHint::kQueueSkip;
  }
  if (objs.old_node == nullptr) return framework::QueueingHint::kQueue;
  return RequestedResourceIncreased(request, *objs.old_node, *after)
             ? framework::QueueingHint::kQueue
             : framework::QueueingHint::kQueueSkip;
}

framework::Status NodeResourcesFit::PreFilter(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/,
    framework::PreFilterResult* /*result*/) {
  const api::Pod& p = pod.pod();
  if (!features_.sidecar_containers) {
    // A kubelet without sidecars would count such a pod differently.
    for (const api::Container& c : p.spec.init_containers) {
      if (c.restart_policy == api::kContainerRestartPolicyAlways) {
        return framework::Status(
            framework::Code::kUnschedulableAndUnresolvable,
            "Pod has a restartable init container and the SidecarContainers "
            "feature is disabled");
      }
    }
  }
  // Computed here rather than taken from PodInfo, which counts a pod as it
  // runs (status resources included): PodRequests (app containers +
  // sidecars vs. init container peaks, pod-level requests where set, plus
  // overhead).
  state.Write(kPreFilterStateKey,
              std::make_shared<PreFilterState>(PodRequest(p)));
  return framework::Status();
}

framework::Status NodeResourcesFit::Filter(
    const framework::CycleState& state, const framework::PodInfo& /*pod*/,
    const framework::NodeInfo& node) const {
  const auto* s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) {
    return framework::Status::Error(
        "error reading \"PreFilterNodeResourcesFit\" from cycleState: not "
        "found");
  }
  std::vector<InsufficientResource> insufficient =
      FitsRequest(s->request(), node, ignored_, dra_backed());
  if (insufficient.empty()) return framework::Status();
  // Every shortfall is reported. One the node could not meet even empty
  // makes the node unresolvable, so preemption does not try it (v1.35).
  std::vector<std::string> reasons;
  reasons.reserve(insufficient.size());
  framework::Code code = framework::Code::kUnschedulable;
  for (InsufficientResource& r : insufficient) {
    reasons.push_back(std::move(r.reason));
    if (r.unresolvable) code = framework::Code::kUnschedulableAndUnresolvable;
  }
  return framework::Status(code, std::move(reasons));
}

framework::Status NodeResourcesFit::PreScore(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/) {
  // Never skips (not even for pods without requests: the non-zero defaults
  // still spread them).
  state.Write(kPreScoreStateKey,
              std::make_shared<PreScoreState>(scorer_.PodRequests(pod.pod())));
  return framework::Status();
}

framework::Status NodeResourcesFit::Score(const framework::CycleState& state,
                                          const framework::PodInfo& pod,
                                          const framework::NodeInfo& node,
                                          int64_t* score) const {
  // Without PreScore (as kube allows) the requests are computed here.
  if (const auto* s = state.Read<PreScoreState>(kPreScoreStateKey)) {
    return scorer_.Score(node, s->pod_requests(), score);
  }
  return scorer_.Score(node, scorer_.PodRequests(pod.pod()), score);
}

util::Result<std::unique_ptr<framework::Plugin>> NewNodeResourcesFit(
    const config::PluginArgs* args, framework::Handle& handle) {
  auto typed = framework::ArgsAs<config::NodeResourcesFitArgs>(
      args, names::kNodeResourcesFit);
  if (!typed.ok()) return typed.error();
  config::NodeResourcesFitArgs a = std::move(*typed);
  // kube's plugins always see defaulted args; no args at all is the same.
  if (args == nullptr) {
    a.scoring_strategy.resources = noderesources::DefaultResourceSpecs();
  }
  config::FieldErrors errs = noderesources::ValidateFitArgs(a);
  if (!errs.empty()) return util::Error(config::AggregateMessage(errs));

  const config::ScoringStrategy& s = a.scoring_strategy;
  noderesources::ResourceScorerFn fn;
  switch (s.type) {
    case config::ScoringStrategyType::kLeastAllocated:
      fn = noderesources::LeastResourceScorer(s.resources);
      break;
    case config::ScoringStrategyType::kMostAllocated:
      fn = noderesources::MostResourceScorer(s.resources);
      break;
    case config::ScoringStrategyType::kRequestedToCapacityRatio:
      fn = noderesources::RequestedToCapacityRatioScorer(s.resources, s.shape);
      break;
  }
  IgnoredResources ignored;
  ignored.names.insert(a.ignored_resources.begin(), a.ignored_resources.end());
  ignored.groups.insert(a.ignored_resource_groups.begin(),
                        a.ignored_resource_groups.end());
  const NodeResourcesFit::Features features =
      NodeResourcesFit::Features::Of(handle.features());
  // kube builds Fit's scorer from the strategy alone (getScorer), leaving
  // every feature flag of resourceAllocationScorer false: the score counts
  // the containers' spec requests even where pod-level requests are set and
  // honoured by Filter. BalancedAllocation's scorer gets the gates.
  constexpr api::ResourceFeatures kScoreFeatures = {
      .in_place_pod_vertical_scaling = false,
      .pod_level_resources = false,
      .in_place_pod_level_resources_vertical_scaling = false};
  DraBackedResource dra_backed;
  if (dra::DraManager* manager = handle.dra_manager();
      manager != nullptr &&
      handle.features().Enabled(config::Feature::kDRAExtendedResource)) {
    dra_backed = [manager](std::string_view resource) {
      return manager->DeviceClassForResource(resource) != nullptr;
    };
  }
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeResourcesFit>(
      std::move(ignored),
      noderesources::ResourceAllocationScorer(s.resources,
                                              /*use_requested=*/false,
                                              std::move(fn), kScoreFeatures),
      features, std::move(dra_backed)));
}

bool NodeResourcesFit::SignPod(const api::Pod& pod, api::Pod& into) const {
  // Whether such a pod fits depends on devices, not the node alone.
  if (AsksForDraBackedResource(pod)) return false;
  framework::signature::CopyResources(pod, into);
  return true;
}

}  // namespace ksched::plugins

#include "pkg/plugins/noderesources/fit.h"

#include <utility>

#include "pkg/api/resource_names.h"
#include "pkg/config/field_errors.h"
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
    const IgnoredResources& ignored) {
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
      out.push_back(
          {std::string(name), std::move(reason), want, used, capacity});
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
    check(name, quantity, requested.Scalar(name), allocatable.Scalar(name));
  }
  return out;
}

std::vector<framework::ClusterEventWithHint>
NodeResourcesFit::EventsToRegister() const {
  // v1.32 defaults: InPlacePodVerticalScaling is off, so only a deleted pod
  // frees resources; SchedulerQueueingHints is on, so of node updates only
  // allocatable changes matter (no taint/label updates for preCheck).
  return {
      {{framework::EventResource::kPod, framework::kDelete}, HintAfterPodEvent},
      {{framework::EventResource::kNode,
        framework::kAdd | framework::kUpdateNodeAllocatable},
       HintAfterNodeChange},
  };
}

framework::QueueingHint NodeResourcesFit::HintAfterPodEvent(
    const api::Pod& /*pod*/, const framework::EventObjects& objs) {
  const api::Pod* deleted = objs.old_pod;
  // Only deletions are registered (in-place scale-down is off in v1.32).
  if (objs.new_pod != nullptr || deleted == nullptr) {
    return framework::QueueingHint::kQueue;
  }
  // An unscheduled pod held nothing; any scheduled one freed something.
  return deleted->spec.node_name.empty() ? framework::QueueingHint::kQueueSkip
                                         : framework::QueueingHint::kQueue;
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

framework::QueueingHint NodeResourcesFit::HintAfterNodeChange(
    const api::Pod& pod, const framework::EventObjects& objs) {
  const api::Node* after = objs.new_node;
  if (after == nullptr) return framework::QueueingHint::kQueue;
  const framework::Resource request =
      framework::ComputePodResource(pod).requests;
  // Would the pod fit the node were it empty? If not, nothing changed for
  // it (kube's isFit, which ignores no resources).
  framework::NodeInfo empty;
  empty.SetNode(std::make_shared<const api::Node>(*after));
  if (!FitsRequest(request, empty, IgnoredResources{}).empty()) {
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
  // PodInfo already holds computePodResourceRequest's value: PodRequests
  // (app containers + sidecars vs. init container peaks, plus overhead).
  // v1.32 defaults: SidecarContainers is on, so restartable init containers
  // are admitted; PodLevelResources is off, so pod-level requests are not
  // read.
  state.Write(kPreFilterStateKey,
              std::make_shared<PreFilterState>(pod.resource().requests));
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
      FitsRequest(s->request(), node, ignored_);
  if (insufficient.empty()) return framework::Status();
  // Every shortfall is reported. v1.32 always says Unschedulable, even when
  // the pod exceeds the node's whole allocatable (Unresolvable came later).
  std::vector<std::string> reasons;
  reasons.reserve(insufficient.size());
  for (InsufficientResource& r : insufficient) {
    reasons.push_back(std::move(r.reason));
  }
  return framework::Status(framework::Code::kUnschedulable, std::move(reasons));
}

framework::Status NodeResourcesFit::PreScore(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/) {
  // v1.32 never skips here (not even for pods without requests: the
  // non-zero defaults still spread them).
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
    const config::PluginArgs* args, framework::Handle& /*handle*/) {
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
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeResourcesFit>(
      std::move(ignored), noderesources::ResourceAllocationScorer(
                              s.resources,
                              /*use_requested=*/false, std::move(fn))));
}

bool NodeResourcesFit::SignPod(const api::Pod& pod, api::Pod& into) const {
  framework::signature::CopyResources(pod, into);
  return true;
}

}  // namespace ksched::plugins

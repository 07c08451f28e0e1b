#include "pkg/plugins/nodedeclaredfeatures/node_declared_features.h"

#include <utility>

namespace ksched::plugins {
namespace {

using nodedeclaredfeatures::FeatureRegistry;
using nodedeclaredfeatures::FeatureSet;
using nodedeclaredfeatures::SemanticVersion;

constexpr framework::StateKey kPreFilterKey{"PreFilterNodeDeclaredFeatures"};

// The features the pod needs. Nothing changes it within a cycle, so clones
// share it.
class PreFilterState final : public framework::StateData {
 public:
  explicit PreFilterState(FeatureSet needs) : needs_(std::move(needs)) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreFilterState>(*this);
  }
  const FeatureSet& needs() const { return needs_; }

 private:
  FeatureSet needs_;
};

}  // namespace

NodeDeclaredFeatures::NodeDeclaredFeatures(
    std::shared_ptr<const FeatureRegistry> registry,
    std::optional<SemanticVersion> version)
    : registry_(std::move(registry)), version_(std::move(version)) {}

std::vector<framework::ClusterEventWithHint>
NodeDeclaredFeatures::EventsToRegister() const {
  if (!enabled()) return {};
  // A node added or declaring other features, and an update of the pod
  // itself that changes what it needs. The hint shares the registry rather
  // than pointing at this plugin, so it may outlive it.
  auto pod_hint = [registry = registry_, version = version_](
                      const api::Pod& pod,
                      const framework::EventObjects& objs) {
    return HintAfterPodUpdate(*registry, version, pod, objs);
  };
  return {
      {{framework::EventResource::kNode,
        framework::kAdd | framework::kUpdateNodeDeclaredFeature},
       HintAfterNodeChange},
      {{framework::EventResource::kPod, framework::kUpdate},
       std::move(pod_hint)},
  };
}

framework::QueueingHint NodeDeclaredFeatures::HintAfterNodeChange(
    const api::Pod& /*pod*/, const framework::EventObjects& objs) {
  const api::Node* before = objs.old_node;
  const api::Node* after = objs.new_node;
  if (after == nullptr) return framework::QueueingHint::kQueue;
  // The lists are kept sorted, so equal sets are equal lists.
  if (before != nullptr &&
      before->status.declared_features == after->status.declared_features) {
    return framework::QueueingHint::kQueueSkip;
  }
  return framework::QueueingHint::kQueue;
}

framework::QueueingHint NodeDeclaredFeatures::HintAfterPodUpdate(
    const FeatureRegistry& registry,
    const std::optional<SemanticVersion>& version, const api::Pod& pod,
    const framework::EventObjects& objs) {
  const api::Pod* before = objs.old_pod;
  const api::Pod* after = objs.new_pod;
  if (before == nullptr || after == nullptr) {
    return framework::QueueingHint::kQueue;
  }
  // Another pod's requirements do not change this pod's result.
  if (after->metadata.uid != pod.metadata.uid) {
    return framework::QueueingHint::kQueueSkip;
  }
  // kube infers the old pod's requirements first; an error queues the pod.
  util::Result<FeatureSet> needed =
      registry.InferForPodScheduling(before->spec, version);
  if (!needed.ok()) return framework::QueueingHint::kQueue;
  util::Result<FeatureSet> needs =
      registry.InferForPodScheduling(after->spec, version);
  if (!needs.ok()) return framework::QueueingHint::kQueue;
  return *needed == *needs ? framework::QueueingHint::kQueueSkip
                           : framework::QueueingHint::kQueue;
}

framework::Status NodeDeclaredFeatures::PreFilter(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/,
    framework::PreFilterResult* /*result*/) {
  if (!enabled()) return framework::Status::Skip();
  // Only the spec: a pod being scheduled has no status a feature reads.
  util::Result<FeatureSet> needs =
      registry_->InferForPodScheduling(pod.pod().spec, version_);
  if (!needs.ok()) return framework::Status::Error(needs.error().message());
  if (needs->IsEmpty()) return framework::Status::Skip();
  state.Write(kPreFilterKey,
              std::make_shared<PreFilterState>(std::move(*needs)));
  return framework::Status();
}

framework::Status NodeDeclaredFeatures::Filter(
    const framework::CycleState& state, const framework::PodInfo& /*pod*/,
    const framework::NodeInfo& node_info) const {
  if (!enabled()) return framework::Status();
  const auto* s = state.Read<PreFilterState>(kPreFilterKey);
  if (s == nullptr) {
    return framework::Status::Error(
        "error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: "
        "not found");
  }
  // Features the registry does not know are left out: no pod can need them.
  // A NodeInfo without its Node declares nothing.
  const api::Node* node = node_info.node();
  const FeatureSet declared =
      node == nullptr
          ? registry_->mapper().NewFeatureSet()
          : registry_->mapper().TryMap(node->status.declared_features);
  util::Result<bool> has_all = s->needs().IsSubsetOf(declared);
  if (!has_all.ok()) return framework::Status::Error(has_all.error().message());
  if (*has_all) return framework::Status();
  // No preemption declares a feature on a node.
  static const framework::Status::Constant kMissingFeatures(
      framework::Code::kUnschedulableAndUnresolvable,
      std::string(kNodeDeclaredFeaturesErrReason),
      std::string(names::kNodeDeclaredFeatures));
  return kMissingFeatures.status();
}

bool NodeDeclaredFeatures::SignPod(const api::Pod& pod, api::Pod& into) const {
  // Disabled, the answers do not depend on the pod.
  if (!enabled()) return true;
  // What the inference reads: the restart rules' actions and the pod's
  // network and user namespaces.
  auto copy_actions = [](const std::vector<api::Container>& from,
                         std::vector<api::Container>& to) {
    to.resize(from.size());
    for (size_t i = 0; i < from.size(); ++i) {
      to[i].restart_policy_rules.clear();
      for (const api::ContainerRestartRule& r : from[i].restart_policy_rules) {
        to[i].restart_policy_rules.push_back({r.action, std::nullopt});
      }
    }
  };
  copy_actions(pod.spec.containers, into.spec.containers);
  copy_actions(pod.spec.init_containers, into.spec.init_containers);
  into.spec.host_network = pod.spec.host_network;
  into.spec.host_users = pod.spec.host_users;
  return true;
}

util::Result<std::unique_ptr<framework::Plugin>> NewNodeDeclaredFeatures(
    const config::PluginArgs* /*args*/, framework::Handle& handle) {
  if (!handle.features().Enabled(config::Feature::kNodeDeclaredFeatures)) {
    return std::unique_ptr<framework::Plugin>(
        std::make_unique<NodeDeclaredFeatures>());
  }
  // kube judges MaxVersion against its own binary's version; no registered
  // feature has one yet, so the patch level cannot matter.
  const SemanticVersion version{
      .major = static_cast<uint64_t>(config::kBinaryVersion.major),
      .minor = static_cast<uint64_t>(config::kBinaryVersion.minor),
      .patch = 0,
      .pre_release = ""};
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<NodeDeclaredFeatures>(FeatureRegistry::Default(),
                                             version));
}

}  // namespace ksched::plugins

#include "pkg/plugins/nodedeclaredfeatures/features.h"

#include <algorithm>
#include <utility>

namespace ksched::plugins::nodedeclaredfeatures {
namespace {

// A feature that only the kubelet's discovery or the API server's check of
// pod updates cares about: no pod needs it to be scheduled.
class NotForScheduling final : public DeclaredFeature {
 public:
  explicit NotForScheduling(std::string_view name) : name_(name) {}
  std::string_view Name() const override { return name_; }
  bool InferForScheduling(const api::PodSpec& /*spec*/) const override {
    return false;
  }

 private:
  std::string_view name_;
};

// A container (init containers included) with a restart rule whose action
// restarts the whole pod's containers; only a kubelet that knows the action
// honours it.
class RestartAllContainers final : public DeclaredFeature {
 public:
  std::string_view Name() const override {
    return kRestartAllContainersOnContainerExits;
  }
  bool InferForScheduling(const api::PodSpec& spec) const override {
    auto restarts_all = [](const api::Container& c) {
      return std::any_of(c.restart_policy_rules.begin(),
                         c.restart_policy_rules.end(),
                         [](const api::ContainerRestartRule& r) {
                           return r.action == "RestartAllContainers";
                         });
    };
    return std::any_of(spec.containers.begin(), spec.containers.end(),
                       restarts_all) ||
           std::any_of(spec.init_containers.begin(), spec.init_containers.end(),
                       restarts_all);
  }
};

// The host's network from inside a user namespace (hostNetwork with
// hostUsers: false) needs runtime support the node declares.
class UserNamespacesHostNetwork final : public DeclaredFeature {
 public:
  std::string_view Name() const override {
    return kUserNamespacesHostNetworkSupport;
  }
  bool InferForScheduling(const api::PodSpec& spec) const override {
    return spec.host_network && spec.host_users.has_value() &&
           !*spec.host_users;
  }
};

}  // namespace

FeatureList AllFeatures() {
  // In kube's registration order; FeatureRegistry sorts them.
  return {
      std::make_shared<RestartAllContainers>(),
      // Resizing pod-level resources in place: a pod update, not scheduling.
      std::make_shared<NotForScheduling>(
          kInPlacePodLevelResourcesVerticalScaling),
      // Websocket streaming to the kubelet: neither.
      std::make_shared<NotForScheduling>(kExtendWebSocketsToKubelet),
      // Resizing non-sidecar init containers in place: a pod update.
      std::make_shared<NotForScheduling>(
          kInPlacePodVerticalScalingInitContainers),
      std::make_shared<UserNamespacesHostNetwork>(),
  };
}

namespace {

std::vector<std::string> Names(const FeatureList& features) {
  std::vector<std::string> names;
  names.reserve(features.size());
  for (const auto& f : features) names.emplace_back(f->Name());
  return names;
}

FeatureList SortedByName(FeatureList features) {
  std::sort(features.begin(), features.end(),
            [](const auto& a, const auto& b) { return a->Name() < b->Name(); });
  return features;
}

}  // namespace

FeatureRegistry::FeatureRegistry(FeatureList features)
    : features_(SortedByName(std::move(features))), mapper_(Names(features_)) {}

std::shared_ptr<const FeatureRegistry> FeatureRegistry::Default() {
  static const std::shared_ptr<const FeatureRegistry> kDefault =
      std::make_shared<const FeatureRegistry>(AllFeatures());
  return kDefault;
}

util::Result<FeatureSet> FeatureRegistry::InferForPodScheduling(
    const api::PodSpec& spec,
    const std::optional<SemanticVersion>& target) const {
  if (!target) return util::Error("target version cannot be nil");
  // The mapper holds the names in the same sorted order, so bit i is
  // features_[i].
  FeatureSet needs = mapper_.NewFeatureSet();
  for (size_t i = 0; i < features_.size(); ++i) {
    const std::optional<SemanticVersion> max = features_[i]->MaxVersion();
    if (max && target->GreaterThan(*max)) continue;
    if (features_[i]->InferForScheduling(spec)) needs.Set(i);
  }
  return needs;
}

}  // namespace ksched::plugins::nodedeclaredfeatures

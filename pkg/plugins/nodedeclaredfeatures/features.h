// The features a node may declare in status.declaredFeatures, and which of
// them a pod needs (kube's component-helpers nodedeclaredfeatures registry,
// v1.36). The kubelet decides what a node declares and the API server what
// a pod update needs; a scheduler only asks what scheduling a pod needs.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/plugins/nodedeclaredfeatures/feature_set.h"
#include "pkg/plugins/nodedeclaredfeatures/version.h"
#include "pkg/util/result.h"

namespace ksched::plugins::nodedeclaredfeatures {

// The names of the registered features, as nodes declare them.
inline constexpr std::string_view kExtendWebSocketsToKubelet =
    "ExtendWebSocketsToKubelet";
inline constexpr std::string_view kInPlacePodLevelResourcesVerticalScaling =
    "InPlacePodLevelResourcesVerticalScaling";
inline constexpr std::string_view kInPlacePodVerticalScalingInitContainers =
    "InPlacePodVerticalScalingInitContainers";
inline constexpr std::string_view kRestartAllContainersOnContainerExits =
    "RestartAllContainersOnContainerExits";
inline constexpr std::string_view kUserNamespacesHostNetworkSupport =
    "UserNamespacesHostNetworkSupport";

class DeclaredFeature {
 public:
  virtual ~DeclaredFeature() = default;
  virtual std::string_view Name() const = 0;
  // Whether a node must declare this feature for the pod to run there.
  virtual bool InferForScheduling(const api::PodSpec& spec) const = 0;
  // The last version at which the feature is still a scheduling factor;
  // nullopt for no bound.
  virtual std::optional<SemanticVersion> MaxVersion() const {
    return std::nullopt;
  }
};

using FeatureList = std::vector<std::shared_ptr<const DeclaredFeature>>;

// Every feature kube v1.36 registers, each once.
FeatureList AllFeatures();

// A set of features, sorted by name, with their FeatureMapper (kube's
// nodedeclaredfeatures.Framework, reduced to what a scheduler uses).
class FeatureRegistry {
 public:
  explicit FeatureRegistry(FeatureList features);

  // AllFeatures(), built once and never changed.
  static std::shared_ptr<const FeatureRegistry> Default();

  const FeatureMapper& mapper() const { return mapper_; }
  // The features scheduling a pod with `spec` needs when the scheduler is
  // at `target`; features whose MaxVersion is below `target` are needed no
  // more. Without a target version, an error.
  util::Result<FeatureSet> InferForPodScheduling(
      const api::PodSpec& spec,
      const std::optional<SemanticVersion>& target) const;

 private:
  FeatureList features_;
  FeatureMapper mapper_;
};

}  // namespace ksched::plugins::nodedeclaredfeatures

// NodeDeclaredFeatures (alpha in v1.35, beta and on by default in v1.36):
// a pod that uses a feature only some kubelets support (a restart rule that
// restarts all containers, host networking in a user namespace) goes only
// to nodes whose status.declaredFeatures lists that feature.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/plugins/nodedeclaredfeatures/features.h"
#include "pkg/plugins/nodedeclaredfeatures/version.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

inline constexpr std::string_view kNodeDeclaredFeaturesErrReason =
    "node(s) didn't match Pod's required features";

class NodeDeclaredFeatures final : public framework::SignPlugin,
                                   public framework::PreFilterPlugin,
                                   public framework::FilterPlugin,
                                   public framework::EnqueueExtensions {
 public:
  // With the NodeDeclaredFeatures gate off: PreFilter skips every pod,
  // Filter passes every node and no event is registered.
  NodeDeclaredFeatures() = default;
  // On: the features of `registry`, judged at the scheduler's `version`
  // (nullopt makes every inference an error, as kube's nil version does).
  NodeDeclaredFeatures(
      std::shared_ptr<const nodedeclaredfeatures::FeatureRegistry> registry,
      std::optional<nodedeclaredfeatures::SemanticVersion> version);

  std::string_view Name() const override {
    return names::kNodeDeclaredFeatures;
  }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  // Answers from the pod and the node alone.
  bool NodeLocal() const override { return true; }
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;
  // Skip when the pod needs no declared feature.
  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  // The queueing hints (kube's isSchedulableAfterNodeChange and
  // isSchedulableAfterPodUpdate).
  static framework::QueueingHint HintAfterNodeChange(
      const api::Pod& pod, const framework::EventObjects& objs);
  static framework::QueueingHint HintAfterPodUpdate(
      const nodedeclaredfeatures::FeatureRegistry& registry,
      const std::optional<nodedeclaredfeatures::SemanticVersion>& version,
      const api::Pod& pod, const framework::EventObjects& objs);

 private:
  bool enabled() const { return registry_ != nullptr; }

  std::shared_ptr<const nodedeclaredfeatures::FeatureRegistry> registry_;
  std::optional<nodedeclaredfeatures::SemanticVersion> version_;
};

// On when the handle's NodeDeclaredFeatures gate is, with kube v1.36's
// features at ksched's binary version.
util::Result<std::unique_ptr<framework::Plugin>> NewNodeDeclaredFeatures(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

// InterPodAffinity: a pod's required pod (anti-)affinity and existing pods'
// required anti-affinity decide where it may run (Filter); preferred terms,
// on both sides, and existing pods' required affinity decide where it
// prefers to run (Score).
//
// PreFilter and PreScore walk the snapshot once per cycle and reduce it to
// counts per topology domain, so Filter and Score cost a few hash lookups
// per node.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

inline constexpr std::string_view kInterPodAffinityErrReasonAffinity =
    "node(s) didn't match pod affinity rules";
inline constexpr std::string_view kInterPodAffinityErrReasonAntiAffinity =
    "node(s) didn't match pod anti-affinity rules";
inline constexpr std::string_view kInterPodAffinityErrReasonExisting =
    "node(s) didn't satisfy existing pods anti-affinity rules";

class InterPodAffinity final : public framework::SignPlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::PreScorePlugin,
                               public framework::ScorePlugin,
                               public framework::EnqueueExtensions {
 public:
  InterPodAffinity(const config::InterPodAffinityArgs& args,
                   framework::Handle& handle);

  std::string_view Name() const override { return names::kInterPodAffinity; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;

  // Skip when the pod has no required terms and no existing pod's required
  // anti-affinity selects it.
  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes,
                              framework::PreFilterResult* result) override;
  bool HasExtensions() const override { return true; }
  framework::Status AddPod(framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::PodInfoPtr& to_add,
                           const framework::NodeInfo& node) const override;
  framework::Status RemovePod(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const framework::PodInfoPtr& to_remove,
                              const framework::NodeInfo& node) const override;
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Errs only when its PreFilter state is missing.
  bool FilterErrorsAreCycleWide() const override { return true; }

  // Looks at every node when the pod has preferred terms, else only at the
  // nodes holding pods with affinity. Skip when nothing matched.
  framework::Status PreScore(
      framework::CycleState& state, const framework::PodInfo& pod,
      const std::vector<framework::NodeInfoPtr>& nodes) override;
  // The sum of the weights of the node's topology domains: positive for
  // affinity, negative for anti-affinity.
  framework::Status Score(const framework::CycleState& state,
                          const framework::PodInfo& pod,
                          const framework::NodeInfo& node,
                          int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  // Min-max normalisation onto [0, kMaxNodeScore].
  framework::Status NormalizeScore(
      const framework::CycleState& state, const framework::PodInfo& pod,
      framework::NodeScoreList& scores) const override;

 private:
  framework::Status UpdateWithPod(framework::CycleState& state,
                                  const framework::PodInfo& pod,
                                  const framework::PodInfo& other,
                                  const framework::NodeInfo& node,
                                  int64_t multiplier) const;

  int32_t hard_pod_affinity_weight_;
  bool ignore_preferred_terms_of_existing_pods_;
  framework::Handle& handle_;
};

// Fails when hardPodAffinityWeight is outside [0, 100].
util::Result<std::unique_ptr<framework::Plugin>> NewInterPodAffinity(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

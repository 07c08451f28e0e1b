// NodeAffinity: a pod runs only on nodes matching its spec.nodeSelector and
// required node affinity (Filter), prefers nodes matching its preferred
// terms (Score), and the profile may add affinity of its own for every pod
// (NodeAffinityArgs.addedAffinity).
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "pkg/api/node_selector.h"
#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

inline constexpr std::string_view kNodeAffinityErrReasonPod =
    "node(s) didn't match Pod's node affinity/selector";
inline constexpr std::string_view kNodeAffinityErrReasonEnforced =
    "node(s) didn't match scheduler-enforced node affinity";
inline constexpr std::string_view kNodeAffinityErrReasonConflict =
    "pod affinity terms conflict";

class NodeAffinity final : public framework::SignPlugin,
                           public framework::PreFilterPlugin,
                           public framework::FilterPlugin,
                           public framework::PreScorePlugin,
                           public framework::ScorePlugin,
                           public framework::EnqueueExtensions {
 public:
  // Either may be absent: addedAffinity without that part.
  NodeAffinity(std::optional<api::CompiledNodeSelector> added_required,
               std::optional<api::CompiledPreferredTerms> added_preferred);

  std::string_view Name() const override { return names::kNodeAffinity; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  // Answers from the pod and the node alone.
  bool NodeLocal() const override { return true; }
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;

  // Skip when there is nothing to filter on; narrows the nodes to the names
  // pinned by required terms' `metadata.name In` fields.
  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Errs only when its PreFilter state is missing.
  bool FilterErrorsAreCycleWide() const override { return true; }

  framework::Status PreScore(
      framework::CycleState& state, const framework::PodInfo& pod,
      const std::vector<framework::NodeInfoPtr>& nodes) override;
  // The sum of the weights of the matching preferred terms, the pod's and
  // the added ones.
  framework::Status Score(const framework::CycleState& state,
                          const framework::PodInfo& pod,
                          const framework::NodeInfo& node,
                          int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(
      const framework::CycleState& state, const framework::PodInfo& pod,
      framework::NodeScoreList& scores) const override;

 private:
  std::optional<api::CompiledNodeSelector> added_required_;
  std::optional<api::CompiledPreferredTerms> added_preferred_;
};

// Fails, as kube-scheduler's New does, when addedAffinity has a term that
// does not parse.
util::Result<std::unique_ptr<framework::Plugin>> NewNodeAffinity(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

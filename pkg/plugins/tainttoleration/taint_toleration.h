// TaintToleration: a pod must tolerate a node's NoSchedule and NoExecute
// taints (Filter) and prefers nodes with fewer untolerated PreferNoSchedule
// taints (Score).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

// Filter's reason for a node with a NoSchedule/NoExecute taint the pod does
// not tolerate.
inline constexpr std::string_view kErrReasonUntolerated =
    "node(s) had untolerated taint(s)";

class TaintToleration final : public framework::SignPlugin,
                              public framework::FilterPlugin,
                              public framework::PreScorePlugin,
                              public framework::ScorePlugin,
                              public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return names::kTaintToleration; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  // Answers from the pod and the node alone.
  bool NodeLocal() const override { return true; }
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;

  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Errs only when its PreFilter state is missing.
  bool FilterErrorsAreCycleWide() const override { return true; }

  framework::Status PreScore(
      framework::CycleState& state, const framework::PodInfo& pod,
      const std::vector<framework::NodeInfoPtr>& nodes) override;
  // The number of the node's PreferNoSchedule taints the pod does not
  // tolerate; NormalizeScore turns "fewer" into "higher".
  framework::Status Score(const framework::CycleState& state,
                          const framework::PodInfo& pod,
                          const framework::NodeInfo& node,
                          int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(
      const framework::CycleState& state, const framework::PodInfo& pod,
      framework::NodeScoreList& scores) const override;
};

util::Result<std::unique_ptr<framework::Plugin>> NewTaintToleration(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

// PodTopologySpread: spreads a workload's pods over topology domains (zones,
// nodes, ...) as its topologySpreadConstraints ask. DoNotSchedule
// constraints filter nodes whose domain would exceed maxSkew; ScheduleAnyway
// ones prefer the domains with the fewest matching pods. Pods without
// constraints get the profile's default constraints (kube-scheduler v1.32).
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "pkg/api/label_selector.h"
#include "pkg/api/pod.h"
#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/plugins/podtopologyspread/common.h"
#include "pkg/plugins/podtopologyspread/incremental_counts.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

inline constexpr std::string_view
    kPodTopologySpreadErrReasonConstraintsNotMatch =
        "node(s) didn't match pod topology spread constraints";
inline constexpr std::string_view kPodTopologySpreadErrReasonNodeLabelNotMatch =
    "node(s) didn't match pod topology spread constraints (missing required "
    "label)";

class PodTopologySpread final : public framework::SignPlugin,
                                public framework::PreFilterPlugin,
                                public framework::FilterPlugin,
                                public framework::PreScorePlugin,
                                public framework::ScorePlugin,
                                public framework::EnqueueExtensions {
 public:
  // The selector of the workload a pod belongs to, which default
  // constraints spread over (helper.DefaultSelector: the selectors of the
  // Services, ReplicationControllers, ReplicaSets and StatefulSets that
  // select the pod, ANDed). An empty selector (Everything) means no
  // workload is known, and the pod gets no default constraints.
  using DefaultSelectorFn = std::function<api::Selector(const api::Pod&)>;

  // `default_selector` may be null: no workload is ever known.
  PodTopologySpread(framework::Handle& handle,
                    std::vector<api::TopologySpreadConstraint> defaults,
                    bool system_defaulted, DefaultSelectorFn default_selector);

  std::string_view Name() const override { return names::kPodTopologySpread; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;

  // Counts the pods matching each DoNotSchedule constraint per domain;
  // Skip when the pod has none.
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

  // Counts the pods matching each ScheduleAnyway constraint per domain of
  // the filtered nodes; Skip when the pod has none.
  framework::Status PreScore(
      framework::CycleState& state, const framework::PodInfo& pod,
      const std::vector<framework::NodeInfoPtr>& nodes) override;
  // The weighted matching pods in the node's domains: lower is better.
  framework::Status Score(const framework::CycleState& state,
                          const framework::PodInfo& pod,
                          const framework::NodeInfo& node,
                          int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(
      const framework::CycleState& state, const framework::PodInfo& pod,
      framework::NodeScoreList& scores) const override;

 private:
  // The pod's constraints of `action`, or the default ones when it has
  // none (getConstraints / buildDefaultConstraints). `kind` ("hard",
  // "soft") only words errors as kube does.
  util::Result<podtopologyspread::Constraints> GetConstraints(
      const api::Pod& pod, api::UnsatisfiableConstraintAction action,
      std::string_view kind) const;
  framework::QueueingHint HintAfterPodChange(
      const api::Pod& pod, const framework::EventObjects& objs) const;
  framework::QueueingHint HintAfterNodeChange(
      const api::Pod& pod, const framework::EventObjects& objs) const;

  framework::Handle& handle_;
  // PreFilter's counts, kept between cycles (incremental_counts.h).
  std::unique_ptr<podtopologyspread::IncrementalCounts> incremental_counts_;
  std::vector<api::TopologySpreadConstraint> default_constraints_;
  bool system_defaulted_;
  DefaultSelectorFn default_selector_;
};

// Fails, as kube's New does, on System defaulting with defaultConstraints.
// ksched has no Service/ReplicaSet/StatefulSet listers yet, so the plugin it
// builds never finds a workload selector and default constraints (System or
// List) never apply: kube likewise skips them when no selector matches.
util::Result<std::unique_ptr<framework::Plugin>> NewPodTopologySpread(
    const config::PluginArgs* args, framework::Handle& handle);

// NewPodTopologySpread with a workload selector function: what the factory
// will pass once ksched has the listers; tests use it meanwhile.
util::Result<std::unique_ptr<framework::Plugin>>
NewPodTopologySpreadWithSelector(
    const config::PluginArgs* args, framework::Handle& handle,
    PodTopologySpread::DefaultSelectorFn default_selector);

}  // namespace ksched::plugins

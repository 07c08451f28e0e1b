// NodeUnschedulable: rejects nodes with spec.unschedulable (cordoned) unless
// the pod tolerates the node.kubernetes.io/unschedulable:NoSchedule taint.
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

inline constexpr std::string_view kNodeUnschedulableErrReason =
    "node(s) were unschedulable";
// For a NodeInfo whose Node object is not (or no longer) known.
inline constexpr std::string_view kNodeUnschedulableErrReasonUnknownCondition =
    "node(s) had unknown conditions";

class NodeUnschedulable final : public framework::SignPlugin,
                                public framework::FilterPlugin,
                                public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return names::kNodeUnschedulable; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  // Answers from the pod and the node alone.
  bool NodeLocal() const override { return true; }
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;

  // The queueing hints (kube's isSchedulableAfterNodeChange and
  // isSchedulableAfterPodTolerationChange).
  static framework::QueueingHint HintAfterNodeChange(
      const api::Pod& pod, const framework::EventObjects& objs);
  static framework::QueueingHint HintAfterPodTolerationChange(
      const api::Pod& pod, const framework::EventObjects& objs);
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Never errs on a node with its Node.
  bool FilterErrorsAreCycleWide() const override { return true; }
};

util::Result<std::unique_ptr<framework::Plugin>> NewNodeUnschedulable(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

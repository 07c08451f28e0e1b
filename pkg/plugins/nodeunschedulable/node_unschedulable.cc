#include "pkg/plugins/nodeunschedulable/node_unschedulable.h"

#include "pkg/api/taints.h"

namespace ksched::plugins {
namespace {

// The taint the node lifecycle controller puts on cordoned nodes; tolerating
// it also tolerates spec.unschedulable.
const api::Taint& UnschedulableTaint() {
  static const api::Taint kTaint{.key = "node.kubernetes.io/unschedulable",
                                 .value = "",
                                 .effect = api::TaintEffect::kNoSchedule,
                                 .time_added = std::nullopt};
  return kTaint;
}

}  // namespace

std::vector<framework::ClusterEventWithHint>
NodeUnschedulable::EventsToRegister() const {
  // kube-scheduler v1.32 with queueing hints on (its default): a node added
  // or its taints updated (cordoning goes with the unschedulable taint), and
  // a pod gaining tolerations. Without hint functions every such event
  // requeues, which is never wrong, only less selective.
  return {
      {{framework::EventResource::kNode,
        framework::kAdd | framework::kUpdateNodeTaint},
       nullptr},
      {{framework::EventResource::kPod, framework::kUpdatePodToleration},
       nullptr},
  };
}

framework::Status NodeUnschedulable::Filter(
    const framework::CycleState& /*state*/, const framework::PodInfo& pod,
    const framework::NodeInfo& node_info) const {
  const api::Node* node = node_info.node();
  if (node == nullptr) {
    // kube dereferences the node unchecked; earlier releases answered this.
    return framework::Status::Unresolvable(
        std::string(kNodeUnschedulableErrReasonUnknownCondition));
  }
  if (!node_info.node_unschedulable()) return framework::Status();
  if (api::TolerationsTolerateTaint(pod.pod().spec.tolerations,
                                    UnschedulableTaint())) {
    return framework::Status();
  }
  return framework::Status::Unresolvable(
      std::string(kNodeUnschedulableErrReason));
}

util::Result<std::unique_ptr<framework::Plugin>> NewNodeUnschedulable(
    const config::PluginArgs* /*args*/, framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<NodeUnschedulable>());
}

}  // namespace ksched::plugins

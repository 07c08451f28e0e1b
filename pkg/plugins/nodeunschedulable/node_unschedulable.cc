#include "pkg/plugins/nodeunschedulable/node_unschedulable.h"

#include "pkg/api/taints.h"
#include "pkg/framework/signature.h"

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
  // a pod gaining tolerations.
  return {
      {{framework::EventResource::kNode,
        framework::kAdd | framework::kUpdateNodeTaint},
       HintAfterNodeChange},
      {{framework::EventResource::kPod, framework::kUpdatePodToleration},
       HintAfterPodTolerationChange},
  };
}

framework::QueueingHint NodeUnschedulable::HintAfterNodeChange(
    const api::Pod& /*pod*/, const framework::EventObjects& objs) {
  const api::Node* before = objs.old_node;
  const api::Node* after = objs.new_node;
  if (after == nullptr) return framework::QueueingHint::kQueue;
  // Only a schedulable node can help: a new one, or one just uncordoned.
  const bool now_schedulable =
      before == nullptr
          ? !after->spec.unschedulable
          : before->spec.unschedulable && !after->spec.unschedulable;
  return now_schedulable ? framework::QueueingHint::kQueue
                         : framework::QueueingHint::kQueueSkip;
}

framework::QueueingHint NodeUnschedulable::HintAfterPodTolerationChange(
    const api::Pod& pod, const framework::EventObjects& objs) {
  const api::Pod* after = objs.new_pod;
  if (after == nullptr) return framework::QueueingHint::kQueue;
  // Another pod's tolerations do not change this pod's result; the pod's
  // own help only when they now tolerate cordoned nodes (tolerations can
  // only be added, so it did not before).
  if (after->metadata.uid != pod.metadata.uid) {
    return framework::QueueingHint::kQueueSkip;
  }
  return api::TolerationsTolerateTaint(after->spec.tolerations,
                                       UnschedulableTaint())
             ? framework::QueueingHint::kQueue
             : framework::QueueingHint::kQueueSkip;
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
  static const framework::Status::Constant kUnschedulableNode(
      framework::Code::kUnschedulableAndUnresolvable,
      std::string(kNodeUnschedulableErrReason),
      std::string(names::kNodeUnschedulable));
  return kUnschedulableNode.status();
}

util::Result<std::unique_ptr<framework::Plugin>> NewNodeUnschedulable(
    const config::PluginArgs* /*args*/, framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<NodeUnschedulable>());
}

bool NodeUnschedulable::SignPod(const api::Pod& pod, api::Pod& into) const {
  // Reads the tolerations (of the unschedulable taint).
  framework::signature::CopyTolerations(pod, into);
  return true;
}

}  // namespace ksched::plugins

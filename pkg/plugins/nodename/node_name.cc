#include "pkg/plugins/nodename/node_name.h"

namespace ksched::plugins {

std::vector<framework::ClusterEventWithHint> NodeName::EventsToRegister()
    const {
  // kube-scheduler v1.32 with queueing hints on (its default): only a new
  // node can be the one the pod names; no hint is needed, as in kube.
  return {{{framework::EventResource::kNode, framework::kAdd}, nullptr}};
}

bool NodeNameFits(const api::Pod& pod, const framework::NodeInfo& node) {
  return pod.spec.node_name.empty() || pod.spec.node_name == node.name();
}

framework::Status NodeName::Filter(const framework::CycleState& /*state*/,
                                   const framework::PodInfo& pod,
                                   const framework::NodeInfo& node) const {
  if (node.node() == nullptr) {
    return framework::Status::Error("node not found");
  }
  if (!NodeNameFits(pod.pod(), node)) {
    static const framework::Status::Constant kOtherNode(
        framework::Code::kUnschedulableAndUnresolvable,
        std::string(kNodeNameErrReason), std::string(names::kNodeName));
    return kOtherNode.status();
  }
  return framework::Status();
}

util::Result<std::unique_ptr<framework::Plugin>> NewNodeName(
    const config::PluginArgs* /*args*/, framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeName>());
}

bool NodeName::SignPod(const api::Pod& pod, api::Pod& into) const {
  into.spec.node_name = pod.spec.node_name;
  return true;
}

}  // namespace ksched::plugins

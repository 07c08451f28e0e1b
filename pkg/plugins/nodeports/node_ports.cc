#include "pkg/plugins/nodeports/node_ports.h"

#include "pkg/framework/signature.h"

namespace ksched::plugins {
namespace {

constexpr framework::StateKey kPreFilterKey{"PreFilterNodePorts"};

// The pod's host ports, copied so the state stands alone. Adding or removing
// other pods does not change it, so clones share it.
class PreFilterState final : public framework::StateData {
 public:
  explicit PreFilterState(std::vector<api::ContainerPort> ports)
      : ports_(std::make_shared<const std::vector<api::ContainerPort>>(
            std::move(ports))) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreFilterState>(*this);
  }
  const std::vector<api::ContainerPort>& ports() const { return *ports_; }

 private:
  std::shared_ptr<const std::vector<api::ContainerPort>> ports_;
};

// HostPortInfo treats an empty address as 0.0.0.0 and an empty protocol as
// TCP, so a port is checked as the kubelet would bind it.
bool Conflicts(const api::ContainerPort& port,
               const framework::HostPortInfo& used) {
  return used.CheckConflict(port.host_ip, port.protocol, port.host_port);
}

}  // namespace

std::vector<framework::ClusterEventWithHint> NodePorts::EventsToRegister()
    const {
  // kube-scheduler v1.32 with queueing hints on (its default): a pod deleted
  // (ports are immutable, so only deletion frees one) and a node added.
  // kube's pod hint requeues only when the deleted pod was bound and held a
  // conflicting port; without a hint function every deletion requeues.
  return {
      {{framework::EventResource::kPod, framework::kDelete}, nullptr},
      {{framework::EventResource::kNode, framework::kAdd}, nullptr},
  };
}

framework::Status NodePorts::PreFilter(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/,
    framework::PreFilterResult* /*result*/) {
  std::vector<api::ContainerPort> ports;
  for (const api::ContainerPort* p : framework::HostPortsOf(pod.pod())) {
    ports.push_back(*p);
  }
  if (ports.empty()) return framework::Status::Skip();
  state.Write(kPreFilterKey,
              std::make_shared<PreFilterState>(std::move(ports)));
  return framework::Status();
}

framework::Status NodePorts::Filter(const framework::CycleState& state,
                                    const framework::PodInfo& /*pod*/,
                                    const framework::NodeInfo& node) const {
  const auto* s = state.Read<PreFilterState>(kPreFilterKey);
  if (s == nullptr) {
    // kube has no fallback either: Filter relies on PreFilter.
    return framework::Status::Error(
        "reading \"PreFilterNodePorts\" from cycleState: not found");
  }
  for (const api::ContainerPort& port : s->ports()) {
    if (Conflicts(port, node.used_ports())) {
      // Preempting the pod holding the port can free it: resolvable.
      static const framework::Status::Constant kPortTaken(
          framework::Code::kUnschedulable, std::string(kNodePortsErrReason),
          std::string(names::kNodePorts));
      return kPortTaken.status();
    }
  }
  return framework::Status();
}

bool NodePortsFit(const api::Pod& pod, const framework::NodeInfo& node) {
  for (const api::ContainerPort* port : framework::HostPortsOf(pod)) {
    if (Conflicts(*port, node.used_ports())) return false;
  }
  return true;
}

util::Result<std::unique_ptr<framework::Plugin>> NewNodePorts(
    const config::PluginArgs* /*args*/, framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodePorts>());
}

bool NodePorts::SignPod(const api::Pod& pod, api::Pod& into) const {
  framework::signature::CopyPorts(pod, into);
  return true;
}

}  // namespace ksched::plugins

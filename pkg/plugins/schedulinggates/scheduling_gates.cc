#include "pkg/plugins/schedulinggates/scheduling_gates.h"

#include <string>

namespace ksched::plugins {

std::vector<framework::ClusterEventWithHint> SchedulingGates::EventsToRegister()
    const {
  // kube-scheduler v1.32 with queueing hints on (its default): the pod's own
  // update that removes its last gate. kube's hint also checks that the
  // updated pod is the gated one; without a hint any such update requeues.
  return {{{framework::EventResource::kPod,
            framework::kUpdatePodSchedulingGatesEliminated},
           nullptr}};
}

framework::Status SchedulingGates::PreEnqueue(const api::Pod& pod) const {
  const auto& gates = pod.spec.scheduling_gates;
  if (gates.empty()) return framework::Status();
  // Go's %v of a []string: "[foo bar]". Users grep for this message.
  std::string message = "waiting for scheduling gates: [";
  for (size_t i = 0; i < gates.size(); ++i) {
    if (i > 0) message += ' ';
    message += gates[i].name;
  }
  message += ']';
  return framework::Status::Unresolvable(std::move(message));
}

util::Result<std::unique_ptr<framework::Plugin>> NewSchedulingGates(
    const config::PluginArgs* /*args*/, framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<SchedulingGates>());
}

}  // namespace ksched::plugins

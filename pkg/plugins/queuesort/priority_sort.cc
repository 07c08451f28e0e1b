#include "pkg/plugins/queuesort/priority_sort.h"

namespace ksched::plugins {
namespace {

// A pod without spec.priority counts as 0, as corev1helpers.PodPriority does
// (the admission plugin normally fills the field in).
int32_t PodPriority(const api::Pod& pod) {
  return pod.spec.priority.value_or(0);
}

}  // namespace

bool PrioritySort::Less(const framework::QueuedPodInfo& a,
                        const framework::QueuedPodInfo& b) const {
  const int32_t pa = PodPriority(a.pod());
  const int32_t pb = PodPriority(b.pod());
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

util::Result<std::unique_ptr<framework::Plugin>> NewPrioritySort(
    const config::PluginArgs* /*args*/, framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<PrioritySort>());
}

}  // namespace ksched::plugins

#include "pkg/plugins/coscheduling/pod_group_status.h"

#include <algorithm>

namespace ksched::plugins::coscheduling {

MemberCounts CountMembers(
    const std::vector<std::shared_ptr<const api::Pod>>& pods, int32_t waiting) {
  MemberCounts c;
  c.members = static_cast<int32_t>(pods.size());
  c.waiting = waiting;
  for (const auto& pod : pods) {
    if (!pod->spec.node_name.empty()) ++c.bound;
    if (pod->status.phase == api::kPodPhaseRunning) ++c.running;
    if (pod->status.phase == api::kPodPhaseSucceeded) ++c.succeeded;
    if (pod->status.phase == api::kPodPhaseFailed) ++c.failed;
  }
  // As their controller: the owners of one member (the first by name, so
  // that the answer does not depend on the order pods were seen in).
  const api::Pod* first = nullptr;
  for (const auto& pod : pods) {
    if (pod->metadata.owner_references.empty()) continue;
    if (first == nullptr || pod->metadata.name < first->metadata.name) {
      first = pod.get();
    }
  }
  if (first != nullptr) {
    std::vector<std::string> refs;
    for (const api::OwnerReference& ref : first->metadata.owner_references) {
      refs.push_back(first->metadata.ns + "/" + ref.name);
    }
    std::sort(refs.begin(), refs.end());
    for (const std::string& ref : refs) {
      if (!c.occupied_by.empty()) c.occupied_by += ",";
      c.occupied_by += ref;
    }
  }
  return c;
}

api::PodGroupStatus NextPodGroupStatus(const api::PodGroup& group,
                                       const MemberCounts& seen,
                                       api::Timestamp now) {
  api::PodGroupStatus s = group.status;
  if (s.phase == api::kPodGroupFinished || s.phase == api::kPodGroupFailed) {
    return s;
  }
  const int32_t min = group.spec.min_member;
  s.scheduled = seen.bound;
  s.running = seen.running;
  s.succeeded = seen.succeeded;
  s.failed = seen.failed;
  if (seen.members == 0) {
    s.phase = std::string(api::kPodGroupPending);
  } else if (seen.bound + seen.waiting == 0) {
    s.phase = std::string(seen.members >= min ? api::kPodGroupPreScheduling
                                              : api::kPodGroupPending);
  } else if (seen.bound < min) {
    s.phase = std::string(api::kPodGroupScheduling);
  } else {
    s.phase = std::string(api::kPodGroupScheduled);
    if (seen.running + seen.succeeded >= min) {
      s.phase = std::string(api::kPodGroupRunning);
    }
  }
  if (seen.failed != 0 && seen.failed + seen.running + seen.succeeded >= min) {
    s.phase = std::string(api::kPodGroupFailed);
  }
  if (min > 0 && seen.succeeded >= min) {
    s.phase = std::string(api::kPodGroupFinished);
  }
  if (s.phase != api::kPodGroupPending) {
    if (!s.schedule_start_time || s.schedule_start_time->IsZero()) {
      s.schedule_start_time = api::Time{now};
    }
    if (s.occupied_by.empty()) s.occupied_by = seen.occupied_by;
  }
  return s;
}

}  // namespace ksched::plugins::coscheduling

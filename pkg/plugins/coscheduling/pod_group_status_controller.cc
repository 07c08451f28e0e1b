#include "pkg/plugins/coscheduling/pod_group_status_controller.h"

#include <set>
#include <utility>
#include <vector>

#include "pkg/plugins/coscheduling/pod_group_status.h"

namespace ksched::plugins::coscheduling {

PodGroupStatusController::PodGroupStatusController(
    const framework::ClusterObjects& objects,
    const framework::PodGroupMembers& members, framework::ClusterWriter& writer,
    WaitingByGroup waiting, Options options)
    : objects_(objects),
      members_(members),
      writer_(writer),
      waiting_(std::move(waiting)),
      options_(options) {}

int PodGroupStatusController::Sync() {
  const util::Clock::TimePoint now = options_.clock->Now();
  const api::Timestamp wall =
      std::chrono::time_point_cast<std::chrono::microseconds>(
          options_.clock->WallNow());
  const std::map<std::string, int32_t> waiting =
      waiting_ ? waiting_() : std::map<std::string, int32_t>{};
  std::set<std::string> present;
  int writes = 0;
  for (const auto& group : objects_.ListPodGroups()) {
    const std::string key = group->metadata.ns + "/" + group->metadata.name;
    present.insert(key);
    auto w = waiting.find(key);
    const MemberCounts seen =
        CountMembers(members_.List(group->metadata.ns, group->metadata.name),
                     w == waiting.end() ? 0 : w->second);
    auto last = written_.find(key);
    if (last != written_.end() && last->second.uid != group->metadata.uid) {
      written_.erase(last);
      last = written_.end();
    }
    // What was written last stands for the group's status until the
    // informer shows it: no second write of the same change meanwhile.
    api::PodGroup current = *group;
    if (last != written_.end()) current.status = last->second.status;
    const api::PodGroupStatus next = NextPodGroupStatus(current, seen, wall);
    if (next == current.status) continue;
    if (last != written_.end() &&
        now - last->second.at < options_.min_interval) {
      continue;
    }
    if (writer_.UpdatePodGroupStatus(*group, next).IsSuccess()) {
      written_[key] = {group->metadata.uid, next, now};
      ++writes;
    } else {
      // Tried: the next attempt waits its turn like a write would.
      written_[key] = {group->metadata.uid, group->status, now};
    }
  }
  std::erase_if(written_, [&](const auto& entry) {
    return !present.contains(entry.first);
  });
  return writes;
}

}  // namespace ksched::plugins::coscheduling

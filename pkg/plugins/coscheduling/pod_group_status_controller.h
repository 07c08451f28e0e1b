// PodGroupStatusController: keeps each PodGroup's status current, as
// scheduler-plugins' PodGroup controller does, from the members the
// scheduler sees (bound, running, finished) and the ones it holds at
// Permit. Sync runs on the scheduler's housekeeping tick, on the leader
// only; a group's status is written when it changed, at most once per
// min_interval, through a merge patch of its status subresource.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "pkg/api/podgroup.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/framework/cluster_writer.h"
#include "pkg/framework/pod_group_members.h"
#include "pkg/util/clock.h"

namespace ksched::plugins::coscheduling {

class PodGroupStatusController {
 public:
  // "ns/group" -> members held at Permit.
  using WaitingByGroup = std::function<std::map<std::string, int32_t>()>;
  struct Options {
    const util::Clock* clock = nullptr;  // required
    std::chrono::milliseconds min_interval{1000};
  };

  // `members` holds every pod with the pod-group label, finished ones too.
  PodGroupStatusController(const framework::ClusterObjects& objects,
                           const framework::PodGroupMembers& members,
                           framework::ClusterWriter& writer,
                           WaitingByGroup waiting, Options options);

  // Writes the statuses that changed and may be written now; returns how
  // many were written.
  int Sync();

 private:
  const framework::ClusterObjects& objects_;
  const framework::PodGroupMembers& members_;
  framework::ClusterWriter& writer_;
  WaitingByGroup waiting_;
  Options options_;
  struct Written {
    std::string uid;  // a group deleted and created again starts over
    api::PodGroupStatus status;
    util::Clock::TimePoint at;
  };
  std::map<std::string, Written> written_;  // by "ns/group"
};

}  // namespace ksched::plugins::coscheduling

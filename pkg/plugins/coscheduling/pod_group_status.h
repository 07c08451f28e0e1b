// The status of a PodGroup as its members show it: scheduler-plugins'
// PodGroup controller's phases and counts (pkg/controllers), settled in one
// step, with status.scheduled counted as the members bound. ksched keeps
// the status itself, so users of that controller see the same fields move.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/time.h"

namespace ksched::plugins::coscheduling {

// What the scheduler sees of a group's members.
struct MemberCounts {
  int32_t members = 0;  // every pod with the label, finished ones too
  int32_t bound = 0;    // with a node
  int32_t running = 0;
  int32_t succeeded = 0;
  int32_t failed = 0;
  int32_t waiting = 0;  // placed and held at Permit, not bound yet
  // "ns/owner,...": the owners of one member, sorted (status.occupiedBy).
  std::string occupied_by;
};

// Counts `pods` (all members of one group); `waiting` as the scheduler
// knows it.
MemberCounts CountMembers(
    const std::vector<std::shared_ptr<const api::Pod>>& pods, int32_t waiting);

// The status `group` should have now:
//   Pending        fewer than minMember pods, none placed (or none at all)
//   PreScheduling  enough pods, none placed yet
//   Scheduling     some placed (held at Permit or bound), fewer than
//                  minMember bound
//   Scheduled      minMember bound
//   Running        minMember running or succeeded
//   Failed         a member failed, and minMember ran or finished
//   Finished       minMember succeeded
// Failed and Finished are final: the status is then left as it is.
// scheduleStartTime is set when the group first leaves Pending.
api::PodGroupStatus NextPodGroupStatus(const api::PodGroup& group,
                                       const MemberCounts& seen,
                                       api::Timestamp now);

}  // namespace ksched::plugins::coscheduling

// GangManager: the all-or-nothing rules of a gang, whatever its source
// (scheduler-plugins' PodGroupManager, pkg/coscheduling/core): the quorum
// checks before a member is filtered, the count of members placed so far
// at Permit, and the memory of gangs that failed (backoff, the resource
// check already passed, the last failure for queue order).
//
// Thread safety: Permit and Unreserve may run on different threads (a
// binding cycle unreserves), and the queue compares pods under its own
// lock; every method takes mu_, and none calls out while holding it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/framework/node_info.h"
#include "pkg/plugins/coscheduling/gang.h"
#include "pkg/util/clock.h"

namespace ksched::plugins::coscheduling {

class GangManager {
 public:
  struct Options {
    const util::Clock* clock = nullptr;  // required
    // permitWaitingTimeSeconds: the default Permit wait, and how long a
    // passed resource check is remembered.
    std::chrono::seconds permit_wait{60};
    // podGroupBackoffSeconds; zero: gangs do not back off.
    std::chrono::seconds backoff{0};
  };

  GangManager(const GangSource& source, Options options);

  const GangSource& source() const { return source_; }

  // The checks before Filter; "" lets the pod go on, anything else is why
  // its gang cannot be placed now. `nodes` is the cycle's snapshot, for
  // the gang's minResources.
  std::string PreFilter(const api::Pod& pod,
                        const std::vector<framework::NodeInfoPtr>& nodes);

  enum class PermitResult {
    kNoGang,        // the pod names no gang
    kGangNotFound,  // it names one that does not exist
    kWait,          // fewer than minMember placed, this one included
    kQuorum,        // minMember placed: all may go
  };
  // Counts `pod` as placed. *first: it is the first member placed, which
  // brings its siblings into the active queue.
  PermitResult Permit(const api::Pod& pod, bool* first);
  // The pod's placement was undone.
  void Unreserve(const api::Pod& pod);
  // Members placed: assumed through Permit (and not undone) or bound.
  int Placed(const Gang& gang, const api::Pod& pod);

  // A gang that failed waits `backoff` before being tried again; a gang
  // backing off already keeps its deadline.
  void BackOff(const std::string& key);
  bool BackingOff(const std::string& key) const;
  // Whether the gang was refused for backing off, and is not any more:
  // any event may then help it.
  bool BackoffOver(const std::string& key) const;
  // Forget the passed resource check (the gang failed).
  void ForgetPermitted(const std::string& key);
  // The gang's last failure orders it behind gangs that did not fail
  // since (scheduler-plugins #949); a gang that reached its quorum clears.
  void MarkFailure(const std::string& key);
  void ClearFailure(const std::string& key);

  // The time that orders `pod` in the queue: its gang's last failure, else
  // its gang's creation, else nullopt (no gang: the pod's own time).
  std::optional<api::Timestamp> SortTime(const api::Pod& pod) const;

  // How long a member of `gang` waits at Permit: the gang's own
  // scheduleTimeoutSeconds when set (even 0), else the plugin's.
  std::chrono::seconds WaitTime(const std::optional<Gang>& gang) const;

 private:
  // The resources the cluster has left for `gang`, counting its own placed
  // members as free (CheckClusterResource); "" when they suffice.
  std::string CheckClusterResources(
      const Gang& gang, const std::vector<framework::NodeInfoPtr>& nodes) const;

  const GangSource& source_;
  Options options_;
  mutable std::mutex mu_;
  // Gang key -> UIDs of members assumed through Permit.
  std::map<std::string, std::set<std::string>> permitted_pods_;
  // Gang key -> until when.
  std::map<std::string, util::Clock::TimePoint> backed_off_;
  std::map<std::string, util::Clock::TimePoint> resources_checked_;
  std::set<std::string> refused_for_backoff_;
  std::map<std::string, api::Timestamp> last_failure_;
};

}  // namespace ksched::plugins::coscheduling

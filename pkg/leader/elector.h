// LeaderElector: Lease-based leader election as client-go's leaderelection
// does it, so ksched replicas and kube-scheduler tooling agree on what the
// Lease means.
//
//   Acquire        tries every retry period (jittered) until this process
//                  holds the Lease: created if absent, taken over once the
//                  holder has not renewed for its leaseDuration (as seen on
//                  this process's clock, so clock skew between replicas does
//                  not matter).
//   KeepRenewing   renews every retry period; if a renewal does not succeed
//                  within the renew deadline the lease counts as lost.
//   IsLeader       whether this process may act as leader right now: it
//                  holds the lease and renewed it within the renew deadline
//                  (a binding must not go out after that).
//   Release        hands the lease back on a graceful shutdown (holder
//                  cleared, leaseDuration 1 s), so the next replica takes
//                  over at once.
// Writes are optimistic: an update carries the resourceVersion read, and a
// conflict means another replica got there first.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "pkg/api/objects.h"
#include "pkg/leader/lease_lock.h"
#include "pkg/util/clock.h"
#include "pkg/util/logger.h"
#include "pkg/util/random.h"

namespace ksched::leader {

struct ElectionConfig {
  std::string identity;  // hostname + "_" + a unique id
  util::Clock::Duration lease_duration = std::chrono::seconds(15);
  util::Clock::Duration renew_deadline = std::chrono::seconds(10);
  util::Clock::Duration retry_period = std::chrono::seconds(2);
};

class LeaderElector {
 public:
  // Waits `d`; false if the wait was cut short because the process stops.
  using WaitFn = std::function<bool(util::Clock::Duration d)>;

  LeaderElector(LeaseLock& lock, const util::Clock& clock, util::Random& random,
                util::Logger& log, ElectionConfig config, WaitFn wait);

  // One attempt (tryAcquireOrRenew): whether this process holds the lease
  // afterwards.
  bool TryAcquireOrRenew();
  // Blocks until the lease is held (true) or the wait is cut short (false).
  bool Acquire();
  // Blocks while the lease is renewed; returns true when the wait was cut
  // short (shutdown), false when the lease was lost.
  bool KeepRenewing();
  bool IsLeader() const;
  void Release();
  // For /healthz: a problem when this process leads but has not renewed for
  // leaseDuration + `tolerance` (its renew loop is stuck).
  std::optional<std::string> Check(util::Clock::Duration tolerance) const;

  const std::string& identity() const { return config_.identity; }

 private:
  api::LeaseSpec Record(util::Clock::WallTime now) const;
  util::Clock::Duration Jittered(util::Clock::Duration d);

  LeaseLock& lock_;
  const util::Clock& clock_;
  util::Random& random_;
  util::Logger& log_;
  const ElectionConfig config_;
  WaitFn wait_;

  mutable std::mutex mu_;
  // The lease as last read or written, and when (on this clock) its spec
  // was last seen to change.
  std::optional<api::Lease> observed_;
  util::Clock::TimePoint observed_time_{};
  // The last successful acquire or renewal; unset when not leading.
  std::optional<util::Clock::TimePoint> renewed_;
};

}  // namespace ksched::leader

// Pods held at Permit: a Permit plugin answered Wait, and the binding cycle
// blocks until every waiting plugin allows the pod, one rejects it, or the
// wait times out (framework/runtime/waiting_pods_map.go).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/framework/pod_info.h"
#include "pkg/framework/status.h"
#include "pkg/util/clock.h"

namespace ksched::framework {

class WaitingPod {
 public:
  WaitingPod(PodInfoPtr pod,
             std::vector<std::pair<std::string, std::chrono::milliseconds>>
                 plugin_timeouts,
             util::Clock::TimePoint now);

  const api::Pod& pod() const { return pod_->pod(); }
  const PodInfoPtr& pod_info() const { return pod_; }
  // The plugins that have not allowed the pod yet.
  std::vector<std::string> PendingPlugins() const;

  // A plugin allows the pod; once all have, the waiter wakes with Success.
  void Allow(const std::string& plugin);
  // Any plugin (or anyone) rejects the pod; the waiter wakes with
  // Unschedulable carrying `message`. False when the outcome was already
  // known.
  bool Reject(const std::string& plugin, const std::string& message);
  // Preemption takes the pod's room (v1.36): the waiter wakes with an
  // Error carrying `message`, so the pod goes back through backoff rather
  // than being found unschedulable. False when the outcome was already
  // known.
  bool Preempt(const std::string& plugin, const std::string& message);
  // Rejects every plugin whose deadline is at or before `now`, as kube's
  // per-plugin timers do ("rejected due to timeout after waiting ...").
  void ExpireAt(util::Clock::TimePoint now);
  // The earliest pending deadline.
  util::Clock::TimePoint NextDeadline() const;

  // Blocks until the outcome is known. The caller drives time: it calls
  // ExpireAt from a timer (the scheduler) or a fake clock (tests).
  Status Wait();
  bool Done() const;
  // When the wait began (scheduler_permit_wait_duration_seconds).
  util::Clock::TimePoint started() const { return started_; }
  // Calls `fn` once the outcome is known (now, if it is), on the thread
  // that allowed, rejected or expired the pod, after letting go of this
  // pod's lock (though not of the caller's: `fn` must not block).
  void OnDone(std::function<void()> fn);

 private:
  bool StopWith(Code code, const std::string& plugin,
                const std::string& message);

  PodInfoPtr pod_;
  const util::Clock::TimePoint started_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, util::Clock::TimePoint> pending_;  // plugin -> deadline
  std::map<std::string, std::chrono::milliseconds> timeouts_;
  bool done_ = false;
  Status result_;
  std::function<void()> on_done_;
};

// The waiting pods of a scheduler, by pod UID.
class WaitingPods {
 public:
  void Add(std::shared_ptr<WaitingPod> pod);
  void Remove(const std::string& uid);
  std::shared_ptr<WaitingPod> Get(const std::string& uid) const;
  void ForEach(const std::function<void(WaitingPod&)>& fn) const;
  // Expires every plugin wait whose deadline passed.
  void ExpireAt(util::Clock::TimePoint now) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<WaitingPod>> pods_;
};

}  // namespace ksched::framework

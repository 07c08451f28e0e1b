// SchedulingQueue: the pods waiting to be scheduled, mirroring
// kube-scheduler v1.35's PriorityQueue with queueing hints on; the
// SchedulerPopFromBackoffQ gate (Options::features) selects v1.35's popping
// from backoffQ or v1.32's waiting for the flush.
//
//   activeQ            pods ready for a scheduling cycle, best first (the
//                      profiles' QueueSort).
//   backoffQ           pods that may be ready but still serve the backoff
//                      penalty of their failed attempts (BackoffQueue).
//                      With SchedulerPopFromBackoffQ, Pop takes the head of
//                      its rejected pods whenever activeQ is empty, and the
//                      PreEnqueue plugins run as a pod enters backoffQ
//                      rather than as it leaves.
//   unschedulable pool pods rejected by some plugins, waiting for a cluster
//                      event those plugins' queueing hints accept; and pods
//                      a PreEnqueue plugin gates (`gated`).
//
// A popped pod is "in flight" until Done (or AddUnschedulableIfNotPresent).
// Events that arrive meanwhile are recorded, and when the pod comes back
// rejected they are replayed to its rejectors' hints: an event that may
// have helped it is never lost to the race with its own cycle.
//
// Thread-safety: one mutex and one condition variable; Pop blocks. Nothing
// runs in the background: the scheduler calls FlushBackoffQCompleted (every
// second in kube) and FlushUnschedulablePodsLeftover (every 30s) from its
// own timer, and all time comes from the Clock, so tests drive it.
//
// Queueing hints and PreEnqueue plugins run under the queue's lock: they
// must not call back into the queue.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/config/feature_gates.h"
#include "pkg/framework/cluster_event.h"
#include "pkg/framework/pod_nominator.h"
#include "pkg/framework/runtime/framework.h"
#include "pkg/framework/status.h"
#include "pkg/framework/types.h"
#include "pkg/queue/active_queue.h"
#include "pkg/queue/backoff_queue.h"
#include "pkg/queue/events.h"
#include "pkg/queue/nominator.h"
#include "pkg/queue/pod_heap.h"
#include "pkg/queue/unschedulable_pods.h"
#include "pkg/util/clock.h"
#include "pkg/util/result.h"

namespace ksched::queue {

// Runs the PreEnqueue plugins of the pod's profile; a non-success gates the
// pod, and the status's plugin is recorded as the pod's rejector.
using PreEnqueueFn = std::function<framework::Status(const api::Pod&)>;
// Per profile (schedulerName): the events each plugin registered, with its
// hints (Framework::enqueue_extensions()).
using QueueingHintMap =
    std::map<std::string, std::vector<framework::Framework::PluginEvents>,
             std::less<>>;

class SchedulingQueue final : public framework::PodNominator {
 public:
  struct Options {
    const util::Clock* clock = nullptr;  // required
    std::chrono::nanoseconds pod_initial_backoff = std::chrono::seconds(1);
    std::chrono::nanoseconds pod_max_backoff = std::chrono::seconds(10);
    std::chrono::nanoseconds pod_max_in_unschedulable = std::chrono::minutes(5);
    // Labels of a namespace, for the namespaceSelector of the affinity terms
    // AssignedPodAdded matches; unset: no labels.
    std::function<api::StringMap(std::string_view ns)> namespace_labels;
    // See Nominator::StillPendingFn.
    Nominator::StillPendingFn still_pending;
    // Every move into a queue, as scheduler_queue_incoming_pods_total{queue,
    // event} counts it; queue is "active", "backoff" or "unschedulable".
    // Called under the queue's lock.
    std::function<void(std::string_view queue, std::string_view event)>
        on_incoming_pod;
    // SchedulerPopFromBackoffQ is read from here; kube-scheduler v1.35's
    // defaults unless set.
    config::FeatureGates features;
  };

  // What scheduler_pending_pods{queue} reports. `unschedulable` excludes
  // the gated pods, which `gated` counts.
  struct Counts {
    size_t active = 0;
    size_t backoff = 0;
    size_t unschedulable = 0;
    size_t gated = 0;
  };

  SchedulingQueue(Options options, LessFn less, PreEnqueueFn pre_enqueue,
                  QueueingHintMap hints);
  ~SchedulingQueue() override;
  SchedulingQueue(const SchedulingQueue&) = delete;
  SchedulingQueue& operator=(const SchedulingQueue&) = delete;

  // A new unscheduled pod: to activeQ, or to the pool gated.
  void Add(framework::PodInfoPtr pod);
  // An unscheduled pod changed. In activeQ or backoffQ it is replaced in
  // place; in the pool, the update's events go through its rejectors'
  // hints (a gate removed releases it); in flight, the events are recorded
  // for when it comes back; elsewhere it is added as new.
  void Update(const api::Pod& old_pod, framework::PodInfoPtr new_pod);
  // Removes the pod from whichever queue holds it and from the nominator.
  void Delete(const api::Pod& pod);
  // Moves the pods to activeQ if they wait in backoffQ or the pool; a pod in
  // flight gets a targeted wildcard event so it is requeued when it returns.
  void Activate(const std::vector<std::shared_ptr<const api::Pod>>& pods);

  // Blocks until activeQ has a pod (or, with SchedulerPopFromBackoffQ,
  // backoffQ holds a rejected pod, taken when activeQ is empty) or the
  // queue is closed; null once closed. Counts the attempt and starts the
  // pod's cycle (see Done).
  QueuedPodInfoPtr Pop();
  // Whether Pop would return at once.
  bool CanPop() const;
  // The pod's scheduling cycle ended (bound, or given up): stop recording
  // events for it. Idempotent; AddUnschedulableIfNotPresent calls it itself.
  void Done(const std::string& uid);
  // Puts a pod whose cycle failed back: the events seen during its cycle
  // decide, through the hints of the plugins that rejected it, between the
  // pool and activeQ/backoffQ; a pod with no rejector recorded (an internal
  // error) is retried after backoff. Errors if the pod is queued already.
  // `pod_scheduling_cycle` only mattered to kube's hints-off path (its
  // moveRequestCycle); it is kept so the call reads as kube's.
  util::Result<void> AddUnschedulableIfNotPresent(QueuedPodInfoPtr pod,
                                                  int64_t pod_scheduling_cycle);
  // Incremented by each Pop.
  int64_t SchedulingCycle() const;

  // A cluster event: each pooled pod whose rejectors registered a matching
  // event and whose hint says Queue moves to backoffQ (still backing off)
  // or activeQ. The event is also recorded for the pods in flight, which is
  // why the objects are owned here; the other overload copies them only
  // when some pod is in flight.
  void MoveAllToActiveOrBackoffQueue(const framework::ClusterEvent& event,
                                     const OwnedEventObjects& objs);
  void MoveAllToActiveOrBackoffQueue(const framework::ClusterEvent& event,
                                     const framework::EventObjects& objs);
  // As above, considering only pooled pods for which `pre_check` is true
  // (kube's PreEnqueueCheck): a pod rejected in its binding cycle must not
  // be moved by the forgetting of its own assumed copy.
  void MoveAllToActiveOrBackoffQueue(
      const framework::ClusterEvent& event, const framework::EventObjects& objs,
      const std::function<bool(const api::Pod&)>& pre_check);
  // kube's queue-side handlers for bound pods: only pooled pods with a
  // required affinity term matching the pod, or rejected by
  // PodTopologySpread in the pod's namespace, are considered (a scale-down
  // update considers all). Note: with queueing hints on, kube v1.32's event
  // handlers call MoveAllToActiveOrBackoffQueue instead, so that custom
  // plugins interested in pod events are not bypassed.
  void AssignedPodAdded(const api::Pod& pod);
  void AssignedPodUpdated(const api::Pod& old_pod, const api::Pod& new_pod,
                          uint32_t action);

  // Moves the pods whose backoff expired to activeQ.
  void FlushBackoffQCompleted();
  // Moves the pods pooled longer than pod_max_in_unschedulable (since their
  // last failure) as an UnschedulableTimeout wildcard event would.
  void FlushUnschedulablePodsLeftover();

  // Wakes every Pop, which returns null from now on.
  void Close();

  Counts PendingCounts() const;
  // What scheduler_unschedulable_pods{plugin,profile} reports: for each
  // profile and plugin, how many queued pods (in any queue, not in flight)
  // that plugin rejected or gated in their last attempt. Counted when
  // asked, so the figure cannot drift as pods come, go and are retried.
  using ReasonKey = std::pair<std::string, std::string>;  // profile, plugin
  std::map<ReasonKey, int64_t> UnschedulableReasons() const;
  // Where a pod is ("active", "backoff", "unschedulable", "gated", or ""),
  // with its queue entry; for tests and debugging.
  std::pair<std::string, QueuedPodInfoPtr> Find(const api::Pod& pod) const;
  size_t InFlightPodCount() const;
  // Entries (pods and events) of the in-flight record; for tests.
  size_t InFlightEntryCount() const;

  // ---- framework::PodNominator ----
  void AddNominatedPod(const framework::PodInfoPtr& pod,
                       const std::string& node) override;
  void DeleteNominatedPodIfExists(const api::Pod& pod) override;
  void UpdateNominatedPod(const api::Pod& old_pod,
                          const framework::PodInfoPtr& new_pod) override;
  size_t NumNominatedPods() const override { return nominator_.size(); }
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(
      const std::string& node) const override {
    return nominator_.PodsForNode(node);
  }

 private:
  enum class Strategy { kSkip, kAfterBackoff, kImmediately };
  enum class Where { kActive, kBackoff, kUnschedulable };
  // Whether a pod moved to `where` is one Pop may take now.
  bool Poppable(Where where) const {
    return where == Where::kActive ||
           (pop_from_backoff_q_ && where == Where::kBackoff);
  }

  QueuedPodInfoPtr NewQueuedPodInfo(framework::PodInfoPtr pod) const;
  // Runs PreEnqueue, updating `gated`, `gating_plugin` and the rejectors;
  // true if it passes.
  bool RunPreEnqueue(framework::QueuedPodInfo& info) const;
  // `from_backoff`: the pod leaves backoffQ, where (with
  // SchedulerPopFromBackoffQ) PreEnqueue already passed it.
  bool MoveToActiveQ(const QueuedPodInfoPtr& info, std::string_view event,
                     bool from_backoff = false);
  // False when PreEnqueue gated the pod (SchedulerPopFromBackoffQ), which
  // then waits in the pool.
  bool MoveToBackoffQ(const QueuedPodInfoPtr& info, std::string_view event);
  bool PopFromBackoffQ() const { return pop_from_backoff_q_; }
  void MoveToPool(const QueuedPodInfoPtr& info, std::string_view event);
  Where Requeue(const QueuedPodInfoPtr& info, Strategy strategy,
                std::string_view event);
  bool IsEventOfInterest(const framework::ClusterEvent& event) const;
  Strategy IsPodWorthRequeuing(const framework::QueuedPodInfo& info,
                               const framework::ClusterEvent& event,
                               const framework::EventObjects& objs) const;
  Strategy HintForInFlightPod(const framework::QueuedPodInfo& info) const;
  // Moves the pooled pods the event may help: those in `pods`, or the whole
  // pool when null. `owned`, when null, is copied from `objs` if some pod
  // is in flight. With `pre_check`, only the pods it accepts are considered.
  void MovePods(
      const std::vector<QueuedPodInfoPtr>* pods,
      const framework::ClusterEvent& event, const framework::EventObjects& objs,
      const OwnedEventObjects* owned, std::string_view label,
      const std::function<bool(const api::Pod&)>* pre_check = nullptr);
  std::vector<QueuedPodInfoPtr> PodsWithCrossTopologyTerm(
      const api::Pod& pod) const;
  void Observe(std::string_view queue, std::string_view event) const {
    if (options_.on_incoming_pod) options_.on_incoming_pod(queue, event);
  }

  const Options options_;
  const PreEnqueueFn pre_enqueue_;
  // profile -> plugin -> its registered events.
  std::map<std::string,
           std::map<std::string, std::vector<framework::ClusterEventWithHint>,
                    std::less<>>,
           std::less<>>
      hints_;
  // Every registered event of every profile (IsEventOfInterest).
  std::vector<framework::ClusterEvent> registered_events_;
  // plugin -> the events it registered in any profile: a pod a PreEnqueue
  // plugin gates is considered only for these (GatingPluginEvents).
  std::map<std::string, std::vector<framework::ClusterEvent>, std::less<>>
      plugin_events_;
  const bool pop_from_backoff_q_;

  mutable std::mutex mu_;
  std::condition_variable cond_;
  bool closed_ = false;
  ActiveQueue active_;
  BackoffQueue backoff_;
  UnschedulablePods unschedulable_;
  Nominator nominator_;
};

}  // namespace ksched::queue

// Scheduler: the scheduling loop of kube-scheduler (schedule_one.go,
// eventhandlers.go): pods come in through the event handlers, one
// scheduling cycle at a time picks a node and assumes the pod there, and
// binding cycles run asynchronously so the loop never waits on the API.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "pkg/cache/cache.h"
#include "pkg/config/feature_gates.h"
#include "pkg/config/types.h"
#include "pkg/dra/dra_manager.h"
#include "pkg/explain/explanation.h"
#include "pkg/framework/binder.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/framework/cluster_writer.h"
#include "pkg/framework/cycle_recorder.h"
#include "pkg/framework/metrics_recorder.h"
#include "pkg/framework/parallelizer.h"
#include "pkg/framework/pod_group_members.h"
#include "pkg/framework/registry.h"
#include "pkg/framework/waiting_pods.h"
#include "pkg/queue/scheduling_queue.h"
#include "pkg/scheduler/algorithm.h"
#include "pkg/scheduler/binding_pool.h"
#include "pkg/scheduler/profile.h"
#include "pkg/util/clock.h"
#include "pkg/util/random.h"
#include "pkg/util/result.h"

namespace ksched::scheduler {

// The current version of a pod as the cluster knows it (the informer's
// store), or null when it is gone.
using PodLookup = std::function<std::shared_ptr<const api::Pod>(
    const std::string& ns, const std::string& name)>;

// What a scheduling attempt ended in, for logs, metrics and the simulator.
struct AttemptOutcome {
  enum class Result { kScheduled, kUnschedulable, kError };
  Result result = Result::kError;
  std::string pod;  // namespace/name
  std::string node;
  std::string message;
  std::string nominated_node;
  std::chrono::nanoseconds duration{0};
  std::string profile;
  // Attempts so far, this one included, and the time since the pod first
  // entered the queue (for the pod-level latency metrics).
  int attempts = 0;
  std::chrono::nanoseconds since_first_queued{0};
  // Scheduled after the periodic flush took it out of the unschedulable
  // pods (scheduler_pod_scheduled_after_flush_total).
  bool after_flush = false;
};

class Scheduler {
 public:
  struct Dependencies {
    const util::Clock* clock = nullptr;  // required
    util::Random* random = nullptr;      // required
    framework::Binder* binder = nullptr;
    framework::ClusterWriter* writer = nullptr;
    const framework::ClusterObjects* objects = nullptr;
    // DRA's classes, slices and claims (DynamicResources); its changes
    // become cluster events for the queue. None when null.
    dra::DraManager* dra = nullptr;
    PodLookup pod_lookup;
    // Threads running binding cycles; 0 binds inline (deterministic).
    int binding_workers = 16;
    // How long an assumed pod whose binding finished may wait for the
    // watch to confirm it before the cache drops it.
    std::chrono::nanoseconds assumed_pod_ttl = std::chrono::minutes(15);
    // Extension point and sampled plugin durations; none when null.
    framework::MetricsRecorder* metrics = nullptr;
    // Feature gates (batching in batch.h, asynchronous preemption, resource
    // accounting): kube-scheduler v1.35's defaults unless set.
    config::FeatureGates features;
    // Chooses the scheduling cycles to record for `explain`: called as a
    // cycle starts; a recorder it returns (null: none) records that cycle
    // and its binding cycle, and must outlive them (until on_attempt
    // reports the attempt).
    std::function<framework::CycleRecorder*(const api::Pod&)> record_cycle;
    // --record-failed-decisions: a pod that fits nowhere has its cycle run
    // again, recorded, and its FailedScheduling event says which plugins
    // rejected the most nodes and which node came closest.
    bool record_failed_decisions = false;
    // Keep node-local Filter and Score answers across cycles
    // (node_result_memo.h). Decisions are the same either way; off is for
    // the tests that show it.
    bool memoize_node_results = true;
    // Reject the nodes a Filter plugin's candidates leave out without
    // filtering them (interface.h, FilterCandidatesPlugin). Decisions and
    // messages are the same either way; off is for the tests that show it.
    bool use_filter_candidates = true;
    // Called once per finished attempt (scheduling or binding failure,
    // successful bind), from the thread that finished it.
    std::function<void(const AttemptOutcome&)> on_attempt;
    // Every move of a pod into a queue (SchedulingQueue::Options), under
    // the queue's lock: it must be quick and not call back.
    std::function<void(std::string_view queue, std::string_view event)>
        on_incoming_pod;
  };

  static util::Result<std::unique_ptr<Scheduler>> Create(
      const config::KubeSchedulerConfiguration& cfg,
      const framework::Registry& registry, Dependencies deps);
  ~Scheduler();

  // ---- cluster events (informers, the simulator) ----
  void OnPodAdd(std::shared_ptr<const api::Pod> pod);
  void OnPodUpdate(std::shared_ptr<const api::Pod> old_pod,
                   std::shared_ptr<const api::Pod> new_pod);
  void OnPodDelete(std::shared_ptr<const api::Pod> pod);
  void OnNodeAdd(std::shared_ptr<const api::Node> node);
  void OnNodeUpdate(std::shared_ptr<const api::Node> old_node,
                    std::shared_ptr<const api::Node> new_node);
  void OnNodeDelete(std::shared_ptr<const api::Node> node);
  // A change to another kind of object plugins read (volumes, storage
  // classes, CSI objects): pods it may help, as the plugins' queueing hints
  // judge from `objects`, are moved out of the pool.
  void OnClusterEvent(const framework::ClusterEvent& event,
                      const queue::OwnedEventObjects& objects = {});

  // Pops the next pod (blocking) and runs its scheduling cycle; the binding
  // cycle continues on the binding pool. False once the queue is closed.
  bool ScheduleOne();
  // Housekeeping at the clock's now: backoff and unschedulable flushes,
  // assumed-pod expiry, Permit timeouts. Call about once a second.
  void Tick();
  // Stops handing out pods; in-flight bindings finish.
  void Stop();
  // Blocks until every binding cycle started so far has finished; a pod
  // still waiting at Permit has none yet.
  void WaitForBindings();
  // WaitForBindings for at most `bound`; then the binding cycles not
  // started yet are dropped (those under way end with their request's
  // deadline). False when some were dropped or were still running.
  bool WaitForBindings(std::chrono::steady_clock::duration bound);
  // Binding cycles queued or running.
  size_t BindingsInFlight() const;

  // Whether `pod` is ours: its schedulerName is one of the profiles.
  bool IsResponsibleFor(const api::Pod& pod) const;

  // A recorded scheduling cycle for a pending pod of ours against the live
  // cache, between two cycles of the loop; nothing is reserved, bound or
  // written, and PostFilter (preemption, which evicts) is not run. Errors:
  // the pod is unknown, bound, or not ours. Any thread.
  struct ExplainedCycle {
    std::shared_ptr<framework::CycleRecorder> record;
    explain::Explanation explanation;
  };
  util::Result<ExplainedCycle> Explain(const std::string& ns,
                                       const std::string& name, int top);

  // Every Filter plugin's verdict on `node` alone for a pending pod of
  // ours, after PreFilter over the whole cache, between two cycles of the
  // loop; nothing is reserved or written. A PreFilter that rejects the pod
  // (or leaves the node out of the nodes it allows) comes back as the one
  // verdict of that plugin. For "could a node like this one take it".
  util::Result<framework::CycleRecorder::Verdicts> VerdictsOn(
      const std::string& ns, const std::string& name, const std::string& node);

  // Whether a profile runs Coscheduling: the PodGroups must then be
  // watched.
  bool SchedulesGangs() const;
  // The PodGroup members among the pods the event handlers were given.
  const framework::PodGroupMembers& pod_group_members() const {
    return pod_group_members_;
  }
  // "ns/group" -> its members held at Permit now.
  std::map<std::string, int32_t> WaitingByPodGroup();

  // Frees the snapshot of the cache that cycles read, for a caller done
  // scheduling that reads the cache itself (simulate's report). A later
  // cycle would build it anew from the cache.
  void ReleaseSnapshot();
  cache::Cache& cache() { return *cache_; }
  queue::SchedulingQueue& queue() { return *queue_; }
  // Nodes that passed filtering on an answer kept from an earlier cycle.
  int64_t memoized_filter_passes() const {
    return algorithm_.memoized_filter_passes();
  }
  // Nodes rejected on a Filter plugin's candidates without being filtered.
  int64_t filter_candidate_rejections() const {
    return algorithm_.candidate_rejections();
  }
  const ProfileMap& profiles() const { return profiles_; }
  framework::WaitingPods& waiting_pods() { return waiting_pods_; }
  framework::PodsInPreBind& pods_in_prebind() { return pods_in_prebind_; }

 private:
  class NominatorProxy;

  Scheduler(Dependencies deps, int32_t parallelism,
            int32_t percentage_of_nodes_to_score);

  framework::Framework* FrameworkFor(const api::Pod& pod) const;
  void RunSchedulingCycle(const queue::QueuedPodInfoPtr& queued,
                          framework::Framework& fwk);
  // Where the binding cycle stands with NominatedNodeNameForExpectation's
  // PreBindPreFlights: off with the gate (kube then treats PreBind as
  // having work), still to run here, or run already (before a Permit
  // wait) with or without PreBind work found.
  enum class PreBindPreflight { kGateOff, kToRun, kWork, kNoWork };
  void RunBindingCycle(std::shared_ptr<framework::CycleState> state,
                       framework::Framework& fwk,
                       queue::QueuedPodInfoPtr assumed,
                       framework::PodInfoPtr assumed_info, std::string node,
                       util::Clock::TimePoint start,
                       PreBindPreflight preflight);
  // Writes status.nominatedNodeName = `node` for a pod about to wait at
  // Permit or in PreBind (NominatedNodeNameForExpectation), unless it says
  // so already.
  void WriteExpectedNode(const api::Pod& assumed, const std::string& node);
  // Unreserves and forgets the assumed pod, then handles the failure. With
  // `as_fit_error` (Permit waits, PreBind) a rejection is reported as a fit
  // error on `node`, as kube's bindingCycle wraps it; otherwise (Bind) as
  // the status says.
  void HandleBindingFailure(framework::CycleState& state,
                            framework::Framework& fwk,
                            const queue::QueuedPodInfoPtr& queued,
                            const framework::PodInfoPtr& assumed_info,
                            const std::string& node,
                            const framework::Status& status, bool as_fit_error,
                            util::Clock::TimePoint start);
  // Records the failure on the pod (condition, event, nomination) and puts
  // it back in the queue unless it is gone or bound meanwhile.
  void HandleSchedulingFailure(framework::Framework& fwk,
                               const queue::QueuedPodInfoPtr& queued,
                               const framework::Status& status,
                               const std::string& message,
                               const framework::Diagnosis* diagnosis,
                               std::optional<std::string> nomination,
                               util::Clock::TimePoint start,
                               const std::string& event_note = "");
  void Report(AttemptOutcome outcome);
  // An unscheduled pod lost its nomination (deleted, or nominated elsewhere
  // or nowhere): the lower- or equal-priority pods that made room for it
  // there are moved as if an assigned pod had left that node.
  void ReleaseNomination(const api::Pod& old_pod, const std::string& new_node);
  // Moves the pods plugins asked for (PodsToActivate) to the active queue.
  void ActivatePods(framework::CycleState& state);
  // One recorded cycle of `pod` on snapshot_ with explain_algorithm_;
  // the caller holds cycle_mu_ and has brought snapshot_ up to date.
  ExplainedCycle RecordedCycle(framework::Framework& fwk,
                               const framework::PodInfo& pod, int top);

  Dependencies deps_;
  framework::Parallelizer parallelizer_;
  framework::WaitingPods waiting_pods_;
  framework::PodsInPreBind pods_in_prebind_;
  framework::PodGroupMembers pod_group_members_;
  std::unique_ptr<NominatorProxy> nominator_;
  ProfileMap profiles_;
  std::unique_ptr<cache::Cache> cache_;
  std::unique_ptr<queue::SchedulingQueue> queue_;
  framework::Snapshot snapshot_;
  SchedulingAlgorithm algorithm_;
  // Held by each scheduling cycle and by Explain: explaining uses the
  // snapshot and the frameworks between cycles, never during one.
  std::mutex cycle_mu_;
  // Explaining draws on its own randomness and start index, so the loop's
  // decisions are the same with or without explain requests.
  util::DefaultRandom explain_random_;
  SchedulingAlgorithm explain_algorithm_;
  std::unique_ptr<BindingPool> binding_pool_;
};

}  // namespace ksched::scheduler

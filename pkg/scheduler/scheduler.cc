#include "pkg/scheduler/scheduler.h"

#include <algorithm>
#include <set>

#include "pkg/api/pod.h"
#include "pkg/dra/dra_manager.h"
#include "pkg/explain/event_note.h"
#include "pkg/framework/pods_to_activate.h"
#include "pkg/plugins/names.h"
#include "pkg/scheduler/event_classify.h"

namespace ksched::scheduler {

using framework::Code;
using framework::Status;

namespace {

// Event notes are capped as kube-scheduler caps them.
constexpr size_t kNoteLengthLimit = 1024;

std::string TruncateNote(const std::string& message) {
  if (message.size() <= kNoteLengthLimit) return message;
  const std::string suffix = " ...";
  return message.substr(0, kNoteLengthLimit - suffix.size()) + suffix;
}

std::string Key(const api::Pod& pod) {
  return pod.metadata.ns + "/" + pod.metadata.name;
}

bool Assigned(const api::Pod& pod) { return !pod.spec.node_name.empty(); }

bool Terminal(const api::Pod& pod) {
  return pod.status.phase == api::kPodPhaseSucceeded ||
         pod.status.phase == api::kPodPhaseFailed;
}

const api::PodCondition* FindCondition(const api::Pod& pod,
                                       std::string_view type) {
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

// The PodScheduled=False condition a failed attempt writes, as kube's
// handleSchedulingFailure builds it and podutil.UpdatePodCondition stamps
// it: the pod's generation when PodObservedGenerationTracking is on or the
// old condition carried one; a new transition time when the condition is
// new or its status changes, the old one otherwise.
api::PodCondition FailedSchedulingCondition(const api::Pod& pod,
                                            const api::PodCondition* old,
                                            const std::string& reason,
                                            const std::string& message,
                                            bool track_generation,
                                            util::Clock::WallTime now) {
  api::PodCondition c;
  c.type = std::string(api::kPodScheduled);
  c.status = "False";
  c.reason = reason;
  c.message = message;
  if (track_generation || (old != nullptr && old->observed_generation != 0)) {
    c.observed_generation = pod.metadata.generation;
  }
  if (old != nullptr && old->status == c.status) {
    c.last_transition_time = old->last_transition_time;
  } else {
    c.last_transition_time =
        api::Time{std::chrono::time_point_cast<std::chrono::microseconds>(now)};
  }
  return c;
}

// podutil.UpdatePodCondition's equality: an unset time equals a zero one.
bool SameCondition(const api::PodCondition& a, const api::PodCondition& b) {
  auto same_time = [](const std::optional<api::Time>& x,
                      const std::optional<api::Time>& y) {
    return x.value_or(api::Time{}) == y.value_or(api::Time{});
  };
  return a.status == b.status && a.reason == b.reason &&
         a.message == b.message &&
         same_time(a.last_probe_time, b.last_probe_time) &&
         same_time(a.last_transition_time, b.last_transition_time) &&
         a.observed_generation == b.observed_generation;
}

}  // namespace

// Forwards to the queue once it exists: the frameworks are built before the
// queue (the queue needs their QueueSort and events), yet they must reach
// the queue's nominator.
class Scheduler::NominatorProxy final : public framework::PodNominator {
 public:
  void AddNominatedPod(const framework::PodInfoPtr& pod,
                       const std::string& node) override {
    target->AddNominatedPod(pod, node);
  }
  void DeleteNominatedPodIfExists(const api::Pod& pod) override {
    target->DeleteNominatedPodIfExists(pod);
  }
  void UpdateNominatedPod(const api::Pod& old_pod,
                          const framework::PodInfoPtr& new_pod) override {
    target->UpdateNominatedPod(old_pod, new_pod);
  }
  size_t NumNominatedPods() const override {
    return target->NumNominatedPods();
  }
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(
      const std::string& node) const override {
    return target->NominatedPodsForNode(node);
  }
  framework::PodNominator* target = nullptr;
};

Scheduler::Scheduler(Dependencies deps, int32_t parallelism,
                     int32_t percentage_of_nodes_to_score)
    : deps_(std::move(deps)),
      parallelizer_(parallelism),
      nominator_(std::make_unique<NominatorProxy>()),
      algorithm_(percentage_of_nodes_to_score, *deps_.random),
      explain_algorithm_(percentage_of_nodes_to_score, explain_random_) {}

Scheduler::~Scheduler() {
  if (deps_.dra != nullptr) deps_.dra->SetListener(nullptr);
  Stop();
  // Nothing will Allow a pod waiting at Permit or expire its wait any more
  // (Tick is no longer called): reject them, or the drain below waits
  // forever. Their binding cycles fail the usual way, so the Reserve plugins
  // release what they hold.
  waiting_pods_.ForEach([](framework::WaitingPod& waiting) {
    waiting.Reject("", "the scheduler is shutting down");
  });
  pods_in_prebind_.CancelAll("the scheduler is shutting down");
  if (binding_pool_) binding_pool_->Drain();
}

util::Result<std::unique_ptr<Scheduler>> Scheduler::Create(
    const config::KubeSchedulerConfiguration& cfg,
    const framework::Registry& registry, Dependencies deps) {
  if (deps.clock == nullptr || deps.random == nullptr) {
    return util::Error("scheduler: a clock and a random source are required");
  }
  std::unique_ptr<Scheduler> s(new Scheduler(std::move(deps), cfg.parallelism,
                                             cfg.percentage_of_nodes_to_score));
  s->algorithm_.set_memoize_node_results(s->deps_.memoize_node_results);
  s->algorithm_.set_use_filter_candidates(s->deps_.use_filter_candidates);
  if (s->deps_.features.Enabled(config::Feature::kOpportunisticBatching)) {
    s->algorithm_.EnableOpportunisticBatching(*s->deps_.clock,
                                              s->deps_.metrics);
  }
  framework::Framework::Options options;
  options.metrics = s->deps_.metrics;
  options.parallelizer = &s->parallelizer_;
  options.clock = s->deps_.clock;
  options.binder = s->deps_.binder;
  options.objects = s->deps_.objects;
  options.writer = s->deps_.writer;
  options.nominator = s->nominator_.get();
  options.waiting_pods = &s->waiting_pods_;
  options.pods_in_prebind = &s->pods_in_prebind_;
  options.pod_group_members = &s->pod_group_members_;
  options.features = s->deps_.features;
  options.dra = s->deps_.dra;
  // The queue and the binding pool come after the frameworks; these reach
  // them through `self` once they exist (plugins call them only from
  // cycles, which start later).
  Scheduler* self = s.get();
  options.activate =
      [self](const std::vector<std::shared_ptr<const api::Pod>>& pods) {
        self->queue_->Activate(pods);
      };
  options.get_pod = s->deps_.pod_lookup;
  // Asynchronous preemption runs on the binding pool: off the loop, drained
  // with the bindings, and without workers (the simulator) at the next
  // Tick, in one deterministic order.
  options.run_in_background = [self](std::function<void()> task) {
    self->binding_pool_->Post(std::move(task));
  };
  auto profiles = BuildProfiles(cfg, registry, options);
  if (!profiles.ok()) return profiles.error();
  if (profiles->empty()) return util::Error("no profiles configured");
  s->profiles_ = std::move(*profiles);

  s->cache_ =
      std::make_unique<cache::Cache>(*s->deps_.clock, s->deps_.assumed_pod_ttl);
  queue::SchedulingQueue::Options qopts;
  qopts.clock = s->deps_.clock;
  qopts.pod_initial_backoff =
      std::chrono::seconds(cfg.pod_initial_backoff_seconds);
  qopts.pod_max_backoff = std::chrono::seconds(cfg.pod_max_backoff_seconds);
  qopts.on_incoming_pod = s->deps_.on_incoming_pod;
  qopts.features = s->deps_.features;
  if (s->deps_.pod_lookup) {
    // kube's nominator asks its pod lister: a pod deleted or bound meanwhile
    // (say, while its failed cycle was being handled) is not nominated, or
    // it would hold room on the node with nothing left to remove it.
    qopts.still_pending = [lookup = s->deps_.pod_lookup](const api::Pod& pod) {
      std::shared_ptr<const api::Pod> current =
          lookup(pod.metadata.ns, pod.metadata.name);
      return current != nullptr && current->metadata.uid == pod.metadata.uid &&
             !Assigned(*current);
    };
  }
  framework::Framework* first = s->profiles_.begin()->second.get();
  queue::QueueingHintMap hints;
  for (const auto& [name, fwk] : s->profiles_) {
    hints[name] = fwk->enqueue_extensions();
  }
  s->queue_ = std::make_unique<queue::SchedulingQueue>(
      qopts,
      [first](const framework::QueuedPodInfo& a,
              const framework::QueuedPodInfo& b) {
        return first->QueueSortLess(a, b);
      },
      [self](const api::Pod& pod) {
        framework::Framework* fwk = self->FrameworkFor(pod);
        return fwk ? fwk->RunPreEnqueuePlugins(pod) : Status();
      },
      std::move(hints));
  s->nominator_->target = s->queue_.get();
  // A few waiting binding cycles per worker keep every worker busy; more
  // would only hold cycle states while the API server catches up.
  const int workers = s->deps_.binding_workers;
  s->binding_pool_ = std::make_unique<BindingPool>(
      workers, static_cast<size_t>(std::max(64, 4 * workers)));
  if (s->deps_.dra != nullptr) {
    // Claims come through the assume cache, so what PreBind writes and
    // Unreserve restores reaches the queue too, as in kube.
    s->deps_.dra->SetListener([self](const framework::ClusterEvent& event,
                                     const framework::EventObjects& objs) {
      self->OnClusterEvent(event, queue::OwnedEventObjects::CopyOf(objs));
    });
  }
  return s;
}

framework::Framework* Scheduler::FrameworkFor(const api::Pod& pod) const {
  auto it = profiles_.find(pod.spec.scheduler_name);
  return it == profiles_.end() ? nullptr : it->second.get();
}

bool Scheduler::SchedulesGangs() const {
  for (const auto& [name, fwk] : profiles_) {
    if (fwk->HasPlugin(plugins::names::kCoscheduling)) return true;
  }
  return false;
}

std::map<std::string, int32_t> Scheduler::WaitingByPodGroup() {
  std::map<std::string, int32_t> out;
  waiting_pods_.ForEach([&out](framework::WaitingPod& waiting) {
    if (waiting.Done()) return;
    const std::string_view group = framework::PodGroupName(waiting.pod());
    if (!group.empty()) {
      ++out[waiting.pod().metadata.ns + "/" + std::string(group)];
    }
  });
  return out;
}

void Scheduler::ActivatePods(framework::CycleState& state) {
  auto* to_activate =
      state.Read<framework::PodsToActivate>(framework::kPodsToActivateKey);
  if (to_activate == nullptr) return;
  std::map<std::string, std::shared_ptr<const api::Pod>> pods =
      to_activate->Take();
  if (pods.empty()) return;
  std::vector<std::shared_ptr<const api::Pod>> list;
  list.reserve(pods.size());
  for (auto& [key, pod] : pods) list.push_back(std::move(pod));
  queue_->Activate(list);
}

bool Scheduler::IsResponsibleFor(const api::Pod& pod) const {
  return profiles_.count(pod.spec.scheduler_name) != 0;
}

void Scheduler::Report(AttemptOutcome outcome) {
  if (deps_.on_attempt) deps_.on_attempt(outcome);
}

// ---------------------------------------------------------------- cycles

bool Scheduler::ScheduleOne() {
  queue::QueuedPodInfoPtr queued = queue_->Pop();
  if (!queued) return false;
  const api::Pod& pod = queued->pod();
  framework::Framework* fwk = FrameworkFor(pod);
  // A pod being deleted, or already assumed (its binding is in flight), is
  // not scheduled again (skipPodSchedule).
  if (fwk == nullptr) {
    queue_->Done(pod.metadata.uid);
    return true;
  }
  if (pod.metadata.deletion_timestamp.has_value()) {
    if (deps_.writer != nullptr) {
      deps_.writer->RecordEvent(pod, "Warning", "FailedScheduling",
                                "Scheduling",
                                "skip schedule deleting pod: " + Key(pod));
    }
    queue_->Done(pod.metadata.uid);
    return true;
  }
  if (cache_->IsAssumedPod(pod)) {
    queue_->Done(pod.metadata.uid);
    return true;
  }
  std::lock_guard<std::mutex> cycle(cycle_mu_);
  RunSchedulingCycle(queued, *fwk);
  return true;
}

Scheduler::ExplainedCycle Scheduler::RecordedCycle(
    framework::Framework& fwk, const framework::PodInfo& pod, int top) {
  ExplainedCycle out;
  out.record = std::make_shared<framework::CycleRecorder>();
  framework::CycleState state;
  state.set_recorder(out.record.get());
  fwk.SetSnapshot(&snapshot_);
  ScheduleResult result =
      explain_algorithm_.Schedule(fwk, state, pod, snapshot_);
  explain::Subject subject;
  subject.ns = pod.ns();
  subject.name = pod.name();
  subject.profile = fwk.profile_name();
  subject.total_nodes = static_cast<int>(snapshot_.nodes().size());
  subject.nominated_node = pod.pod().status.nominated_node_name;
  switch (result.kind) {
    case ScheduleResult::Kind::kScheduled:
      subject.node = result.suggested_host;
      subject.nominated_node.clear();
      break;
    case ScheduleResult::Kind::kNoFit:
      subject.message = result.FailureMessage();
      break;
    case ScheduleResult::Kind::kError:
      subject.message = result.error_message;
      break;
  }
  out.explanation = explain::Explain(*out.record, std::move(subject), top);
  return out;
}

util::Result<Scheduler::ExplainedCycle> Scheduler::Explain(
    const std::string& ns, const std::string& name, int top) {
  std::shared_ptr<const api::Pod> pod =
      deps_.pod_lookup ? deps_.pod_lookup(ns, name) : nullptr;
  if (pod == nullptr) {
    return util::Error("pods \"" + name + "\" not found in namespace " + ns);
  }
  if (Assigned(*pod)) {
    return util::Error("pod " + Key(*pod) + " is bound to node " +
                       pod->spec.node_name +
                       "; `ksched explain` answers where it would go now");
  }
  framework::Framework* fwk = FrameworkFor(*pod);
  if (fwk == nullptr) {
    return util::Error("pod " + Key(*pod) + " has schedulerName " +
                       pod->spec.scheduler_name +
                       ", which is not a profile of this scheduler");
  }
  framework::PodInfoPtr info = framework::PodInfo::Create(
      pod, framework::ResourceFeaturesOf(deps_.features));
  std::lock_guard<std::mutex> cycle(cycle_mu_);
  if (auto r = cache_->UpdateSnapshot(&snapshot_); !r.ok()) return r.error();
  return RecordedCycle(*fwk, *info, top);
}

util::Result<framework::CycleRecorder::Verdicts> Scheduler::VerdictsOn(
    const std::string& ns, const std::string& name, const std::string& node) {
  std::shared_ptr<const api::Pod> pod =
      deps_.pod_lookup ? deps_.pod_lookup(ns, name) : nullptr;
  if (pod == nullptr) {
    return util::Error("pods \"" + name + "\" not found in namespace " + ns);
  }
  framework::Framework* fwk = FrameworkFor(*pod);
  if (fwk == nullptr || Assigned(*pod)) {
    return util::Error("pod " + Key(*pod) + " is not a pending pod of ours");
  }
  framework::PodInfoPtr info = framework::PodInfo::Create(
      pod, framework::ResourceFeaturesOf(deps_.features));
  std::lock_guard<std::mutex> cycle(cycle_mu_);
  if (auto r = cache_->UpdateSnapshot(&snapshot_); !r.ok()) return r.error();
  framework::NodeInfoPtr target = snapshot_.GetPtr(node);
  if (target == nullptr) return util::Error("node " + node + " not found");
  fwk->SetSnapshot(&snapshot_);
  framework::CycleRecorder record;
  framework::CycleState state;
  state.set_recorder(&record);
  state.Write(framework::kPodsToActivateKey,
              std::make_shared<framework::PodsToActivate>());
  framework::PreFilterResult allowed;
  std::set<std::string> narrowing;
  Status s = fwk->RunPreFilterPlugins(state, *info, snapshot_.nodes(), &allowed,
                                      &narrowing);
  if (!s.IsSuccess()) {
    return framework::CycleRecorder::Verdicts{
        {s.plugin(), s.reasons(),
         s.code() == framework::Code::kUnschedulableAndUnresolvable, ""}};
  }
  if (!allowed.AllNodes() && !allowed.node_names->count(node)) {
    std::string plugins;
    for (const std::string& p : narrowing) {
      plugins += (plugins.empty() ? "" : " ") + p;
    }
    return framework::CycleRecorder::Verdicts{
        {plugins,
         {"node(s) didn't satisfy plugin(s) [" + plugins + "]"},
         true,
         ""}};
  }
  record.BeginFilter({target});
  fwk->RunFilterPluginsWithNominatedPods(state, *info, *target);
  auto results = record.FilterResults();
  auto it = results.find(node);
  if (it == results.end()) return framework::CycleRecorder::Verdicts{};
  return std::move(it->second);
}

void Scheduler::RunSchedulingCycle(const queue::QueuedPodInfoPtr& queued,
                                   framework::Framework& fwk) {
  const util::Clock::TimePoint start = deps_.clock->Now();
  const framework::PodInfo& pod_info = *queued->pod_info;
  const api::Pod& pod = pod_info.pod();
  auto state = std::make_shared<framework::CycleState>();
  // kube-scheduler times each plugin call in 10 % of its cycles.
  constexpr uint64_t kPluginMetricsSamplePercent = 10;
  state->set_record_plugin_metrics(deps_.metrics != nullptr &&
                                   deps_.random->Intn(100) <
                                       kPluginMetricsSamplePercent);
  if (deps_.record_cycle) state->set_recorder(deps_.record_cycle(pod));
  state->Write(framework::kPodsToActivateKey,
               std::make_shared<framework::PodsToActivate>());

  if (auto r = cache_->UpdateSnapshot(&snapshot_); !r.ok()) {
    HandleSchedulingFailure(fwk, queued, Status::Error(r.error().message()),
                            r.error().message(), nullptr, "", start);
    return;
  }
  fwk.SetSnapshot(&snapshot_);
  ScheduleResult result = algorithm_.Schedule(fwk, *state, pod_info, snapshot_);

  if (result.kind == ScheduleResult::Kind::kError) {
    bool no_nodes = result.error_message == framework::kNoNodesAvailableMsg;
    Status s = no_nodes ? Status::Unresolvable(result.error_message)
                        : Status::Error(result.error_message);
    HandleSchedulingFailure(fwk, queued, s, result.error_message, nullptr, "",
                            start);
    return;
  }
  if (result.kind == ScheduleResult::Kind::kNoFit) {
    // Preemption may make room for a later attempt.
    // Without PostFilter plugins there is nothing to nominate: v1.35 clears
    // a nomination left from an earlier cycle.
    std::optional<std::string> nomination = std::string();
    if (fwk.HasPostFilterPlugins()) {
      nomination.reset();
      framework::PostFilterResult post;
      Status ps = fwk.RunPostFilterPlugins(
          *state, pod_info, result.diagnosis.node_to_status, &post);
      result.diagnosis.post_filter_msg = ps.Message();
      if (!post.nominated_node_name.empty() || post.clear_nomination) {
        nomination = post.nominated_node_name;
      }
    }
    std::string note;
    if (deps_.record_failed_decisions) {
      ExplainedCycle explained = RecordedCycle(fwk, pod_info, 1);
      note = explain::ExplainedEventNote(result.FailureMessage(),
                                         explained.explanation);
    }
    HandleSchedulingFailure(fwk, queued, Status(Code::kUnschedulable),
                            result.FailureMessage(), &result.diagnosis,
                            nomination, start, note);
    return;
  }

  // Assume: the pod counts on the node from now on, so the next cycle sees
  // it even though binding has not happened yet.
  const std::string host = result.suggested_host;
  auto assumed_pod = std::make_shared<api::Pod>(pod);
  assumed_pod->spec.node_name = host;
  framework::PodInfoPtr assumed = pod_info.WithPod(assumed_pod);
  if (auto r = cache_->AssumePod(assumed); !r.ok()) {
    HandleSchedulingFailure(fwk, queued, Status::Error(r.error().message()),
                            r.error().message(), nullptr, "", start);
    return;
  }

  // A rejection at Reserve or Permit is reported as a fit error on the one
  // node that was chosen.
  auto reject = [&](const Status& s) {
    fwk.RunReservePluginsUnreserve(*state, *assumed, host);
    (void)cache_->ForgetPod(*assumed_pod);
    if (s.IsRejected()) {
      framework::Diagnosis d;
      d.node_to_status.Set(host, s);
      // Diagnosis.AddPluginStatus: a Pending plugin is also a pending one,
      // whose events requeue the pod without waiting for its backoff.
      if (!s.plugin().empty()) {
        d.unschedulable_plugins.insert(s.plugin());
        if (s.code() == Code::kPending) d.pending_plugins.insert(s.plugin());
      }
      HandleSchedulingFailure(fwk, queued, Status(s.code()),
                              framework::FitErrorMessage(1, d), &d, "", start);
    } else {
      HandleSchedulingFailure(fwk, queued, s, s.Message(), nullptr, "", start);
    }
  };
  Status s = fwk.RunReservePluginsReserve(*state, *assumed, host);
  if (!s.IsSuccess()) return reject(s);
  std::vector<std::pair<std::string, std::chrono::milliseconds>> waits;
  s = fwk.RunPermitPlugins(*state, *assumed, host, &waits);
  if (!s.IsSuccess() && !s.IsWait()) return reject(s);
  // At the end of a successful scheduling cycle, as kube does.
  ActivatePods(*state);
  const bool expectation =
      deps_.features.Enabled(config::Feature::kNominatedNodeNameForExpectation);
  if (s.IsWait()) {
    // Its binding cycle starts once the wait is over: a worker held by a
    // pod that waits for the rest of its group would be a worker fewer for
    // the rejected pods whose room that group needs.
    auto waiting = std::make_shared<framework::WaitingPod>(assumed, waits,
                                                           deps_.clock->Now());
    waiting_pods_.Add(waiting);
    auto bind_when_done = [this, waiting, state, &fwk, queued, assumed, host,
                           start](PreBindPreflight preflight) {
      waiting->OnDone([=, this, &fwk] {
        binding_pool_->Post([=, this, &fwk] {
          RunBindingCycle(state, fwk, queued, assumed, host, start, preflight);
        });
      });
    };
    if (!expectation) {
      bind_when_done(PreBindPreflight::kGateOff);
      return;
    }
    // The wait may be long: tell the world (the cluster autoscaler) where
    // the pod is headed first, off the loop, as kube's binding goroutine
    // does before it waits; the binding cycle follows this write.
    binding_pool_->Post([this, state, &fwk, queued, assumed, host, start,
                         waiting, bind_when_done = std::move(bind_when_done)] {
      Status pre = fwk.RunPreBindPreFlights(*state, *assumed, host);
      if (pre.code() == Code::kError || pre.IsRejected()) {
        // The binding cycle ends here, as kube's does: nothing waits for
        // this pod any more.
        waiting_pods_.Remove(assumed->pod().metadata.uid);
        waiting->Reject("", pre.Message());
        return HandleBindingFailure(*state, fwk, queued, assumed, host, pre,
                                    /*as_fit_error=*/false, start);
      }
      WriteExpectedNode(assumed->pod(), host);
      bind_when_done(pre.IsSuccess() ? PreBindPreflight::kWork
                                     : PreBindPreflight::kNoWork);
    });
    return;
  }
  binding_pool_->Submit(
      [this, state, &fwk, queued, assumed, host, start, expectation] {
        RunBindingCycle(state, fwk, queued, assumed, host, start,
                        expectation ? PreBindPreflight::kToRun
                                    : PreBindPreflight::kGateOff);
      });
}

void Scheduler::WriteExpectedNode(const api::Pod& assumed,
                                  const std::string& node) {
  if (deps_.writer == nullptr) return;
  // As kube's updatePod: only when it changes anything.
  std::shared_ptr<const api::Pod> current =
      deps_.pod_lookup
          ? deps_.pod_lookup(assumed.metadata.ns, assumed.metadata.name)
          : nullptr;
  const api::Pod& base = current != nullptr ? *current : assumed;
  if (base.status.nominated_node_name == node) return;
  framework::PodStatusUpdate update;
  update.nominated_node_name = node;
  // A failure does not stop the binding (kube only logs it).
  (void)deps_.writer->UpdatePodStatus(base, update);
}

void Scheduler::RunBindingCycle(std::shared_ptr<framework::CycleState> state,
                                framework::Framework& fwk,
                                queue::QueuedPodInfoPtr queued,
                                framework::PodInfoPtr assumed, std::string node,
                                util::Clock::TimePoint start,
                                PreBindPreflight preflight) {
  const std::string& uid = assumed->pod().metadata.uid;
  if (preflight == PreBindPreflight::kToRun) {
    // NominatedNodeNameForExpectation: a PreBind that will do something may
    // take time; say where the pod is going before it starts. A pod bound
    // at once needs no such word.
    Status pre = fwk.RunPreBindPreFlights(*state, *assumed, node);
    if (pre.code() == Code::kError || pre.IsRejected()) {
      return HandleBindingFailure(*state, fwk, queued, assumed, node, pre,
                                  /*as_fit_error=*/false, start);
    }
    if (pre.IsSuccess()) WriteExpectedNode(assumed->pod(), node);
    preflight =
        pre.IsSuccess() ? PreBindPreflight::kWork : PreBindPreflight::kNoWork;
  }
  if (auto waiting = waiting_pods_.Get(uid)) {
    Status s = waiting->Wait();  // over: the cycle was posted when it ended
    waiting_pods_.Remove(uid);
    if (deps_.metrics != nullptr) {
      deps_.metrics->ObservePermitWait(s.code(),
                                       deps_.clock->Now() - waiting->started());
    }
    if (!s.IsSuccess()) {
      // A rejection makes the pod unschedulable; anything else (preemption
      // since v1.36) is an error, wrapped as kube's WaitOnPermit does.
      if (!s.IsRejected()) {
        Status wrapped =
            Status::Error("waiting on permit for pod: " + s.Message());
        wrapped.WithPlugin(s.plugin());
        s = std::move(wrapped);
      }
      return HandleBindingFailure(*state, fwk, queued, assumed, node, s,
                                  /*as_fit_error=*/true, start);
    }
  }
  // From here on the pod cannot be found unschedulable, only failed; the
  // queue may let go of the events recorded during its cycle.
  queue_->Done(uid);

  // A pod with PreBind work may be preempted in memory while it runs
  // (v1.36): it is registered for that until its binding cycle ends.
  std::shared_ptr<framework::PodInPreBind> in_prebind;
  if (preflight == PreBindPreflight::kGateOff ||
      preflight == PreBindPreflight::kWork) {
    in_prebind = pods_in_prebind_.Add(uid);
  }
  struct Unregister {
    framework::PodsInPreBind& pods;
    const std::string& uid;
    bool active;
    ~Unregister() {
      if (active) pods.Remove(uid);
    }
  } unregister{pods_in_prebind_, uid, in_prebind != nullptr};
  // Preemption's cancellation reaches the PreBind plugins, which stop
  // before their next API write.
  if (in_prebind != nullptr) {
    state->set_binding_cancellation(&in_prebind->cancellation());
  }
  Status s = fwk.RunPreBindPlugins(*state, *assumed, node);
  state->set_binding_cancellation(nullptr);
  if (!s.IsSuccess()) {
    // Since v1.33 Permit is the last point that can find a pod
    // unschedulable: a PreBind failure, rejection or not, is retried after
    // backoff, its status reported as it is.
    return HandleBindingFailure(*state, fwk, queued, assumed, node, s,
                                /*as_fit_error=*/false, start);
  }
  // Preempted while in PreBind: the room is someone else's now.
  if (in_prebind != nullptr && !in_prebind->MarkPrebound()) {
    return HandleBindingFailure(*state, fwk, queued, assumed, node,
                                Status::Error(in_prebind->cause()),
                                /*as_fit_error=*/false, start);
  }
  s = fwk.RunBindPlugins(*state, *assumed, node);
  // Binding ended, either way (finishBinding): from now on the assumed pod
  // may expire. A no-op if it left the cache meanwhile.
  (void)cache_->FinishBinding(assumed->pod());
  if (!s.IsSuccess()) {
    // kube reports a Bind plugin's status as it is, rejection or not.
    return HandleBindingFailure(*state, fwk, queued, assumed, node, s,
                                /*as_fit_error=*/false, start);
  }
  if (deps_.writer != nullptr) {
    deps_.writer->RecordEvent(
        assumed->pod(), "Normal", "Scheduled", "Binding",
        "Successfully assigned " + Key(assumed->pod()) + " to " + node);
  }
  fwk.RunPostBindPlugins(*state, *assumed, node);
  ActivatePods(*state);
  AttemptOutcome outcome{
      AttemptOutcome::Result::kScheduled, Key(assumed->pod()), node, "", "",
      deps_.clock->Now() - start,         fwk.profile_name()};
  outcome.attempts = queued->attempts;
  outcome.after_flush = queued->was_flushed_from_unschedulable;
  if (queued->initial_attempt_timestamp.has_value()) {
    outcome.since_first_queued =
        deps_.clock->Now() - *queued->initial_attempt_timestamp;
  }
  Report(std::move(outcome));
}

void Scheduler::HandleBindingFailure(framework::CycleState& state,
                                     framework::Framework& fwk,
                                     const queue::QueuedPodInfoPtr& queued,
                                     const framework::PodInfoPtr& assumed,
                                     const std::string& node,
                                     const Status& status, bool as_fit_error,
                                     util::Clock::TimePoint start) {
  fwk.RunReservePluginsUnreserve(state, *assumed, node);
  // The assumed pod held resources: forgetting it is like a deletion for
  // the pods waiting for room, but not for the pod itself. A rejected pod
  // (Permit, PreBind) is unschedulable: as kube does, the move comes after
  // the pod is requeued, skipping it, so the event neither moves it nor
  // counts as an in-flight event of its cycle. Other failures go to
  // backoff anyway, and move everyone first.
  const bool forgotten = cache_->ForgetPod(assumed->pod()).ok();
  framework::EventObjects objs;
  objs.old_pod = &assumed->pod();
  const framework::ClusterEvent forget_event{
      framework::EventResource::kAssignedPod, framework::kDelete};
  if (forgotten && !status.IsRejected()) {
    queue_->MoveAllToActiveOrBackoffQueue(forget_event, objs);
  }
  if (as_fit_error && status.IsRejected()) {
    framework::Diagnosis d;
    d.node_to_status.Set(node, status);
    if (!status.plugin().empty())
      d.unschedulable_plugins.insert(status.plugin());
    HandleSchedulingFailure(fwk, queued, Status(status.code()),
                            framework::FitErrorMessage(1, d), &d, "", start);
  } else {
    HandleSchedulingFailure(fwk, queued, status, status.Message(), nullptr, "",
                            start);
  }
  if (forgotten && status.IsRejected()) {
    const std::string& uid = assumed->pod().metadata.uid;
    queue_->MoveAllToActiveOrBackoffQueue(
        forget_event, objs,
        [&uid](const api::Pod& p) { return p.metadata.uid != uid; });
  }
}

void Scheduler::HandleSchedulingFailure(framework::Framework& fwk,
                                        const queue::QueuedPodInfoPtr& queued,
                                        const Status& status,
                                        const std::string& message,
                                        const framework::Diagnosis* diagnosis,
                                        std::optional<std::string> nomination,
                                        util::Clock::TimePoint start,
                                        const std::string& event_note) {
  // Held here: requeueing swaps queued->pod_info for the latest version,
  // which would free the pod this function goes on reading.
  const framework::PodInfoPtr pod_info = queued->pod_info;
  const api::Pod& pod = pod_info->pod();
  const bool rejected = status.IsRejected();
  if (diagnosis != nullptr) {
    queued->unschedulable_plugins = diagnosis->unschedulable_plugins;
    queued->pending_plugins = diagnosis->pending_plugins;
  }

  // Requeue with the latest version of the pod, unless it is gone or was
  // bound meanwhile (by an extender that timed out, or someone else).
  std::shared_ptr<const api::Pod> current =
      deps_.pod_lookup ? deps_.pod_lookup(pod.metadata.ns, pod.metadata.name)
                       : queued->pod_info->pod_ptr();
  bool requeued = false;
  if (current != nullptr && current->metadata.uid != pod.metadata.uid &&
      !Assigned(*current)) {
    // Deleted and created again under its name while this cycle ran: the
    // new pod is another pod, with its own queue entry; its status is not
    // this failure's to write (v1.35).
    queue_->Done(pod.metadata.uid);
    AttemptOutcome outcome{rejected ? AttemptOutcome::Result::kUnschedulable
                                    : AttemptOutcome::Result::kError,
                           Key(pod),
                           "",
                           message,
                           "",
                           deps_.clock->Now() - start,
                           fwk.profile_name()};
    outcome.attempts = queued->attempts;
    Report(std::move(outcome));
    return;
  }
  if (current != nullptr && current->metadata.uid == pod.metadata.uid &&
      !Assigned(*current)) {
    queued->pod_info =
        current == queued->pod_info->pod_ptr()
            ? queued->pod_info
            : framework::PodInfo::Create(
                  current, framework::ResourceFeaturesOf(deps_.features));
    if (auto r = queue_->AddUnschedulableIfNotPresent(
            queued, queue_->SchedulingCycle());
        r.ok()) {
      requeued = true;
    }
  }
  if (!requeued) queue_->Done(pod.metadata.uid);
  // Keep the nominator in step right away: the next cycle must not wait for
  // the status update's watch event to see the nomination.
  if (current != nullptr) {
    if (!nomination.has_value()) {
      // Unchanged: whatever status.nominatedNodeName says.
      queue_->AddNominatedPod(queued->pod_info, "");
    } else if (nomination->empty()) {
      queue_->DeleteNominatedPodIfExists(pod);
    } else {
      queue_->AddNominatedPod(queued->pod_info, *nomination);
    }
  }

  const std::string reason = rejected ? "Unschedulable" : "SchedulerError";
  if (deps_.writer != nullptr && current != nullptr) {
    deps_.writer->RecordEvent(
        pod, "Warning", "FailedScheduling", "Scheduling",
        event_note.empty() ? TruncateNote(message) : event_note);
    // Patch only what changed, as kube-scheduler's updatePod does.
    const api::PodCondition* old = FindCondition(*current, api::kPodScheduled);
    api::PodCondition c = FailedSchedulingCondition(
        *current, old, reason, message,
        deps_.features.Enabled(config::Feature::kPodObservedGenerationTracking),
        deps_.clock->WallNow());
    bool condition_changed = old == nullptr || !SameCondition(*old, c);
    bool nomination_changed =
        nomination.has_value() &&
        current->status.nominated_node_name != *nomination;
    if (condition_changed || nomination_changed) {
      framework::PodStatusUpdate update;
      update.condition = std::move(c);
      if (nomination_changed) update.nominated_node_name = nomination;
      (void)deps_.writer->UpdatePodStatus(*current, update);
    }
  }
  AttemptOutcome outcome{rejected ? AttemptOutcome::Result::kUnschedulable
                                  : AttemptOutcome::Result::kError,
                         Key(pod),
                         "",
                         message,
                         nomination.value_or(""),
                         deps_.clock->Now() - start,
                         fwk.profile_name()};
  outcome.attempts = queued->attempts;
  Report(std::move(outcome));
}

// ---------------------------------------------------------------- events

void Scheduler::OnPodAdd(std::shared_ptr<const api::Pod> pod) {
  if (Terminal(*pod)) return;
  pod_group_members_.Upsert(pod);
  if (Assigned(*pod)) {
    (void)cache_->AddPod(framework::PodInfo::CreateBound(
        *pod, &cache_->label_sets(),
        framework::ResourceFeaturesOf(deps_.features)));
    // As kube v1.32 with queueing hints on (its default): every plugin that
    // registered AssignedPod/Add hears of it, not only the cross-topology
    // terms SchedulingQueue::AssignedPodAdded pre-filters for, which would
    // leave the pods a custom plugin rejected in the pool.
    framework::EventObjects objs;
    objs.new_pod = pod.get();
    queue_->MoveAllToActiveOrBackoffQueue(
        {framework::EventResource::kAssignedPod, framework::kAdd}, objs);
    return;
  }
  if (IsResponsibleFor(*pod)) {
    queue_->Add(framework::PodInfo::Create(
        pod, framework::ResourceFeaturesOf(deps_.features)));
  }
}

void Scheduler::OnPodUpdate(std::shared_ptr<const api::Pod> old_pod,
                            std::shared_ptr<const api::Pod> new_pod) {
  if (Terminal(*new_pod)) {
    // Finished pods leave the scheduler's view, as the informer's field
    // selector drops them.
    OnPodDelete(old_pod);
    return;
  }
  pod_group_members_.Upsert(new_pod);
  if (Assigned(*old_pod)) {
    // Every update is counted again, a status-only one too: a pod resized
    // in place reports what it now holds in its status alone.
    const api::ResourceFeatures resources =
        framework::ResourceFeaturesOf(deps_.features);
    (void)cache_->UpdatePod(*old_pod,
                            framework::PodInfo::CreateBound(
                                *new_pod, &cache_->label_sets(), resources));
    // One event per kind of change, each to every plugin that registered it
    // (kube v1.32's updatePodInCache with queueing hints on).
    framework::EventObjects objs;
    objs.old_pod = old_pod.get();
    objs.new_pod = new_pod.get();
    const uint32_t actions =
        AssignedPodUpdateActions(*old_pod, *new_pod, resources);
    for (uint32_t bit = 1; bit != 0 && bit <= actions; bit <<= 1) {
      if ((actions & bit) == 0) continue;
      queue_->MoveAllToActiveOrBackoffQueue(
          {framework::EventResource::kAssignedPod, bit}, objs);
    }
    return;
  }
  if (Assigned(*new_pod)) {
    // Bound (by us or by someone else): it leaves the queue for the cache.
    if (IsResponsibleFor(*old_pod)) queue_->Delete(*old_pod);
    OnPodAdd(new_pod);
    return;
  }
  if (!IsResponsibleFor(*new_pod)) return;
  // A resync hands the same version again; acting on it could schedule a
  // pod twice (kube #96071). Objects without versions (tests, the
  // simulator) are always taken as changed.
  if (!new_pod->metadata.resource_version.empty() &&
      new_pod->metadata.resource_version ==
          old_pod->metadata.resource_version) {
    return;
  }
  // Updates of a pod whose binding is in flight come from that binding,
  // unless its deletion has begun: its room is given back at once rather
  // than when its binding fails (v1.35's handleAssumedPodDeletion).
  if (cache_->IsAssumedPod(*new_pod)) {
    if (new_pod->metadata.deletion_timestamp.has_value() &&
        !old_pod->metadata.deletion_timestamp.has_value()) {
      // The cached copy holds the node and the resources.
      framework::PodInfoPtr assumed = cache_->GetPod(new_pod->metadata.uid);
      if (assumed == nullptr) return;
      if (auto waiting = waiting_pods_.Get(new_pod->metadata.uid)) {
        waiting->Reject("", "pod " + Key(*new_pod) + " is being deleted");
      } else {
        // In PreBind or Bind, which will fail once the pod is gone.
        (void)cache_->ForgetPod(assumed->pod());
      }
      framework::EventObjects objs;
      objs.old_pod = &assumed->pod();
      queue_->MoveAllToActiveOrBackoffQueue(
          {framework::EventResource::kAssignedPod, framework::kDelete}, objs);
    }
    return;
  }
  queue_->Update(*old_pod,
                 framework::PodInfo::Create(
                     new_pod, framework::ResourceFeaturesOf(deps_.features)));
  ReleaseNomination(*old_pod, new_pod->status.nominated_node_name);
}

void Scheduler::OnPodDelete(std::shared_ptr<const api::Pod> pod) {
  pod_group_members_.Remove(*pod);
  if (Assigned(*pod)) {
    (void)cache_->RemovePod(*pod);
    framework::EventObjects objs;
    objs.old_pod = pod.get();
    queue_->MoveAllToActiveOrBackoffQueue(
        {framework::EventResource::kAssignedPod, framework::kDelete}, objs);
    return;
  }
  if (!IsResponsibleFor(*pod)) return;
  queue_->Delete(*pod);
  // A pod waiting at Permit was assumed: rejecting it frees its room.
  if (auto waiting = waiting_pods_.Get(pod->metadata.uid)) {
    waiting->Reject("", "pod " + Key(*pod) + " was deleted");
    framework::EventObjects objs;
    objs.old_pod = pod.get();
    queue_->MoveAllToActiveOrBackoffQueue(
        {framework::EventResource::kAssignedPod, framework::kDelete}, objs);
  } else if (!cache_->IsAssumedPod(*pod)) {
    ReleaseNomination(*pod, "");
  } else {
    // The last known state may be stale: a relist that missed the pod's
    // binding tells of its deletion as of a pod not bound yet. Nothing
    // else would ever take the assumed pod out of the cache (kube cleans
    // up a DeletedFinalStateUnknown pod in the cache as well as the
    // queue), where it would hold its room for good.
    (void)cache_->RemovePod(*pod);
    framework::EventObjects objs;
    objs.old_pod = pod.get();
    queue_->MoveAllToActiveOrBackoffQueue(
        {framework::EventResource::kAssignedPod, framework::kDelete}, objs);
  }
}

void Scheduler::ReleaseNomination(const api::Pod& old_pod,
                                  const std::string& new_node) {
  if (old_pod.status.nominated_node_name.empty() ||
      old_pod.status.nominated_node_name == new_node) {
    return;
  }
  // Pods of lower or equal priority counted this pod on its nominated node
  // as if it ran there; that room is free now (v1.35's event handlers).
  const int32_t priority = old_pod.spec.priority.value_or(0);
  framework::EventObjects objs;
  objs.old_pod = &old_pod;
  queue_->MoveAllToActiveOrBackoffQueue(
      {framework::EventResource::kAssignedPod, framework::kDelete}, objs,
      [priority](const api::Pod& p) {
        return p.spec.priority.value_or(0) <= priority;
      });
}

void Scheduler::OnNodeAdd(std::shared_ptr<const api::Node> node) {
  cache_->AddNode(node);
  framework::EventObjects objs;
  objs.new_node = node.get();
  queue_->MoveAllToActiveOrBackoffQueue(
      {framework::EventResource::kNode, framework::kAdd}, objs);
}

void Scheduler::OnNodeUpdate(std::shared_ptr<const api::Node> old_node,
                             std::shared_ptr<const api::Node> new_node) {
  cache_->UpdateNode(*old_node, new_node);
  framework::EventObjects objs;
  objs.old_node = old_node.get();
  objs.new_node = new_node.get();
  const bool declared_features =
      deps_.features.Enabled(config::Feature::kNodeDeclaredFeatures);
  for (uint32_t action :
       NodeUpdateActions(*old_node, *new_node, declared_features)) {
    queue_->MoveAllToActiveOrBackoffQueue(
        {framework::EventResource::kNode, action}, objs);
  }
}

void Scheduler::OnNodeDelete(std::shared_ptr<const api::Node> node) {
  cache_->RemoveNode(*node);
}

void Scheduler::OnClusterEvent(const framework::ClusterEvent& event,
                               const queue::OwnedEventObjects& objects) {
  queue_->MoveAllToActiveOrBackoffQueue(event, objects);
}

// ---------------------------------------------------------------- upkeep

void Scheduler::Tick() {
  queue_->FlushBackoffQCompleted();
  queue_->FlushUnschedulablePodsLeftover();
  (void)cache_->CleanupExpiredAssumedPods();
  waiting_pods_.ExpireAt(deps_.clock->Now());
  // Without binding workers, the binding cycles of the pods whose waits
  // ended run here.
  binding_pool_->RunPosted();
}

void Scheduler::Stop() {
  if (queue_) queue_->Close();
}

void Scheduler::WaitForBindings() { binding_pool_->Drain(); }

void Scheduler::ReleaseSnapshot() {
  std::lock_guard<std::mutex> lock(cycle_mu_);
  snapshot_ = framework::Snapshot();
}

bool Scheduler::WaitForBindings(std::chrono::steady_clock::duration bound) {
  if (binding_pool_->DrainFor(bound)) return true;
  binding_pool_->AbandonQueued();
  return false;
}

size_t Scheduler::BindingsInFlight() const { return binding_pool_->InFlight(); }

}  // namespace ksched::scheduler

#include "pkg/queue/scheduling_queue.h"

#include <algorithm>
#include <utility>

#include "pkg/plugins/names.h"

namespace ksched::queue {
namespace {

constexpr std::string_view kActive = "active";
constexpr std::string_view kBackoff = "backoff";
constexpr std::string_view kUnschedulable = "unschedulable";

// The API server defaults spec.schedulerName; objects built without it
// (tests, hand-written manifests) belong to the default profile.
std::string_view ProfileOf(const api::Pod& pod) {
  return pod.spec.scheduler_name.empty() ? api::kDefaultSchedulerName
                                         : pod.spec.scheduler_name;
}

}  // namespace

SchedulingQueue::SchedulingQueue(Options options, LessFn less,
                                 PreEnqueueFn pre_enqueue,
                                 QueueingHintMap hints)
    : options_(std::move(options)),
      pre_enqueue_(std::move(pre_enqueue)),
      pop_from_backoff_q_(options_.features.Enabled(
          config::Feature::kSchedulerPopFromBackoffQ)),
      active_(less),
      backoff_(options_.pod_initial_backoff, options_.pod_max_backoff, less,
               pop_from_backoff_q_),
      nominator_(options_.still_pending) {
  for (auto& [profile, plugins] : hints) {
    auto& by_plugin = hints_[profile];
    for (auto& plugin : plugins) {
      auto& events = by_plugin[plugin.plugin];
      auto& gating = plugin_events_[plugin.plugin];
      for (auto& e : plugin.events) {
        registered_events_.push_back(e.event);
        gating.push_back(e.event);
        events.push_back(std::move(e));
      }
    }
  }
}

SchedulingQueue::~SchedulingQueue() = default;

QueuedPodInfoPtr SchedulingQueue::NewQueuedPodInfo(
    framework::PodInfoPtr pod) const {
  auto info = std::make_shared<framework::QueuedPodInfo>();
  info->pod_info = std::move(pod);
  info->timestamp = options_.clock->Now();
  return info;
}

bool SchedulingQueue::RunPreEnqueue(framework::QueuedPodInfo& info) const {
  if (!pre_enqueue_) {
    info.gated = false;
    return true;
  }
  framework::Status s = pre_enqueue_(info.pod());
  info.gated = !s.IsSuccess();
  info.gating_plugin = info.gated ? s.plugin() : std::string();
  // The gating plugin becomes a rejector, so that the events it registered
  // (a gate removed) bring the pod back through its hints.
  if (info.gated && !s.plugin().empty()) {
    info.unschedulable_plugins.insert(s.plugin());
  }
  return !info.gated;
}

bool SchedulingQueue::MoveToActiveQ(const QueuedPodInfoPtr& info,
                                    std::string_view event, bool from_backoff) {
  const std::string key = PodKey(info->pod());
  // With PopFromBackoffQ, PreEnqueue ran as the pod entered backoffQ.
  const bool skip_pre_enqueue = pop_from_backoff_q_ && from_backoff;
  if (!skip_pre_enqueue && !RunPreEnqueue(*info)) {
    if (active_.heap().Has(key) || backoff_.Has(key)) return false;
    unschedulable_.AddOrUpdate(info);
    return false;
  }
  if (!info->initial_attempt_timestamp) {
    info->initial_attempt_timestamp = options_.clock->Now();
  }
  unschedulable_.Delete(key);
  backoff_.Delete(key);
  active_.heap().AddOrUpdate(info);
  Observe(kActive, event);
  // A pod arriving with status.nominatedNodeName keeps its node reserved
  // (e.g. after a scheduler restart).
  if (event == kPodAdd || event == kPodUpdate) {
    nominator_.Add(info->pod_info, "");
  }
  return true;
}

bool SchedulingQueue::MoveToBackoffQ(const QueuedPodInfoPtr& info,
                                     std::string_view event) {
  const std::string key = PodKey(info->pod());
  // A pod in backoffQ may be popped at any moment, so it must have passed
  // PreEnqueue already.
  if (pop_from_backoff_q_ && !RunPreEnqueue(*info)) {
    // Stored again even when already pooled: the gated count follows the
    // entry's flag as it is now.
    unschedulable_.AddOrUpdate(info);
    return false;
  }
  unschedulable_.Delete(key);
  backoff_.Add(info);
  Observe(kBackoff, event);
  return true;
}

void SchedulingQueue::MoveToPool(const QueuedPodInfoPtr& info,
                                 std::string_view event) {
  unschedulable_.AddOrUpdate(info);
  Observe(kUnschedulable, event);
}

SchedulingQueue::Where SchedulingQueue::Requeue(const QueuedPodInfoPtr& info,
                                                Strategy strategy,
                                                std::string_view event) {
  if (strategy == Strategy::kSkip) {
    MoveToPool(info, event);
    return Where::kUnschedulable;
  }
  // The backoff may have expired while the pod sat in the pool.
  if (strategy == Strategy::kAfterBackoff &&
      backoff_.IsBackingOff(*info, options_.clock->Now())) {
    return MoveToBackoffQ(info, event) ? Where::kBackoff
                                       : Where::kUnschedulable;
  }
  // A gated pod stays in (or returns to) the pool inside MoveToActiveQ.
  return MoveToActiveQ(info, event) ? Where::kActive : Where::kUnschedulable;
}

bool SchedulingQueue::IsEventOfInterest(
    const framework::ClusterEvent& event) const {
  if (IsWildCard(event)) return true;
  for (const framework::ClusterEvent& registered : registered_events_) {
    if (framework::MatchClusterEvents(registered, event)) return true;
  }
  return false;
}

SchedulingQueue::Strategy SchedulingQueue::IsPodWorthRequeuing(
    const framework::QueuedPodInfo& info, const framework::ClusterEvent& event,
    const framework::EventObjects& objs) const {
  if (info.unschedulable_plugins.empty() && info.pending_plugins.empty()) {
    // Nothing rejected it (an internal error, an API failure): any event
    // is a reason to retry.
    return Strategy::kAfterBackoff;
  }
  if (IsWildCard(event)) {
    // A wildcard carrying a pod (ForceActivate) is meant for that pod only.
    if (objs.new_pod != nullptr &&
        objs.new_pod->metadata.uid != info.pod().metadata.uid) {
      return Strategy::kSkip;
    }
    if (objs.new_pod == nullptr && objs.new_node != nullptr) {
      return Strategy::kSkip;
    }
    return Strategy::kAfterBackoff;
  }
  auto profile = hints_.find(ProfileOf(info.pod()));
  if (profile == hints_.end()) return Strategy::kAfterBackoff;

  // Whether one of `plugin`'s registered events matches and its hint says
  // Queue (no hint: Queue).
  auto queues = [&](const std::string& plugin) {
    auto registered = profile->second.find(plugin);
    if (registered == profile->second.end()) return false;
    for (const framework::ClusterEventWithHint& e : registered->second) {
      if (!framework::MatchClusterEvents(e.event, event)) continue;
      if (!e.hint ||
          e.hint(info.pod(), objs) == framework::QueueingHint::kQueue) {
        return true;
      }
    }
    return false;
  };
  // Queue from a Pending plugin skips the backoff, so it is asked first;
  // Queue from a plugin that found the pod unschedulable waits for it.
  for (const std::string& plugin : info.pending_plugins) {
    if (queues(plugin)) return Strategy::kImmediately;
  }
  for (const std::string& plugin : info.unschedulable_plugins) {
    if (info.pending_plugins.count(plugin) != 0) continue;
    if (queues(plugin)) return Strategy::kAfterBackoff;
  }
  return Strategy::kSkip;
}

SchedulingQueue::Strategy SchedulingQueue::HintForInFlightPod(
    const framework::QueuedPodInfo& info) const {
  if (info.unschedulable_plugins.empty() && info.pending_plugins.empty()) {
    return Strategy::kAfterBackoff;
  }
  auto events = active_.EventsSince(info.pod().metadata.uid);
  // Not popped through this queue: a caller bug; retrying is the safe side.
  if (!events) return Strategy::kAfterBackoff;
  Strategy strategy = Strategy::kSkip;
  for (const auto& e : *events) {
    switch (IsPodWorthRequeuing(info, e->event, e->objects.View())) {
      case Strategy::kSkip:
        break;
      case Strategy::kImmediately:
        return Strategy::kImmediately;
      case Strategy::kAfterBackoff:
        strategy = Strategy::kAfterBackoff;
        if (info.pending_plugins.empty()) return strategy;
        break;
    }
  }
  return strategy;
}

void SchedulingQueue::Add(framework::PodInfoPtr pod) {
  std::lock_guard lock(mu_);
  if (MoveToActiveQ(NewQueuedPodInfo(std::move(pod)), kPodAdd)) {
    cond_.notify_all();
  }
}

void SchedulingQueue::Update(const api::Pod& old_pod,
                             framework::PodInfoPtr new_pod) {
  std::lock_guard lock(mu_);
  const std::vector<framework::ClusterEvent> events =
      PodSchedulingPropertiesChange(new_pod->pod(), old_pod);

  // Being scheduled: the update is replayed to its hints if it comes back.
  if (active_.IsInFlight(new_pod->pod().metadata.uid)) {
    OwnedEventObjects objs;
    objs.old_pod = std::make_shared<api::Pod>(old_pod);
    objs.new_pod = new_pod->pod_ptr();
    active_.AddEventsIfPodInFlight(new_pod->pod().metadata.uid, events, objs);
    return;
  }

  const std::string key = PodKey(old_pod);
  if (QueuedPodInfoPtr info = active_.heap().Get(key)) {
    info->pod_info = new_pod;
    active_.heap().AddOrUpdate(info);
    nominator_.Update(old_pod, new_pod);
    return;
  }
  if (QueuedPodInfoPtr info = backoff_.Get(key)) {
    info->pod_info = new_pod;
    backoff_.Add(info);
    nominator_.Update(old_pod, new_pod);
    return;
  }
  if (QueuedPodInfoPtr info = unschedulable_.Get(key)) {
    info->pod_info = new_pod;
    nominator_.Update(old_pod, new_pod);
    // The update itself may resolve a rejection (labels for
    // PodTopologySpread, a removed gate for SchedulingGates): ask the hints
    // of the pod's rejectors about each kind of change; the strongest
    // answer wins.
    const framework::EventObjects objs{&old_pod, &new_pod->pod()};
    Strategy strategy = Strategy::kSkip;
    std::string label = events.front().Label();
    for (const framework::ClusterEvent& e : events) {
      const Strategy s = IsPodWorthRequeuing(*info, e, objs);
      if (s > strategy) {
        strategy = s;
        label = e.Label();
      }
    }
    if (Poppable(Requeue(info, strategy, label))) cond_.notify_all();
    return;
  }
  if (MoveToActiveQ(NewQueuedPodInfo(std::move(new_pod)), kPodUpdate)) {
    cond_.notify_all();
  }
}

void SchedulingQueue::Delete(const api::Pod& pod) {
  std::lock_guard lock(mu_);
  nominator_.Delete(pod);
  const std::string key = PodKey(pod);
  if (active_.heap().Delete(key)) return;
  if (backoff_.Delete(key)) return;
  unschedulable_.Delete(key);
}

void SchedulingQueue::Activate(
    const std::vector<std::shared_ptr<const api::Pod>>& pods) {
  std::lock_guard lock(mu_);
  bool activated = false;
  for (const auto& pod : pods) {
    const std::string key = PodKey(*pod);
    QueuedPodInfoPtr info = unschedulable_.Get(key);
    bool from_backoff = false;
    if (info == nullptr) {
      info = backoff_.Delete(key);
      from_backoff = info != nullptr;
    }
    if (info != nullptr) {
      if (MoveToActiveQ(info, kForceActivate, from_backoff)) activated = true;
      continue;
    }
    // In flight (e.g. its preemption is still being carried out): a
    // wildcard aimed at the pod requeues it when it comes back rejected.
    OwnedEventObjects objs;
    objs.new_pod = pod;
    active_.AddEventsIfPodInFlight(pod->metadata.uid, {kEventWildCard}, objs);
  }
  if (activated) cond_.notify_all();
}

QueuedPodInfoPtr SchedulingQueue::Pop() {
  std::unique_lock lock(mu_);
  while (true) {
    cond_.wait(lock, [this] {
      return closed_ || !active_.heap().empty() ||
             (pop_from_backoff_q_ && backoff_.unschedulable_size() != 0);
    });
    if (closed_) return nullptr;
    if (QueuedPodInfoPtr info = active_.Pop()) return info;
    // activeQ is empty: rather than idle until the next flush, try the pod
    // whose backoff ends first (kube v1.33+, SchedulerPopFromBackoffQ).
    // Pods that failed with an error are not taken early.
    while (pop_from_backoff_q_) {
      QueuedPodInfoPtr info = backoff_.PopUnschedulable();
      if (info == nullptr) break;
      if (!info->initial_attempt_timestamp) {
        info->initial_attempt_timestamp = options_.clock->Now();
      }
      if (!active_.StartCycle(info)) continue;
      Observe(kActive, kPopFromBackoffQ);
      return info;
    }
  }
}

bool SchedulingQueue::CanPop() const {
  std::lock_guard lock(mu_);
  return !closed_ && (!active_.heap().empty() ||
                      (pop_from_backoff_q_ && backoff_.unschedulable_size()));
}

void SchedulingQueue::Done(const std::string& uid) {
  std::lock_guard lock(mu_);
  active_.Done(uid);
}

util::Result<void> SchedulingQueue::AddUnschedulableIfNotPresent(
    QueuedPodInfoPtr pod, int64_t /*pod_scheduling_cycle*/) {
  std::lock_guard lock(mu_);
  const std::string& uid = pod->pod().metadata.uid;
  const std::string key = PodKey(pod->pod());
  // Whatever happens, the pod's cycle is over.
  auto fail = [&](std::string_view where) -> util::Result<void> {
    active_.Done(uid);
    return util::Error("pod " + key + " is already present in the " +
                       std::string(where) + " queue");
  };
  if (unschedulable_.Get(key)) return fail("unschedulable");
  if (active_.heap().Has(key)) return fail("active");
  if (backoff_.Has(key)) return fail("backoff");

  // The backoff grows with the rejections, or with the errors in a row
  // while the pod keeps failing with errors.
  if (FailedWithError(*pod)) {
    ++pod->consecutive_errors_count;
  } else {
    ++pod->unschedulable_count;
    pod->consecutive_errors_count = 0;
  }
  // The backoff is measured from this failure.
  pod->timestamp = options_.clock->Now();
  pod->backoff_expiration.reset();
  // Back from an attempt: whatever flushed it before is history.
  pod->was_flushed_from_unschedulable = false;
  const Strategy strategy = HintForInFlightPod(*pod);
  active_.Done(uid);
  if (Poppable(Requeue(pod, strategy, kScheduleAttemptFailure))) {
    cond_.notify_all();
  }
  return util::Result<void>::Ok();
}

int64_t SchedulingQueue::SchedulingCycle() const {
  std::lock_guard lock(mu_);
  return active_.scheduling_cycle();
}

void SchedulingQueue::MovePods(
    const std::vector<QueuedPodInfoPtr>* pods,
    const framework::ClusterEvent& event, const framework::EventObjects& objs,
    const OwnedEventObjects* owned, std::string_view label,
    const std::function<bool(const api::Pod&)>* pre_check) {
  // Checked before walking the pool: most events interest nobody.
  if (!IsEventOfInterest(event)) return;
  // Decide first, move after: the pool cannot change while it is walked,
  // and copying only the movers keeps a large pool cheap to scan.
  std::vector<std::pair<QueuedPodInfoPtr, Strategy>> moves;
  auto consider = [&](const QueuedPodInfoPtr& info) {
    // A gated pod can be released only by an event its gating plugin
    // registered (scheduling gates wait for the pod's own update, handled
    // by Update): skip the hints for the others, the common case when many
    // pods are gated.
    if (info->gated && !info->gating_plugin.empty()) {
      auto registered = plugin_events_.find(info->gating_plugin);
      bool interested = false;
      if (registered != plugin_events_.end()) {
        for (const framework::ClusterEvent& e : registered->second) {
          if (framework::MatchClusterEvents(e, event)) {
            interested = true;
            break;
          }
        }
      }
      if (!interested) return;
    }
    if (pre_check != nullptr && !(*pre_check)(info->pod())) return;
    const Strategy strategy = IsPodWorthRequeuing(*info, event, objs);
    if (strategy != Strategy::kSkip) moves.emplace_back(info, strategy);
  };
  if (pods != nullptr) {
    for (const QueuedPodInfoPtr& info : *pods) consider(info);
  } else {
    unschedulable_.ForEach(consider);
  }
  bool activated = false;
  for (const auto& [info, strategy] : moves) {
    unschedulable_.Delete(PodKey(info->pod()));
    if (Poppable(Requeue(info, strategy, label))) activated = true;
  }
  // Pods in flight may come back rejected by a plugin this event matters
  // to: keep it for them.
  if (active_.AnyInFlight()) {
    active_.AddEvent(std::make_shared<const InFlightEvent>(InFlightEvent{
        event, owned ? *owned : OwnedEventObjects::CopyOf(objs)}));
  }
  if (activated) cond_.notify_all();
}

void SchedulingQueue::MoveAllToActiveOrBackoffQueue(
    const framework::ClusterEvent& event, const OwnedEventObjects& objs) {
  std::lock_guard lock(mu_);
  MovePods(nullptr, event, objs.View(), &objs, event.Label());
}

void SchedulingQueue::MoveAllToActiveOrBackoffQueue(
    const framework::ClusterEvent& event, const framework::EventObjects& objs) {
  std::lock_guard lock(mu_);
  MovePods(nullptr, event, objs, nullptr, event.Label());
}

void SchedulingQueue::MoveAllToActiveOrBackoffQueue(
    const framework::ClusterEvent& event, const framework::EventObjects& objs,
    const std::function<bool(const api::Pod&)>& pre_check) {
  std::lock_guard lock(mu_);
  MovePods(nullptr, event, objs, nullptr, event.Label(), &pre_check);
}

std::vector<QueuedPodInfoPtr> SchedulingQueue::PodsWithCrossTopologyTerm(
    const api::Pod& pod) const {
  const api::StringMap ns_labels =
      options_.namespace_labels ? options_.namespace_labels(pod.metadata.ns)
                                : api::StringMap();
  const std::string spread(plugins::names::kPodTopologySpread);
  std::vector<QueuedPodInfoPtr> out;
  unschedulable_.ForEach([&](const QueuedPodInfoPtr& info) {
    if (info->unschedulable_plugins.count(spread) != 0 &&
        info->pod().metadata.ns == pod.metadata.ns) {
      out.push_back(info);
      return;
    }
    for (const framework::AffinityTerm& term :
         info->pod_info->affinity().required_affinity) {
      if (term.Matches(pod.metadata.ns, pod.metadata.labels, ns_labels)) {
        out.push_back(info);
        return;
      }
    }
  });
  return out;
}

void SchedulingQueue::AssignedPodAdded(const api::Pod& pod) {
  std::lock_guard lock(mu_);
  if (!IsEventOfInterest(kEventAssignedPodAdd)) return;
  const framework::EventObjects objs{nullptr, &pod};
  const std::vector<QueuedPodInfoPtr> pods = PodsWithCrossTopologyTerm(pod);
  MovePods(&pods, kEventAssignedPodAdd, objs, nullptr,
           kEventAssignedPodAdd.Label());
}

void SchedulingQueue::AssignedPodUpdated(const api::Pod& old_pod,
                                         const api::Pod& new_pod,
                                         uint32_t action) {
  std::lock_guard lock(mu_);
  const framework::ClusterEvent event{framework::EventResource::kAssignedPod,
                                      action};
  const framework::EventObjects objs{&old_pod, &new_pod};
  // A scale-down frees resources: every pod may benefit, not only those
  // with cross-topology terms.
  if ((action & framework::kUpdatePodScaleDown) != 0) {
    MovePods(nullptr, event, objs, nullptr, event.Label());
  } else {
    const std::vector<QueuedPodInfoPtr> pods =
        PodsWithCrossTopologyTerm(new_pod);
    MovePods(&pods, event, objs, nullptr, event.Label());
  }
}

void SchedulingQueue::FlushBackoffQCompleted() {
  std::lock_guard lock(mu_);
  bool activated = false;
  for (const QueuedPodInfoPtr& info :
       backoff_.PopAllCompleted(options_.clock->Now())) {
    if (MoveToActiveQ(info, kBackoffComplete, /*from_backoff=*/true)) {
      activated = true;
    }
  }
  if (activated) cond_.notify_all();
}

void SchedulingQueue::FlushUnschedulablePodsLeftover() {
  std::lock_guard lock(mu_);
  const util::Clock::TimePoint now = options_.clock->Now();
  // Every timestamp is at least the bound: none is stale while it is not.
  if (!(unschedulable_.oldest_timestamp_bound() <
        now - options_.pod_max_in_unschedulable)) {
    return;
  }
  std::vector<QueuedPodInfoPtr> stale;
  util::Clock::TimePoint oldest_left = util::Clock::TimePoint::max();
  unschedulable_.ForEach([&](const QueuedPodInfoPtr& info) {
    if (now - info->timestamp > options_.pod_max_in_unschedulable) {
      info->was_flushed_from_unschedulable = true;
      stale.push_back(info);
    } else {
      oldest_left = std::min(oldest_left, info->timestamp);
    }
  });
  // Set before the moves: a stale pod a PreEnqueue gate sends back to the
  // pool lowers it again.
  unschedulable_.set_oldest_timestamp_bound(oldest_left);
  if (!stale.empty()) {
    MovePods(&stale, kEventWildCard, {}, nullptr, kUnschedulableTimeout);
  }
}

void SchedulingQueue::Close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  cond_.notify_all();
}

SchedulingQueue::Counts SchedulingQueue::PendingCounts() const {
  std::lock_guard lock(mu_);
  Counts c;
  c.active = active_.heap().size();
  c.backoff = backoff_.size();
  c.gated = unschedulable_.gated();
  c.unschedulable = unschedulable_.size() - c.gated;
  return c;
}

std::map<SchedulingQueue::ReasonKey, int64_t>
SchedulingQueue::UnschedulableReasons() const {
  std::map<ReasonKey, int64_t> out;
  auto count = [&out](const QueuedPodInfoPtr& info) {
    const std::string profile(ProfileOf(info->pod()));
    for (const std::string& plugin : info->unschedulable_plugins) {
      ++out[{profile, plugin}];
    }
    // A plugin may be in both sets; the pod counts once for it.
    for (const std::string& plugin : info->pending_plugins) {
      if (info->unschedulable_plugins.count(plugin) == 0) {
        ++out[{profile, plugin}];
      }
    }
  };
  std::lock_guard lock(mu_);
  active_.heap().ForEach(count);
  backoff_.ForEach(count);
  unschedulable_.ForEach(count);
  return out;
}

std::pair<std::string, QueuedPodInfoPtr> SchedulingQueue::Find(
    const api::Pod& pod) const {
  std::lock_guard lock(mu_);
  const std::string key = PodKey(pod);
  if (QueuedPodInfoPtr info = active_.heap().Get(key)) {
    return {std::string(kActive), info};
  }
  if (QueuedPodInfoPtr info = backoff_.Get(key)) {
    return {std::string(kBackoff), info};
  }
  if (QueuedPodInfoPtr info = unschedulable_.Get(key)) {
    return {info->gated ? "gated" : std::string(kUnschedulable), info};
  }
  return {"", nullptr};
}

size_t SchedulingQueue::InFlightPodCount() const {
  std::lock_guard lock(mu_);
  return active_.in_flight_pods();
}

size_t SchedulingQueue::InFlightEntryCount() const {
  std::lock_guard lock(mu_);
  return active_.in_flight_entries();
}

void SchedulingQueue::AddNominatedPod(const framework::PodInfoPtr& pod,
                                      const std::string& node) {
  // Under the queue's lock too, so that a nomination cannot interleave with
  // the Delete of the same pod.
  std::lock_guard lock(mu_);
  nominator_.Add(pod, node);
}

void SchedulingQueue::DeleteNominatedPodIfExists(const api::Pod& pod) {
  std::lock_guard lock(mu_);
  nominator_.Delete(pod);
}

void SchedulingQueue::UpdateNominatedPod(const api::Pod& old_pod,
                                         const framework::PodInfoPtr& new_pod) {
  std::lock_guard lock(mu_);
  nominator_.Update(old_pod, new_pod);
}

}  // namespace ksched::queue

#include "pkg/plugins/coscheduling/coscheduling.h"

#include "pkg/framework/pods_to_activate.h"
#include "pkg/framework/registry.h"

namespace ksched::plugins {

using coscheduling::GangManager;
using framework::Code;
using framework::Status;

namespace {

int32_t PodPriority(const api::Pod& pod) {
  return pod.spec.priority.value_or(0);
}

GangManager::Options ManagerOptions(const config::CoschedulingArgs& args,
                                    const util::Clock& clock) {
  GangManager::Options o;
  o.clock = &clock;
  o.permit_wait = std::chrono::seconds(args.permit_waiting_time_seconds);
  o.backoff = std::chrono::seconds(args.pod_group_backoff_seconds);
  return o;
}

}  // namespace

Coscheduling::Coscheduling(const config::CoschedulingArgs& args,
                           framework::Handle& handle,
                           std::unique_ptr<coscheduling::GangSource> source)
    : handle_(handle),
      args_(args),
      source_(std::move(source)),
      manager_(*source_, ManagerOptions(args, handle.clock())) {
  const util::Clock& clock = handle.clock();
  wall_offset_ = std::chrono::duration_cast<std::chrono::microseconds>(
      clock.WallNow().time_since_epoch() - clock.Now().time_since_epoch());
}

api::Timestamp Coscheduling::ToWall(util::Clock::TimePoint t) const {
  return api::Timestamp(std::chrono::duration_cast<std::chrono::microseconds>(
                            t.time_since_epoch()) +
                        wall_offset_);
}

bool Coscheduling::Less(const framework::QueuedPodInfo& a,
                        const framework::QueuedPodInfo& b) const {
  const int32_t pa = PodPriority(a.pod());
  const int32_t pb = PodPriority(b.pod());
  if (pa != pb) return pa > pb;
  auto time_of = [this](const framework::QueuedPodInfo& q) {
    if (std::optional<api::Timestamp> t = manager_.SortTime(q.pod())) {
      return *t;
    }
    return ToWall(q.initial_attempt_timestamp.value_or(q.timestamp));
  };
  const api::Timestamp ta = time_of(a);
  const api::Timestamp tb = time_of(b);
  if (ta != tb) return ta < tb;
  const api::Pod& x = a.pod();
  const api::Pod& y = b.pod();
  // "namespace/name" compared as one string.
  if (x.metadata.ns == y.metadata.ns) return x.metadata.name < y.metadata.name;
  return x.metadata.ns + "/" + x.metadata.name <
         y.metadata.ns + "/" + y.metadata.name;
}

Status Coscheduling::PreFilter(framework::CycleState& /*state*/,
                               const framework::PodInfo& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               framework::PreFilterResult* /*result*/) {
  // Unresolvable: evicting pods cannot complete a gang, so preemption is
  // not tried.
  std::string refused = manager_.PreFilter(pod.pod(), nodes);
  if (!refused.empty()) return Status::Unresolvable(std::move(refused));
  return Status();
}

Status Coscheduling::PostFilter(framework::CycleState& /*state*/,
                                const framework::PodInfo& pod,
                                const framework::NodeToStatus& /*filtered*/,
                                framework::PostFilterResult* /*result*/) {
  std::optional<coscheduling::Gang> gang = source_->Find(pod.pod());
  if (!gang.has_value()) return Status::Unschedulable("can not find pod group");
  const int placed = manager_.Placed(*gang, pod.pod());
  if (placed >= gang->min_member) return Status(Code::kUnschedulable);
  // Few enough missing (podGroupRejectPercentage of minMember, 10% by
  // default): the placed members keep waiting for this one's next try.
  const int64_t missing = gang->min_member - placed;
  if (missing * 100 <= static_cast<int64_t>(args_.pod_group_reject_percentage) *
                           gang->min_member) {
    return Status(Code::kUnschedulable);
  }
  RejectWaitingMembers(gang->key, "optimistic rejection in PostFilter");
  if (args_.pod_group_backoff_seconds > 0 &&
      source_->Members(pod.pod()).size() >=
          static_cast<size_t>(gang->min_member)) {
    manager_.BackOff(gang->key);
  }
  manager_.ForgetPermitted(gang->key);
  manager_.MarkFailure(gang->key);
  return Status::Unschedulable("PodGroup " + gang->key +
                               " gets rejected due to Pod " + pod.name() +
                               " is unschedulable even after PostFilter");
}

Status Coscheduling::Reserve(framework::CycleState& /*state*/,
                             const framework::PodInfo& /*pod*/,
                             const std::string& /*node*/) {
  // Nothing to hold: Reserve is here so that Unreserve is called.
  return Status();
}

void Coscheduling::Unreserve(framework::CycleState& /*state*/,
                             const framework::PodInfo& pod,
                             const std::string& /*node*/) {
  std::optional<coscheduling::Gang> gang = source_->Find(pod.pod());
  if (!gang.has_value()) return;
  manager_.Unreserve(pod.pod());
  // One member undone undoes the gang: the others release their room.
  RejectWaitingMembers(gang->key, "rejection in Unreserve");
  manager_.ForgetPermitted(gang->key);
  manager_.MarkFailure(gang->key);
}

Status Coscheduling::Permit(framework::CycleState& state,
                            const framework::PodInfo& pod,
                            const std::string& /*node*/,
                            std::chrono::milliseconds* timeout) {
  bool first = false;
  switch (manager_.Permit(pod.pod(), &first)) {
    case GangManager::PermitResult::kNoGang:
      return Status();
    case GangManager::PermitResult::kGangNotFound:
      return Status::Unschedulable("PodGroup not found");
    case GangManager::PermitResult::kWait: {
      std::chrono::seconds wait = manager_.WaitTime(source_->Find(pod.pod()));
      if (wait.count() == 0) {
        wait = std::chrono::seconds(args_.permit_waiting_time_seconds);
      }
      *timeout = wait;
      if (first) ActivateSiblings(state, pod.pod());
      return Status(Code::kWait);
    }
    case GangManager::PermitResult::kQuorum: {
      const std::string key = source_->KeyOf(pod.pod());
      const std::string name(Name());
      handle_.waiting_pods().ForEach([&](framework::WaitingPod& waiting) {
        if (source_->KeyOf(waiting.pod()) == key) waiting.Allow(name);
      });
      manager_.ClearFailure(key);
      return Status();
    }
  }
  return Status();
}

void Coscheduling::RejectWaitingMembers(const std::string& key,
                                        const std::string& reason) {
  const std::string name(Name());
  handle_.waiting_pods().ForEach([&](framework::WaitingPod& waiting) {
    if (source_->KeyOf(waiting.pod()) == key) waiting.Reject(name, reason);
  });
}

void Coscheduling::ActivateSiblings(framework::CycleState& state,
                                    const api::Pod& pod) {
  auto* to_activate =
      state.Read<framework::PodsToActivate>(framework::kPodsToActivateKey);
  if (to_activate == nullptr) return;
  for (std::shared_ptr<const api::Pod>& sibling : source_->Members(pod)) {
    if (sibling->metadata.uid == pod.metadata.uid) continue;
    to_activate->Add(std::move(sibling));
  }
}

std::vector<framework::ClusterEventWithHint> Coscheduling::EventsToRegister()
    const {
  using framework::EventObjects;
  using framework::QueueingHint;
  return {
      // A new member may complete the gang; after a gang's backoff any pod
      // may (scheduler-plugins requeues on every pod added).
      {{framework::EventResource::kPod, framework::kAdd},
       [this](const api::Pod& pod, const EventObjects& objs) {
         const std::string key = source_->KeyOf(pod);
         if (key.empty()) return QueueingHint::kQueue;
         if (objs.new_pod != nullptr && source_->KeyOf(*objs.new_pod) == key) {
           return QueueingHint::kQueue;
         }
         return manager_.BackoffOver(key) ? QueueingHint::kQueue
                                          : QueueingHint::kQueueSkip;
       }},
      // The pod's PodGroup created, or changed (say, a smaller minMember).
      {{framework::EventResource::kPodGroup,
        framework::kAdd | framework::kUpdateOther},
       [](const api::Pod& pod, const EventObjects& objs) {
         const api::PodGroup* group = objs.new_pod_group;
         if (group == nullptr) return QueueingHint::kQueue;
         return group->metadata.ns == pod.metadata.ns &&
                        framework::PodGroupName(pod) == group->metadata.name
                    ? QueueingHint::kQueue
                    : QueueingHint::kQueueSkip;
       }},
  };
}

util::Result<std::unique_ptr<framework::Plugin>> NewCoscheduling(
    const config::PluginArgs* args, framework::Handle& handle) {
  auto typed =
      framework::ArgsAs<config::CoschedulingArgs>(args, names::kCoscheduling);
  if (!typed.ok()) return typed.error();
  if (typed->pod_group_backoff_seconds < 0) {
    return util::Error(
        "plugin Coscheduling: podGroupBackoffSeconds cannot be negative");
  }
  auto source = std::make_unique<coscheduling::PodGroupSource>(
      handle.objects(), handle.pod_group_members());
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<Coscheduling>(*typed, handle, std::move(source)));
}

}  // namespace ksched::plugins

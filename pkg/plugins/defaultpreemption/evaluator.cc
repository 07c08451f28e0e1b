#include "pkg/plugins/defaultpreemption/evaluator.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <set>

#include "pkg/framework/cycle_recorder.h"

namespace ksched::plugins::defaultpreemption {
namespace {

using framework::Code;
using framework::Status;

constexpr std::string_view kPreemptionByScheduler = "PreemptionByScheduler";

// utilerrors.NewAggregate(errs).Error(): one message as is, several
// deduplicated inside brackets.
std::string AggregateErrors(const std::vector<std::string>& messages) {
  if (messages.size() == 1) return messages.front();
  std::set<std::string> seen;
  std::string joined;
  for (const std::string& m : messages) {
    if (!seen.insert(m).second) continue;
    if (seen.size() > 1) joined += ", ";
    joined += m;
  }
  return seen.size() == 1 ? joined : "[" + joined + "]";
}

// The DisruptionTarget condition to set on a victim, or nullopt when the
// victim already carries an identical one (apipod.UpdatePodCondition).
std::optional<api::PodCondition> DisruptionCondition(const api::Pod& preemptor,
                                                     const api::Pod& victim,
                                                     api::Timestamp now) {
  api::PodCondition c;
  c.type = api::kPodDisruptionTarget;
  c.status = "True";
  c.reason = kPreemptionByScheduler;
  // The API server defaults schedulerName; a pod built without one (a
  // test, a manifest) is the default scheduler's.
  const std::string& scheduler = preemptor.spec.scheduler_name.empty()
                                     ? std::string(api::kDefaultSchedulerName)
                                     : preemptor.spec.scheduler_name;
  c.message = scheduler + ": preempting to accommodate a higher priority pod";
  c.last_transition_time = api::Time{now};
  for (const api::PodCondition& old : victim.status.conditions) {
    if (old.type != c.type) continue;
    if (old.status == c.status)
      c.last_transition_time = old.last_transition_time;
    bool no_probe_time =
        !old.last_probe_time.has_value() || old.last_probe_time->IsZero();
    if (old.status == c.status && old.reason == c.reason &&
        old.message == c.message && no_probe_time) {
      return std::nullopt;
    }
    return c;
  }
  return c;
}

// "victims: ns/a, ns/b (violates 1 PodDisruptionBudget)" for explain.
std::string DescribeVictims(const Candidate& candidate) {
  std::string out = "victims:";
  const char* separator = " ";
  for (const framework::PodInfoPtr& victim : candidate.victims.pods) {
    out += separator;
    out += victim->ns() + "/" + victim->name();
    separator = ", ";
  }
  if (candidate.victims.num_pdb_violations > 0) {
    out += " (violates " +
           std::to_string(candidate.victims.num_pdb_violations) +
           " PodDisruptionBudget" +
           (candidate.victims.num_pdb_violations > 1 ? "s)" : ")");
  }
  return out;
}

}  // namespace

api::Timestamp Evaluator::Now() const {
  return std::chrono::time_point_cast<std::chrono::microseconds>(
      handle_.clock().WallNow());
}

Status Evaluator::Preempt(framework::CycleState& state,
                          const framework::PodInfo& pod,
                          const framework::NodeToStatus& filtered,
                          framework::PostFilterResult* result) {
  // kube re-reads the pod from its informer first; the pod handed to
  // PostFilter is already the queue's latest copy here.
  const api::Pod& p = pod.pod();
  if (framework::MetricsRecorder* m = handle_.metrics()) {
    m->ObservePreemptionAttempt();
  }
  Eligibility eligibility = interface_.PodEligibleToPreemptOthers(
      p, filtered.Get(p.status.nominated_node_name));
  if (!eligibility.eligible) return Status::Unschedulable(eligibility.reason);

  const std::vector<framework::NodeInfoPtr>& all_nodes =
      handle_.snapshot().nodes();
  if (all_nodes.empty()) return Status::Error("no nodes available");

  // Only nodes a filter rejected as Unschedulable may be helped by
  // evicting pods; UnschedulableAndUnresolvable ones cannot. Walking the
  // snapshot keeps the order stable (kube walks a map).
  std::vector<framework::NodeInfoPtr> potential;
  framework::CycleRecorder* recorder = state.recorder();
  for (const framework::NodeInfoPtr& node : all_nodes) {
    if (filtered.Get(node->name()).code() == Code::kUnschedulable) {
      potential.push_back(node);
    } else if (recorder != nullptr) {
      recorder->Preemption(node->name(),
                           "Preemption is not helpful for scheduling");
    }
  }

  DryRunResult dry_run;
  if (!potential.empty()) {
    std::vector<CompiledPdb> pdbs =
        CompilePdbs(handle_.objects().ListPodDisruptionBudgets());
    auto [offset, num_candidates] = interface_.GetOffsetAndNumCandidates(
        static_cast<int32_t>(potential.size()));
    dry_run =
        DryRunPreemption(state, pod, potential, pdbs, offset, num_candidates);
    if (!dry_run.error.IsSuccess() && dry_run.candidates.empty()) {
      return dry_run.error;
    }
  }

  if (dry_run.candidates.empty()) {
    framework::Diagnosis diagnosis;
    diagnosis.node_to_status = std::move(dry_run.statuses);
    diagnosis.node_to_status.SetAbsent(
        Status::Unresolvable("Preemption is not helpful for scheduling"));
    // The pod's current nomination, if any, is no longer worth keeping.
    result->nominated_node_name.clear();
    result->clear_nomination = true;
    return Status::Unschedulable(framework::FitErrorMessage(
        static_cast<int>(all_nodes.size()), diagnosis));
  }

  // No extenders take part in preemption in ksched.
  const Candidate* best = SelectCandidate(dry_run.candidates);
  if (best == nullptr || best->name.empty()) {
    return Status::Unschedulable("no candidate node for preemption");
  }
  if (framework::MetricsRecorder* m = handle_.metrics()) {
    m->ObservePreemptionVictims(static_cast<int>(best->victims.pods.size()));
  }
  if (recorder != nullptr) {
    recorder->Preemption(best->name, "chosen, " + DescribeVictims(*best));
  }
  if (async_) {
    PrepareCandidateAsync(*best, pod);
  } else {
    Status prepared = PrepareCandidate(*best, pod);
    if (!prepared.IsSuccess()) return prepared;
  }
  result->nominated_node_name = best->name;
  result->clear_nomination = false;
  return Status();
}

Evaluator::DryRunResult Evaluator::DryRunPreemption(
    const framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfoPtr>& potential_nodes,
    const std::vector<CompiledPdb>& pdbs, int32_t offset,
    int32_t num_candidates) {
  DryRunResult out;
  const int n = static_cast<int>(potential_nodes.size());
  if (n == 0) return out;

  // Each node writes its own slot; the lists are assembled in walk order
  // afterwards, so a one-worker run gives exactly kube's sequential result.
  struct Slot {
    std::string node;
    bool evaluated = false;
    bool is_candidate = false;
    Candidate candidate;
    Status status;
  };
  std::vector<Slot> slots(n);
  std::atomic<int32_t> non_violating{0};
  std::atomic<int32_t> violating{0};
  const int64_t start = ((int64_t{offset} % n) + n) % n;

  handle_.parallelizer().Until(n, [&](int i) {
    const framework::NodeInfoPtr& source = potential_nodes[(start + i) % n];
    framework::NodeInfo node = *source;
    std::unique_ptr<framework::CycleState> state_copy = state.Clone();
    // The dry run's filters run on copies of nodes: nothing to record.
    state_copy->set_recorder(nullptr);
    Victims victims;
    Status s =
        interface_.SelectVictimsOnNode(*state_copy, pod, node, pdbs, &victims);
    Slot& slot = slots[i];
    slot.node = source->name();
    slot.evaluated = true;
    if (s.IsSuccess() && !victims.pods.empty()) {
      bool violates = victims.num_pdb_violations != 0;
      slot.is_candidate = true;
      slot.candidate = Candidate{source->name(), std::move(victims)};
      int32_t nv = violates ? non_violating.load() : ++non_violating;
      int32_t v = violates ? ++violating : violating.load();
      // Each list holds at most num_candidates, as kube's candidateList.
      nv = std::min(nv, num_candidates);
      v = std::min(v, num_candidates);
      // Enough candidates, and one of them violates no PDB: stop.
      return !(nv > 0 && nv + v >= num_candidates);
    }
    if (s.IsSuccess()) {
      s = Status::Error("expected at least one victim pod on node \"" +
                        source->name() + "\"");
    }
    slot.status = std::move(s);
    return true;
  });

  std::vector<Candidate> violating_list;
  std::vector<std::string> errors;
  framework::CycleRecorder* recorder = state.recorder();
  for (Slot& slot : slots) {
    if (!slot.evaluated) continue;
    if (recorder != nullptr) {
      recorder->Preemption(slot.node,
                           slot.is_candidate
                               ? "candidate, " + DescribeVictims(slot.candidate)
                               : slot.status.Message());
    }
    if (slot.is_candidate) {
      auto& list = slot.candidate.victims.num_pdb_violations == 0
                       ? out.candidates
                       : violating_list;
      if (static_cast<int32_t>(list.size()) < num_candidates) {
        list.push_back(std::move(slot.candidate));
      }
      continue;
    }
    if (slot.status.code() == Code::kError) {
      errors.push_back(slot.status.Message());
    }
    out.statuses.Set(slot.node, slot.status);
  }
  for (Candidate& c : violating_list) out.candidates.push_back(std::move(c));
  if (!errors.empty()) out.error = Status::Error(AggregateErrors(errors));
  return out;
}

const Candidate* Evaluator::SelectCandidate(
    const std::vector<Candidate>& candidates) const {
  if (candidates.empty()) return nullptr;
  if (candidates.size() == 1) return &candidates.front();
  std::string node = PickOneNodeForPreemption(candidates, Now());
  for (const Candidate& c : candidates) {
    if (c.name == node) return &c;
  }
  return &candidates.front();
}

namespace {

// The victims that still need an API call: one whose graceful deletion has
// started is already on its way out (v1.35).
std::vector<framework::PodInfoPtr> VictimsToEvict(const Candidate& candidate) {
  std::vector<framework::PodInfoPtr> out;
  for (const framework::PodInfoPtr& victim : candidate.victims.pods) {
    if (!victim->terminating()) out.push_back(victim);
  }
  return out;
}

}  // namespace

Status Evaluator::PrepareCandidate(const Candidate& candidate,
                                   const framework::PodInfo& pod) {
  const std::vector<framework::PodInfoPtr> victims = VictimsToEvict(candidate);
  std::mutex mu;
  Status first_error;
  // Victims are evicted in parallel, as kube does: each is an API call.
  handle_.parallelizer().Until(static_cast<int>(victims.size()), [&](int i) {
    Status s = PreemptVictim(candidate, pod.pod(), *victims[i]);
    if (s.IsSuccess()) return true;
    std::lock_guard<std::mutex> lock(mu);
    if (first_error.IsSuccess()) first_error = Status::Error(s.Message());
    return false;
  });
  if (!first_error.IsSuccess()) return first_error;
  // A failure here is not fatal to this preemption (kube only logs it).
  (void)ClearLowerPriorityNominations(candidate.name, pod.pod());
  return Status();
}

void Evaluator::PrepareCandidateAsync(const Candidate& candidate,
                                      const framework::PodInfo& pod) {
  std::vector<framework::PodInfoPtr> victims = VictimsToEvict(candidate);
  if (victims.empty()) return;
  std::shared_ptr<const api::Pod> preemptor = pod.pod_ptr();
  const std::string uid = preemptor->metadata.uid;
  {
    // Marked before the cycle ends, so that the preemptor is held at
    // PreEnqueue when it is requeued.
    std::lock_guard lock(mu_);
    preempting_.insert(uid);
  }
  // The work outlives the cycle: it owns what it reads.
  handle_.RunInBackground([this, node = candidate.name,
                           victims = std::move(victims), preemptor, uid] {
    const util::Clock::TimePoint start = handle_.clock().Now();
    Candidate target{node, {}};
    bool failed = false;
    // Lower-priority pods nominated here may no longer fit: clearing their
    // nominations sends them elsewhere without waiting for the victims.
    if (!ClearLowerPriorityNominations(node, *preemptor)) failed = true;
    // Every victim but the last; after the first failure the rest of them
    // are not tried (kube cancels the remaining calls).
    bool victims_failed = false;
    for (size_t i = 0; i + 1 < victims.size(); ++i) {
      if (!PreemptVictim(target, *preemptor, *victims[i]).IsSuccess()) {
        victims_failed = true;
        break;
      }
    }
    // After a failure the last victim is spared (v1.36): the preemptor
    // comes back to its next cycle sooner, and may choose other victims.
    if (!victims_failed) {
      const framework::PodInfoPtr& last = victims.back();
      {
        std::lock_guard lock(mu_);
        last_victims_[uid] = PendingVictim{last->ns(), last->name()};
      }
      if (!PreemptVictim(target, *preemptor, *last).IsSuccess()) {
        victims_failed = true;
      }
    }
    if (victims_failed) failed = true;
    {
      std::lock_guard lock(mu_);
      preempting_.erase(uid);
      last_victims_.erase(uid);
    }
    if (framework::MetricsRecorder* m = handle_.metrics()) {
      m->ObservePreemptionGoroutine(failed ? "error" : "success",
                                    handle_.clock().Now() - start);
    }
    // A failed call may leave the preemptor in the pool with no event to
    // come for it: activate it (its next cycle may preempt again).
    if (failed) handle_.Activate({preemptor});
  });
}

bool Evaluator::IsPodRunningPreemption(const std::string& uid) const {
  PendingVictim last;
  {
    std::lock_guard lock(mu_);
    if (preempting_.count(uid) == 0) return false;
    auto it = last_victims_.find(uid);
    // Not at its last victim yet.
    if (it == last_victims_.end()) return true;
    last = it->second;
  }
  // At its last victim: done as soon as the cluster sees that victim go.
  std::shared_ptr<const api::Pod> victim = handle_.GetPod(last.ns, last.name);
  return victim != nullptr && !victim->metadata.deletion_timestamp.has_value();
}

Status Evaluator::PreemptVictim(const Candidate& candidate,
                                const api::Pod& preemptor,
                                const framework::PodInfo& victim_info) {
  framework::ClusterWriter* writer = handle_.writer();
  // What the cache keeps of a running pod is what these writes need.
  const api::Pod victim = victim_info.ToPod();
  // A victim not bound yet is stopped in memory, with no API call (v1.36):
  // one waiting at Permit goes back through backoff, one in PreBind has its
  // binding cycle cancelled. Either may have moved on already; it is then
  // deleted as a running pod is.
  bool in_memory = false;
  if (auto waiting = handle_.waiting_pods().Get(victim.metadata.uid)) {
    in_memory = waiting->Preempt(plugin_name_, "preempted");
  } else if (auto binding =
                 handle_.pods_in_prebind().Get(victim.metadata.uid)) {
    in_memory = binding->CancelPod("preempted by " + plugin_name_);
  }
  if (!in_memory && writer != nullptr) {
    if (auto condition = DisruptionCondition(preemptor, victim, Now())) {
      framework::PodStatusUpdate update;
      update.condition = std::move(*condition);
      Status s = writer->UpdatePodStatus(victim, update);
      if (!s.IsSuccess()) {
        // Already deleted is what the eviction wanted (v1.35 treats the
        // patch's NotFound so): no delete, and no Preempted event.
        std::shared_ptr<const api::Pod> current =
            handle_.GetPod(victim.metadata.ns, victim.metadata.name);
        if (current == nullptr ||
            current->metadata.uid != victim.metadata.uid) {
          return Status();
        }
        return s;
      }
    }
    Status s = writer->DeletePod(victim);
    if (!s.IsSuccess()) return s;
  }
  // Without a writer (a dry-run handle) nothing is evicted, but the
  // nomination is still reported.
  if (writer != nullptr) {
    writer->RecordEvent(victim, "Normal", "Preempted", "Preempting",
                        "Preempted by pod " + preemptor.metadata.uid +
                            " on node " + candidate.name +
                            (in_memory ? " (in kube-scheduler memory)." : ""));
  }
  return Status();
}

bool Evaluator::ClearLowerPriorityNominations(const std::string& node,
                                              const api::Pod& preemptor) {
  framework::PodNominator* nominator = handle_.nominator();
  if (nominator == nullptr) return true;
  bool ok = true;
  // Lower-priority pods nominated here may no longer fit once the
  // preemptor takes the room; clearing their nomination sends them back to
  // look elsewhere rather than wait for this node.
  const int32_t priority = PodPriority(preemptor);
  framework::ClusterWriter* writer = handle_.writer();
  for (const framework::PodInfoPtr& info :
       nominator->NominatedPodsForNode(node)) {
    const api::Pod& p = info->pod();
    if (PodPriority(p) >= priority) continue;
    // As util.ClearNominatedNodeName: only pods whose status says so.
    if (p.status.nominated_node_name.empty()) continue;
    if (writer != nullptr) {
      framework::PodStatusUpdate update;
      update.nominated_node_name = "";
      // The nomination then stays, as the API object does.
      if (!writer->UpdatePodStatus(p, update).IsSuccess()) {
        ok = false;
        continue;
      }
    }
    nominator->DeleteNominatedPodIfExists(p);
  }
  return ok;
}

}  // namespace ksched::plugins::defaultpreemption

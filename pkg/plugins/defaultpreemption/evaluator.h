// The preemption flow shared by preemption plugins (preemption.Evaluator):
// find the nodes where evicting lower-priority pods would let the pod fit,
// pick one, evict its victims and nominate it.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/framework/cycle_state.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/node_info.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/status.h"
#include "pkg/framework/types.h"
#include "pkg/plugins/defaultpreemption/candidates.h"
#include "pkg/plugins/defaultpreemption/pdb.h"

namespace ksched::plugins::defaultpreemption {

struct Eligibility {
  bool eligible = true;
  std::string reason;  // why not, when not
};

// What a preemption plugin decides itself (preemption.Interface).
class Interface {
 public:
  virtual ~Interface() = default;
  // A random starting offset into the potential nodes and how many
  // candidates the dry run should find.
  virtual std::pair<int32_t, int32_t> GetOffsetAndNumCandidates(
      int32_t num_nodes) = 0;
  virtual Eligibility PodEligibleToPreemptOthers(
      const api::Pod& pod,
      const framework::Status& nominated_node_status) const = 0;
  // The fewest pods to evict from `node` for `pod` to fit. `state` and
  // `node` are the caller's copies and are modified. Thread-safe.
  virtual framework::Status SelectVictimsOnNode(
      framework::CycleState& state, const framework::PodInfo& pod,
      framework::NodeInfo& node, const std::vector<CompiledPdb>& pdbs,
      Victims* victims) const = 0;
};

class Evaluator {
 public:
  // With `async` (SchedulerAsyncPreemption) the victims are evicted in the
  // background (Handle::RunInBackground) rather than within the cycle.
  Evaluator(std::string_view plugin_name, framework::Handle& handle,
            Interface& interface, bool async = false)
      : plugin_name_(plugin_name),
        handle_(handle),
        interface_(interface),
        async_(async) {}

  // Preempts for `pod`, given the filter statuses of the nodes. On success
  // result->nominated_node_name is the node. When preemption cannot help,
  // returns Unschedulable with the per-node reasons and asks to clear the
  // pod's nomination; when the pod may not preempt (or on errors), leaves
  // *result untouched.
  framework::Status Preempt(framework::CycleState& state,
                            const framework::PodInfo& pod,
                            const framework::NodeToStatus& filtered,
                            framework::PostFilterResult* result);

  struct DryRunResult {
    // Candidates without PDB violations first, then the others.
    std::vector<Candidate> candidates;
    // Why each evaluated node that is not a candidate is not one.
    framework::NodeToStatus statuses;
    // The errors of nodes that failed, aggregated; success when none.
    framework::Status error;
  };
  // Simulates preemption on the nodes, in parallel, starting at `offset`
  // and wrapping around; stops once `num_candidates` candidates (at least
  // one without PDB violations) are found.
  DryRunResult DryRunPreemption(
      const framework::CycleState& state, const framework::PodInfo& pod,
      const std::vector<framework::NodeInfoPtr>& potential_nodes,
      const std::vector<CompiledPdb>& pdbs, int32_t offset,
      int32_t num_candidates);

  // The best candidate; nullptr when there is none.
  const Candidate* SelectCandidate(
      const std::vector<Candidate>& candidates) const;

  // Evicts the victims (rejecting those waiting at Permit) and clears the
  // nomination of lower-priority pods nominated to the node. Victims already
  // being deleted are left alone (v1.35).
  framework::Status PrepareCandidate(const Candidate& candidate,
                                     const framework::PodInfo& pod);
  // As PrepareCandidate, in the background: the preemptor is marked as
  // preempting at once, and stays so until the work is done (kube's
  // prepareCandidateAsync, KEP-4832). Every victim but the last is evicted
  // first; the last one is recorded before its eviction, so that the
  // preemptor counts as done as soon as the cluster sees that victim go,
  // and the deletion event that follows finds it no longer held. When an
  // API call fails the preemptor is activated, since no event may ever
  // release it from the pool otherwise.
  void PrepareCandidateAsync(const Candidate& candidate,
                             const framework::PodInfo& pod);
  // Whether `uid`'s asynchronous preemption is still under way: marked, and
  // either not at its last victim yet or that victim is still in the
  // cluster without a deletion timestamp (Handle::GetPod).
  bool IsPodRunningPreemption(const std::string& uid) const;
  bool async() const { return async_; }

 private:
  // A victim by namespace and name, as the pod lister is asked.
  struct PendingVictim {
    std::string ns;
    std::string name;
  };

  framework::Status PreemptVictim(const Candidate& candidate,
                                  const api::Pod& preemptor,
                                  const framework::PodInfo& victim_info);
  // False when clearing some nomination failed.
  bool ClearLowerPriorityNominations(const std::string& node,
                                     const api::Pod& preemptor);
  api::Timestamp Now() const;

  std::string plugin_name_;
  framework::Handle& handle_;
  Interface& interface_;
  const bool async_;
  mutable std::mutex mu_;
  // Preemptors whose background preemption has not finished.
  std::set<std::string> preempting_;
  // Preemptor -> the victim whose eviction ends its preemption.
  std::map<std::string, PendingVictim> last_victims_;
};

}  // namespace ksched::plugins::defaultpreemption

// The extension points of a scheduling profile (framework/interface.go).
//
// A plugin implements Plugin plus one interface per extension point it
// serves. Filter and Score run on many nodes at once from worker threads, so
// they are const and must only read the CycleState and the NodeInfo.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/framework/cluster_event.h"
#include "pkg/framework/cycle_state.h"
#include "pkg/framework/node_info.h"
#include "pkg/framework/status.h"
#include "pkg/framework/types.h"

namespace ksched::framework {

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view Name() const = 0;
};

// Orders the active queue. Exactly one per profile.
class QueueSortPlugin : public virtual Plugin {
 public:
  virtual bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
};

// Cluster events that may make a pod this plugin rejected schedulable.
class EnqueueExtensions : public virtual Plugin {
 public:
  virtual std::vector<ClusterEventWithHint> EventsToRegister() const = 0;
};

// Runs before a pod enters the active queue; a non-success keeps it gated.
class PreEnqueuePlugin : public virtual Plugin {
 public:
  virtual Status PreEnqueue(const api::Pod& pod) const = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  // May narrow the nodes to filter through *result (left "all nodes" when
  // untouched). Returning Skip skips this plugin's Filter for the cycle.
  virtual Status PreFilter(CycleState& state, const PodInfo& pod,
                           const std::vector<NodeInfoPtr>& nodes,
                           PreFilterResult* result) = 0;

  // PreFilterExtensions: keep the precomputed state correct when preemption
  // tries the cycle with a pod added to or removed from a node.
  virtual bool HasExtensions() const { return false; }
  virtual Status AddPod(CycleState& /*state*/, const PodInfo& /*pod*/,
                        const PodInfoPtr& /*to_add*/,
                        const NodeInfo& /*node*/) const {
    return Status();
  }
  virtual Status RemovePod(CycleState& /*state*/, const PodInfo& /*pod*/,
                           const PodInfoPtr& /*to_remove*/,
                           const NodeInfo& /*node*/) const {
    return Status();
  }
};

// SignPlugin: a plugin that can say which parts of a pod its PreFilter,
// Filter, PreScore and Score read (opportunistic batching, KEP-5598). Two
// pods whose signed parts are equal get the same verdicts and raw scores on
// an unchanged node, so a cycle may reuse the previous one's. A plugin in
// those sets that is not a SignPlugin makes every pod unsignable.
class SignPlugin : public virtual Plugin {
 public:
  // Copies the fields of `pod` this plugin reads into `into` (a pod that
  // starts empty, with as many containers and init containers as `pod`,
  // and is shared by all plugins). False: this pod cannot be signed (the
  // plugin's answers depend on more than the pod and one node).
  virtual bool SignPod(const api::Pod& pod, api::Pod& into) const = 0;
  // Whether, when it runs at all in a cycle, this plugin's Filter verdict
  // and raw Score for a node depend on nothing but the signed parts of the
  // pod, that node's NodeInfo and the number of nodes in the snapshot (no
  // other node, no other API object, no nominated pod), and its
  // NormalizeScore reads only scores. The scheduler then keeps its answers
  // per node generation across cycles (scheduler/node_result_memo.h).
  virtual bool NodeLocal() const { return false; }
};

class FilterPlugin : public virtual Plugin {
 public:
  virtual Status Filter(const CycleState& state, const PodInfo& pod,
                        const NodeInfo& node) const = 0;
  // Whether an error (not a rejection) from this plugin's Filter depends on
  // the cycle state alone, never on which node (with its Node) is asked: a
  // missing PreFilter state, say, but not a lookup made for the node. Only
  // then may a later plugin's FilterCandidates stand for this plugin's
  // verdict on the nodes it leaves out (see FilterCandidatesPlugin).
  virtual bool FilterErrorsAreCycleWide() const { return false; }
};

// Node names, as a FilterCandidatesPlugin gives them; the views stay valid
// while the list is held.
using NodeNames = std::vector<std::string_view>;

// A Filter plugin that can name, after its PreFilter, every node its Filter
// might pass in this cycle: on any other node it rejects (never errs), so
// the pod fits none of them whatever the plugins before it say. The
// scheduler then rejects those nodes without filtering them, and works
// out their statuses only when the pod fits nowhere and a failure has to
// be explained (a GPU pod is refused by thousands of CPU-only nodes, one
// by one, for a reason known once per cycle). Unlike a PreFilterResult it
// changes no decision and no message.
class FilterCandidatesPlugin : public virtual Plugin {
 public:
  // The candidates, or null when any node might pass. The same list (by
  // address) across cycles lets the scheduler keep its positions.
  virtual std::shared_ptr<const NodeNames> FilterCandidates(
      const CycleState& state) const = 0;
};

class PostFilterPlugin : public virtual Plugin {
 public:
  virtual Status PostFilter(CycleState& state, const PodInfo& pod,
                            const NodeToStatus& filtered,
                            PostFilterResult* result) = 0;
};

class PreScorePlugin : public virtual Plugin {
 public:
  // Returning Skip skips this plugin's Score for the cycle.
  virtual Status PreScore(CycleState& state, const PodInfo& pod,
                          const std::vector<NodeInfoPtr>& nodes) = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  virtual Status Score(const CycleState& state, const PodInfo& pod,
                       const NodeInfo& node, int64_t* score) const = 0;
  // ScoreExtensions: maps raw scores onto [0, kMaxNodeScore].
  virtual bool HasNormalizeScore() const { return false; }
  virtual Status NormalizeScore(const CycleState& /*state*/,
                                const PodInfo& /*pod*/,
                                NodeScoreList& /*scores*/) const {
    return Status();
  }
};

class ReservePlugin : public virtual Plugin {
 public:
  virtual Status Reserve(CycleState& state, const PodInfo& pod,
                         const std::string& node) = 0;
  // Must undo Reserve; also called when Reserve itself was not reached.
  virtual void Unreserve(CycleState& state, const PodInfo& pod,
                         const std::string& node) = 0;
};

class PermitPlugin : public virtual Plugin {
 public:
  // Success, Wait (for at most *timeout) or a rejection.
  virtual Status Permit(CycleState& state, const PodInfo& pod,
                        const std::string& node,
                        std::chrono::milliseconds* timeout) = 0;
};

// What a PreBind plugin says of its PreBind besides whether it has work.
struct PreBindPreFlightResult {
  // PreBind may run at the same time as the PreBind of the plugins next to
  // this one in the profile that allow it too (v1.36): it only reads the
  // cycle state, changes its own data and stops once the binding
  // cancellation is set.
  bool allow_parallel = false;
};

class PreBindPlugin : public virtual Plugin {
 public:
  // May be cancelled while it runs: see CycleState::binding_cancellation.
  virtual Status PreBind(CycleState& state, const PodInfo& pod,
                         const std::string& node) = 0;
  // Whether PreBind will do something for the pod on `node` (v1.34+):
  // Success if it will (it may take time, so the pod's nominatedNodeName is
  // written first), Skip if not (PreBind is then not called), Error on
  // failure. A plugin that cannot tell answers Success, which keeps its
  // PreBind.
  virtual Status PreBindPreFlight(CycleState& state, const PodInfo& pod,
                                  const std::string& node,
                                  PreBindPreFlightResult& result) {
    (void)state;
    (void)pod;
    (void)node;
    (void)result;
    return Status();
  }
};

class BindPlugin : public virtual Plugin {
 public:
  // Skip hands the pod to the next Bind plugin.
  virtual Status Bind(CycleState& state, const PodInfo& pod,
                      const std::string& node) = 0;
};

class PostBindPlugin : public virtual Plugin {
 public:
  virtual void PostBind(CycleState& state, const PodInfo& pod,
                        const std::string& node) = 0;
};

}  // namespace ksched::framework

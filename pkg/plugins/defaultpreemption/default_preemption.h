// DefaultPreemption: the PostFilter plugin that, when a pod fits nowhere,
// evicts lower-priority pods from one node so that it fits there and
// nominates that node (kube-scheduler v1.35's defaultpreemption, without
// extenders). With SchedulerAsyncPreemption (Handle::features, on since
// v1.33) the victims are evicted in the background and the preemptor is held
// at PreEnqueue until that is done; off (v1.32), within the cycle.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/defaultpreemption/evaluator.h"
#include "pkg/plugins/names.h"
#include "pkg/util/random.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

class DefaultPreemption final : public framework::PostFilterPlugin,
                                public framework::PreEnqueuePlugin,
                                public framework::EnqueueExtensions,
                                public defaultpreemption::Interface {
 public:
  // `random` picks where the dry run starts among the potential nodes; it
  // must outlive the plugin.
  DefaultPreemption(const config::DefaultPreemptionArgs& args,
                    framework::Handle& handle, util::Random& random);
  // Uses a randomly seeded source of its own.
  DefaultPreemption(const config::DefaultPreemptionArgs& args,
                    framework::Handle& handle);

  std::string_view Name() const override { return names::kDefaultPreemption; }
  // With asynchronous preemption, Pod/Delete with a hint that always says
  // QueueSkip: the event must reach the pods this plugin holds (a victim's
  // deletion may end the hold), but whether it helps them is for the
  // plugins that rejected them to say. Without it, none: the plugin never
  // holds a pod then.
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;
  // Holds a pod whose asynchronous preemption is still under way.
  framework::Status PreEnqueue(const api::Pod& pod) const override;
  framework::Status PostFilter(framework::CycleState& state,
                               const framework::PodInfo& pod,
                               const framework::NodeToStatus& filtered,
                               framework::PostFilterResult* result) override;

  // ---- defaultpreemption::Interface ----
  std::pair<int32_t, int32_t> GetOffsetAndNumCandidates(
      int32_t num_nodes) override;
  // Not eligible with preemptionPolicy Never, or while lower-priority
  // victims of an earlier preemption are still terminating on the pod's
  // nominated node (unless filtering found that node unresolvable).
  defaultpreemption::Eligibility PodEligibleToPreemptOthers(
      const api::Pod& pod,
      const framework::Status& nominated_node_status) const override;
  framework::Status SelectVictimsOnNode(
      framework::CycleState& state, const framework::PodInfo& pod,
      framework::NodeInfo& node,
      const std::vector<defaultpreemption::CompiledPdb>& pdbs,
      defaultpreemption::Victims* victims) const override;

  // max(minCandidateNodesPercentage% of the nodes,
  // minCandidateNodesAbsolute), at most num_nodes.
  int32_t CalculateNumCandidates(int32_t num_nodes) const;
  defaultpreemption::Evaluator& evaluator() { return evaluator_; }

 private:
  config::DefaultPreemptionArgs args_;
  framework::Handle& handle_;
  std::unique_ptr<util::Random> owned_random_;
  util::Random* random_;
  defaultpreemption::Evaluator evaluator_;
};

util::Result<std::unique_ptr<framework::Plugin>> NewDefaultPreemption(
    const config::PluginArgs* args, framework::Handle& handle);
// As NewDefaultPreemption, drawing the dry run's offset from `random`
// (tests register this to be deterministic).
util::Result<std::unique_ptr<framework::Plugin>> NewDefaultPreemptionWithRandom(
    const config::PluginArgs* args, framework::Handle& handle,
    util::Random& random);

}  // namespace ksched::plugins

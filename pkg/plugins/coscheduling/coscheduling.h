// Coscheduling: gang scheduling with scheduler-plugins' semantics and
// arguments (pkg/coscheduling). The members of a gang are sorted together,
// refused early when the gang cannot be complete, held at Permit until
// minMember of them are placed, then let go at once; a member that fits
// nowhere, or a wait that times out, releases the whole gang.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/coscheduling/gang_manager.h"
#include "pkg/plugins/coscheduling/pod_group_source.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

class Coscheduling final : public framework::QueueSortPlugin,
                           public framework::PreFilterPlugin,
                           public framework::PostFilterPlugin,
                           public framework::ReservePlugin,
                           public framework::PermitPlugin,
                           public framework::EnqueueExtensions {
 public:
  // Gangs from `source`, which must outlive the plugin.
  Coscheduling(const config::CoschedulingArgs& args, framework::Handle& handle,
               std::unique_ptr<coscheduling::GangSource> source);

  std::string_view Name() const override { return names::kCoscheduling; }

  // Priority first; then the gang's time (its last failure, else its
  // creation; a pod of no gang: when it was first queued); then
  // namespace/name, so that a gang's members come out one after another.
  bool Less(const framework::QueuedPodInfo& a,
            const framework::QueuedPodInfo& b) const override;

  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes,
                              framework::PreFilterResult* result) override;
  framework::Status PostFilter(framework::CycleState& state,
                               const framework::PodInfo& pod,
                               const framework::NodeToStatus& filtered,
                               framework::PostFilterResult* result) override;
  framework::Status Reserve(framework::CycleState& state,
                            const framework::PodInfo& pod,
                            const std::string& node) override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                 const std::string& node) override;
  framework::Status Permit(framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const std::string& node,
                           std::chrono::milliseconds* timeout) override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;

  coscheduling::GangManager& manager() { return manager_; }

 private:
  // Rejects every member of the gang `key` waiting at Permit.
  void RejectWaitingMembers(const std::string& key, const std::string& reason);
  // Adds the other members of `pod`'s gang to the cycle's pods to activate.
  void ActivateSiblings(framework::CycleState& state, const api::Pod& pod);
  // A steady queue time as wall time, to compare with a gang's creation.
  api::Timestamp ToWall(util::Clock::TimePoint t) const;

  framework::Handle& handle_;
  config::CoschedulingArgs args_;
  std::unique_ptr<coscheduling::GangSource> source_;
  coscheduling::GangManager manager_;
  // Wall time minus steady time, taken once.
  std::chrono::microseconds wall_offset_{0};
};

util::Result<std::unique_ptr<framework::Plugin>> NewCoscheduling(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

// PodGroupSource: gangs from scheduler-plugins' PodGroup custom resource.
// A pod names its group with the label scheduling.x-k8s.io/pod-group; the
// group lives in the pod's namespace.
#pragma once

#include "pkg/framework/cluster_objects.h"
#include "pkg/framework/pod_group_members.h"
#include "pkg/plugins/coscheduling/gang.h"

namespace ksched::plugins::coscheduling {

class PodGroupSource final : public GangSource {
 public:
  // `members` may be null: no member is then ever known.
  PodGroupSource(const framework::ClusterObjects& objects,
                 const framework::PodGroupMembers* members)
      : objects_(objects), members_(members) {}

  std::string KeyOf(const api::Pod& pod) const override;
  std::optional<Gang> Find(const api::Pod& pod) const override;
  std::optional<api::Timestamp> Created(const api::Pod& pod) const override;
  std::vector<std::shared_ptr<const api::Pod>> Members(
      const api::Pod& pod) const override;

 private:
  const framework::ClusterObjects& objects_;
  const framework::PodGroupMembers* members_;
};

}  // namespace ksched::plugins::coscheduling

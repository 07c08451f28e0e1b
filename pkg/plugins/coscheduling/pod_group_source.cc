#include "pkg/plugins/coscheduling/pod_group_source.h"

namespace ksched::plugins::coscheduling {

std::string PodGroupSource::KeyOf(const api::Pod& pod) const {
  std::string_view name = framework::PodGroupName(pod);
  if (name.empty()) return {};
  return pod.metadata.ns + "/" + std::string(name);
}

std::optional<Gang> PodGroupSource::Find(const api::Pod& pod) const {
  std::string_view name = framework::PodGroupName(pod);
  if (name.empty()) return std::nullopt;
  std::shared_ptr<const api::PodGroup> group =
      objects_.GetPodGroup(pod.metadata.ns, name);
  if (group == nullptr) return std::nullopt;
  Gang gang;
  gang.ns = group->metadata.ns;
  gang.name = group->metadata.name;
  gang.key = gang.ns + "/" + gang.name;
  gang.min_member = group->spec.min_member;
  gang.min_resources = group->spec.min_resources;
  if (group->spec.schedule_timeout_seconds.has_value()) {
    gang.schedule_timeout =
        std::chrono::seconds(*group->spec.schedule_timeout_seconds);
  }
  gang.created = group->metadata.creation_timestamp.value;
  return gang;
}

std::optional<api::Timestamp> PodGroupSource::Created(
    const api::Pod& pod) const {
  std::string_view name = framework::PodGroupName(pod);
  if (name.empty()) return std::nullopt;
  std::shared_ptr<const api::PodGroup> group =
      objects_.GetPodGroup(pod.metadata.ns, name);
  if (group == nullptr) return std::nullopt;
  return group->metadata.creation_timestamp.value;
}

std::vector<std::shared_ptr<const api::Pod>> PodGroupSource::Members(
    const api::Pod& pod) const {
  std::string_view name = framework::PodGroupName(pod);
  if (name.empty() || members_ == nullptr) return {};
  return members_->List(pod.metadata.ns, name);
}

}  // namespace ksched::plugins::coscheduling

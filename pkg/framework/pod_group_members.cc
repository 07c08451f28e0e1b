#include "pkg/framework/pod_group_members.h"

#include "pkg/api/podgroup.h"

namespace ksched::framework {

std::string_view PodGroupName(const api::Pod& pod) {
  const std::string* name = pod.metadata.labels.Find(api::kPodGroupLabel);
  return name == nullptr ? std::string_view() : std::string_view(*name);
}

std::string PodGroupMembers::Key(std::string_view ns, std::string_view name) {
  std::string key;
  key.reserve(ns.size() + name.size() + 1);
  key.append(ns).append("/").append(name);
  return key;
}

void PodGroupMembers::Upsert(std::shared_ptr<const api::Pod> pod) {
  const std::string_view group = PodGroupName(*pod);
  const std::string& uid = pod->metadata.uid;
  std::lock_guard<std::mutex> lock(mu_);
  auto was = group_of_.find(uid);
  std::string key =
      group.empty() ? std::string() : Key(pod->metadata.ns, group);
  if (was != group_of_.end() && was->second != key) {
    auto it = groups_.find(was->second);
    if (it != groups_.end()) {
      it->second.erase(uid);
      if (it->second.empty()) groups_.erase(it);
    }
    group_of_.erase(was);
  }
  if (key.empty()) return;
  group_of_[uid] = key;
  groups_[key][uid] = std::move(pod);
}

void PodGroupMembers::Remove(const api::Pod& pod) {
  std::lock_guard<std::mutex> lock(mu_);
  auto was = group_of_.find(pod.metadata.uid);
  if (was == group_of_.end()) return;
  auto it = groups_.find(was->second);
  if (it != groups_.end()) {
    it->second.erase(pod.metadata.uid);
    if (it->second.empty()) groups_.erase(it);
  }
  group_of_.erase(was);
}

std::vector<std::shared_ptr<const api::Pod>> PodGroupMembers::List(
    std::string_view ns, std::string_view name) const {
  std::vector<std::shared_ptr<const api::Pod>> out;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = groups_.find(Key(ns, name));
  if (it == groups_.end()) return out;
  out.reserve(it->second.size());
  for (const auto& [uid, pod] : it->second) out.push_back(pod);
  return out;
}

}  // namespace ksched::framework

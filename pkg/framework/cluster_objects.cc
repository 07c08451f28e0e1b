#include "pkg/framework/cluster_objects.h"

namespace ksched::framework {
namespace {

template <typename Map>
auto Find(const Map& map, std::string_view key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : it->second;
}

template <typename Map>
auto Values(const Map& map) {
  std::vector<typename Map::mapped_type> out;
  out.reserve(map.size());
  for (const auto& [key, value] : map) out.push_back(value);
  return out;
}

}  // namespace

void InMemoryClusterObjects::Upsert(api::Namespace ns) {
  std::string key = ns.metadata.name;
  std::lock_guard<std::mutex> lock(mu_);
  namespaces_[key] = std::make_shared<const api::Namespace>(std::move(ns));
}
void InMemoryClusterObjects::Upsert(api::PodDisruptionBudget pdb) {
  std::string key = Key(pdb.metadata.ns, pdb.metadata.name);
  std::lock_guard<std::mutex> lock(mu_);
  pdbs_[key] = std::make_shared<const api::PodDisruptionBudget>(std::move(pdb));
}
void InMemoryClusterObjects::Upsert(api::PersistentVolumeClaim pvc) {
  std::string key = Key(pvc.metadata.ns, pvc.metadata.name);
  std::lock_guard<std::mutex> lock(mu_);
  pvcs_[key] =
      std::make_shared<const api::PersistentVolumeClaim>(std::move(pvc));
}
void InMemoryClusterObjects::Upsert(api::PersistentVolume pv) {
  std::string key = pv.metadata.name;
  std::lock_guard<std::mutex> lock(mu_);
  pvs_[key] = std::make_shared<const api::PersistentVolume>(std::move(pv));
}
void InMemoryClusterObjects::Upsert(api::StorageClass sc) {
  std::string key = sc.metadata.name;
  std::lock_guard<std::mutex> lock(mu_);
  storage_classes_[key] =
      std::make_shared<const api::StorageClass>(std::move(sc));
}
void InMemoryClusterObjects::Upsert(api::CsiNode csi_node) {
  std::string key = csi_node.metadata.name;
  std::lock_guard<std::mutex> lock(mu_);
  csi_nodes_[key] = std::make_shared<const api::CsiNode>(std::move(csi_node));
}
void InMemoryClusterObjects::Upsert(api::CsiDriver csi_driver) {
  std::string key = csi_driver.metadata.name;
  std::lock_guard<std::mutex> lock(mu_);
  csi_drivers_[key] =
      std::make_shared<const api::CsiDriver>(std::move(csi_driver));
}
void InMemoryClusterObjects::Upsert(api::VolumeAttachment attachment) {
  std::string key = attachment.metadata.name;
  auto stored =
      std::make_shared<const api::VolumeAttachment>(std::move(attachment));
  std::lock_guard<std::mutex> lock(mu_);
  auto old = attachments_.find(key);
  if (old != attachments_.end()) {
    // spec.nodeName is immutable, but a delete and re-create may move it.
    auto on_node = attachments_by_node_.find(old->second->spec.node_name);
    if (on_node != attachments_by_node_.end()) {
      on_node->second.erase(key);
      if (on_node->second.empty()) attachments_by_node_.erase(on_node);
    }
  }
  attachments_by_node_[stored->spec.node_name][key] = stored;
  attachments_[key] = std::move(stored);
}

void InMemoryClusterObjects::Upsert(api::PodGroup group) {
  std::string key = Key(group.metadata.ns, group.metadata.name);
  std::lock_guard<std::mutex> lock(mu_);
  pod_groups_[key] = std::make_shared<const api::PodGroup>(std::move(group));
}
void InMemoryClusterObjects::DeletePodGroup(const std::string& ns,
                                            const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  pod_groups_.erase(Key(ns, name));
}
void InMemoryClusterObjects::DeleteNamespace(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  namespaces_.erase(name);
}
void InMemoryClusterObjects::DeletePodDisruptionBudget(
    const std::string& ns, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  pdbs_.erase(Key(ns, name));
}
void InMemoryClusterObjects::DeletePersistentVolumeClaim(
    const std::string& ns, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  pvcs_.erase(Key(ns, name));
}
void InMemoryClusterObjects::DeletePersistentVolume(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  pvs_.erase(name);
}
void InMemoryClusterObjects::DeleteStorageClass(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  storage_classes_.erase(name);
}
void InMemoryClusterObjects::DeleteCsiNode(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  csi_nodes_.erase(name);
}
void InMemoryClusterObjects::DeleteCsiDriver(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  csi_drivers_.erase(name);
}
void InMemoryClusterObjects::DeleteVolumeAttachment(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = attachments_.find(name);
  if (it == attachments_.end()) return;
  auto on_node = attachments_by_node_.find(it->second->spec.node_name);
  if (on_node != attachments_by_node_.end()) {
    on_node->second.erase(name);
    if (on_node->second.empty()) attachments_by_node_.erase(on_node);
  }
  attachments_.erase(it);
}

std::shared_ptr<const api::PodGroup> InMemoryClusterObjects::GetPodGroup(
    std::string_view ns, std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return Find(pod_groups_, Key(ns, name));
}
std::vector<std::shared_ptr<const api::PodGroup>>
InMemoryClusterObjects::ListPodGroups() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Values(pod_groups_);
}
std::shared_ptr<const api::Namespace> InMemoryClusterObjects::GetNamespace(
    std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return Find(namespaces_, name);
}
std::vector<std::shared_ptr<const api::PodDisruptionBudget>>
InMemoryClusterObjects::ListPodDisruptionBudgets() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Values(pdbs_);
}
std::shared_ptr<const api::PersistentVolumeClaim>
InMemoryClusterObjects::GetPersistentVolumeClaim(std::string_view ns,
                                                 std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return Find(pvcs_, Key(ns, name));
}
std::shared_ptr<const api::PersistentVolume>
InMemoryClusterObjects::GetPersistentVolume(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return Find(pvs_, name);
}
std::vector<std::shared_ptr<const api::PersistentVolume>>
InMemoryClusterObjects::ListPersistentVolumes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Values(pvs_);
}
std::shared_ptr<const api::StorageClass>
InMemoryClusterObjects::GetStorageClass(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return Find(storage_classes_, name);
}
std::shared_ptr<const api::CsiNode> InMemoryClusterObjects::GetCsiNode(
    std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return Find(csi_nodes_, name);
}
std::shared_ptr<const api::CsiDriver> InMemoryClusterObjects::GetCsiDriver(
    std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return Find(csi_drivers_, name);
}
std::vector<std::shared_ptr<const api::VolumeAttachment>>
InMemoryClusterObjects::ListVolumeAttachments(std::string_view node) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = attachments_by_node_.find(node);
  if (it == attachments_by_node_.end()) return {};
  return Values(it->second);
}

}  // namespace ksched::framework

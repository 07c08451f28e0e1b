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

}  // namespace ksched::framework

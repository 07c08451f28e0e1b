#include "pkg/plugins/volumebinding/assume_cache.h"

#include <utility>

#include "pkg/config/field_errors.h"
#include "pkg/plugins/volumebinding/pv_helpers.h"

namespace ksched::plugins::volumebinding {
namespace {

std::string Key(std::string_view ns, std::string_view name) {
  std::string key(ns);
  key += '/';
  key += name;
  return key;
}

}  // namespace

std::shared_ptr<const api::PersistentVolume> AssumeCache::OverlayLocked(
    std::shared_ptr<const api::PersistentVolume> current) {
  if (current == nullptr) return current;
  auto it = volumes_.find(current->metadata.name);
  if (it == volumes_.end()) return current;
  if (current->metadata.resource_version != it->second.resource_version ||
      current->spec.claim_ref) {
    volumes_.erase(it);
    return current;
  }
  auto assumed = std::make_shared<api::PersistentVolume>(*current);
  assumed->spec.claim_ref = it->second.claim_ref;
  if (it->second.bound_by_controller) {
    assumed->metadata.annotations.Set(kAnnBoundByController, "yes");
  }
  return assumed;
}

std::shared_ptr<const api::PersistentVolumeClaim> AssumeCache::OverlayLocked(
    std::shared_ptr<const api::PersistentVolumeClaim> current,
    const std::string& key) {
  auto it = claims_.find(key);
  if (it == claims_.end()) return current;
  if (current == nullptr ||
      current->metadata.resource_version != it->second.resource_version ||
      current->metadata.annotations.Contains(api::kAnnSelectedNode) ||
      !current->spec.volume_name.empty()) {
    claims_.erase(it);
    return current;
  }
  auto assumed = std::make_shared<api::PersistentVolumeClaim>(*current);
  assumed->metadata.annotations.Set(api::kAnnSelectedNode, it->second.node);
  return assumed;
}

std::shared_ptr<const api::PersistentVolumeClaim> AssumeCache::GetClaim(
    const framework::ClusterObjects& objects, std::string_view ns,
    std::string_view name) {
  auto current = objects.GetPersistentVolumeClaim(ns, name);
  std::lock_guard<std::mutex> lock(mu_);
  return OverlayLocked(std::move(current), Key(ns, name));
}

std::shared_ptr<const api::PersistentVolume> AssumeCache::GetVolume(
    const framework::ClusterObjects& objects, std::string_view name) {
  auto current = objects.GetPersistentVolume(name);
  std::lock_guard<std::mutex> lock(mu_);
  if (current == nullptr) {
    // The PV is gone: so is anything assumed about it.
    if (auto it = volumes_.find(name); it != volumes_.end()) volumes_.erase(it);
    return nullptr;
  }
  return OverlayLocked(std::move(current));
}

std::vector<std::shared_ptr<const api::PersistentVolume>>
AssumeCache::ListVolumes(const framework::ClusterObjects& objects,
                         std::string_view class_name) {
  std::vector<std::shared_ptr<const api::PersistentVolume>> out;
  auto all = objects.ListPersistentVolumes();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& pv : all) {
    // The overlay never changes the class, so filter first.
    if (pv == nullptr || VolumeClass(*pv) != class_name) continue;
    out.push_back(OverlayLocked(std::move(pv)));
  }
  return out;
}

util::Result<void> AssumeCache::AssumeVolume(
    const framework::ClusterObjects& objects,
    const api::PersistentVolume& volume) {
  auto current = objects.GetPersistentVolume(volume.metadata.name);
  if (current == nullptr || !volume.spec.claim_ref) {
    return util::Error("PersistentVolume " +
                       config::GoQuote(volume.metadata.name) + " not found");
  }
  std::lock_guard<std::mutex> lock(mu_);
  volumes_[volume.metadata.name] = AssumedVolume{
      current->metadata.resource_version, *volume.spec.claim_ref,
      volume.metadata.annotations.Contains(kAnnBoundByController)};
  return {};
}

util::Result<void> AssumeCache::AssumeClaim(
    const framework::ClusterObjects& objects,
    const api::PersistentVolumeClaim& claim, const std::string& node) {
  auto current =
      objects.GetPersistentVolumeClaim(claim.metadata.ns, claim.metadata.name);
  if (current == nullptr) {
    return util::Error("PersistentVolumeClaim " +
                       config::GoQuote(ClaimKey(claim)) + " not found");
  }
  std::lock_guard<std::mutex> lock(mu_);
  claims_[ClaimKey(claim)] =
      AssumedClaim{current->metadata.resource_version, node};
  return {};
}

void AssumeCache::RestoreVolume(std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = volumes_.find(name); it != volumes_.end()) volumes_.erase(it);
}

void AssumeCache::RestoreClaim(std::string_view ns, std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = claims_.find(Key(ns, name)); it != claims_.end()) {
    claims_.erase(it);
  }
}

std::optional<api::ObjectReference> AssumeCache::AssumedClaimRef(
    std::string_view volume) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = volumes_.find(volume);
  if (it == volumes_.end()) return std::nullopt;
  return it->second.claim_ref;
}

std::optional<std::string> AssumeCache::AssumedSelectedNode(
    std::string_view ns, std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = claims_.find(Key(ns, name));
  if (it == claims_.end()) return std::nullopt;
  return it->second.node;
}

}  // namespace ksched::plugins::volumebinding

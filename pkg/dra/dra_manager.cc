#include "pkg/dra/dra_manager.h"

#include <charconv>
#include <utility>

namespace ksched::dra {
namespace dra_manager_detail {
namespace {

// The resourceVersion as the assume cache compares it (an integer; an
// unparsable one counts as 0).
int64_t Version(const api::ResourceClaim& c) {
  const std::string& rv = c.metadata.resource_version;
  int64_t v = 0;
  std::from_chars(rv.data(), rv.data() + rv.size(), v);
  return v;
}

// Calls dedicated(DeviceId) for every device the claim's allocation holds
// for itself, and shared(DeviceId, result) for every share of a device
// (with consumable capacity on), leaving out results with admin access
// (they do not take a device from others).
template <typename D, typename S>
void ForeachAllocatedDevice(const api::ResourceClaim& c,
                            bool consumable_capacity, D&& dedicated,
                            S&& shared) {
  if (!c.status.allocation) return;
  for (const api::DeviceRequestAllocationResult& r :
       c.status.allocation->devices.results) {
    if (r.admin_access.value_or(false)) continue;
    DeviceId id{r.driver, r.pool, r.device};
    if (consumable_capacity && r.share_id) {
      shared(std::move(id), r);
    } else {
      dedicated(std::move(id));
    }
  }
}

ConsumedCapacity Consumed(const api::DeviceRequestAllocationResult& r) {
  ConsumedCapacity out;
  for (const auto& [name, value] : r.consumed_capacity)
    out.emplace(name, value);
  return out;
}

}  // namespace
}  // namespace dra_manager_detail
using namespace dra_manager_detail;

void DraManager::SetListener(Listener listener) {
  std::lock_guard lock(mu_);
  listener_ = std::move(listener);
}

std::string DraManager::Key(std::string_view ns, std::string_view name) {
  std::string key;
  key.reserve(ns.size() + name.size() + 1);
  key.append(ns).append("/").append(name);
  return key;
}

void DraManager::Notify(framework::EventResource resource, uint32_t action,
                        const api::ResourceClaim* old_claim,
                        const api::ResourceClaim* new_claim) {
  framework::EventObjects objs;
  objs.old_claim = old_claim;
  objs.new_claim = new_claim;
  NotifyObjects(resource, action, objs);
}

void DraManager::NotifyObjects(framework::EventResource resource,
                               uint32_t action,
                               const framework::EventObjects& objs) {
  Listener listener;
  {
    std::lock_guard lock(mu_);
    listener = listener_;
  }
  if (!listener) return;
  listener(framework::ClusterEvent{resource, action}, objs);
}

// ---- classes and slices ----

void DraManager::MapResourcesLocked(
    const std::shared_ptr<const api::DeviceClass>& now,
    const api::DeviceClass* old) {
  const std::optional<std::string>& name = now->spec.extended_resource_name;
  if (name) {
    auto held = resource_classes_.find(*name);
    if (held != resource_classes_.end() && held->second != nullptr) {
      const api::DeviceClass& other = *held->second;
      const auto mine = now->metadata.creation_timestamp.value;
      const auto theirs = other.metadata.creation_timestamp.value;
      // The older class keeps the name; so does the smaller name among
      // classes made at once. Like kube, a class that loses the clash is
      // not mapped under its own implicit name either.
      if (mine < theirs) return;
      if (mine == theirs && now->metadata.name >= other.metadata.name) return;
    }
  }
  if (old != nullptr) UnmapResourcesLocked(*old);
  if (name) resource_classes_[*name] = now;
  resource_classes_[std::string(api::kDeviceClassResourcePrefix) +
                    now->metadata.name] = now;
}

void DraManager::UnmapResourcesLocked(const api::DeviceClass& c) {
  resource_classes_.erase(std::string(api::kDeviceClassResourcePrefix) +
                          c.metadata.name);
  if (c.spec.extended_resource_name) {
    resource_classes_.erase(*c.spec.extended_resource_name);
  }
}

std::shared_ptr<const api::DeviceClass> DraManager::DeviceClassForResource(
    std::string_view resource) const {
  std::lock_guard lock(mu_);
  auto it = resource_classes_.find(resource);
  return it == resource_classes_.end() ? nullptr : it->second;
}

void DraManager::UpsertDeviceClass(std::shared_ptr<const api::DeviceClass> c) {
  std::shared_ptr<const api::DeviceClass> old;
  {
    std::lock_guard lock(mu_);
    auto [it, inserted] = classes_.try_emplace(c->metadata.name, c);
    if (!inserted) {
      old = std::move(it->second);
      it->second = c;
    }
    MapResourcesLocked(c, old.get());
  }
  framework::EventObjects objs;
  objs.old_device_class = old.get();
  objs.new_device_class = c.get();
  NotifyObjects(framework::EventResource::kDeviceClass,
                old ? framework::kUpdateOther : framework::kAdd, objs);
}

void DraManager::DeleteDeviceClass(const std::string& name) {
  {
    std::lock_guard lock(mu_);
    auto it = classes_.find(name);
    if (it == classes_.end()) return;
    UnmapResourcesLocked(*it->second);
    classes_.erase(it);
  }
  Notify(framework::EventResource::kDeviceClass, framework::kDelete, nullptr,
         nullptr);
}

void DraManager::UpsertResourceSlice(
    std::shared_ptr<const api::ResourceSlice> s) {
  bool existed;
  {
    std::lock_guard lock(mu_);
    auto [it, inserted] = slices_.try_emplace(s->metadata.name, s);
    existed = !inserted;
    if (existed) it->second = std::move(s);
    slice_index_.reset();
  }
  Notify(framework::EventResource::kResourceSlice,
         existed ? framework::kUpdateOther : framework::kAdd, nullptr, nullptr);
}

void DraManager::DeleteResourceSlice(const std::string& name) {
  {
    std::lock_guard lock(mu_);
    if (slices_.erase(name) == 0) return;
    slice_index_.reset();
  }
  Notify(framework::EventResource::kResourceSlice, framework::kDelete, nullptr,
         nullptr);
}

std::shared_ptr<const api::DeviceClass> DraManager::GetDeviceClass(
    std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : it->second;
}

const std::shared_ptr<const SliceIndex>& DraManager::IndexLocked() const {
  if (!slice_index_) {
    std::vector<std::shared_ptr<const api::ResourceSlice>> slices;
    slices.reserve(slices_.size());
    for (const auto& [name, s] : slices_) slices.push_back(s);
    slice_index_ = std::make_shared<const SliceIndex>(std::move(slices));
  }
  return slice_index_;
}

std::shared_ptr<const SliceIndex> DraManager::ResourceSlices() const {
  std::lock_guard lock(mu_);
  return IndexLocked();
}

DraManager::AllocationState DraManager::SnapshotForAllocation() const {
  std::lock_guard lock(mu_);
  const std::shared_ptr<const SliceIndex>& index = IndexLocked();
  if (taken_bits_index_ != index) {
    // The slices changed: the ordinals did too.
    taken_bits_ = AllocatedDevices(index->num_devices());
    for (const auto& [id, count] : allocated_) {
      for (uint32_t ordinal : index->Ordinals(id))
        taken_bits_.Set(ordinal, true);
    }
    taken_bits_index_ = index;
  }
  if (shared_snapshot_ == nullptr || shared_snapshot_index_ != index) {
    auto snapshot = std::make_shared<SharedAllocations>();
    snapshot->shared = AllocatedDevices(index->num_devices());
    for (const auto& [id, shares] : shares_) {
      for (uint32_t ordinal : index->Ordinals(id)) {
        if (shares.count > 0) snapshot->shared.Set(ordinal, true);
        if (shares.capacity) snapshot->capacity[ordinal] = *shares.capacity;
      }
    }
    shared_snapshot_ = std::move(snapshot);
    shared_snapshot_index_ = index;
  }
  return {index, taken_bits_, shared_snapshot_};
}

void DraManager::MarkLocked(const DeviceId& id, bool taken) {
  if (taken_bits_index_ == nullptr || taken_bits_index_ != slice_index_) {
    return;  // rebuilt at the next snapshot
  }
  for (uint32_t ordinal : taken_bits_index_->Ordinals(id)) {
    taken_bits_.Set(ordinal, taken);
  }
}

// ---- claims: the assume cache and the allocated devices ----

void DraManager::AddDevices(const api::ResourceClaim& c) {
  ForeachAllocatedDevice(
      c, consumable_capacity_,
      [&](DeviceId id) {
        if (++allocated_[id] == 1) MarkLocked(id, true);
      },
      [&](DeviceId id, const api::DeviceRequestAllocationResult& r) {
        Shares& shares = shares_[std::move(id)];
        ++shares.count;
        if (!r.consumed_capacity.empty()) {
          if (!shares.capacity) shares.capacity.emplace();
          AddCapacity(*shares.capacity, Consumed(r));
        }
        shared_snapshot_.reset();
      });
}

void DraManager::RemoveDevices(const api::ResourceClaim& c) {
  ForeachAllocatedDevice(
      c, consumable_capacity_,
      [&](const DeviceId& id) {
        auto it = allocated_.find(id);
        if (it != allocated_.end() && --it->second <= 0) {
          allocated_.erase(it);
          MarkLocked(id, false);
        }
      },
      [&](const DeviceId& id, const api::DeviceRequestAllocationResult& r) {
        auto it = shares_.find(id);
        if (it == shares_.end()) return;
        Shares& shares = it->second;
        --shares.count;
        if (shares.capacity && !r.consumed_capacity.empty() &&
            SubtractCapacity(*shares.capacity, Consumed(r))) {
          shares.capacity.reset();
        }
        if (shares.count <= 0 && !shares.capacity) shares_.erase(it);
        shared_snapshot_.reset();
      });
}

// Allocations are immutable: a claim's devices change only when its
// allocation appears or goes away.
void DraManager::ReplaceLatest(CachedClaim& cached,
                               std::shared_ptr<const api::ResourceClaim> next) {
  const bool had = cached.latest && cached.latest->status.allocation;
  const bool has = next && next->status.allocation;
  if (had && !has) RemoveDevices(*cached.latest);
  if (!had && has) AddDevices(*next);
  cached.latest = std::move(next);
}

void DraManager::UpsertResourceClaim(
    std::shared_ptr<const api::ResourceClaim> c) {
  std::shared_ptr<const api::ResourceClaim> old;
  {
    std::lock_guard lock(mu_);
    std::string key = Key(c->metadata.ns, c->metadata.name);
    auto it = claims_.find(key);
    if (it != claims_.end()) {
      // An informer event no newer than what is cached (an object the
      // scheduler assumed after writing it) must not take it back.
      if (Version(*c) <= Version(*it->second.latest)) return;
      old = it->second.latest;
      ReplaceLatest(it->second, c);
      it->second.api = c;
    } else {
      CachedClaim cached;
      ReplaceLatest(cached, c);
      cached.api = c;
      claims_.emplace(std::move(key), std::move(cached));
    }
  }
  Notify(framework::EventResource::kResourceClaim,
         old ? framework::kUpdateOther : framework::kAdd, old.get(), c.get());
}

void DraManager::DeleteResourceClaim(const std::string& ns,
                                     const std::string& name) {
  std::shared_ptr<const api::ResourceClaim> old;
  {
    std::lock_guard lock(mu_);
    auto it = claims_.find(Key(ns, name));
    if (it == claims_.end()) return;
    old = it->second.latest;
    ReplaceLatest(it->second, nullptr);
    claims_.erase(it);
  }
  Notify(framework::EventResource::kResourceClaim, framework::kDelete,
         old.get(), nullptr);
}

std::shared_ptr<const api::ResourceClaim> DraManager::GetResourceClaim(
    std::string_view ns, std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = claims_.find(Key(ns, name));
  return it == claims_.end() ? nullptr : it->second.latest;
}

std::vector<std::shared_ptr<const api::ResourceClaim>>
DraManager::ListResourceClaims() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<const api::ResourceClaim>> out;
  out.reserve(claims_.size());
  for (const auto& [key, cached] : claims_) out.push_back(cached.latest);
  return out;
}

util::Result<void> DraManager::AssumeClaimAfterAPICall(
    std::shared_ptr<const api::ResourceClaim> c) {
  std::shared_ptr<const api::ResourceClaim> old;
  {
    std::lock_guard lock(mu_);
    std::string key = Key(c->metadata.ns, c->metadata.name);
    auto it = claims_.find(key);
    if (it == claims_.end()) {
      return util::Error("could not find ResourceClaim \"" + key + "\"");
    }
    const int64_t stored = Version(*it->second.latest);
    const int64_t assumed = Version(*c);
    if (assumed < stored) {
      return util::Error(
          "ResourceClaim \"" + key +
          "\" is out of sync (stored: " + std::to_string(stored) +
          ", assume: " + std::to_string(assumed) + ")");
    }
    old = it->second.latest;
    ReplaceLatest(it->second, c);
  }
  Notify(framework::EventResource::kResourceClaim, framework::kUpdateOther,
         old.get(), c.get());
  return {};
}

void DraManager::AssumedClaimRestore(const std::string& ns,
                                     const std::string& name) {
  std::shared_ptr<const api::ResourceClaim> old, now;
  {
    std::lock_guard lock(mu_);
    auto it = claims_.find(Key(ns, name));
    if (it == claims_.end() || it->second.latest == it->second.api) return;
    old = it->second.latest;
    now = it->second.api;
    ReplaceLatest(it->second, now);
  }
  Notify(framework::EventResource::kResourceClaim, framework::kUpdateOther,
         old.get(), now.get());
}

// ---- in-flight allocations ----

void DraManager::SignalClaimPendingAllocation(
    const std::string& uid, std::shared_ptr<const api::ResourceClaim> c) {
  std::lock_guard lock(mu_);
  auto& slot = in_flight_[uid];
  if (slot != nullptr) RemoveDevices(*slot);
  AddDevices(*c);
  slot = std::move(c);
}

bool DraManager::RemoveClaimPendingAllocation(const std::string& uid) {
  std::lock_guard lock(mu_);
  auto it = in_flight_.find(uid);
  if (it == in_flight_.end()) return false;
  RemoveDevices(*it->second);
  in_flight_.erase(it);
  return true;
}

bool DraManager::ClaimHasPendingAllocation(const std::string& uid) const {
  std::lock_guard lock(mu_);
  return in_flight_.contains(uid);
}

DeviceIdSet DraManager::ListAllAllocatedDevices() const {
  std::lock_guard lock(mu_);
  DeviceIdSet out;
  out.reserve(allocated_.size() + shares_.size());
  for (const auto& [id, count] : allocated_) out.insert(id);
  // As kube's ListAllAllocatedDevices, a shared device counts as allocated.
  for (const auto& [id, shares] : shares_) {
    if (shares.count > 0) out.insert(id);
  }
  return out;
}

}  // namespace ksched::dra

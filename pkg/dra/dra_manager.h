// DraManager: the DRA objects the scheduler knows and the allocations in
// flight (kube-scheduler's DefaultDRAManager): DeviceClasses and
// ResourceSlices as the informers deliver them, ResourceClaims in an
// assume cache (so a claim the scheduler just wrote is seen before the
// informer catches up), the devices allocated to them, and the claims
// cycles are allocating right now (Reserve to PreBind).
//
// Informers (or the simulator) feed it; the DynamicResources plugin reads
// it. Every change it accepts is passed to the listener as a cluster event
// (resource.k8s.io/ResourceClaim and friends), claims' events carrying the
// old and new object, as kube's assume cache's handlers do. Thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/resource.h"
#include "pkg/dra/allocated_devices.h"
#include "pkg/dra/device_id.h"
#include "pkg/dra/slice_index.h"
#include "pkg/framework/cluster_event.h"
#include "pkg/util/result.h"

namespace ksched::dra {

class DraManager {
 public:
  // Called after each accepted change, outside the manager's lock.
  using Listener = std::function<void(const framework::ClusterEvent&,
                                      const framework::EventObjects&)>;

  // `consumable_capacity`: DRAConsumableCapacity. Off, a share of a device
  // counts as the whole device, as kube's legacy dedicated mode.
  explicit DraManager(bool consumable_capacity = true)
      : consumable_capacity_(consumable_capacity) {}
  DraManager(const DraManager&) = delete;
  DraManager& operator=(const DraManager&) = delete;

  void SetListener(Listener listener);

  // Whether the cluster serves resource.k8s.io/v1 to ksched (discovery);
  // when it does not, DynamicResources holds pods with claims and says why.
  void SetServed(bool served) { served_ = served; }
  bool served() const { return served_; }

  // ---- informer side ----
  void UpsertDeviceClass(std::shared_ptr<const api::DeviceClass> c);
  void DeleteDeviceClass(const std::string& name);
  void UpsertResourceSlice(std::shared_ptr<const api::ResourceSlice> s);
  void DeleteResourceSlice(const std::string& name);
  // Replaces the cached claim only when the new object's resourceVersion is
  // newer than the cached (possibly assumed) one, as kube's assume cache.
  void UpsertResourceClaim(std::shared_ptr<const api::ResourceClaim> c);
  void DeleteResourceClaim(const std::string& ns, const std::string& name);

  // ---- plugin side ----
  std::shared_ptr<const api::DeviceClass> GetDeviceClass(
      std::string_view name) const;
  // The class that serves an extended resource (DRAExtendedResource): the
  // one naming it in spec.extendedResourceName, or the class `<c>` for
  // "deviceclass.resource.kubernetes.io/<c>"; null when none does. Where
  // two classes name one resource the newer wins (ties: the smaller name),
  // as kube's extended resource cache decides.
  std::shared_ptr<const api::DeviceClass> DeviceClassForResource(
      std::string_view resource) const;
  // The slices as of now, indexed; rebuilt lazily after a change.
  std::shared_ptr<const SliceIndex> ResourceSlices() const;
  // The claim as the scheduler last knew it (assumed or from the API).
  std::shared_ptr<const api::ResourceClaim> GetResourceClaim(
      std::string_view ns, std::string_view name) const;
  std::vector<std::shared_ptr<const api::ResourceClaim>> ListResourceClaims()
      const;

  // The claim as written to the API server, ahead of the informer. Fails
  // ("ResourceClaim \"ns/name\" is out of sync (stored: 7, assume: 5)")
  // when it is older than what is cached.
  util::Result<void> AssumeClaimAfterAPICall(
      std::shared_ptr<const api::ResourceClaim> c);
  // Back to what the informer last delivered.
  void AssumedClaimRestore(const std::string& ns, const std::string& name);

  // In-flight allocations, by claim UID (Reserve .. PreBind/Unreserve).
  void SignalClaimPendingAllocation(
      const std::string& uid, std::shared_ptr<const api::ResourceClaim> c);
  // Whether there was one to remove.
  bool RemoveClaimPendingAllocation(const std::string& uid);
  bool ClaimHasPendingAllocation(const std::string& uid) const;

  // Devices allocated to cached claims plus those of in-flight claims
  // (admin-access results excluded; a shared device counts), as one
  // consistent set.
  DeviceIdSet ListAllAllocatedDevices() const;

  // The same, as what one scheduling cycle's allocator takes: the slices
  // and which of their devices are taken, read together. The bits are
  // kept up to date as claims change, so this costs a copy of one bit per
  // device, not a walk over every allocated claim.
  struct AllocationState {
    std::shared_ptr<const SliceIndex> slices;
    AllocatedDevices taken;
    // Devices with shares and what the shares consume (never null).
    std::shared_ptr<const SharedAllocations> shared;
  };
  AllocationState SnapshotForAllocation() const;

 private:
  struct CachedClaim {
    std::shared_ptr<const api::ResourceClaim> latest;  // assumed or api
    std::shared_ptr<const api::ResourceClaim> api;     // from the informer
  };
  static std::string Key(std::string_view ns, std::string_view name);
  void AddDevices(const api::ResourceClaim& c);
  void RemoveDevices(const api::ResourceClaim& c);
  // The index of the current slices, built if a change made it stale.
  const std::shared_ptr<const SliceIndex>& IndexLocked() const;
  // Marks the ordinals of `id` in taken_bits_ (when they are current).
  void MarkLocked(const DeviceId& id, bool taken);
  void ReplaceLatest(CachedClaim& cached,
                     std::shared_ptr<const api::ResourceClaim> next);
  void Notify(framework::EventResource resource, uint32_t action,
              const api::ResourceClaim* old_claim,
              const api::ResourceClaim* new_claim);
  void NotifyObjects(framework::EventResource resource, uint32_t action,
                     const framework::EventObjects& objs);

  std::atomic<bool> served_{true};
  mutable std::mutex mu_;
  Listener listener_;
  std::map<std::string, std::shared_ptr<const api::DeviceClass>, std::less<>>
      classes_;
  // Extended resource name -> class (kube's resourceName2class).
  std::map<std::string, std::shared_ptr<const api::DeviceClass>, std::less<>>
      resource_classes_;
  void MapResourcesLocked(const std::shared_ptr<const api::DeviceClass>& now,
                          const api::DeviceClass* old);
  void UnmapResourcesLocked(const api::DeviceClass& c);
  std::map<std::string, std::shared_ptr<const api::ResourceSlice>, std::less<>>
      slices_;
  mutable std::shared_ptr<const SliceIndex> slice_index_;   // null: stale
  std::map<std::string, CachedClaim, std::less<>> claims_;  // by ns/name
  // How many cached claims and in-flight allocations hold each device
  // (allocations are immutable, so a count per device is exact).
  std::unordered_map<DeviceId, int, DeviceIdHash> allocated_;
  // Shares of devices that allow multiple allocations: how many results
  // hold one, and what they consume together (kube's AggregatedCapacity:
  // absent when no share recorded any, dropped when it sums to zero).
  struct Shares {
    int count = 0;
    std::optional<ConsumedCapacity> capacity;
  };
  std::unordered_map<DeviceId, Shares, DeviceIdHash> shares_;
  bool consumable_capacity_ = true;
  // shares_ by the current index's ordinals; null when stale.
  mutable std::shared_ptr<const SharedAllocations> shared_snapshot_;
  mutable std::shared_ptr<const SliceIndex> shared_snapshot_index_;
  // allocated_ as bits over slice_index_'s device ordinals; valid while
  // taken_bits_index_ is slice_index_.
  mutable AllocatedDevices taken_bits_;
  mutable std::shared_ptr<const SliceIndex> taken_bits_index_;
  std::unordered_map<std::string, std::shared_ptr<const api::ResourceClaim>>
      in_flight_;
};

}  // namespace ksched::dra

// Allocator: finds devices for a pod's unallocated ResourceClaims on one
// node, as kube-scheduler v1.36's structured allocator does with its default
// feature gates (the "incubating" implementation in
// k8s.io/dynamic-resource-allocation/structured). One Allocator serves one
// scheduling cycle: PreFilter builds it from the cluster's state at that
// moment, Filter calls Allocate for every node, from several threads.
//
// The search is depth first and the first solution wins: claims in the
// pod's order, requests and sub-requests in the claim's order, pools in
// (driver, pool) order with pools that have devices with binding
// conditions last, slices by name, devices in the slice's order. Within a
// request it tries combinations of devices, never two orders of one set.
// v1.36 made this order deterministic, so ksched picks kube's devices.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/resource.h"
#include "pkg/cel/dra.h"
#include "pkg/dra/allocated_devices.h"
#include "pkg/dra/consumed_capacity.h"
#include "pkg/dra/count_check.h"
#include "pkg/dra/device_id.h"
#include "pkg/dra/slice_index.h"
#include "pkg/util/clock.h"

namespace ksched::dra {

// The DRA feature gates the allocator decides by (kube's
// structured.Features). Defaults are kube-scheduler v1.36's.
struct Features {
  bool admin_access = true;           // DRAAdminAccess (GA)
  bool prioritized_list = true;       // DRAPrioritizedList (GA)
  bool partitionable_devices = true;  // DRAPartitionableDevices (beta, on)
  bool device_taints = true;          // DRADeviceTaints (beta, on)
  bool consumable_capacity = true;    // DRAConsumableCapacity (beta, on)
  // DRADeviceBindingConditions and DRAResourceClaimDeviceStatus: devices
  // with binding conditions may be picked, and results carry them.
  bool device_binding_and_status = true;
};

// kube's AllocationResultsMaxSize and FirstAvailableDeviceRequestMaxSize.
inline constexpr int64_t kAllocationResultsMaxSize = 32;
inline constexpr int64_t kFirstAvailableDeviceRequestMaxSize = 8;

// Looks a DeviceClass up by name; null when there is none.
using DeviceClassLookup =
    std::function<std::shared_ptr<const api::DeviceClass>(std::string_view)>;

// When an Allocate call must give up. `deadline` (with `clock`) is the
// plugin's filterTimeout: running past it ends the search with kTimedOut.
// `canceled`, when set by the caller, ends it with kCanceled (the cycle
// was abandoned). Both are also passed to CEL so one long expression
// cannot overrun them.
struct AllocateLimits {
  const util::Clock* clock = nullptr;
  std::optional<util::Clock::TimePoint> deadline;
  // Without a deadline: one this long after the search begins. Filter
  // gives a timeout, not a deadline, because most nodes are answered by
  // the count check without a search, and reading the clock for each of
  // thousands of nodes cost 3.7 % of the scheduler's CPU.
  std::optional<util::Clock::Duration> timeout;
  const std::atomic<bool>* canceled = nullptr;
  // A view, not a string: Filter makes limits for every node, and this
  // text is one byte too long for a string to hold without allocating.
  std::string_view cancel_cause = "context canceled";
  // Makes the shareID of each share of a device that allows multiple
  // allocations; null: a random UUID (kube's uuid.NewUUID). Tests fix it.
  const std::function<std::string()>* new_share_id = nullptr;
  // Without results, a fitting node answers kAllocated with no
  // allocations (unless building them could fail, which is then checked):
  // Filter asks every node whether the claims fit and builds the results
  // only for the node Reserve picks, by asking that node again.
  bool build_results = true;
};

struct AllocateResult {
  enum class Code : uint8_t {
    // One AllocationResult per claim, in the claims' order.
    kAllocated,
    // No way to allocate every claim on this node ("cannot allocate all
    // claims").
    kNoFit,
    // The node has invalid pools and nothing else fits (kube's
    // ErrFailedAllocationOnNode): `message` is
    // "invalid resource pools were encountered".
    kFailedOnNode,
    // A fatal error: CEL failed on a device, a class vanished, a request
    // asks for more than 32 devices, ... `message` in kube's words. The
    // scheduling attempt fails.
    kError,
    // The deadline passed (the plugin says "timed out trying to allocate
    // devices"); `message` is kube's allocator error, "filter operation
    // aborted: context deadline exceeded". The deadline is checked at each
    // search step, not inside one CEL evaluation.
    kTimedOut,
    // `canceled` was set; `message` is "filter operation aborted: <cause>",
    // or, when it interrupted a CEL evaluation, that selector's error
    // ("class c: selector #0: CEL runtime error: operation interrupted:
    // <cause>").
    kCanceled,
  };
  Code code = Code::kNoFit;
  std::vector<api::AllocationResult> allocations;
  std::string message;
  // How often the search's step ran (kube's numAllocateOneInvocations),
  // which the ported tests compare.
  int64_t allocate_one_invocations = 0;
};

class Allocator {
 public:
  // `allocated`: devices already allocated to claims (the assume cache)
  // or being allocated by other cycles; results with adminAccess are not
  // in it. `slices`: the cluster's ResourceSlices. `selectors`: compiled
  // CEL selectors, shared across cycles.
  Allocator(Features features, const DeviceIdSet& allocated,
            DeviceClassLookup classes, std::shared_ptr<const SliceIndex> slices,
            std::shared_ptr<cel::dra::SelectorCache> selectors);
  // The same with the taken devices as bits over `slices`' device
  // ordinals (DraManager::SnapshotForAllocation), which the scheduler keeps
  // up to date instead of collecting a set every cycle.
  Allocator(Features features, AllocatedDevices taken,
            DeviceClassLookup classes, std::shared_ptr<const SliceIndex> slices,
            std::shared_ptr<cel::dra::SelectorCache> selectors);
  // The same with the devices shared through consumable capacity: which
  // have shares and how much of their capacity the shares consume (by
  // committed and in-flight claims).
  Allocator(Features features, AllocatedDevices taken,
            std::shared_ptr<const SharedAllocations> shared,
            DeviceClassLookup classes, std::shared_ptr<const SliceIndex> slices,
            std::shared_ptr<cel::dra::SelectorCache> selectors);
  // The set form of the above, by device id (tests).
  Allocator(Features features, const DeviceIdSet& allocated,
            const SharedAllocationsById& shared, DeviceClassLookup classes,
            std::shared_ptr<const SliceIndex> slices,
            std::shared_ptr<cel::dra::SelectorCache> selectors);
  ~Allocator();
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  // Allocates every claim (none of which has status.allocation) on `node`.
  // Thread-safe: Filter calls it for many nodes at once.
  AllocateResult Allocate(const api::Node& node,
                          std::span<const api::ResourceClaim* const> claims,
                          const AllocateLimits& limits = {}) const;
  // The same, answered without a search where counting the node's free
  // matching devices decides (`check`, made by MakeCountCheck for these
  // claims; null: always search). The answer is the search's.
  // `node_name` is the node's name as the caller keeps it: Filter passes
  // the NodeInfo's copy, which sits beside what other plugins just read,
  // while the api::Node's own lies elsewhere on the heap, and reading it
  // for each of thousands of device-less nodes was a cache miss apiece.
  AllocateResult Allocate(const api::Node& node, std::string_view node_name,
                          std::span<const api::ResourceClaim* const> claims,
                          const AllocateLimits& limits,
                          const CountCheck* check) const;
  // The count check for `claims` (null when only the search can answer
  // for them), made once for the many nodes one cycle asks about.
  std::unique_ptr<const CountCheck> MakeCountCheck(
      std::span<const api::ResourceClaim* const> claims) const;

  // The only nodes the claims of `check` (made by MakeCountCheck) might fit
  // on: those with slices of their own, when no slice selects nodes by
  // anything but name (so every other node sees the same pools) and
  // counting finds too few free matching devices in those pools (Allocate
  // with `check` then answers kNoFit on every other node, never an
  // error). Null when any node might. The list lives as long as the
  // returned pointer, which is the same from cycle to cycle while the
  // slices do not change.
  std::shared_ptr<const std::vector<std::string_view>> NodesThatMayFit(
      const CountCheck& check) const;

  // Why the claims do not fit on `node`, for people (explain): the first
  // request that lacks devices ("claim ml/train, request gpu: 1 of 8
  // matching devices free, 2 needed"), or, when each request alone could
  // be met, that the claims' constraints or their sum cannot. Evaluates
  // selectors as the search does; empty when the claims fit. Not for the
  // scheduling path: it walks every device of the node's pools.
  std::string Diagnose(const api::Node& node,
                       std::span<const api::ResourceClaim* const> claims) const;

  const Features& features() const { return features_; }

 private:
  // Per-cycle state every Allocate call shares: which devices of a slice
  // are in the allocated set (computed on first look), and the counters
  // still available per pool (partitionable devices).
  struct Shared;
  friend class AllocatorSearch;
  friend class CountCheck;
  Features features_;
  DeviceClassLookup classes_;
  std::shared_ptr<const SliceIndex> slices_;
  std::shared_ptr<cel::dra::SelectorCache> selectors_;
  AllocatedDevices taken_;  // by slices_' device ordinals
  std::shared_ptr<const SharedAllocations> shared_allocations_;  // never null
  std::unique_ptr<Shared> shared_;
};

}  // namespace ksched::dra

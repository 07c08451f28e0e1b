// The state of one Allocator::Allocate call (Kubernetes' per-call
// `allocator`): the pools the node sees, what each request needs, the
// devices picked so far and the depth-first search over them. Internal to
// the allocator; one thread uses a search.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/dra/allocator.h"
#include "pkg/dra/constraint.h"
#include "pkg/dra/pools.h"

namespace ksched::dra {

// Counter values by counter set name, then counter name.
using CounterValues =
    std::map<std::string, std::map<std::string, api::Quantity, std::less<>>,
             std::less<>>;

struct Allocator::Shared {
  // Counters not used by allocated devices, per pool *name* (as Kubernetes
  // keys them), computed the first time a node needs them.
  std::mutex counters_mu;
  std::map<std::string, std::shared_ptr<const CounterValues>, std::less<>>
      available_counters;
};

class AllocatorSearch {
 public:
  AllocatorSearch(const Allocator& allocator, const api::Node& node,
                  std::span<const api::ResourceClaim* const> claims,
                  const AllocateLimits& limits);
  AllocatorSearch(const AllocatorSearch&) = delete;
  AllocatorSearch& operator=(const AllocatorSearch&) = delete;

  AllocateResult Run();
  // The same with the node's pools gathered already.
  AllocateResult Run(NodePools gathered);
  // Allocator::Diagnose's answer (runs the search first).
  std::string Diagnose();

 private:
  // How a search step ended. kMaxSize: a claim would get more than
  // kAllocationResultsMaxSize devices this way (Kubernetes'
  // errAllocationResultMaxSizeExceeded), which callers up the recursion
  // use to give up on a branch early. kError: error_ holds why.
  enum class Step : uint8_t { kFailed, kDone, kMaxSize, kError };

  // A request or subrequest, whichever the claim has.
  struct RequestView {
    std::string_view name;
    const std::string* class_name = nullptr;
    api::DeviceAllocationMode mode = api::DeviceAllocationMode::kExactCount;
    int64_t count = 0;
    const std::optional<bool>* admin_access = nullptr;  // null: subrequest
    const std::vector<api::DeviceSelector>* selectors = nullptr;
    const std::vector<api::DeviceToleration>* tolerations = nullptr;
    const std::optional<api::CapacityRequirements>* capacity = nullptr;

    const api::CapacityRequirements* capacity_requests() const {
      return capacity != nullptr && capacity->has_value() ? &**capacity
                                                          : nullptr;
    }
    bool admin() const {
      return admin_access != nullptr && admin_access->value_or(false);
    }
  };

  // One device of the node's pools.
  struct DeviceRef {
    uint32_t slice = 0;   // SliceIndex position
    uint32_t device = 0;  // index in the slice's devices
    const Pool* pool = nullptr;
  };

  struct RequestData {
    RequestView request;
    std::string_view parent;  // the parent request's name for a subrequest
    std::shared_ptr<const api::DeviceClass> device_class;
    int64_t num_devices = 0;
    std::vector<DeviceRef> all_devices;  // mode All: the devices it gets

    std::string Name() const;
  };

  // A claim's request: one RequestData, or one per subrequest.
  struct RequestSlot {
    std::vector<RequestData> options;
    bool first_available = false;
    size_t selected = 0;  // the subrequest the solution uses
  };

  struct Position {
    size_t claim = 0;
    size_t request = 0;
    size_t sub = 0;
    size_t device = 0;
  };

  // Where the search looks for a request's next device: combinations,
  // not permutations, so after picking a device it only looks further on.
  struct Location {
    size_t pool = 0;
    size_t slice = 0;  // within the pool's slices
    size_t device = 0;
  };

  // A device picked for a request, with what picking it changed (kube's
  // deviceRollbackState), so Deallocate undoes exactly that.
  struct DeviceResult {
    const RequestData* data = nullptr;
    DeviceRef ref;
    bool counters_reserved = false;
    bool marked = false;  // in allocating_ (not a share)
    bool shared = false;  // a share of a device allowing several
    bool capacity_entry_existed = false;
    ConsumedCapacity consumed;  // by a share
  };

  struct MatchKey {
    uint32_t device;  // SliceIndex device ordinal
    uint32_t claim;
    uint32_t request;
    uint32_t sub;
    friend bool operator==(const MatchKey&, const MatchKey&) = default;
  };
  struct MatchKeyHash {
    size_t operator()(const MatchKey& k) const;
  };

  // ---- validation (before the search) ----
  bool ValidateClaims();
  bool ValidateRequest(const RequestView& request, std::string_view parent,
                       const MatchKey& key, RequestData& data);

  // ---- the search ----
  Step AllocateOne(Position r, bool inside_sub_request, Location start);
  // Whether the node has as many devices for the request at r as it asks
  // for, free and matching its selectors (kDone), or fewer (kFailed: no
  // order of picking them can succeed, and the search need not try every
  // one; kube's allocator does, which costs thousands of steps on a node
  // with 7 free GPUs of 8 for a request of 8). Devices are looked at in the
  // search's order with its checks, so a selector's error (kError) is met
  // as the search meets it. Taints, counters and constraints are left to
  // the search: they only make fewer devices usable.
  Step EnoughCandidates(const Position& r, const RequestData& data);
  // Tries to take the device for position r; on success records it and
  // returns true (undo with Deallocate).
  Step AllocateDevice(const Position& r, const DeviceRef& device, bool must);
  void Deallocate(const Position& r, const DeviceRef& device);
  // Whether the request's capacity fits on the device beside what is
  // consumed already (kFits), or why not.
  CapacityFit CapacityFits(const RequestView& request, const DeviceRef& device);
  bool AllowsMultipleAllocations(const api::Device& device) const;
  // kube's deviceCapacityInUse: some share of the device consumes capacity.
  bool CapacityInUse(uint32_t ordinal) const;
  // kube's IsDeviceAllocated: dedicated, or shared by some claim.
  bool AllocatedOrShared(const DeviceRef& device) const;
  bool Interrupted();

  // 1 selectable, 0 not, -1 error (in error_).
  int IsSelectable(const MatchKey& key, const RequestData& data,
                   const DeviceRef& device);
  int SelectorsMatch(size_t claim, const DeviceRef& device,
                     const api::DeviceClass* device_class,
                     const std::vector<api::DeviceSelector>& selectors);

  bool DeviceAllocated(const DeviceRef& device) const;
  size_t FreeDevices(uint32_t slice) const;
  bool AllocatingForAnyClaim(uint32_t ordinal) const;
  bool AllocatingForClaim(uint32_t ordinal, size_t claim) const;
  bool InUse(const DeviceRef& device, uint32_t ordinal,
             const RequestView& request, size_t claim) const;
  bool TaintPreventsAllocation(const api::Device& device,
                               const RequestView& request) const;
  // Why a matching device nobody holds still cannot serve the request
  // (an untolerated taint, its counter set spent, its shared capacity
  // spent), for Diagnose; "" when it can.
  std::string WhyUnusable(const RequestData& data, const DeviceRef& device);
  bool CheckAvailableCounters(const DeviceRef& device);
  // This search's consumption of the counters of the pool by that name.
  CounterValues& ConsumedCounters(std::string_view pool);
  void ReleaseCounters(const DeviceRef& device);
  // What counter `name` of set `set` in the device's pool offers and what
  // allocated devices leave of it; false when it is not known.
  bool CounterLeft(const DeviceRef& device, std::string_view set,
                   std::string_view name, api::Quantity& offered,
                   api::Quantity& left);

  const api::Device& DeviceOf(const DeviceRef& ref) const;
  uint32_t Ordinal(const DeviceRef& ref) const;
  std::string DeviceIdString(const DeviceRef& ref) const;

  // ---- the answer ----
  bool BuildResults(std::vector<api::AllocationResult>& out);

  bool Fail(std::string message,
            AllocateResult::Code code = AllocateResult::Code::kError);

  const Allocator& allocator_;
  const SliceIndex& index_;
  const api::Node& node_;
  std::span<const api::ResourceClaim* const> claims_;
  const AllocateLimits& limits_;
  // limits_.deadline, or limits_.timeout from when this search began.
  std::optional<util::Clock::TimePoint> deadline_;

  // The pools the node sees (shared with other searches on the node).
  std::optional<NodePools> pools_holder_;
  const std::vector<Pool>& pools() const { return **pools_holder_; }
  std::vector<std::vector<RequestSlot>> requests_;  // per claim
  std::vector<std::vector<std::unique_ptr<ClaimConstraint>>> constraints_;
  std::vector<std::vector<DeviceResult>> results_;  // per claim
  // Devices taken by this attempt: device ordinal and claim index.
  std::vector<std::pair<uint32_t, size_t>> allocating_;
  std::unordered_map<MatchKey, bool, MatchKeyHash> matches_;
  // A selector as this call uses it: compiled, and its results table on
  // the slice index (null when the index keeps no more tables).
  struct CompiledSelector {
    util::Result<std::shared_ptr<const cel::dra::Selector>> compiled;
    const SliceIndex::SelectorResults* results = nullptr;
  };
  std::unordered_map<std::string_view, CompiledSelector> compiled_;
  std::map<std::string, CounterValues, std::less<>> consumed_counters_;
  // The counters of a pool with Pool::counters, as this search uses them.
  struct FlatCounters {
    const Pool* pool = nullptr;
    std::vector<api::Quantity> available;  // offered, less allocated devices
    std::vector<api::Quantity> consumed;   // by this search's devices
  };
  // Made on first use: what allocated devices leave does not change
  // while the search runs.
  FlatCounters& Flat(const Pool& pool);
  std::vector<FlatCounters> flat_counters_;
  // What shares picked by this search consume, by device ordinal (kube's
  // allocatingCapacity; an entry marks a device as shared).
  std::unordered_map<uint32_t, ConsumedCapacity> allocating_capacity_;
  int64_t invocations_ = 0;

  AllocateResult::Code error_code_ = AllocateResult::Code::kError;
  std::string error_;
};

}  // namespace ksched::dra

// AllocatedDevices: which devices of a SliceIndex are taken (allocated to a
// claim, or being allocated by a cycle in flight), as one bit per device
// ordinal. The scheduler hands one to each cycle's allocator: copying it is
// a few hundred bytes however many claims the cluster has, and the
// allocator's in-use check is a bit test, not a hash of three strings.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "pkg/dra/consumed_capacity.h"
#include "pkg/dra/device_id.h"

namespace ksched::dra {

class AllocatedDevices {
 public:
  AllocatedDevices() = default;
  explicit AllocatedDevices(size_t num_devices)
      : words_((num_devices + 63) / 64, 0) {}

  void Set(uint32_t ordinal, bool taken) {
    const uint64_t bit = uint64_t{1} << (ordinal % 64);
    uint64_t& word = words_[ordinal / 64];
    if (((word & bit) != 0) == taken) return;
    if (taken) {
      word |= bit;
      ++count_;
    } else {
      word &= ~bit;
      --count_;
    }
  }
  // Whether no ordinal is taken.
  bool none() const { return count_ == 0; }
  bool Test(uint32_t ordinal) const {
    return (words_[ordinal / 64] >> (ordinal % 64)) & 1;
  }
  // How many of the ordinals [first, first + n) are taken.
  size_t CountIn(uint32_t first, uint32_t n) const {
    size_t count = 0;
    ForEachWordIn(first, n, [&](uint32_t, uint64_t bits) {
      count += static_cast<size_t>(std::popcount(bits));
    });
    return count;
  }
  // Calls fn(ordinal) for each taken ordinal of [first, first + n), in
  // order.
  template <typename Fn>
  void ForEachIn(uint32_t first, uint32_t n, Fn&& fn) const {
    ForEachWordIn(first, n, [&](uint32_t base, uint64_t bits) {
      while (bits != 0) {
        fn(base + static_cast<uint32_t>(std::countr_zero(bits)));
        bits &= bits - 1;
      }
    });
  }
  size_t capacity() const { return words_.size() * 64; }

 private:
  // Calls fn(base, bits) for each stretch of [first, first + n) within one
  // word: bit k of `bits` is ordinal base + k.
  template <typename Fn>
  void ForEachWordIn(uint32_t first, uint32_t n, Fn&& fn) const {
    for (uint32_t i = first; i < first + n;) {
      const uint32_t offset = i % 64;
      const uint32_t span = std::min<uint32_t>(64 - offset, first + n - i);
      uint64_t bits = words_[i / 64] >> offset;
      if (span < 64) bits &= (uint64_t{1} << span) - 1;
      fn(i, bits);
      i += span;
    }
  }

  std::vector<uint64_t> words_;
  size_t count_ = 0;  // taken ordinals
};

// Devices shared through consumable capacity (DRAConsumableCapacity), by
// device ordinal: kube's AllocatedSharedDeviceIDs (which devices have at
// least one share) and AggregatedCapacity (what the shares consume; an
// entry exists while some share of the device consumes any capacity).
// A shared device is not in the taken bits: other claims may still get a
// share of it, but its counters count as used.
struct SharedAllocations {
  AllocatedDevices shared;
  std::unordered_map<uint32_t, ConsumedCapacity> capacity;
};

// The same by device id, as tests and callers without a slice index give
// it.
struct SharedAllocationsById {
  std::vector<DeviceId> shared;
  std::vector<std::pair<DeviceId, ConsumedCapacity>> capacity;
};

}  // namespace ksched::dra

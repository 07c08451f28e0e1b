// DeviceId: one device of one pool of one driver, the unit the allocator
// hands out and the allocated-devices set counts (structured.DeviceID).
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <string>
#include <unordered_set>

namespace ksched::dra {

struct DeviceId {
  std::string driver;
  std::string pool;
  std::string device;

  // "<driver>/<pool>/<device>", as Kubernetes prints a DeviceID.
  std::string String() const { return driver + "/" + pool + "/" + device; }

  friend bool operator==(const DeviceId&, const DeviceId&) = default;
  friend auto operator<=>(const DeviceId&, const DeviceId&) = default;
};

struct DeviceIdHash {
  size_t operator()(const DeviceId& id) const {
    std::hash<std::string> h;
    size_t seed = h(id.driver);
    seed ^= h(id.pool) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
    seed ^= h(id.device) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
    return seed;
  }
};

using DeviceIdSet = std::unordered_set<DeviceId, DeviceIdHash>;

}  // namespace ksched::dra

// How many copies of a pod the cluster's devices could take at most: the
// DRA part of CapacityUpperBound (plan.h).
#include "pkg/simulator/device_bound.h"

#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "pkg/simulator/claim_controller.h"
#include "pkg/simulator/plan.h"

namespace ksched::simulator {
namespace {

constexpr int kUnbounded = std::numeric_limits<int>::max() - 1;

}  // namespace

std::optional<int64_t> FewestDevices(const api::ResourceClaimSpec& spec) {
  int64_t total = 0;
  for (const api::DeviceRequest& r : spec.devices.requests) {
    auto fewest = [](api::DeviceAllocationMode mode,
                     int64_t count) -> std::optional<int64_t> {
      if (mode == api::DeviceAllocationMode::kExactCount ||
          mode == api::DeviceAllocationMode::kUnset) {
        return count > 0 ? count : 1;
      }
      return std::nullopt;
    };
    if (r.exactly) {
      if (r.exactly->admin_access.value_or(false)) return std::nullopt;
      auto n = fewest(r.exactly->allocation_mode, r.exactly->count);
      if (!n) return std::nullopt;
      total += *n;
    } else if (!r.first_available.empty()) {
      std::optional<int64_t> least;
      for (const api::DeviceSubRequest& sub : r.first_available) {
        auto n = fewest(sub.allocation_mode, sub.count);
        if (!n) return std::nullopt;
        least = least ? std::min(*least, *n) : *n;
      }
      total += *least;
    }
  }
  if (total <= 0) return std::nullopt;
  return total;
}

int64_t FreeDevices(const Cluster& cluster) {
  // Devices of the pools' newest generations, less those allocations hold
  // once the claims of pods a change took away are let go, as Simulate
  // lets them go.
  std::vector<api::ResourceClaim> claims = cluster.resource_claims;
  SettleClaims(claims, cluster.pods);
  using DeviceKey = std::tuple<std::string, std::string, std::string>;
  std::set<DeviceKey> taken;
  for (const api::ResourceClaim& claim : claims) {
    if (!claim.status.allocation) continue;
    for (const auto& r : claim.status.allocation->devices.results) {
      if (!r.admin_access.value_or(false)) {
        taken.insert({r.driver, r.pool, r.device});
      }
    }
  }
  std::map<std::pair<std::string, std::string>, int64_t> generation;
  for (const api::ResourceSlice& s : cluster.resource_slices) {
    auto& g = generation[{s.spec.driver, s.spec.pool.name}];
    g = std::max(g, s.spec.pool.generation);
  }
  int64_t free = 0;
  for (const api::ResourceSlice& s : cluster.resource_slices) {
    if (s.spec.pool.generation <
        generation[{s.spec.driver, s.spec.pool.name}]) {
      continue;
    }
    for (const api::Device& d : s.spec.devices) {
      free += !taken.count({s.spec.driver, s.spec.pool.name, d.name});
    }
  }
  return free;
}

int DeviceCapacityUpperBound(const Cluster& cluster, const api::Pod& pod) {
  // Only claims each copy gets of its own (from templates) take devices
  // per copy; a claim the copies share is allocated once.
  int64_t per_copy = 0;
  for (const api::PodResourceClaim& c : pod.spec.resource_claims) {
    if (!c.resource_claim_template_name) continue;
    for (const api::ResourceClaimTemplate& t :
         cluster.resource_claim_templates) {
      if (t.metadata.ns != pod.metadata.ns ||
          t.metadata.name != *c.resource_claim_template_name) {
        continue;
      }
      if (auto n = FewestDevices(t.spec.spec)) per_copy += *n;
    }
  }
  if (per_copy == 0) return kUnbounded;
  return static_cast<int>(
      std::min<int64_t>(FreeDevices(cluster) / per_copy, kUnbounded));
}

}  // namespace ksched::simulator

#include "pkg/simulator/device_outcomes.h"

#include <set>
#include <tuple>

#include "pkg/dra/resourceclaim.h"

namespace ksched::simulator {
namespace device_outcomes_detail {
namespace {

using DeviceKey = std::tuple<std::string, std::string, std::string>;

}  // namespace
}  // namespace device_outcomes_detail
using namespace device_outcomes_detail;

std::vector<PodClaimOutcome> PodClaimOutcomes(const api::Pod& pod,
                                              const ClaimsByKey& claims) {
  std::vector<PodClaimOutcome> out;
  for (const api::PodResourceClaim& pod_claim : pod.spec.resource_claims) {
    auto named = dra::ClaimName(pod, pod_claim);
    if (!named.ok() || !named->name) continue;
    PodClaimOutcome o{pod_claim.name, *named->name, {}};
    auto it = claims.find(pod.metadata.ns + "/" + *named->name);
    if (it != claims.end() && it->second->status.allocation) {
      for (const api::DeviceRequestAllocationResult& r :
           it->second->status.allocation->devices.results) {
        o.devices.push_back({r.request, r.driver, r.pool, r.device,
                             r.admin_access.value_or(false)});
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::map<std::string, std::vector<NodeDevices>> DevicesByNode(
    const std::vector<api::ResourceSlice>& slices, const ClaimsByKey& claims) {
  std::set<DeviceKey> allocated;
  for (const auto& [key, claim] : claims) {
    if (!claim->status.allocation) continue;
    for (const auto& r : claim->status.allocation->devices.results) {
      if (r.admin_access.value_or(false)) continue;
      allocated.insert({r.driver, r.pool, r.device});
    }
  }
  // Only a pool's newest generation counts: older slices are being
  // replaced, and the scheduler ignores them.
  std::map<std::pair<std::string, std::string>, int64_t> generation;
  for (const api::ResourceSlice& s : slices) {
    auto& g = generation[{s.spec.driver, s.spec.pool.name}];
    g = std::max(g, s.spec.pool.generation);
  }
  std::map<std::string, std::map<std::string, NodeDevices>> by_node;
  for (const api::ResourceSlice& s : slices) {
    if (!s.spec.node_name || s.spec.node_name->empty() ||
        s.spec.pool.generation <
            generation[{s.spec.driver, s.spec.pool.name}]) {
      continue;
    }
    NodeDevices& d = by_node[*s.spec.node_name][s.spec.driver];
    d.driver = s.spec.driver;
    for (const api::Device& device : s.spec.devices) {
      ++d.total;
      d.allocated +=
          allocated.count({s.spec.driver, s.spec.pool.name, device.name});
    }
  }
  std::map<std::string, std::vector<NodeDevices>> out;
  for (auto& [node, drivers] : by_node) {
    for (auto& [driver, d] : drivers) out[node].push_back(std::move(d));
  }
  return out;
}

std::string DeviceList(const std::vector<AllocatedDevice>& devices) {
  std::string out;
  const AllocatedDevice* previous = nullptr;
  for (const AllocatedDevice& d : devices) {
    if (!out.empty()) out += ", ";
    if (previous == nullptr || previous->driver != d.driver ||
        previous->pool != d.pool) {
      out += d.driver + "/" + d.pool + "/";
    }
    out += d.device;
    if (d.admin_access) out += " (admin access)";
    previous = &d;
  }
  return out;
}

}  // namespace ksched::simulator

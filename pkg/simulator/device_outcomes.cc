#include "pkg/simulator/device_outcomes.h"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "pkg/dra/resourceclaim.h"

namespace ksched::simulator {
namespace device_outcomes_detail {
namespace {

using DeviceKey = std::tuple<std::string, std::string, std::string>;

// A taint that keeps claims away, as kube prints one; "" for the others.
std::string BlockingTaint(const api::DeviceTaint& taint) {
  const char* effect = nullptr;
  if (taint.effect == api::DeviceTaintEffect::kNoSchedule) {
    effect = "NoSchedule";
  } else if (taint.effect == api::DeviceTaintEffect::kNoExecute) {
    effect = "NoExecute";
  } else {
    return "";
  }
  std::string out = taint.key;
  if (!taint.value.empty()) out += "=" + taint.value;
  return out + ":" + effect;
}

AllocatedDevice Describe(const api::DeviceRequestAllocationResult& r,
                         const DeviceCatalog& catalog) {
  AllocatedDevice d{r.request, r.driver, r.pool, r.device,
                    r.admin_access.value_or(false)};
  if (const DeviceCatalog::Entry* e =
          catalog.Find(r.driver, r.pool, r.device)) {
    for (const api::DeviceCounterConsumption& c :
         e->device->consumes_counters) {
      d.counter_sets.push_back(c.counter_set);
    }
    for (const api::DeviceTaint& t : e->device->taints) {
      if (std::string text = BlockingTaint(t); !text.empty()) {
        d.taints.push_back(std::move(text));
      }
    }
  }
  d.share_id = r.share_id;
  for (const auto& [name, value] : r.consumed_capacity) {
    d.consumed_capacity.emplace_back(name, value.ToString());
  }
  return d;
}

}  // namespace
}  // namespace device_outcomes_detail
using namespace device_outcomes_detail;

DeviceCatalog::DeviceCatalog(const std::vector<api::ResourceSlice>& slices) {
  // Only a pool's newest generation counts: older slices are being
  // replaced, and the scheduler ignores them.
  std::map<std::pair<std::string, std::string>, int64_t> generation;
  for (const api::ResourceSlice& s : slices) {
    auto& g = generation[{s.spec.driver, s.spec.pool.name}];
    g = std::max(g, s.spec.pool.generation);
  }
  // The node of each pool's device slices, "" when they are not one's.
  std::map<std::pair<std::string, std::string>, std::optional<std::string>>
      pool_node;
  for (const api::ResourceSlice& s : slices) {
    const std::pair<std::string, std::string> pool{s.spec.driver,
                                                   s.spec.pool.name};
    if (s.spec.pool.generation < generation[pool]) continue;
    const std::string node = s.spec.node_name.value_or("");
    for (const api::Device& device : s.spec.devices) {
      const std::string device_node =
          s.spec.per_device_node_selection.value_or(false)
              ? device.node_name.value_or("")
              : node;
      devices_.try_emplace({s.spec.driver, s.spec.pool.name, device.name},
                           Entry{&device, device_node});
      auto [it, first] = pool_node.try_emplace(pool, device_node);
      if (!first && it->second != device_node) it->second = "";
    }
  }
  for (const api::ResourceSlice& s : slices) {
    const std::pair<std::string, std::string> pool{s.spec.driver,
                                                   s.spec.pool.name};
    if (s.spec.pool.generation < generation[pool]) continue;
    for (const api::CounterSet& set : s.spec.shared_counters) {
      auto node = pool_node.find(pool);
      counter_sets_.try_emplace(
          {s.spec.driver, s.spec.pool.name, set.name},
          CounterSetEntry{&set, node == pool_node.end()
                                    ? std::string()
                                    : node->second.value_or("")});
    }
  }
}

const DeviceCatalog::Entry* DeviceCatalog::Find(
    const std::string& driver, const std::string& pool,
    const std::string& device) const {
  auto it = devices_.find({driver, pool, device});
  return it == devices_.end() ? nullptr : &it->second;
}

std::vector<PodClaimOutcome> PodClaimOutcomes(const api::Pod& pod,
                                              const ClaimsByKey& claims,
                                              const DeviceCatalog& catalog) {
  std::vector<PodClaimOutcome> out;
  auto add = [&](const std::string& pod_claim, const std::string& name) {
    PodClaimOutcome o{pod_claim, name, {}};
    auto it = claims.find(pod.metadata.ns + "/" + name);
    if (it != claims.end() && it->second->status.allocation) {
      for (const api::DeviceRequestAllocationResult& r :
           it->second->status.allocation->devices.results) {
        o.devices.push_back(Describe(r, catalog));
      }
    }
    out.push_back(std::move(o));
  };
  for (const api::PodResourceClaim& pod_claim : pod.spec.resource_claims) {
    auto named = dra::ClaimName(pod, pod_claim);
    if (!named.ok() || !named->name) continue;
    add(pod_claim.name, *named->name);
  }
  // The claim DynamicResources made for the pod's extended resources.
  if (const auto& extended = pod.status.extended_resource_claim_status) {
    add("(extended resources)", extended->resource_claim_name);
  }
  return out;
}

DeviceUsage UsageOfDevices(const DeviceCatalog& catalog,
                           const ClaimsByKey& claims) {
  DeviceUsage usage;
  // Who holds each device: dedicated holders, and the shares.
  std::map<DeviceKey, std::string> held_by;
  std::map<DeviceKey, SharedDeviceOutcome> shared;
  std::map<DeviceKey, std::map<std::string, api::Quantity>> consumed;
  for (const auto& [key, claim] : claims) {
    if (!claim->status.allocation) continue;
    for (const auto& r : claim->status.allocation->devices.results) {
      if (r.admin_access.value_or(false)) continue;
      const DeviceKey device{r.driver, r.pool, r.device};
      held_by.try_emplace(device, key);
      if (!r.share_id) continue;
      SharedDeviceOutcome& s = shared[device];
      ++s.shares;
      for (const auto& [name, value] : r.consumed_capacity) {
        consumed[device][name] += value;
      }
    }
  }
  // Counters: what the counter sets offer, less what held devices use (a
  // device shared by several claims uses its counters once).
  std::map<DeviceKey, std::map<std::string, api::Quantity>> used;
  for (const auto& [device, holder] : held_by) {
    const auto& [driver, pool, name] = device;
    const DeviceCatalog::Entry* e = catalog.Find(driver, pool, name);
    if (e == nullptr) continue;
    for (const api::DeviceCounterConsumption& c :
         e->device->consumes_counters) {
      for (const auto& [counter, value] : c.counters) {
        used[{driver, pool, c.counter_set}][counter] += value.value;
      }
    }
  }
  for (const auto& [key, entry] : catalog.counter_sets()) {
    CounterSetOutcome o;
    std::tie(o.driver, o.pool, o.name) = key;
    o.node = entry.node;
    for (const auto& [counter, offered] : entry.set->counters) {
      api::Quantity left = offered.value;
      if (auto u = used.find(key); u != used.end()) {
        if (auto v = u->second.find(counter); v != u->second.end()) {
          left -= v->second;
        }
      }
      if (left.Sign() < 0) left = api::Quantity();
      o.counters.push_back(
          {counter, left.ToString(), offered.value.ToString(), left.IsZero()});
    }
    usage.counter_sets.push_back(std::move(o));
  }
  for (auto& [device, s] : shared) {
    std::tie(s.driver, s.pool, s.device) = device;
    const DeviceCatalog::Entry* e = catalog.Find(s.driver, s.pool, s.device);
    if (e != nullptr) {
      s.node = e->node;
      for (const auto& [name, cap] : e->device->capacity) {
        api::Quantity taken;
        if (auto it = consumed[device].find(name);
            it != consumed[device].end()) {
          taken = it->second;
        }
        s.capacity.push_back({name, taken.ToString(), cap.value.ToString()});
      }
    }
    usage.shared_devices.push_back(std::move(s));
  }
  for (const auto& [device, e] : catalog.devices()) {
    TaintedDeviceOutcome t;
    for (const api::DeviceTaint& taint : e.device->taints) {
      if (std::string text = BlockingTaint(taint); !text.empty()) {
        t.taints.push_back(std::move(text));
      }
    }
    if (t.taints.empty()) continue;
    std::tie(t.driver, t.pool, t.device) = device;
    t.node = e.node;
    if (auto h = held_by.find(device); h != held_by.end()) {
      t.held_by = h->second;
    }
    usage.tainted_devices.push_back(std::move(t));
  }
  return usage;
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
    std::vector<std::string> notes;
    if (d.admin_access) notes.push_back("admin access");
    if (!d.counter_sets.empty()) {
      std::string on = "draws on";
      for (const std::string& set : d.counter_sets) on += " " + set;
      notes.push_back(std::move(on));
    }
    if (d.share_id) {
      std::string share = "share";
      for (const auto& [name, value] : d.consumed_capacity) {
        share += " " + name + " " + value;
      }
      notes.push_back(std::move(share));
    }
    for (const std::string& taint : d.taints) {
      notes.push_back("tolerates " + taint);
    }
    if (!notes.empty()) {
      out += " (";
      for (size_t i = 0; i < notes.size(); ++i) {
        if (i > 0) out += ", ";
        out += notes[i];
      }
      out += ")";
    }
    previous = &d;
  }
  return out;
}

}  // namespace ksched::simulator

// What the report says about DRA devices: which devices each scheduled
// pod's claims hold, and how many of each node's devices are taken, read
// from the claims as the simulated API server holds them at the end.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/api/resource.h"
#include "pkg/simulator/simulator.h"

namespace ksched::simulator {

// The claims of the end of a simulation, by namespace/name.
using ClaimsByKey =
    std::map<std::string, std::shared_ptr<const api::ResourceClaim>>;

// The devices the slices publish (a pool's newest generation), by
// driver, pool and device name, with the node of their slice ("" when it
// is not one node's) and the pools' counter sets.
class DeviceCatalog {
 public:
  explicit DeviceCatalog(const std::vector<api::ResourceSlice>& slices);
  struct Entry {
    const api::Device* device = nullptr;
    std::string node;
  };
  const Entry* Find(const std::string& driver, const std::string& pool,
                    const std::string& device) const;
  // Every device, in (driver, pool, device) order.
  const std::map<std::tuple<std::string, std::string, std::string>, Entry>&
  devices() const {
    return devices_;
  }
  struct CounterSetEntry {
    const api::CounterSet* set = nullptr;
    std::string node;  // of the pool's device slices, if all share one
  };
  // By (driver, pool, counter set name).
  const std::map<std::tuple<std::string, std::string, std::string>,
                 CounterSetEntry>&
  counter_sets() const {
    return counter_sets_;
  }

 private:
  std::map<std::tuple<std::string, std::string, std::string>, Entry> devices_;
  std::map<std::tuple<std::string, std::string, std::string>, CounterSetEntry>
      counter_sets_;
};

// The pod's claims in spec order (entries without a claim left out), then
// the claim made for its extended resources, each with the devices its
// allocation holds and what they are (partitions, shares, taints).
std::vector<PodClaimOutcome> PodClaimOutcomes(const api::Pod& pod,
                                              const ClaimsByKey& claims,
                                              const DeviceCatalog& catalog);

// The counter sets of partitionable devices with what allocations leave
// of them, the devices shared by several claims with what their shares
// consume, and the tainted devices.
DeviceUsage UsageOfDevices(const DeviceCatalog& catalog,
                           const ClaimsByKey& claims);

// Per node name, per driver (in name order): the devices the slices publish
// for that node and how many of them allocations hold (admin access takes
// none).
std::map<std::string, std::vector<NodeDevices>> DevicesByNode(
    const std::vector<api::ResourceSlice>& slices, const ClaimsByKey& claims);

// A compact line of devices: "gpu.example.com/node-7/gpu-0, gpu-1,
// other.example.com/pool/nic-0" - each device as driver/pool/device, a
// device of the same driver and pool as the one before it by its name
// alone.
std::string DeviceList(const std::vector<AllocatedDevice>& devices);

}  // namespace ksched::simulator

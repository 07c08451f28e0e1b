// What the report says about DRA devices: which devices each scheduled
// pod's claims hold, and how many of each node's devices are taken, read
// from the claims as the simulated API server holds them at the end.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/api/resource.h"
#include "pkg/simulator/simulator.h"

namespace ksched::simulator {

// The claims of the end of a simulation, by namespace/name.
using ClaimsByKey =
    std::map<std::string, std::shared_ptr<const api::ResourceClaim>>;

// The pod's claims in spec order (entries without a claim left out), each
// with the devices its allocation holds.
std::vector<PodClaimOutcome> PodClaimOutcomes(const api::Pod& pod,
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

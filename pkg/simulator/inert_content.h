// What a cluster file asks for that the scheduler, under the feature gates
// of the run, does not read: an emulated v1.33 has DynamicResourceAllocation
// off, so an 8-GPU job's claims are ignored and it "fits" on a node without
// a GPU. The run is right to ignore them (that is what such a scheduler
// does), but not to say nothing: each gate that leaves content of the file
// inert gets one line saying how many objects ask for what, that it is
// ignored, and the flag that turns the gate on.
#pragma once

#include <string>
#include <vector>

#include "pkg/config/feature_gates.h"
#include "pkg/simulator/cluster.h"

namespace ksched::simulator {

// One line per gate that is off and leaves something of `cluster` unread:
// "3 pods ask for ResourceClaims; DynamicResourceAllocation is off at
// 1.33: their claims are ignored; --feature-gates
// DynamicResourceAllocation=true turns it on".
std::vector<std::string> InertContentWarnings(
    const Cluster& cluster, const config::FeatureGates& gates);

}  // namespace ksched::simulator

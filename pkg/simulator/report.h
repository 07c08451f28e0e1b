// Renders a simulation for people (a table) or for scripts (one JSON
// object whose field names are a stable interface).
#pragma once

#include <string>

#include "pkg/simulator/simulator.h"

namespace ksched::simulator {

std::string RenderTable(const SimulationResult& result);

// {"pods": [{"namespace", "name", "node" (null when unschedulable),
//   "message", "nominatedNode" (only when set), "profile"}],
//  "nodes": [{"name", "requested": {resource: quantity}, "allocatable":
//   {...}, "pods": N}],
//  "preempted": [{"namespace", "name", "node", "preemptedBy"}]}
std::string RenderJson(const SimulationResult& result);

}  // namespace ksched::simulator

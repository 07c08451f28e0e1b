// Renders a simulation for people (a table) or for scripts (one JSON
// object whose field names are a stable interface).
#pragma once

#include <string>
#include <vector>

#include "pkg/simulator/cluster.h"
#include "pkg/simulator/simulator.h"

namespace ksched::simulator {

std::string RenderTable(const SimulationResult& result);

// {"pods": [{"namespace", "name", "node" (null when unschedulable),
//   "message", "nominatedNode" (only when set), "profile"}],
//  "nodes": [{"name", "requested": {resource: quantity}, "allocatable":
//   {...}, "pods": N}],
//  "preempted": [{"namespace", "name", "node", "preemptedBy"}]}
std::string RenderJson(const SimulationResult& result);

// What a user should know about the input before reading the report, one
// line each, for stderr: "no nodes in FILE", "no pending pods for profiles
// [ksched]", "ignored 3 objects of kinds Deployment, Service". Empty when
// the file gave the simulation something to do and nothing was dropped.
std::vector<std::string> InputNotices(const Cluster& cluster,
                                      const std::string& path,
                                      const std::vector<std::string>& profiles,
                                      bool all_pods,
                                      const SimulationResult& result);

}  // namespace ksched::simulator

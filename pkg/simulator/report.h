// Renders a simulation for people (a table) or for scripts (one JSON
// object whose field names are a stable interface).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "pkg/simulator/cluster.h"
#include "pkg/simulator/simulator.h"

namespace ksched::simulator {

// The table; a DEVICES section lists each scheduled pod's claims with
// their devices ("node-7: gpu.example.com/node-7/gpu-0, gpu-1 (claim
// train-0-gpus-x2k9f)", see DeviceList), and a node's NOTES its devices
// taken of those its slices publish, per driver.
std::string RenderTable(const SimulationResult& result);

// {"pods": [{"namespace", "name", "node" (null when unschedulable),
//   "message", "nominatedNode" (only when set), "profile", "claims" (a
//   scheduled pod with ResourceClaims: [{"podClaim", "claim", "devices":
//   [{"request", "driver", "pool", "device", "adminAccess" (only when
//   true)}]}])}],
//  "nodes": [{"name", "requested": {resource: quantity},
//   "requestedBefore": {...}, "allocatable": {...}, "pods": N,
//   "podsBefore": N, "cordoned" (only when true), "taints" (when any:
//   ["key=value:Effect"]), "devices" (when ResourceSlices publish some for
//   the node: [{"driver", "allocated", "total"}])}],
//  "preempted": [{"namespace", "name", "node", "preemptedBy"}],
//  "pendingReasons": [{"reason", "pods"}] (PendingReasons)}
std::string RenderJson(const SimulationResult& result);
// The same report written to `out` as it is made: a large one is never
// held whole in memory.
void WriteJson(const SimulationResult& result, std::ostream& out);

// The reason that kept an unschedulable pod from the most nodes, from its
// message: "Insufficient cpu" out of "0/7 nodes are available: 1 node(s)
// were unschedulable, 4 Insufficient cpu. preemption: ..."; a PreFilter's
// rejection of every node ("pod has unbound immediate
// PersistentVolumeClaims"); or, for a message of another form, its text up
// to the first colon ("waiting for scheduling gates"). The pod's own name,
// which some plugins put in their messages ("pod train-3 cannot find
// enough sibling pods"), is left out, so pods share the reason.
std::string PrimaryReason(const std::string& message,
                          const std::string& pod_name = "",
                          const std::string& pod_namespace = "");
// The message with the pod's own name taken out (" <name>" as a word, and
// `pod "<namespace>/<name>": ` before a plugin's reason), so that pods
// rejected alike share it.
std::string PrimaryReasonKey(const std::string& message,
                             const std::string& pod_name,
                             const std::string& pod_namespace);
// How many "<count> <reason>" items a FitError message ("0/7 nodes are
// available: 3 Insufficient cpu, 4 ...") gives; 0 for any other message.
int FitErrorReasons(const std::string& message);
// The reason a pending pod is counted under in PendingReasons: its
// primary_reason where the run found one, else PrimaryReason of its
// message.
std::string PendingReasonOf(const PodOutcome& pod);

struct PendingReason {
  std::string reason;
  int pods = 0;
};
// The pods left unschedulable, counted by PendingReasonOf: each pod once,
// most pods first, then by reason.
std::vector<PendingReason> PendingReasons(const SimulationResult& result);

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

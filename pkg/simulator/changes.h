// What-if changes to a cluster before it is simulated: drain, cordon or
// remove nodes, add copies of a node template. Pods a change puts out of
// their node are handled as their controllers and `kubectl drain
// --ignore-daemonsets` would: a controller's pod comes back pending (a
// ReplicaSet's or Job's under a new name, a StatefulSet's under its own);
// DaemonSet and mirror pods stay where they are; a bare pod stops the
// drain unless it is forced, and is then gone. A removed node takes every
// pod with it; controllers other than DaemonSets re-create theirs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/simulator/cluster.h"
#include "pkg/util/result.h"

namespace ksched::simulator {

struct ClusterChanges {
  std::vector<std::string> drain;         // cordon and evict
  std::vector<std::string> remove_nodes;  // delete the node and its pods
  std::vector<std::string> cordon;        // no new pods
  int add_nodes = 0;                      // copies of node_template
  std::optional<api::Node> node_template;
  // kubectl drain --force: bare pods on a drained node are deleted rather
  // than stopping the drain.
  bool force = false;
  // The ResourceSlices of the template node (its file's, for --add-nodes);
  // when there are none, those the cluster publishes for the node the
  // template is named after. Each added node gets copies of them.
  std::vector<api::ResourceSlice> node_template_slices;
};

// A pod on a changed node, and what became of it.
struct DisplacedPod {
  enum class Fate : uint8_t {
    kRecreated,     // its controller re-creates it (see `recreated`)
    kDeleted,       // a bare pod a forced drain deleted
    kGoneWithNode,  // its node was removed, and nothing re-creates it
    kStaysDaemon,   // DaemonSet-managed: drain leaves it on its node
    kStaysMirror,   // a static pod's mirror: drain skips it
  };
  std::string pod;        // namespace/name it had
  std::string node;       // where it ran
  std::string recreated;  // namespace/name of its pending replacement; ""
                          // when nothing replaces it
  Fate fate = Fate::kDeleted;
};

struct AppliedChanges {
  std::vector<DisplacedPod> displaced;
  std::vector<std::string> added_nodes;
};

// Errors: a node to change that the cluster does not have, --add-nodes
// without a template (or a template without a name), a negative count, a
// drained node with bare pods unless `force` (kubectl's words).
util::Result<AppliedChanges> ApplyChanges(Cluster& cluster,
                                          const ClusterChanges& changes,
                                          uint64_t seed);

// The ResourceSlices each node added from the template gets a copy of:
// the template file's, else those `cluster` publishes for the node of the
// template's name (none without a template).
std::vector<api::ResourceSlice> TemplateSlices(const Cluster& cluster,
                                               const ClusterChanges& changes);

// A node manifest file with exactly one Node, for --node-template; the
// file's ResourceSlices for that node (spec.nodeName) go to `slices`, how
// the file was read (Cluster::read_notes) to `notes`.
util::Result<api::Node> LoadNodeTemplate(
    const std::string& path, std::vector<api::ResourceSlice>* slices = nullptr,
    std::vector<std::string>* notes = nullptr);

// A node's ResourceSlice copied for an added node `to`: published for `to`,
// its pool and name with the template node's name `from` replaced by `to`
// (or `to` appended when they do not contain it), so each node has a pool
// of its own, as a driver names pools after their nodes.
api::ResourceSlice CopySliceForNode(const api::ResourceSlice& slice,
                                    const std::string& from,
                                    const std::string& to);

}  // namespace ksched::simulator

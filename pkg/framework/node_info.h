// NodeInfo: a node and the pods assigned (or assumed) to it, with the sums
// the plugins need precomputed (framework.NodeInfo).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/string_map.h"
#include "pkg/framework/host_ports.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/resource.h"

namespace ksched::framework {

// An image on a node, with how many nodes of the cluster have it.
struct ImageStateSummary {
  int64_t size = 0;
  int num_nodes = 0;
  friend bool operator==(const ImageStateSummary&,
                         const ImageStateSummary&) = default;
};

// Cache-line aligned: a NodeInfo lives in a make_shared block whose
// reference count the scheduling thread updates for every feasible node,
// while the parallel filter and score passes on other cores read the
// NodeInfo's first fields. Sharing one line between the two made every
// pass pay a cross-core miss per node.
class alignas(64) NodeInfo {
 public:
  NodeInfo() = default;

  // The node may be null: the cache can hold pods of a node it has not seen
  // yet (or has seen deleted).
  const api::Node* node() const { return node_.get(); }
  const std::shared_ptr<const api::Node>& node_ptr() const { return node_; }
  const std::string& name() const;
  void SetNode(std::shared_ptr<const api::Node> node);
  void RemoveNode() { node_.reset(); }

  const std::vector<PodInfoPtr>& pods() const { return pods_; }
  const std::vector<PodInfoPtr>& pods_with_affinity() const {
    return pods_with_affinity_;
  }
  const std::vector<PodInfoPtr>& pods_with_required_anti_affinity() const {
    return pods_with_required_anti_affinity_;
  }
  const Resource& requested() const { return requested_; }
  const Resource& non_zero_requested() const { return non_zero_requested_; }
  const Resource& allocatable() const { return allocatable_; }
  const HostPortInfo& used_ports() const { return used_ports_; }
  const api::FlatMap<ImageStateSummary>& image_states() const {
    return image_states_;
  }
  void set_image_states(api::FlatMap<ImageStateSummary> states) {
    image_states_ = std::move(states);
  }
  // How many pods on this node use each PVC ("namespace/claim").
  const api::FlatMap<int>& pvc_ref_counts() const { return pvc_ref_counts_; }

  void AddPod(PodInfoPtr pod);
  // Removes the pod with the given UID; false when it is not here.
  bool RemovePod(std::string_view uid);

  // Bumped by the owner (the cache) on every change so snapshots copy only
  // what changed.
  int64_t generation() const { return generation_; }
  void set_generation(int64_t g) { generation_ = g; }

 private:
  void Account(const PodInfo& pod, int64_t sign);

  std::shared_ptr<const api::Node> node_;
  std::vector<PodInfoPtr> pods_;
  std::vector<PodInfoPtr> pods_with_affinity_;
  std::vector<PodInfoPtr> pods_with_required_anti_affinity_;
  Resource requested_;
  Resource non_zero_requested_;
  Resource allocatable_;
  HostPortInfo used_ports_;
  api::FlatMap<ImageStateSummary> image_states_;
  api::FlatMap<int> pvc_ref_counts_;
  int64_t generation_ = 0;
};

using NodeInfoPtr = std::shared_ptr<NodeInfo>;

// The host ports a pod asks for (container ports with hostPort > 0).
std::vector<const api::ContainerPort*> HostPortsOf(const api::Pod& pod);

// Starts loading a NodeInfo (and, when `node_too`, the Node it points
// at, which needs the NodeInfo's first line loaded already) into cache.
// The filter and score passes walk nodes scattered across the heap; asking
// for a node a few steps ahead overlaps those misses with the work on the
// current one.
inline void PrefetchNodeInfo(const NodeInfo* info, bool node_too) {
  const char* p = reinterpret_cast<const char*>(info);
  for (size_t offset = 0; offset < sizeof(NodeInfo); offset += 64) {
    __builtin_prefetch(p + offset);
  }
  if (node_too && info->node() != nullptr) {
    const char* n = reinterpret_cast<const char*>(info->node());
    for (size_t offset = 0; offset < sizeof(api::Node); offset += 64) {
      __builtin_prefetch(n + offset);
    }
  }
}

}  // namespace ksched::framework

// NodeInfo: a node and the pods assigned (or assumed) to it, with the sums
// the plugins need precomputed (framework.NodeInfo).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/string_map.h"
#include "pkg/framework/host_ports.h"
#include "pkg/framework/pod_count_memo.h"
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
class NodeInfo;

// Well-known topology labels (k8s.io/api/core/v1 well_known_labels.go).
inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kLabelTopologyZone =
    "topology.kubernetes.io/zone";

// The hash of a label value that NodeInfo keeps for the hostname and
// zone labels.
inline uint32_t LabelValueHash(std::string_view value) {
  return static_cast<uint32_t>(std::hash<std::string_view>{}(value));
}

// A label's value and its LabelValueHash. For the hostname and zone labels
// the hash comes from the NodeInfo, so a lookup in a table of topology
// values touches the value itself (the Node, one cache miss per node of a
// pass) only when the hash matches.
struct LabelValue {
  const std::string* value = nullptr;  // null: no such label
  uint32_t hash = 0;
};

// A node's labels as spreading and affinity read them: the values of the
// hostname and zone labels, which nearly every topology key names, are
// looked up once when the node is set instead of in every node's label
// list on every cycle.
class NodeLabels {
 public:
  explicit NodeLabels(const NodeInfo& info) : info_(info) {}
  // The value of `key`, or nullptr (also without a node).
  const std::string* Find(std::string_view key) const;
  LabelValue Lookup(std::string_view key) const;

 private:
  const NodeInfo& info_;
};

class alignas(64) NodeInfo {
 public:
  NodeInfo() = default;

  // The node may be null: the cache can hold pods of a node it has not seen
  // yet (or has seen deleted).
  const api::Node* node() const { return node_.get(); }
  const std::shared_ptr<const api::Node>& node_ptr() const { return node_; }
  // The node's name, or empty without a node. Kept in the NodeInfo (as are
  // the two flags below) so that the filter pass over thousands of nodes
  // can decide the common case without loading each Node from memory.
  const std::string& name() const { return name_; }
  bool node_unschedulable() const { return unschedulable_; }
  NodeLabels labels() const { return NodeLabels(*this); }
  bool node_has_taints() const { return has_taints_; }
  void SetNode(std::shared_ptr<const api::Node> node);
  void RemoveNode();

  // Starts loading into cache the lines Filter and Score read: the hot
  // fields at the front, the image states, and with `node_too` the Node's
  // labels, which affinity and spreading read (following node_, so its line
  // must have been asked for earlier). The passes walk nodes scattered across
  // the heap; asking for one a few steps ahead overlaps its misses with the
  // work on the current one. Only those lines: prefetching whole objects would
  // fill the core's few outstanding-miss slots and stall instead.
  void Prefetch(bool node_too) const {
    const char* p = reinterpret_cast<const char*>(this);
    const char* hot_end = reinterpret_cast<const char*>(&allocatable_ + 1);
    for (; p < hot_end; p += 64) __builtin_prefetch(p);
    __builtin_prefetch(&image_states_);
    if (node_too && node_ != nullptr) {
      __builtin_prefetch(&node_->metadata.labels);
    }
  }

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
  // Answers plugins memoised for this node (see pod_count_memo.h);
  // emptied whenever the pods or the node change, empty in every copy.
  const PodCountMemo& pod_counts() const { return pod_counts_; }

  int64_t generation() const { return generation_; }
  void set_generation(int64_t g) { generation_ = g; }

 private:
  void Account(const PodInfo& pod, int64_t sign);

  // What every Filter and Score reads comes first, in the lines the
  // passes prefetch.
  std::shared_ptr<const api::Node> node_;
  std::string name_;
  bool unschedulable_ = false;
  bool has_taints_ = false;
  uint32_t hostname_hash_ = 0;
  uint32_t zone_hash_ = 0;
  // Into node_'s labels, which stay put while node_ holds the Node.
  const std::string* hostname_label_ = nullptr;
  const std::string* zone_label_ = nullptr;
  friend class NodeLabels;
  Resource requested_;
  Resource non_zero_requested_;
  Resource allocatable_;
  std::vector<PodInfoPtr> pods_;
  std::vector<PodInfoPtr> pods_with_affinity_;
  std::vector<PodInfoPtr> pods_with_required_anti_affinity_;
  HostPortInfo used_ports_;
  api::FlatMap<ImageStateSummary> image_states_;
  api::FlatMap<int> pvc_ref_counts_;
  PodCountMemo pod_counts_;
  int64_t generation_ = 0;
};

using NodeInfoPtr = std::shared_ptr<NodeInfo>;

inline const std::string* NodeLabels::Find(std::string_view key) const {
  if (key == kLabelHostname) return info_.hostname_label_;
  if (key == kLabelTopologyZone) return info_.zone_label_;
  return info_.node_ ? info_.node_->metadata.labels.Find(key) : nullptr;
}

inline LabelValue NodeLabels::Lookup(std::string_view key) const {
  if (key == kLabelHostname) {
    return {info_.hostname_label_, info_.hostname_hash_};
  }
  if (key == kLabelTopologyZone) return {info_.zone_label_, info_.zone_hash_};
  const std::string* value =
      info_.node_ ? info_.node_->metadata.labels.Find(key) : nullptr;
  return {value, value ? LabelValueHash(*value) : 0};
}

}  // namespace ksched::framework

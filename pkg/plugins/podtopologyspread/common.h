// Pieces shared by PodTopologySpread's filtering and scoring (common.go):
// the parsed constraints, the node inclusion policies, pod counting and the
// per-cycle table that interns topology values.
//
// Internal to the plugin; tests include it to inspect the cycle state.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/label_selector.h"
#include "pkg/api/node.h"
#include "pkg/api/node_selector.h"
#include "pkg/api/pod.h"
#include "pkg/framework/node_info.h"
#include "pkg/framework/pod_count_memo.h"
#include "pkg/framework/pod_info.h"
#include "pkg/util/result.h"

namespace ksched::plugins::podtopologyspread {

inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kLabelTopologyZone =
    "topology.kubernetes.io/zone";

// A TopologySpreadConstraint with its selector compiled and the optional
// fields defaulted (topologySpreadConstraint in kube).
struct Constraint {
  int32_t max_skew = 0;
  std::string topology_key;
  api::Selector selector;
  int32_t min_domains = 1;
  api::NodeInclusionPolicy node_affinity_policy =
      api::NodeInclusionPolicy::kHonor;
  api::NodeInclusionPolicy node_taints_policy =
      api::NodeInclusionPolicy::kIgnore;
  // Hostname domains are single nodes: scoring counts them per node.
  bool IsHostname() const { return topology_key == kLabelHostname; }
};

using Constraints = std::vector<Constraint>;

// The constraints of `action` among `constraints`, with the pod's values of
// matchLabelKeys ANDed into each selector (filterTopologySpreadConstraints
// with MatchLabelKeysInPodTopologySpread on, as in kube v1.32).
util::Result<Constraints> FilterConstraints(
    const std::vector<api::TopologySpreadConstraint>& constraints,
    const api::StringMap& pod_labels,
    api::UnsatisfiableConstraintAction action);

// Whether the node has a label for every constraint's topology key.
bool NodeLabelsMatchConstraints(const api::StringMap& node_labels,
                                const Constraints& constraints);

// Whether any constraint's selector matches `labels`.
bool PodLabelsMatchConstraints(const Constraints& constraints,
                               const api::StringMap& labels);

bool SameSelector(const api::Selector& a, const api::Selector& b);

// The incoming pod's side of the node inclusion policies, built once per
// cycle: its required node affinity and tolerations.
class InclusionContext {
 public:
  explicit InclusionContext(const api::Pod& pod);

  // Evaluates the policies for one node; affinity and taints are each
  // checked at most once however many constraints ask.
  class NodeView {
   public:
    NodeView(const InclusionContext& ctx, const api::Node& node)
        : ctx_(ctx), node_(node) {}
    bool Includes(const Constraint& c);

   private:
    const InclusionContext& ctx_;
    const api::Node& node_;
    int8_t affinity_ = -1;  // -1: not evaluated yet
    int8_t taints_ = -1;
  };

  // Whether the policies of `constraints` let every node in: the pod has
  // no required node affinity or the constraints ignore it, and they
  // ignore taints. The counts then depend on the nodes alone.
  bool IncludesEveryNode(const Constraints& constraints) const;

 private:
  const api::Pod& pod_;
  // Absent when the pod has neither a nodeSelector nor required affinity,
  // so every node matches without evaluating anything.
  std::optional<api::RequiredNodeAffinity> affinity_;
};

// Selectors shared by several constraints (zone and hostname spreading of
// one workload usually use the same one) are matched once per pod, and
// with `keys` (the snapshot's, see pod_count_memo.h) a node's count for a
// selector is memoised in its NodeInfo, so unchanged nodes are not matched
// again by the next pod of the workload.
class SelectorGroups {
 public:
  static constexpr int kMaxGroups = 16;

  SelectorGroups(const Constraints& constraints, std::string_view ns,
                 framework::PodCountKeys* keys);
  int group_of(size_t constraint) const { return group_of_[constraint]; }
  // The memo key of group g's question; 0 when not memoised.
  uint32_t key(int group) const { return keys_[group]; }
  int size() const { return static_cast<int>(selectors_.size()); }

  // Adds to counts[g], for every g with wanted[g], the pods of `node` in
  // the namespace that group g's selector matches. Terminating pods do not
  // count (kube #87621).
  void Count(const framework::NodeInfo& node, const uint8_t* wanted,
             int32_t* counts) const;

 private:
  std::string ns_;
  std::vector<const api::Selector*> selectors_;
  std::vector<uint32_t> keys_;  // per group; 0: not memoised
  std::vector<int> group_of_;
};

// The memo key of "pods in `ns` matching `selector`, terminating ones
// excluded", or 0 without `keys`.
uint32_t CountKey(framework::PodCountKeys* keys, const api::Selector& selector,
                  std::string_view ns);

// countPodsMatchSelector.
int32_t CountPodsMatchSelector(const std::vector<framework::PodInfoPtr>& pods,
                               const api::Selector& selector,
                               std::string_view ns);

// Topology values of one constraint interned into dense ids, so counts live
// in plain vectors and a node's domain is found with one probe of an
// open-addressing table (no allocation per lookup). Values are copied into
// one arena, so the table does not depend on the nodes it was built from.
class DomainTable {
 public:
  static uint64_t Hash(std::string_view value) {
    return std::hash<std::string_view>{}(value);
  }

  void Reserve(size_t n);
  // The id of `value` (whose hash is `hash`), added when new.
  int32_t Intern(std::string_view value, uint64_t hash);
  // The id of `value`, or -1.
  int32_t Find(std::string_view value, uint64_t hash) const;
  int32_t Find(std::string_view value) const {
    return Find(value, Hash(value));
  }

  int32_t size() const { return static_cast<int32_t>(entries_.size()); }
  std::string_view value(int32_t id) const {
    const Entry& e = entries_[id];
    return std::string_view(arena_).substr(e.offset, e.length);
  }

 private:
  struct Entry {
    uint64_t hash;
    uint32_t offset;
    uint32_t length;
  };
  void Rehash(size_t slots);

  std::vector<Entry> entries_;
  std::vector<int32_t> slots_;  // power-of-two size; -1 is empty
  std::string arena_;
};

}  // namespace ksched::plugins::podtopologyspread

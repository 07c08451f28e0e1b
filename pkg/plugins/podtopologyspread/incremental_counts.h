// PreFilter's domain counts, kept between cycles and brought up to date
// node by node.
//
// Every pod of a spreading workload asks the same question ("pods of this
// namespace matching this selector, per zone") over the same nodes, and
// between two of its cycles only the nodes that took or lost a pod
// changed. Counting all nodes again costs a pass over the cluster per pod;
// keeping each node's contribution lets a cycle recount only the nodes
// whose NodeInfo changed, and the domain totals follow by subtracting the
// old contribution and adding the new one.
//
// Sound because of what a cache-made snapshot guarantees: a NodeInfo's
// generation comes from one counter the cache bumps on every change to
// any node, so equal generations mean the same node in the same state
// (pods and labels), whatever slot of the list it sits in. Snapshots
// assembled by hand carry no PodCountKeys and are never kept here. The
// counts are kept only when the inclusion policies let every node in, so
// that they depend on the nodes alone and not on the incoming pod.
//
// Internal to the plugin.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "pkg/framework/node_info.h"
#include "pkg/framework/pod_count_memo.h"
#include "pkg/plugins/podtopologyspread/common.h"
#include "pkg/plugins/podtopologyspread/state.h"

namespace ksched::plugins::podtopologyspread {

class IncrementalCounts {
 public:
  // Questions kept at once (a workload's constraints are one question);
  // the least recently asked one goes first.
  static constexpr size_t kMaxQuestions = 64;

  IncrementalCounts();
  ~IncrementalCounts();

  // Runs fn(i) for i in [0, n), possibly in parallel.
  using ParallelFor =
      std::function<void(int n, const std::function<void(int)>&)>;

  // The domain counts of `cs` over `nodes` (one DomainCounts per
  // constraint, critical paths set), as a full count would give them, or
  // false when this question cannot be kept (no memo keys, inclusion
  // depending on the pod); the caller then counts in full.
  bool Fill(const Constraints& cs, const SelectorGroups& groups,
            const InclusionContext& inclusion,
            const framework::PodCountKeys* keys,
            const std::vector<framework::NodeInfoPtr>& nodes,
            const ParallelFor& parallel_for, std::vector<DomainCounts>* out);

  size_t questions() const;

 private:
  struct Question;
  // Brings q up to date with `nodes`; false when a domain lost its last
  // node (q must then be rebuilt, so the domain table holds no empty
  // domain).
  bool Update(Question& q, const Constraints& cs, const SelectorGroups& groups,
              const InclusionContext& inclusion,
              const std::vector<framework::NodeInfoPtr>& nodes,
              const ParallelFor& parallel_for);

  mutable std::mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<Question>> questions_;
  uint64_t tick_ = 0;
};

}  // namespace ksched::plugins::podtopologyspread

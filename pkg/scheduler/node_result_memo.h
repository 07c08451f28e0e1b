// NodeResultMemo: the Filter verdicts and raw Scores of node-local plugins
// (SignPlugin::NodeLocal), kept per node generation across cycles.
//
// With percentageOfNodesToScore adaptive, a cycle at 100,000 nodes filters
// and scores 5,000 of them, starting where the last cycle stopped; a run of
// pods alike (one Deployment, one Job) comes back to each node every twenty
// cycles, most often to a node no pod has landed on since. When every
// plugin a stage runs is node-local, its answer for a node is a function of
// the pod's signature, the node's NodeInfo (named by its generation) and
// the snapshot's size: the memo keeps the answers of the last signature and
// a pass reads them from two dense arrays instead of loading thousands of
// NodeInfos. Only passing verdicts are kept: a rejection is filtered again,
// so the diagnosis carries every plugin's own status. Decisions are those
// of a cycle without the memo, node for node and tie for tie.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pkg/framework/cycle_state.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/raw_score_cache.h"
#include "pkg/framework/runtime/framework.h"
#include "pkg/framework/snapshot.h"

namespace ksched::scheduler {

class NodeResultMemo {
 public:
  // After PreFilter, for a pass over all of `snapshot`'s nodes: whether
  // Passed/SetPassed may be used in this cycle. Forgets every verdict kept
  // for another signature or another snapshot.
  bool StartFilter(const framework::Framework& fwk,
                   const framework::CycleState& state,
                   const framework::PodInfo& pod,
                   const framework::Snapshot& snapshot);
  // Whether the node at `position` of the snapshot passed before, at its
  // current generation.
  bool Passed(size_t position) const {
    return filter_.generations[position] == (*current_)[position];
  }
  // Called from the parallel filter pass, never twice for one position.
  void SetPassed(size_t position) {
    filter_.generations[position] = (*current_)[position];
  }

  // After PreScore, for the nodes at `positions` of the snapshot StartFilter
  // was given: a cache for RunScorePlugins, or nullptr when this cycle's
  // Score plugins are not all node-local.
  // Passes answered from the memo (counted once per chunk of a pass).
  void CountReusedPasses(int64_t n) {
    reused_passes_.fetch_add(n, std::memory_order_relaxed);
  }
  int64_t reused_passes() const {
    return reused_passes_.load(std::memory_order_relaxed);
  }

  framework::RawScoreCache* StartScore(const framework::Framework& fwk,
                                       const framework::CycleState& state,
                                       const framework::PodInfo& pod,
                                       const std::vector<int32_t>& positions);

 private:
  // What one stage keeps: the signature and snapshot size it was kept for,
  // and per position the generation of the node it holds an answer for (0:
  // none; the cache's generations start at 1).
  struct Stage {
    std::string signature;
    size_t snapshot_size = 0;
    const framework::Snapshot* snapshot = nullptr;
    std::vector<int64_t> generations;
    // Matches `signature` and `snapshot`, or starts over for them.
    void Keep(std::string sig, const framework::Snapshot& snap);
  };
  class ScoreCache final : public framework::RawScoreCache {
   public:
    explicit ScoreCache(NodeResultMemo& memo) : memo_(memo) {}
    const int64_t* Find(size_t i) const override;
    void Store(size_t i, std::span<const int64_t> scores) override;

   private:
    NodeResultMemo& memo_;
  };

  Stage filter_;
  Stage score_;
  // Raw scores per position, score_plugins_ of them each.
  std::vector<int64_t> scores_;
  size_t score_plugins_ = 0;
  const std::vector<int64_t>* current_ = nullptr;  // the snapshot's
  const framework::Snapshot* snapshot_ = nullptr;
  const std::vector<int32_t>* positions_ = nullptr;
  ScoreCache score_cache_{*this};
  std::atomic<int64_t> reused_passes_{0};
};

}  // namespace ksched::scheduler

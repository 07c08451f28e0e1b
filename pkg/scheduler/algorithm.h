// The scheduling algorithm of one cycle: PreFilter, Filter over the nodes in
// parallel (stopping once enough feasible nodes are found), PreScore, Score,
// and host selection (schedule_one.go's schedulePod and its helpers).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/framework/cycle_state.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/runtime/framework.h"
#include "pkg/framework/snapshot.h"
#include "pkg/framework/types.h"
#include "pkg/scheduler/batch.h"
#include "pkg/scheduler/candidate_positions.h"
#include "pkg/scheduler/node_result_memo.h"
#include "pkg/util/random.h"

namespace ksched::scheduler {

// Below this many nodes every node is evaluated.
inline constexpr int32_t kMinFeasibleNodesToFind = 100;
// The adaptive percentage never goes below this.
inline constexpr int32_t kMinFeasibleNodesPercentageToFind = 5;

// How many feasible nodes to look for among `num_all_nodes`
// (numFeasibleNodesToFind). `percentage` 0 is adaptive: 50 - nodes/125.
int32_t NumFeasibleNodesToFind(int32_t percentage, int32_t num_all_nodes);

struct ScheduleResult {
  enum class Kind {
    kScheduled,  // suggested_host is set
    kNoFit,      // diagnosis explains; FitErrorMessage() formats it
    kError,      // error_message explains (also "no nodes available")
  };
  Kind kind = Kind::kError;
  std::string suggested_host;
  int evaluated_nodes = 0;
  int feasible_nodes = 0;
  int num_all_nodes = 0;
  framework::Diagnosis diagnosis;
  std::string error_message;

  // The message users see for a failure (the FailedScheduling event text).
  std::string FailureMessage() const;
};

class SchedulingAlgorithm {
 public:
  // `percentage_of_nodes_to_score` is the configuration's global value (0:
  // adaptive); a profile's own value takes precedence.
  SchedulingAlgorithm(int32_t percentage_of_nodes_to_score,
                      util::Random& random)
      : percentage_(percentage_of_nodes_to_score), random_(random) {}

  // Runs the algorithm for `pod` against `snapshot` (which the framework
  // must already point at). Safe to call from one thread at a time.
  ScheduleResult Schedule(framework::Framework& fwk,
                          framework::CycleState& state,
                          const framework::PodInfo& pod,
                          const framework::Snapshot& snapshot);

  // Filters `nodes` (starting at the rotating start index), stopping once
  // `NumFeasibleNodesToFind` are feasible; rejected nodes go to diagnosis.
  // The feasible pointers do not own their nodes: they are valid while
  // `nodes` is. Returns false on an internal error (message in *error).
  // With `memo` (only when `nodes` are the snapshot's, whose positions it
  // keeps), nodes that passed before at their generation pass without
  // being filtered, and *positions gets each feasible node's position.
  // With `candidates` (a flag per position of `nodes`, from the
  // framework's FilterCandidates), an unflagged node is rejected without
  // being filtered; its status is worked out only if no node passes, and
  // until then it is counted in diagnosis->unexplained_rejections.
  bool FindNodesThatPassFilters(
      framework::Framework& fwk, const framework::CycleState& state,
      const framework::PodInfo& pod,
      const std::vector<framework::NodeInfoPtr>& nodes,
      framework::Diagnosis* diagnosis,
      std::vector<framework::NodeInfoPtr>* feasible, std::string* error,
      NodeResultMemo* memo = nullptr, std::vector<int32_t>* positions = nullptr,
      const std::vector<uint8_t>* candidates = nullptr);

  // Whether FilterCandidates lists are used (on by default). Decisions and
  // messages are the same either way: off is for tests that show it.
  void set_use_filter_candidates(bool on) { use_candidates_ = on; }
  // Nodes rejected on a FilterCandidates list without being filtered,
  // over all cycles.
  int64_t candidate_rejections() const {
    return candidate_rejections_.load(std::memory_order_relaxed);
  }

  // Picks the highest total score, ties broken uniformly at random.
  std::string SelectHost(
      const std::vector<framework::NodePluginScores>& scores);

  size_t next_start_node_index() const { return next_start_node_index_; }

  // Turns on opportunistic batching (the OpportunisticBatching gate): each
  // profile keeps its last cycle's scored nodes for the next pods with the
  // same signature (batch.h).
  void EnableOpportunisticBatching(const util::Clock& clock,
                                   framework::MetricsRecorder* metrics);
  // Pods that took a batching hint, over all profiles.
  int64_t batched_pods() const;

  // Whether node-local answers are kept across cycles (node_result_memo.h;
  // on by default). Decisions are the same either way: off is for tests
  // that show it.
  void set_memoize_node_results(bool on) { memoize_ = on; }
  // Nodes that passed filtering on a kept answer, over all profiles.
  int64_t memoized_filter_passes() const;

 private:
  ScheduleResult Run(framework::Framework& fwk, framework::CycleState& state,
                     const framework::PodInfo& pod,
                     const framework::Snapshot& snapshot,
                     OpportunisticBatch* batch, int64_t cycle);

  int32_t percentage_;
  util::Random& random_;
  // Where the next cycle starts filtering, so every node gets its turn.
  size_t next_start_node_index_ = 0;
  // Schedule calls so far: the cycle count batching compares.
  int64_t cycles_ = 0;
  const util::Clock* batch_clock_ = nullptr;  // non-null: batching is on
  framework::MetricsRecorder* batch_metrics_ = nullptr;
  std::map<std::string, std::unique_ptr<OpportunisticBatch>, std::less<>>
      batches_;  // by profile
  bool memoize_ = true;
  bool use_candidates_ = true;
  std::atomic<int64_t> candidate_rejections_{0};
  CandidatePositions candidate_positions_;
  std::map<std::string, std::unique_ptr<NodeResultMemo>, std::less<>>
      memos_;  // by profile
};

}  // namespace ksched::scheduler

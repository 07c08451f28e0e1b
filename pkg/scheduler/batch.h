// OpportunisticBatch: consecutive pods with the same scheduling signature
// reuse the previous cycle's filtered and scored nodes (kube-scheduler's
// opportunistic batching, KEP-5598, behind the OpportunisticBatching gate).
//
// After a full cycle, the nodes it scored (all but the chosen one) are kept
// with their raw scores. The next pod with the same signature re-checks
// only the node the last pod took: if Filter now rejects it, it leaves the
// list; if not, it is rescored and competes again, the list renormalised.
// The best of the list is the hint, which the cycle then filters alone and
// takes when it passes. Nothing else in the cluster is looked at, so the
// kept results expire after 500 ms, and any other cycle in between, a
// failure, a nominated node or a different signature drops them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/framework/cycle_state.h"
#include "pkg/framework/metrics_recorder.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/runtime/framework.h"
#include "pkg/framework/snapshot.h"
#include "pkg/util/clock.h"
#include "pkg/util/random.h"

namespace ksched::scheduler {

class OpportunisticBatch {
 public:
  // How long kept results stay usable (maxBatchAge).
  static constexpr std::chrono::milliseconds kMaxAge{500};

  OpportunisticBatch(const util::Clock& clock, util::Random& random,
                     framework::MetricsRecorder* metrics)
      : clock_(clock), random_(random), metrics_(metrics) {}

  // After PreFilter: the node to try first for `pod` in cycle `cycle`, or
  // "" when nothing kept applies. `signature` is the pod's (nullopt:
  // unsignable).
  std::string NodeHint(framework::Framework& fwk, framework::CycleState& state,
                       const framework::PodInfo& pod,
                       const std::optional<std::string>& signature,
                       int64_t cycle, const framework::Snapshot& snapshot);

  // After the algorithm chose `chosen` in `cycle`, given hint `hint` ("" if
  // none). `scored` holds the raw scores and totals of every node the cycle
  // scored (chosen included), or is empty when the cycle scored nothing
  // (the hint or a single feasible node was taken).
  void Store(const framework::Framework& fwk,
             const std::optional<std::string>& signature,
             const std::string& hint, const std::string& chosen,
             const framework::RawScores& scored,
             const std::vector<int64_t>& totals, int64_t cycle);

  // The algorithm found no node (or failed) in `cycle`.
  void Failed(int64_t cycle);

  // How many pods took a hint (for tests and benchmarks).
  int64_t batched_pods() const { return batched_pods_; }

 private:
  struct Candidate {
    std::string node;
    std::vector<int64_t> raw;  // per plugin of plugins_
    int64_t total = 0;
    uint64_t randomizer = 0;  // breaks ties, as kube's heap does
  };
  bool Compatible(const framework::Framework& fwk,
                  const framework::PodInfo& pod,
                  const std::optional<std::string>& signature, int64_t cycle);
  // Re-checks the node the last pod took; false drops everything.
  bool Refresh(framework::Framework& fwk, framework::CycleState& state,
               const framework::PodInfo& pod,
               const framework::Snapshot& snapshot);
  void Flush(const framework::Framework& fwk, std::string_view reason);
  void Count(const framework::Framework& fwk, std::string_view result);

  const util::Clock& clock_;
  util::Random& random_;
  framework::MetricsRecorder* metrics_;

  // The kept results.
  std::string signature_;
  std::vector<size_t> plugins_;  // Score plugins the raw scores are of
  std::vector<Candidate> candidates_;
  util::Clock::TimePoint created_{};
  // The last cycle that succeeded.
  int64_t last_cycle_ = -1;
  int64_t last_failed_cycle_ = -2;
  std::string last_chosen_;
  int64_t batched_pods_ = 0;
};

}  // namespace ksched::scheduler

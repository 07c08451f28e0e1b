#include "pkg/scheduler/batch.h"

#include <algorithm>
#include <limits>

namespace ksched::scheduler {

namespace {

// Result and flush reasons, as kube-scheduler labels its batch metrics.
constexpr std::string_view kNoHint = "no_hint";
constexpr std::string_view kHintUsed = "hint_used";
constexpr std::string_view kHintNotUsed = "hint_not_used";
constexpr std::string_view kPodFailed = "pod_failed";
constexpr std::string_view kPodSkipped = "pod_skipped";
constexpr std::string_view kPodNominated = "pod_nominated";
constexpr std::string_view kNodeMissing = "node_missing";
constexpr std::string_view kEmptyList = "empty_list";
constexpr std::string_view kExpired = "expired";
constexpr std::string_view kPodIncompatible = "pod_incompatible";
constexpr std::string_view kPodNotBatchable = "pod_not_batchable";
constexpr std::string_view kPreScoreError = "prescore_error";
constexpr std::string_view kRescoreError = "rescore_error";
constexpr std::string_view kNormalizeError = "normalize_error";

}  // namespace

void OpportunisticBatch::Count(const framework::Framework& fwk,
                               std::string_view result) {
  if (metrics_ != nullptr)
    metrics_->ObserveBatchAttempt(fwk.profile_name(), result);
}

void OpportunisticBatch::Flush(const framework::Framework& fwk,
                               std::string_view reason) {
  if (metrics_ != nullptr)
    metrics_->ObserveBatchFlush(fwk.profile_name(), reason);
  candidates_.clear();
  signature_.clear();
  plugins_.clear();
}

bool OpportunisticBatch::Compatible(const framework::Framework& fwk,
                                    const framework::PodInfo& pod,
                                    const std::optional<std::string>& signature,
                                    int64_t cycle) {
  if (candidates_.empty()) return false;
  if (cycle == last_failed_cycle_ + 1) {
    Flush(fwk, kPodFailed);
    return false;
  }
  // Another cycle (another profile's pod) came in between.
  if (cycle != last_cycle_ + 1) {
    Flush(fwk, kPodSkipped);
    return false;
  }
  if (!pod.pod().status.nominated_node_name.empty()) {
    Flush(fwk, kPodNominated);
    return false;
  }
  if (!signature.has_value() || *signature != signature_) {
    Flush(fwk, kPodIncompatible);
    return false;
  }
  if (clock_.Now() > created_ + kMaxAge) {
    Flush(fwk, kExpired);
    return false;
  }
  return true;
}

bool OpportunisticBatch::Refresh(framework::Framework& fwk,
                                 framework::CycleState& state,
                                 const framework::PodInfo& pod,
                                 const framework::Snapshot& snapshot) {
  framework::NodeInfoPtr node = snapshot.GetPtr(last_chosen_);
  if (node == nullptr) {
    Flush(fwk, kNodeMissing);
    return false;
  }
  const framework::Status filtered = fwk.RunFilterPlugins(state, pod, *node);
  // Full for this pod: the kept list, without it, is what a full cycle
  // would score.
  if (filtered.IsRejected()) return true;
  // Still feasible: its scores changed with the pod it took, so it is
  // scored afresh and the list renormalised with it.
  if (!fwk.RunPreScorePlugins(state, pod, {node}).IsSuccess()) {
    Flush(fwk, kPreScoreError);
    return false;
  }
  framework::RawScores fresh;
  if (!fwk.RunRawScorePlugins(state, pod, {node}, &fresh).IsSuccess() ||
      fresh.plugins != plugins_) {
    Flush(fwk, kRescoreError);
    return false;
  }
  framework::RawScores all;
  all.plugins = plugins_;
  all.nodes.reserve(candidates_.size() + 1);
  all.scores.assign(plugins_.size(), {});
  for (const Candidate& c : candidates_) {
    all.nodes.push_back(c.node);
    for (size_t a = 0; a < plugins_.size(); ++a) {
      all.scores[a].push_back(c.raw[a]);
    }
  }
  all.nodes.push_back(node->name());
  for (size_t a = 0; a < plugins_.size(); ++a) {
    all.scores[a].push_back(fresh.scores[a][0]);
  }
  std::vector<int64_t> totals;
  if (!fwk.NormalizeAndWeigh(state, pod, all, &totals).IsSuccess()) {
    Flush(fwk, kNormalizeError);
    return false;
  }
  Candidate rescored;
  rescored.node = node->name();
  for (size_t a = 0; a < plugins_.size(); ++a) {
    rescored.raw.push_back(fresh.scores[a][0]);
  }
  rescored.randomizer = random_.Intn(std::numeric_limits<uint64_t>::max());
  candidates_.push_back(std::move(rescored));
  for (size_t i = 0; i < candidates_.size(); ++i) {
    candidates_[i].total = totals[i];
  }
  return true;
}

std::string OpportunisticBatch::NodeHint(
    framework::Framework& fwk, framework::CycleState& state,
    const framework::PodInfo& pod, const std::optional<std::string>& signature,
    int64_t cycle, const framework::Snapshot& snapshot) {
  if (!Compatible(fwk, pod, signature, cycle) ||
      !Refresh(fwk, state, pod, snapshot) || candidates_.empty()) {
    Count(fwk, kNoHint);
    return "";
  }
  // The best kept node: highest total, ties by the randomizer.
  auto best = std::max_element(candidates_.begin(), candidates_.end(),
                               [](const Candidate& a, const Candidate& b) {
                                 if (a.total != b.total)
                                   return a.total < b.total;
                                 return a.randomizer < b.randomizer;
                               });
  std::string hint = std::move(best->node);
  *best = std::move(candidates_.back());
  candidates_.pop_back();
  return hint;
}

void OpportunisticBatch::Failed(int64_t cycle) { last_failed_cycle_ = cycle; }

void OpportunisticBatch::Store(const framework::Framework& fwk,
                               const std::optional<std::string>& signature,
                               const std::string& hint,
                               const std::string& chosen,
                               const framework::RawScores& scored,
                               const std::vector<int64_t>& totals,
                               int64_t cycle) {
  last_cycle_ = cycle;
  last_chosen_ = chosen;
  if (!hint.empty() && hint == chosen) {
    Count(fwk, kHintUsed);
    ++batched_pods_;
    return;
  }
  if (!hint.empty()) Count(fwk, kHintNotUsed);
  if (!signature.has_value() || scored.nodes.size() < 2) {
    Flush(fwk, signature.has_value() ? kEmptyList : kPodNotBatchable);
    return;
  }
  signature_ = *signature;
  plugins_ = scored.plugins;
  candidates_.clear();
  candidates_.reserve(scored.nodes.size() - 1);
  for (size_t i = 0; i < scored.nodes.size(); ++i) {
    if (scored.nodes[i] == chosen) continue;
    Candidate c;
    c.node = scored.nodes[i];
    c.raw.reserve(plugins_.size());
    for (size_t a = 0; a < plugins_.size(); ++a) {
      c.raw.push_back(scored.scores[a][i]);
    }
    c.total = totals[i];
    c.randomizer = random_.Intn(std::numeric_limits<uint64_t>::max());
    candidates_.push_back(std::move(c));
  }
  created_ = clock_.Now();
}

}  // namespace ksched::scheduler

#include "pkg/scheduler/node_result_memo.h"

#include <algorithm>

namespace ksched::scheduler {

void NodeResultMemo::Stage::Keep(std::string sig,
                                 const framework::Snapshot& snap) {
  const size_t size = snap.nodes().size();
  if (sig == signature && &snap == snapshot && size == snapshot_size &&
      generations.size() == size) {
    return;
  }
  signature = std::move(sig);
  snapshot = &snap;
  snapshot_size = size;
  generations.assign(size, 0);
}

bool NodeResultMemo::StartFilter(const framework::Framework& fwk,
                                 const framework::CycleState& state,
                                 const framework::PodInfo& pod,
                                 const framework::Snapshot& snapshot) {
  snapshot_ = nullptr;
  if (!snapshot.generations_unique()) return false;
  std::optional<framework::Framework::NodeLocal> signed_pod =
      fwk.NodeLocalSignature(state, pod.pod(), /*score=*/false);
  if (!signed_pod) return false;
  filter_.Keep(std::move(signed_pod->signature), snapshot);
  current_ = &snapshot.generations();
  snapshot_ = &snapshot;
  return true;
}

framework::RawScoreCache* NodeResultMemo::StartScore(
    const framework::Framework& fwk, const framework::CycleState& state,
    const framework::PodInfo& pod, const std::vector<int32_t>& positions) {
  if (snapshot_ == nullptr) return nullptr;
  std::optional<framework::Framework::NodeLocal> signed_pod =
      fwk.NodeLocalSignature(state, pod.pod(), /*score=*/true);
  if (!signed_pod) return nullptr;
  // The signature names the plugins that run, so their count is fixed for
  // one signature.
  const size_t plugins = signed_pod->plugins;
  score_.Keep(std::move(signed_pod->signature), *snapshot_);
  if (score_plugins_ != plugins ||
      scores_.size() != score_.generations.size() * plugins) {
    score_plugins_ = plugins;
    scores_.assign(score_.generations.size() * plugins, 0);
    std::fill(score_.generations.begin(), score_.generations.end(), 0);
  }
  positions_ = &positions;
  return &score_cache_;
}

const int64_t* NodeResultMemo::ScoreCache::Find(size_t i) const {
  const size_t position = (*memo_.positions_)[i];
  if (memo_.score_.generations[position] != (*memo_.current_)[position]) {
    return nullptr;
  }
  return memo_.scores_.data() + position * memo_.score_plugins_;
}

void NodeResultMemo::ScoreCache::Store(size_t i,
                                       std::span<const int64_t> scores) {
  const size_t position = (*memo_.positions_)[i];
  std::copy(scores.begin(), scores.end(),
            memo_.scores_.begin() + position * memo_.score_plugins_);
  memo_.score_.generations[position] = (*memo_.current_)[position];
}

}  // namespace ksched::scheduler

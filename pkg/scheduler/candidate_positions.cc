#include "pkg/scheduler/candidate_positions.h"

namespace ksched::scheduler {

const std::vector<uint8_t>* CandidatePositions::Update(
    std::shared_ptr<const framework::NodeNames> names,
    const framework::Snapshot& snapshot) {
  if (names == nullptr || !snapshot.generations_unique()) return nullptr;
  if (names != names_ || &snapshot != snapshot_ ||
      flags_.size() != snapshot.size()) {
    names_ = std::move(names);
    snapshot_ = &snapshot;
    Rebuild(snapshot);
    return &flags_;
  }
  // A name whose position no longer holds the generation it was found at
  // has moved or changed (or left); one not listed may have joined.
  const std::vector<int64_t>& generations = snapshot.generations();
  moved_.clear();
  for (size_t i = 0; i < positions_.size(); ++i) {
    const int32_t at = positions_[i];
    if (at < 0 || generations[at] != generations_[i]) moved_.push_back(i);
  }
  // Clear every moved name's old flag before setting any new one: a
  // position one name left may be where another went.
  for (size_t i : moved_) {
    if (positions_[i] >= 0) flags_[positions_[i]] = 0;
  }
  for (size_t i : moved_) {
    const int32_t at = snapshot.PositionOf((*names_)[i]);
    positions_[i] = at;
    if (at >= 0) {
      generations_[i] = generations[at];
      flags_[at] = 1;
    }
  }
  return &flags_;
}

void CandidatePositions::Rebuild(const framework::Snapshot& snapshot) {
  const std::vector<int64_t>& generations = snapshot.generations();
  flags_.assign(snapshot.size(), 0);
  positions_.assign(names_->size(), -1);
  generations_.assign(names_->size(), 0);
  for (size_t i = 0; i < names_->size(); ++i) {
    const int32_t at = snapshot.PositionOf((*names_)[i]);
    positions_[i] = at;
    if (at < 0) continue;
    generations_[i] = generations[at];
    flags_[at] = 1;
  }
}

}  // namespace ksched::scheduler

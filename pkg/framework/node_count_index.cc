#include "pkg/framework/node_count_index.h"

#include <algorithm>

#include "pkg/framework/node_info.h"
#include "pkg/framework/parallelizer.h"
#include "pkg/framework/snapshot.h"

namespace ksched::framework {

std::vector<NodeCount> NodeCountIndex::Count(const Snapshot& snapshot,
                                             uint32_t question,
                                             const CountFn& count,
                                             Parallelizer& parallelizer) {
  std::lock_guard lock(mu_);
  ++asks_;
  // Sparse answers pay while few nodes answer; a question most nodes
  // answer is cheaper asked in full than kept.
  const size_t budget = 2 * snapshot.size() + 4096;
  auto it = questions_.find(question);
  if (it != questions_.end()) {
    Answers& answers = it->second;
    changed_.clear();
    bool known = snapshot.ChangedSince(answers.layout, answers.seen, &changed_);
    if (known) {
      std::sort(changed_.begin(), changed_.end());
      changed_.erase(std::unique(changed_.begin(), changed_.end()),
                     changed_.end());
    }
    // Past a quarter of the nodes, one pass over all is as cheap.
    if (known && changed_.size() <= snapshot.size() / 4) {
      entries_ -= answers.nonzero.size();
      Recount(snapshot, changed_, count, answers);
      entries_ += answers.nonzero.size();
      answers.seen = snapshot.change_count();
      answers.last_asked = asks_;
      std::vector<NodeCount> result = answers.nonzero;
      Trim(budget);
      return result;
    }
    entries_ -= answers.nonzero.size();
    questions_.erase(it);
  }
  std::vector<NodeCount> result = CountAll(snapshot, count, parallelizer);
  if (result.size() <= budget / 2) {
    Answers& answers = questions_[question];
    answers.layout = snapshot.layout_version();
    answers.seen = snapshot.change_count();
    answers.last_asked = asks_;
    answers.nonzero = result;
    entries_ += result.size();
    Trim(budget);
  }
  return result;
}

std::vector<NodeCount> NodeCountIndex::CountAll(const Snapshot& snapshot,
                                                const CountFn& count,
                                                Parallelizer& parallelizer) {
  const std::vector<NodeInfoPtr>& nodes = snapshot.nodes();
  std::vector<int32_t> counts(nodes.size(), 0);
  parallelizer.Until(static_cast<int>(nodes.size()), [&](int i) {
    counts[i] = count(*nodes[i]);
    return true;
  });
  nodes_counted_ += nodes.size();
  std::vector<NodeCount> result;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] != 0) result.push_back({static_cast<int32_t>(i), counts[i]});
  }
  return result;
}

void NodeCountIndex::Recount(const Snapshot& snapshot,
                             const std::vector<int32_t>& changed,
                             const CountFn& count, Answers& answers) {
  if (changed.empty()) return;
  const std::vector<NodeInfoPtr>& nodes = snapshot.nodes();
  nodes_counted_ += changed.size();
  // Merge the old answers with the changed positions' new ones, both in
  // position order.
  std::vector<NodeCount> merged;
  merged.reserve(answers.nonzero.size() + changed.size());
  auto old = answers.nonzero.begin();
  for (int32_t position : changed) {
    while (old != answers.nonzero.end() && old->position < position) {
      merged.push_back(*old++);
    }
    if (old != answers.nonzero.end() && old->position == position) ++old;
    const int32_t n = count(*nodes[position]);
    if (n != 0) merged.push_back({position, n});
  }
  merged.insert(merged.end(), old, answers.nonzero.end());
  answers.nonzero = std::move(merged);
}

void NodeCountIndex::Trim(size_t limit) {
  while (!questions_.empty() &&
         (entries_ > limit || questions_.size() > kMaxQuestions)) {
    auto oldest = std::min_element(
        questions_.begin(), questions_.end(), [](const auto& a, const auto& b) {
          return a.second.last_asked < b.second.last_asked;
        });
    entries_ -= oldest->second.nonzero.size();
    questions_.erase(oldest);
  }
}

void NodeCountIndex::Clear() {
  std::lock_guard lock(mu_);
  questions_.clear();
  entries_ = 0;
}

size_t NodeCountIndex::questions() const {
  std::lock_guard lock(mu_);
  return questions_.size();
}

uint64_t NodeCountIndex::nodes_counted() const {
  std::lock_guard lock(mu_);
  return nodes_counted_;
}

}  // namespace ksched::framework

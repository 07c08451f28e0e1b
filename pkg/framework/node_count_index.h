// NodeCountIndex: per-node answers to a pod-counting question, kept across
// cycles and brought up to date by asking again only on the nodes that
// changed.
//
// InterPodAffinity asks, in every cycle, how many pods of each node match
// the incoming pod's terms (and how many existing terms match the incoming
// pod). Between two cycles a node or two change (the one the last pod went
// to, the one whose binding was confirmed), yet the question is asked of
// every node. The per-node memo (pod_count_memo.h) answers a node that
// remembers the question without walking its pods, but a node remembers
// only a few questions, and a scheduler placing many workloads in turn
// asks more than that. This index keeps, per question, the nodes whose
// answer is not zero, and the snapshot's log of replaced positions says
// which nodes to ask again.
//
// Soundness rests on what the memo's rests on: the question's id (from the
// snapshot's PodCountKeys) names one question, and the answer depends on
// nothing but the NodeInfo. A NodeInfo a snapshot lists is never changed
// in place; the cache swaps in a fresh one, which the log records.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace ksched::framework {

class NodeInfo;
class Parallelizer;
class Snapshot;

// A node's answer: its position in Snapshot::nodes() and a count.
struct NodeCount {
  int32_t position = 0;
  int32_t count = 0;
  friend bool operator==(const NodeCount&, const NodeCount&) = default;
};

class NodeCountIndex {
 public:
  using CountFn = std::function<int32_t(const NodeInfo&)>;

  // Questions kept at once; the least recently asked is forgotten first.
  static constexpr size_t kMaxQuestions = 1024;

  NodeCountIndex() = default;
  // Copies start empty: positions and the change log are the snapshot's.
  NodeCountIndex(const NodeCountIndex&) {}
  NodeCountIndex& operator=(const NodeCountIndex&) {
    Clear();
    return *this;
  }

  // The nodes of `snapshot.nodes()` for which `count` is not zero, with
  // their counts, in position order. `question` (non-zero, from the
  // snapshot's PodCountKeys) must name what `count` computes, and `count`
  // must depend only on the NodeInfo it is given. A question seen before
  // is asked again only of the nodes replaced since; one not seen, or seen
  // before the snapshot was relisted, is asked of every node, in parallel.
  std::vector<NodeCount> Count(const Snapshot& snapshot, uint32_t question,
                               const CountFn& count,
                               Parallelizer& parallelizer);

  void Clear();
  // For tests: how many questions are kept, and how many nodes `count`
  // was called on in all.
  size_t questions() const;
  uint64_t nodes_counted() const;

 private:
  struct Answers {
    uint64_t layout = 0;      // Snapshot::layout_version() when counted
    uint64_t seen = 0;        // Snapshot::change_count() when counted
    uint64_t last_asked = 0;  // asks_ at the last Count
    std::vector<NodeCount> nonzero;
  };

  std::vector<NodeCount> CountAll(const Snapshot& snapshot,
                                  const CountFn& count,
                                  Parallelizer& parallelizer);
  // Brings `answers` from its `seen` to now, asking the nodes at
  // `changed` (sorted, distinct).
  void Recount(const Snapshot& snapshot, const std::vector<int32_t>& changed,
               const CountFn& count, Answers& answers);
  // Forgets questions until `limit` entries and kMaxQuestions hold.
  void Trim(size_t limit);

  mutable std::mutex mu_;
  std::unordered_map<uint32_t, Answers> questions_;
  size_t entries_ = 0;  // sum of the questions' nonzero sizes
  uint64_t asks_ = 0;
  uint64_t nodes_counted_ = 0;
  std::vector<int32_t> changed_;  // scratch
};

}  // namespace ksched::framework

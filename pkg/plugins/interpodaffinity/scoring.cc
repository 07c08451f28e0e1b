// PreScore, Score and NormalizeScore (interpodaffinity/scoring.go).
#include <algorithm>
#include <atomic>
#include <limits>
#include <string>
#include <string_view>

#include "pkg/framework/types.h"
#include "pkg/plugins/interpodaffinity/plugin.h"
#include "pkg/plugins/interpodaffinity/state.h"

namespace ksched::plugins {
namespace {

using framework::AffinityTerm;
using framework::NodeInfoPtr;
using framework::Status;
using framework::WeightedAffinityTerm;

// One node's contribution: the summed weights for its value of a key.
struct Hit {
  std::string_view key;
  std::string_view value;
  int64_t sum;
};

// Adds `weight` to the node's domain for `term`'s key when the node has the
// key. A node has one value per key, so hits are aggregated by key alone;
// an entry summing to zero is kept, since kube skips only when nothing
// matched at all.
class NodeHits {
 public:
  explicit NodeHits(const api::StringMap& labels) : labels_(labels) {}

  void Add(const AffinityTerm& term, int64_t weight) {
    for (Hit& h : hits_) {
      if (h.key == term.topology_key) {
        h.sum += weight;
        return;
      }
    }
    const std::string* value = labels_.Find(term.topology_key);
    if (value != nullptr) hits_.push_back({term.topology_key, *value, weight});
  }
  std::vector<Hit>& hits() { return hits_; }

 private:
  const api::StringMap& labels_;
  std::vector<Hit> hits_;
};

struct ScoreInputs {
  const framework::PodInfo& pod;
  const api::StringMap& namespace_labels;
  const interpodaffinity::NamespaceMatcher& namespaces;
  int32_t hard_pod_affinity_weight;
};

// processExistingPod: the incoming pod's preferred terms against the
// existing pod, and the existing pod's terms against the incoming pod
// (symmetry).
void ProcessExistingPod(const ScoreInputs& in,
                        const framework::PodInfo& existing, NodeHits& hits) {
  const auto& mine = in.pod.affinity();
  const framework::PodInfo& other = existing;
  for (const WeightedAffinityTerm& t : mine.preferred_affinity) {
    if (interpodaffinity::IncomingTermMatches(t.term, other, in.namespaces)) {
      hits.Add(t.term, t.weight);
    }
  }
  for (const WeightedAffinityTerm& t : mine.preferred_anti_affinity) {
    if (interpodaffinity::IncomingTermMatches(t.term, other, in.namespaces)) {
      hits.Add(t.term, -static_cast<int64_t>(t.weight));
    }
  }
  if (!existing.has_affinity()) return;
  const auto& theirs = existing.affinity();
  const framework::PodInfo& pod = in.pod;
  if (in.hard_pod_affinity_weight > 0) {
    for (const AffinityTerm& t : theirs.required_affinity) {
      if (t.Matches(pod, in.namespace_labels)) {
        hits.Add(t, in.hard_pod_affinity_weight);
      }
    }
  }
  for (const WeightedAffinityTerm& t : theirs.preferred_affinity) {
    if (t.term.Matches(pod, in.namespace_labels)) hits.Add(t.term, t.weight);
  }
  for (const WeightedAffinityTerm& t : theirs.preferred_anti_affinity) {
    if (t.term.Matches(pod, in.namespace_labels)) {
      hits.Add(t.term, -static_cast<int64_t>(t.weight));
    }
  }
}

bool HasPreferredTerms(const api::Pod& pod) {
  const api::Affinity* a = pod.spec.affinity.get();
  if (a == nullptr) return false;
  return (a->pod_affinity && !a->pod_affinity->preferred.empty()) ||
         (a->pod_anti_affinity && !a->pod_anti_affinity->preferred.empty());
}

}  // namespace

Status InterPodAffinity::PreScore(framework::CycleState& cycle,
                                  const framework::PodInfo& pod_info,
                                  const std::vector<NodeInfoPtr>& /*nodes*/) {
  const api::Pod& pod = pod_info.pod();
  const bool has_constraints = HasPreferredTerms(pod);
  // The throughput option: existing pods' preferences only count for pods
  // that have preferences of their own.
  if (ignore_preferred_terms_of_existing_pods_ && !has_constraints) {
    return Status::Skip();
  }
  // Like kube, every node of the snapshot, not only the feasible ones: a
  // domain's weight comes from all its pods. Without preferred terms of its
  // own, only pods with affinity can contribute.
  const framework::Snapshot& snapshot = handle_.snapshot();
  const std::vector<NodeInfoPtr>& nodes =
      has_constraints ? snapshot.nodes() : snapshot.nodes_with_affinity_pods();
  if (!pod_info.parse_error().empty()) {
    return Status::Error("failed to parse pod: " + pod_info.parse_error());
  }
  if (nodes.empty()) return Status::Skip();

  api::StringMap namespace_labels;
  if (const api::StringMap* labels = handle_.NamespaceLabels(pod_info.ns())) {
    namespace_labels = *labels;
  }
  interpodaffinity::NamespaceMatcher namespaces(&handle_);
  const ScoreInputs in{pod_info, namespace_labels, namespaces,
                       hard_pod_affinity_weight_};

  std::vector<std::vector<Hit>> slots(nodes.size());
  std::atomic<int> used{0};
  // Without preferences of its own, a pod is scored by existing pods' terms
  // alone, which usually give nothing on most nodes: the memo records how
  // many hits a node gave, so the next pod of the workload passes the
  // nodes that gave none without walking their pods again. (With
  // preferences, every pod of every node is compared: no memo.)
  const uint32_t memo_key =
      has_constraints
          ? 0
          : interpodaffinity::IncomingPodKey(
                snapshot.pod_count_keys(), "ExistingPodsScore", pod_info,
                namespace_labels, std::to_string(hard_pod_affinity_weight_));
  // Without preferences of its own, only existing pods with terms that
  // score (required affinity, with a hard weight; preferred terms) can
  // contribute; pods with required anti-affinity alone, the most common
  // kind, contribute nothing.
  const int64_t hard_weight = hard_pod_affinity_weight_;
  auto scores_others = [hard_weight](const framework::PodInfo& p) {
    const auto& t = p.affinity();
    return (hard_weight > 0 && !t.required_affinity.empty()) ||
           !t.preferred_affinity.empty() || !t.preferred_anti_affinity.empty();
  };
  // The hits of one node; false when it has none.
  auto node_hits = [&](const framework::NodeInfo& info, std::vector<Hit>* out) {
    const api::Node* node = info.node();
    if (node == nullptr || node->metadata.labels.empty()) return false;
    NodeHits hits(node->metadata.labels);
    const auto& pods =
        has_constraints ? info.pods() : info.pods_with_affinity();
    for (const framework::PodInfoPtr& existing : pods) {
      ProcessExistingPod(in, *existing, hits);
    }
    info.pod_counts().Store(memo_key, static_cast<int32_t>(hits.hits().size()));
    if (hits.hits().empty()) return false;
    *out = std::move(hits.hits());
    return true;
  };
  auto may_hit = [&](const framework::NodeInfo& info) {
    if (!has_constraints && std::none_of(info.pods_with_affinity().begin(),
                                         info.pods_with_affinity().end(),
                                         [&](const framework::PodInfoPtr& p) {
                                           return scores_others(*p);
                                         })) {
      return false;
    }
    return info.pod_counts().Find(memo_key) != 0;
  };
  // With pods with affinity on a fair share of the nodes, which nodes give
  // hits is kept across cycles (node_count_index.h): only the nodes
  // replaced since are asked again, and only the nodes with hits are
  // walked. With few, a pass over those few is cheaper than the index's
  // first pass over every node for each new question.
  if (memo_key != 0 && nodes.size() >= snapshot.size() / 8) {
    std::vector<Hit> scratch;
    std::vector<framework::NodeCount> with_hits = snapshot.node_counts().Count(
        snapshot, memo_key,
        [&](const framework::NodeInfo& info) -> int32_t {
          if (!may_hit(info)) return 0;
          std::vector<Hit> hits;
          return node_hits(info, &hits) ? static_cast<int32_t>(hits.size()) : 0;
        },
        handle_.parallelizer());
    for (const framework::NodeCount& n : with_hits) {
      if (node_hits(*snapshot.nodes()[n.position], &scratch)) {
        slots[used.fetch_add(1)] = std::move(scratch);
      }
    }
  } else {
    handle_.parallelizer().Until(static_cast<int>(nodes.size()), [&](int i) {
      const framework::NodeInfo& info = *nodes[i];
      std::vector<Hit> hits;
      if (may_hit(info) && node_hits(info, &hits)) {
        slots[used.fetch_add(1)] = std::move(hits);
      }
      return true;
    });
  }
  const int n = used.load();
  if (n == 0) return Status::Skip();

  auto state = std::make_shared<interpodaffinity::PreScoreState>();
  for (int i = 0; i < n; ++i) {
    for (const Hit& hit : slots[i]) {
      state->scores.Add(state->keys.Intern(hit.key), hit.value, hit.sum);
    }
  }
  interpodaffinity::WritePreScoreState(cycle, std::move(state));
  return Status();
}

Status InterPodAffinity::Score(const framework::CycleState& cycle,
                               const framework::PodInfo& /*pod*/,
                               const framework::NodeInfo& info,
                               int64_t* score) const {
  const api::Node* node = info.node();
  if (node == nullptr) return Status::Error("node not found");
  const interpodaffinity::PreScoreState* state =
      interpodaffinity::ReadPreScoreState(cycle);
  if (state == nullptr) {
    return Status::Error(std::string(interpodaffinity::kPreScoreStateMissing));
  }
  int64_t sum = 0;
  for (uint32_t k = 0; k < state->keys.size(); ++k) {
    const std::string* value = node->metadata.labels.Find(state->keys[k]);
    if (value != nullptr) sum += state->scores.Get(k, *value);
  }
  *score = sum;
  return Status();
}

Status InterPodAffinity::NormalizeScore(
    const framework::CycleState& cycle, const framework::PodInfo& /*pod*/,
    framework::NodeScoreList& scores) const {
  const interpodaffinity::PreScoreState* state =
      interpodaffinity::ReadPreScoreState(cycle);
  if (state == nullptr) {
    return Status::Error(std::string(interpodaffinity::kPreScoreStateMissing));
  }
  if (state->scores.empty()) return Status();
  int64_t min_count = std::numeric_limits<int64_t>::max();
  int64_t max_count = std::numeric_limits<int64_t>::min();
  for (const framework::NodeScore& s : scores) {
    max_count = std::max(max_count, s.score);
    min_count = std::min(min_count, s.score);
  }
  const int64_t diff = max_count - min_count;
  for (framework::NodeScore& s : scores) {
    // In float64 and truncated, as kube computes it.
    double f = 0;
    if (diff > 0) {
      f = static_cast<double>(framework::kMaxNodeScore) *
          (static_cast<double>(s.score - min_count) /
           static_cast<double>(diff));
    }
    s.score = static_cast<int64_t>(f);
  }
  return Status();
}

}  // namespace ksched::plugins

// PreScore, Score and NormalizeScore (scoring.go).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "pkg/plugins/podtopologyspread/plugin.h"
#include "pkg/plugins/podtopologyspread/state.h"

namespace ksched::plugins {
namespace podtopologyspread {
namespace {

constexpr framework::StateKey kPreScoreKey{"PreScorePodTopologySpread"};
constexpr int64_t kInvalidScore = -1;

// topologyNormalizingWeight: counts in topologies with few domains weigh
// less, so small topologies are not drowned by big ones. size + 2 keeps
// the weight positive for one domain (and for none, when every node is
// ignored and scores are 0 anyway).
double NormalizingWeight(size_t size) {
  return std::log(static_cast<double>(size + 2));
}

// scoreForCount: maxSkew - 1 is added so that small differences between
// domains matter less with a larger tolerated skew.
double ScoreForCount(int64_t count, int32_t max_skew, double weight) {
  return static_cast<double>(count) * weight +
         static_cast<double>(max_skew - 1);
}

// Per node and constraint ([node * constraints + constraint]): the domain
// id of the node and its matching pods; -1: not counted.
struct NodeDomains {
  NodeDomains(size_t nodes, size_t constraints)
      : id(nodes * constraints, -1), count(nodes * constraints, 0) {}
  std::vector<int32_t> id;
  std::vector<int32_t> count;
};

// PreScore's per-node counting for the non-hostname constraints, over the
// domains the filtered nodes have.
void CountNode(const framework::NodeInfo& info, const PreScoreState::Data& d,
               bool require_all_topologies, const SelectorGroups& groups,
               const InclusionContext& inclusion, size_t base,
               NodeDomains& out) {
  const api::Node* node = info.node();
  if (node == nullptr) return;
  const api::StringMap& labels = node->metadata.labels;
  const Constraints& cs = d.constraints;
  if (require_all_topologies && !NodeLabelsMatchConstraints(labels, cs)) {
    return;
  }
  uint8_t wanted_small[SelectorGroups::kMaxGroups] = {};
  int32_t counts_small[SelectorGroups::kMaxGroups] = {};
  std::vector<uint8_t> wanted_big;
  std::vector<int32_t> counts_big;
  uint8_t* wanted = wanted_small;
  int32_t* counts = counts_small;
  if (groups.size() > SelectorGroups::kMaxGroups) {
    wanted_big.assign(groups.size(), 0);
    counts_big.assign(groups.size(), 0);
    wanted = wanted_big.data();
    counts = counts_big.data();
  }
  InclusionContext::NodeView view(inclusion, *node);
  bool any = false;
  for (size_t i = 0; i < cs.size(); ++i) {
    if (cs[i].IsHostname()) continue;  // counted per node in Score
    if (!view.Includes(cs[i])) continue;
    // A missing label reads as "" (only possible with system defaults).
    const std::string* v = labels.Find(cs[i].topology_key);
    int32_t id = d.domains[i].Find(v == nullptr ? std::string_view() : *v);
    // Domains no filtered node is in do not matter.
    if (id < 0) continue;
    out.id[base + i] = id;
    wanted[groups.group_of(i)] = 1;
    any = true;
  }
  if (!any) return;
  groups.Count(info, wanted, counts);
  for (size_t i = 0; i < cs.size(); ++i) {
    if (out.id[base + i] >= 0) out.count[base + i] = counts[groups.group_of(i)];
  }
}

}  // namespace

bool PreScoreState::IsIgnored(std::string_view node) const {
  const auto& ignored = data_->ignored_nodes;
  return !ignored.empty() && std::binary_search(ignored.begin(), ignored.end(),
                                                node, std::less<>());
}

const PreScoreState* GetPreScoreState(const framework::CycleState& state) {
  return state.Read<PreScoreState>(kPreScoreKey);
}

}  // namespace podtopologyspread

using podtopologyspread::Constraints;
using podtopologyspread::PreScoreState;

framework::Status PodTopologySpread::PreScore(
    framework::CycleState& state, const framework::PodInfo& pod_info,
    const std::vector<framework::NodeInfoPtr>& filtered) {
  const std::vector<framework::NodeInfoPtr>& all = handle_.snapshot().nodes();
  if (all.empty()) return framework::Status::Skip();
  const api::Pod& pod = pod_info.pod();
  auto constraints = GetConstraints(
      pod, api::UnsatisfiableConstraintAction::kScheduleAnyway, "soft");
  if (!constraints.ok()) {
    return framework::Status::Error(
        constraints.error().Wrap("calculating preScoreState").message());
  }
  if (constraints->empty()) return framework::Status::Skip();

  // Only the pod's own constraints need every topology key on a node; with
  // the system defaults, nodes without a zone still spread by hostname.
  const bool require_all =
      !pod.spec.topology_spread_constraints.empty() || !system_defaulted_;
  auto d = std::make_shared<PreScoreState::Data>();
  d->constraints = std::move(*constraints);
  d->ns = pod.metadata.ns;
  const Constraints& cs = d->constraints;
  const size_t k = cs.size();
  d->domains.resize(k);
  d->pod_counts.resize(k);
  d->weights.resize(k);

  // initPreScoreState: the domains of the filtered nodes.
  for (const framework::NodeInfoPtr& info : filtered) {
    const api::Node* node = info->node();
    if (node == nullptr) continue;
    const api::StringMap& labels = node->metadata.labels;
    if (require_all &&
        !podtopologyspread::NodeLabelsMatchConstraints(labels, cs)) {
      d->ignored_nodes.push_back(node->metadata.name);
      continue;
    }
    for (size_t i = 0; i < k; ++i) {
      if (cs[i].IsHostname()) continue;
      const std::string* v = labels.Find(cs[i].topology_key);
      std::string_view value = v == nullptr ? std::string_view() : *v;
      d->domains[i].Intern(value, podtopologyspread::DomainTable::Hash(value));
    }
  }
  std::sort(d->ignored_nodes.begin(), d->ignored_nodes.end());
  for (size_t i = 0; i < k; ++i) {
    size_t size = cs[i].IsHostname() ? filtered.size() - d->ignored_nodes.size()
                                     : d->domains[i].size();
    d->weights[i] = podtopologyspread::NormalizingWeight(size);
    d->pod_counts[i].assign(d->domains[i].size(), 0);
  }

  // Matching pods per domain, over every node of the cluster.
  const size_t n = all.size();
  podtopologyspread::NodeDomains per_node(n, k);
  podtopologyspread::SelectorGroups groups(cs, pod.metadata.ns,
                                           handle_.snapshot().pod_count_keys());
  podtopologyspread::InclusionContext inclusion(pod);
  handle_.parallelizer().Until(static_cast<int>(n), [&](int i) {
    podtopologyspread::CountNode(*all[i], *d, require_all, groups, inclusion,
                                 static_cast<size_t>(i) * k, per_node);
    return true;
  });
  for (size_t node = 0; node < n; ++node) {
    for (size_t i = 0; i < k; ++i) {
      int32_t id = per_node.id[node * k + i];
      if (id >= 0) d->pod_counts[i][id] += per_node.count[node * k + i];
    }
  }
  state.Write(podtopologyspread::kPreScoreKey,
              std::make_shared<PreScoreState>(std::move(d)));
  return framework::Status();
}

framework::Status PodTopologySpread::Score(const framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const framework::NodeInfo& info,
                                           int64_t* score) const {
  const api::Node* node = info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  const PreScoreState* s = podtopologyspread::GetPreScoreState(state);
  if (s == nullptr) {
    return framework::Status::Error(
        "reading \"PreScorePodTopologySpread\" from cycleState: not found");
  }
  *score = 0;
  if (s->IsIgnored(node->metadata.name)) return framework::Status();
  const PreScoreState::Data& d = s->data();
  double total = 0;
  for (size_t i = 0; i < d.constraints.size(); ++i) {
    const podtopologyspread::Constraint& c = d.constraints[i];
    const std::string* value = node->metadata.labels.Find(c.topology_key);
    if (value == nullptr) continue;
    int64_t count = 0;
    if (c.IsHostname()) {
      count = podtopologyspread::CountPodsMatchSelector(info.pods(), c.selector,
                                                        pod.pod().metadata.ns);
    } else if (int32_t id = d.domains[i].Find(*value); id >= 0) {
      count = d.pod_counts[i][id];
    }
    total += podtopologyspread::ScoreForCount(count, c.max_skew, d.weights[i]);
  }
  // math.Round: halves away from zero, as std::llround.
  *score = std::llround(total);
  return framework::Status();
}

framework::Status PodTopologySpread::NormalizeScore(
    const framework::CycleState& state, const framework::PodInfo& /*pod*/,
    framework::NodeScoreList& scores) const {
  const PreScoreState* s = podtopologyspread::GetPreScoreState(state);
  if (s == nullptr) {
    return framework::Status::Error(
        "reading \"PreScorePodTopologySpread\" from cycleState: not found");
  }
  int64_t min_score = std::numeric_limits<int64_t>::max();
  int64_t max_score = 0;
  for (framework::NodeScore& ns : scores) {
    if (s->IsIgnored(ns.name)) {
      ns.score = podtopologyspread::kInvalidScore;
      continue;
    }
    min_score = std::min(min_score, ns.score);
    max_score = std::max(max_score, ns.score);
  }
  // Fewer matching pods is better: the lowest raw score gets the most.
  for (framework::NodeScore& ns : scores) {
    if (ns.score == podtopologyspread::kInvalidScore) {
      ns.score = 0;
    } else if (max_score == 0) {
      ns.score = framework::kMaxNodeScore;
    } else {
      ns.score = framework::kMaxNodeScore * (max_score + min_score - ns.score) /
                 max_score;
    }
  }
  return framework::Status();
}

}  // namespace ksched::plugins

// PreFilter, its AddPod/RemovePod extensions and Filter (filtering.go).
#include <string>
#include <utility>
#include <vector>

#include "pkg/plugins/podtopologyspread/plugin.h"
#include "pkg/plugins/podtopologyspread/state.h"

namespace ksched::plugins {
namespace podtopologyspread {
namespace {

constexpr framework::StateKey kPreFilterKey{"PreFilterPodTopologySpread"};
constexpr std::string_view kNotFound =
    "reading \"PreFilterPodTopologySpread\" from cycleState: not found";

// Per node and constraint ([node * constraints + constraint]): the node's
// topology value, its hash and the matching pods on the node, or -1 when
// the node does not count for the constraint. Filled in parallel, one node
// per call, so the per-node work allocates nothing.
struct NodeCounts {
  NodeCounts(size_t nodes, size_t constraints)
      : value(nodes * constraints),
        hash(nodes * constraints),
        count(nodes * constraints, -1) {}
  std::vector<std::string_view> value;
  std::vector<uint64_t> hash;
  std::vector<int32_t> count;
};

// calPreFilterState's per-node part: a node counts when it has every
// topology key, and for a constraint when it passes its inclusion policies.
void CountNode(const framework::NodeInfo& info, const Constraints& cs,
               const SelectorGroups& groups, const InclusionContext& inclusion,
               size_t base, NodeCounts& out) {
  const api::Node* node = info.node();
  if (node == nullptr) return;
  const framework::NodeLabels labels = info.labels();
  for (size_t i = 0; i < cs.size(); ++i) {
    const std::string* v = labels.Find(cs[i].topology_key);
    if (v == nullptr) return;
    out.value[base + i] = *v;
  }
  // Scratch per selector group, on the stack unless a pod has more
  // distinct selectors than anyone writes.
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
    if (!view.Includes(cs[i])) continue;
    wanted[groups.group_of(i)] = true;
    out.count[base + i] = 0;
    any = true;
  }
  if (!any) return;
  groups.Count(info, wanted, counts);
  for (size_t i = 0; i < cs.size(); ++i) {
    if (out.count[base + i] < 0) continue;
    out.count[base + i] = counts[groups.group_of(i)];
    out.hash[base + i] = DomainTable::Hash(out.value[base + i]);
  }
}

// updateWithPod: `delta` pods like `updated` on `node`, for preemption's
// what-if runs on a copy of the state.
void UpdateWithPod(PreFilterState& s, const framework::PodInfo& updated,
                   const api::Pod& preemptor, const api::Node* node,
                   int64_t delta) {
  if (node == nullptr || updated.ns() != preemptor.metadata.ns) return;
  const Constraints& cs = *s.constraints;
  if (!NodeLabelsMatchConstraints(node->metadata.labels, cs)) return;
  InclusionContext inclusion(preemptor);
  InclusionContext::NodeView view(inclusion, *node);
  for (size_t i = 0; i < cs.size(); ++i) {
    if (!cs[i].selector.Matches(updated.labels())) continue;
    if (!view.Includes(cs[i])) continue;
    const std::string& value = *node->metadata.labels.Find(cs[i].topology_key);
    DomainCounts& dc = s.counts[i];
    uint64_t hash = DomainTable::Hash(value);
    int32_t id = dc.domains->Find(value, hash);
    if (id < 0) {
      // The table is shared with other copies of the state: copy on write.
      auto table = std::make_shared<DomainTable>(*dc.domains);
      id = table->Intern(value, hash);
      dc.domains = std::move(table);
      dc.match_num.push_back(0);
    }
    dc.match_num[id] += delta;
    dc.critical_paths.Update(id, dc.match_num[id]);
  }
}

}  // namespace

void CriticalPaths::Update(int32_t domain, int64_t num) {
  int i = -1;
  if (domain == paths[0].domain) {
    i = 0;
  } else if (domain == paths[1].domain) {
    i = 1;
  }
  if (i >= 0) {
    paths[i].match_num = num;
    if (paths[0].match_num > paths[1].match_num) std::swap(paths[0], paths[1]);
  } else if (num < paths[0].match_num) {
    paths[1] = paths[0];
    paths[0] = {domain, num};
  } else if (num < paths[1].match_num) {
    paths[1] = {domain, num};
  }
}

const PreFilterState* GetPreFilterState(const framework::CycleState& state) {
  return state.Read<PreFilterState>(kPreFilterKey);
}

}  // namespace podtopologyspread

using podtopologyspread::Constraints;
using podtopologyspread::DomainCounts;
using podtopologyspread::DomainTable;
using podtopologyspread::PreFilterState;

framework::Status PodTopologySpread::PreFilter(
    framework::CycleState& state, const framework::PodInfo& pod_info,
    const std::vector<framework::NodeInfoPtr>& nodes,
    framework::PreFilterResult* /*result*/) {
  const api::Pod& pod = pod_info.pod();
  auto constraints = GetConstraints(
      pod, api::UnsatisfiableConstraintAction::kDoNotSchedule, "hard");
  if (!constraints.ok()) {
    return framework::Status::Error(
        constraints.error().Wrap("get constraints from pod").message());
  }
  if (constraints->empty()) return framework::Status::Skip();

  auto s = std::make_shared<PreFilterState>();
  s->constraints = std::make_shared<const Constraints>(std::move(*constraints));
  const Constraints& cs = *s->constraints;
  const size_t k = cs.size();
  const size_t n = nodes.size();

  podtopologyspread::NodeCounts per_node(n, k);
  podtopologyspread::SelectorGroups groups(cs, pod.metadata.ns,
                                           handle_.snapshot().pod_count_keys());
  podtopologyspread::InclusionContext inclusion(pod);
  handle_.parallelizer().Until(static_cast<int>(n), [&](int i) {
    podtopologyspread::CountNode(*nodes[i], cs, groups, inclusion,
                                 static_cast<size_t>(i) * k, per_node);
    return true;
  });

  // Interning is sequential but cheap: the hashes were computed above.
  s->counts.resize(k);
  s->self_match.resize(k);
  for (size_t c = 0; c < k; ++c) {
    auto table = std::make_shared<DomainTable>();
    // sizeHeuristic: hostname domains are about one per node.
    if (cs[c].IsHostname()) table->Reserve(n);
    std::vector<int64_t>& match_num = s->counts[c].match_num;
    for (size_t node = 0; node < n; ++node) {
      const size_t at = node * k + c;
      if (per_node.count[at] < 0) continue;
      int32_t id = table->Intern(per_node.value[at], per_node.hash[at]);
      if (static_cast<size_t>(id) == match_num.size()) match_num.push_back(0);
      match_num[id] += per_node.count[at];
    }
    for (int32_t id = 0; id < table->size(); ++id) {
      s->counts[c].critical_paths.Update(id, match_num[id]);
    }
    s->counts[c].domains = std::move(table);
    // Filter's selfMatchNum is the same for every node: computed once.
    s->self_match[c] = cs[c].selector.Matches(pod.metadata.labels) ? 1 : 0;
  }
  state.Write(podtopologyspread::kPreFilterKey, std::move(s));
  return framework::Status();
}

framework::Status PodTopologySpread::AddPod(
    framework::CycleState& state, const framework::PodInfo& pod,
    const framework::PodInfoPtr& to_add,
    const framework::NodeInfo& node) const {
  auto* s = state.Read<PreFilterState>(podtopologyspread::kPreFilterKey);
  if (s == nullptr) {
    return framework::Status::Error(std::string(podtopologyspread::kNotFound));
  }
  podtopologyspread::UpdateWithPod(*s, *to_add, pod.pod(), node.node(), 1);
  return framework::Status();
}

framework::Status PodTopologySpread::RemovePod(
    framework::CycleState& state, const framework::PodInfo& pod,
    const framework::PodInfoPtr& to_remove,
    const framework::NodeInfo& node) const {
  auto* s = state.Read<PreFilterState>(podtopologyspread::kPreFilterKey);
  if (s == nullptr) {
    return framework::Status::Error(std::string(podtopologyspread::kNotFound));
  }
  podtopologyspread::UpdateWithPod(*s, *to_remove, pod.pod(), node.node(), -1);
  return framework::Status();
}

framework::Status PodTopologySpread::Filter(
    const framework::CycleState& state, const framework::PodInfo& /*pod*/,
    const framework::NodeInfo& info) const {
  const PreFilterState* s = podtopologyspread::GetPreFilterState(state);
  if (s == nullptr) {
    return framework::Status::Error(std::string(podtopologyspread::kNotFound));
  }
  const Constraints& cs = *s->constraints;
  if (cs.empty()) return framework::Status();
  const api::Node* node = info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  for (size_t i = 0; i < cs.size(); ++i) {
    const std::string* value = info.labels().Find(cs[i].topology_key);
    if (value == nullptr) {
      // No domain: evicting pods cannot help.
      return framework::Status::Unresolvable(
          std::string(kPodTopologySpreadErrReasonNodeLabelNotMatch));
    }
    // 'existing matching num' + 'self-match (1 or 0)' - 'global minimum'
    // must not exceed maxSkew.
    const DomainCounts& dc = s->counts[i];
    int32_t id = dc.domains->Find(*value);
    int64_t match_num = id < 0 ? 0 : dc.match_num[id];
    int64_t skew = match_num + s->self_match[i] - s->MinMatchNum(i);
    if (skew > cs[i].max_skew) {
      return framework::Status::Unschedulable(
          std::string(kPodTopologySpreadErrReasonConstraintsNotMatch));
    }
  }
  return framework::Status();
}

}  // namespace ksched::plugins

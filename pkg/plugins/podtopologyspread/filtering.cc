// PreFilter, its AddPod/RemovePod extensions and Filter (filtering.go).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/plugins/podtopologyspread/counting.h"
#include "pkg/plugins/podtopologyspread/incremental_counts.h"
#include "pkg/plugins/podtopologyspread/plugin.h"
#include "pkg/plugins/podtopologyspread/state.h"

namespace ksched::plugins {
namespace podtopologyspread {
namespace {

constexpr framework::StateKey kPreFilterKey{"PreFilterPodTopologySpread"};
constexpr std::string_view kNotFound =
    "reading \"PreFilterPodTopologySpread\" from cycleState: not found";

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

  podtopologyspread::SelectorGroups groups(cs, pod.metadata.ns,
                                           handle_.snapshot().pod_count_keys());
  podtopologyspread::InclusionContext inclusion(pod);
  s->self_match.resize(k);
  for (size_t c = 0; c < k; ++c) {
    // Filter's selfMatchNum is the same for every node: computed once.
    s->self_match[c] = cs[c].selector.Matches(pod.metadata.labels) ? 1 : 0;
  }
  auto parallel_for = [this](int count, const std::function<void(int)>& fn) {
    handle_.parallelizer().Until(count, [&fn](int i) {
      fn(i);
      return true;
    });
  };
  if (incremental_counts_->Fill(cs, groups, inclusion,
                                handle_.snapshot().pod_count_keys(), nodes,
                                parallel_for, &s->counts)) {
    state.Write(podtopologyspread::kPreFilterKey, std::move(s));
    return framework::Status();
  }

  podtopologyspread::NodeCounts per_node(n, k);
  handle_.parallelizer().Until(static_cast<int>(n), [&](int i) {
    podtopologyspread::CountNode(*nodes[i], cs, groups, inclusion,
                                 static_cast<size_t>(i) * k, per_node);
    return true;
  });

  // Interning is sequential but cheap: the hashes were computed above.
  s->counts.resize(k);
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
      static const framework::Status::Constant kNoDomain(
          framework::Code::kUnschedulableAndUnresolvable,
          std::string(kPodTopologySpreadErrReasonNodeLabelNotMatch),
          std::string(names::kPodTopologySpread));
      return kNoDomain.status();
    }
    // 'existing matching num' + 'self-match (1 or 0)' - 'global minimum'
    // must not exceed maxSkew.
    const DomainCounts& dc = s->counts[i];
    int32_t id = dc.domains->Find(*value);
    int64_t match_num = id < 0 ? 0 : dc.match_num[id];
    int64_t skew = match_num + s->self_match[i] - s->MinMatchNum(i);
    if (skew > cs[i].max_skew) {
      static const framework::Status::Constant kSkewed(
          framework::Code::kUnschedulable,
          std::string(kPodTopologySpreadErrReasonConstraintsNotMatch),
          std::string(names::kPodTopologySpread));
      return kSkewed.status();
    }
  }
  return framework::Status();
}

}  // namespace ksched::plugins

#include "pkg/plugins/podtopologyspread/counting.h"

namespace ksched::plugins::podtopologyspread {

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

}  // namespace ksched::plugins::podtopologyspread

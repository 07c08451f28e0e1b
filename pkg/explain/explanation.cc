#include "pkg/explain/explanation.h"

#include <algorithm>

namespace ksched::explain {
namespace {

using framework::CycleRecorder;

std::vector<std::pair<std::string, int>> ByCount(
    const std::map<std::string, int>& counts) {
  std::vector<std::pair<std::string, int>> out(counts.begin(), counts.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second > b.second;
  });
  return out;
}

}  // namespace

Explanation Explain(const CycleRecorder& record, Subject subject, int top) {
  Explanation out;
  out.subject = std::move(subject);
  out.nominated_node_tried = record.nominated_node_tried();

  for (const auto& [plugin, outcome] : record.pre_filter_status()) {
    if (outcome == CycleRecorder::kSuccess || outcome == CycleRecorder::kSkip) {
      continue;
    }
    out.pre_filter.emplace_back(plugin, outcome);
  }
  for (const auto& [plugin, nodes] : record.pre_filter_result()) {
    out.pre_filter.emplace_back(
        plugin, "narrowed the nodes to " + std::to_string(nodes.size()));
  }

  struct Tally {
    int nodes = 0;
    std::map<std::string, int> reasons;
  };
  std::map<std::string, Tally> tallies;
  const std::map<std::string, CycleRecorder::Verdicts> filtered =
      record.FilterResults();
  out.filtered_nodes = static_cast<int>(filtered.size());
  for (const auto& [node, verdicts] : filtered) {
    const CycleRecorder::Verdict* only = nullptr;
    int rejecting = 0;
    for (const CycleRecorder::Verdict& v : verdicts) {
      if (v.passed()) continue;
      ++rejecting;
      only = &v;
      Tally& t = tallies[v.plugin];
      ++t.nodes;
      for (const std::string& reason : v.reasons) ++t.reasons[reason];
    }
    if (rejecting == 0) ++out.feasible_nodes;
    if (rejecting == 1) {
      ++out.closest_total;
      if (static_cast<int>(out.closest.size()) < top) {
        out.closest.push_back({node, only->plugin, only->Outcome()});
      }
    }
    if (node == out.subject.current_node)
      out.fits_current_node = rejecting == 0;
  }
  for (auto& [plugin, tally] : tallies) {
    out.rejections.push_back({plugin, tally.nodes, ByCount(tally.reasons)});
  }
  std::stable_sort(
      out.rejections.begin(), out.rejections.end(),
      [](const auto& a, const auto& b) { return a.nodes > b.nodes; });

  std::map<std::string, bool> plugins;
  for (const auto& [node, scores] : record.scores()) {
    RankedNode ranked{node, {}, 0, node == record.selected_node()};
    for (const auto& [plugin, s] : scores) {
      plugins[plugin] = true;
      ranked.weighted[plugin] = s.weighted;
      ranked.total += s.weighted;
    }
    out.top.push_back(std::move(ranked));
  }
  for (const auto& [plugin, unused] : plugins)
    out.score_plugins.push_back(plugin);
  // Best total first; among equals the node taken, then by name.
  std::sort(out.top.begin(), out.top.end(),
            [](const RankedNode& a, const RankedNode& b) {
              if (a.total != b.total) return a.total > b.total;
              if (a.selected != b.selected) return a.selected;
              return a.name < b.name;
            });
  if (static_cast<int>(out.top.size()) > top) out.top.resize(top);
  out.preemption = record.preemption();
  return out;
}

}  // namespace ksched::explain

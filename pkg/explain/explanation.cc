#include "pkg/explain/explanation.h"

#include <algorithm>
#include <cctype>

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

// "node-2" before "node-10": digit runs compare as numbers.
bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) {
        ++ei;
      }
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) {
        ++ej;
      }
      // Without leading zeros the longer run is the larger number.
      size_t zi = i, zj = j;
      while (zi + 1 < ei && a[zi] == '0') ++zi;
      while (zj + 1 < ej && b[zj] == '0') ++zj;
      if (ei - zi != ej - zj) return ei - zi < ej - zj;
      int c = a.compare(zi, ei - zi, b, zj, ej - zj);
      if (c != 0) return c < 0;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
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
    std::vector<std::pair<std::string, std::string>> details;
  };
  std::map<std::string, Tally> tallies;
  const std::map<std::string, CycleRecorder::Verdicts> filtered =
      record.FilterResults();
  out.filtered_nodes = static_cast<int>(filtered.size());
  // (plugin, reason) -> the nodes that plugin alone rejected for it.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> close;
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
      if (!v.detail.empty()) t.details.emplace_back(node, v.detail);
    }
    if (rejecting == 0) ++out.feasible_nodes;
    if (rejecting == 1) {
      ++out.closest_total;
      close[{only->plugin, only->Outcome()}].push_back(node);
    }
    if (node == out.subject.current_node)
      out.fits_current_node = rejecting == 0;
  }
  for (auto& [key, names] : close) {
    std::sort(names.begin(), names.end(), NaturalLess);
    CloseGroup group{key.first, key.second, static_cast<int>(names.size()), {}};
    names.resize(std::min(names.size(), static_cast<size_t>(top)));
    group.examples = std::move(names);
    out.closest.push_back(std::move(group));
  }
  std::stable_sort(out.closest.begin(), out.closest.end(),
                   [](const CloseGroup& a, const CloseGroup& b) {
                     return a.nodes > b.nodes;
                   });
  for (auto& [plugin, tally] : tallies) {
    std::sort(tally.details.begin(), tally.details.end(),
              [](const auto& a, const auto& b) {
                return NaturalLess(a.first, b.first);
              });
    tally.details.resize(
        std::min(tally.details.size(), static_cast<size_t>(top)));
    out.rejections.push_back({plugin, tally.nodes, ByCount(tally.reasons),
                              std::move(tally.details)});
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
  out.scored_nodes = static_cast<int>(out.top.size());
  for (const auto& [plugin, unused] : plugins)
    out.score_plugins.push_back(plugin);
  // Best total first; among equals the node taken, then by name.
  std::sort(out.top.begin(), out.top.end(),
            [](const RankedNode& a, const RankedNode& b) {
              if (a.total != b.total) return a.total > b.total;
              if (a.selected != b.selected) return a.selected;
              return NaturalLess(a.name, b.name);
            });
  if (static_cast<int>(out.top.size()) > top) out.top.resize(top);
  out.preemption = record.preemption();
  return out;
}

}  // namespace ksched::explain

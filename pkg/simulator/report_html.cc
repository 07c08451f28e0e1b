#include "pkg/simulator/report_html.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/api/resource_names.h"
#include "pkg/explain/render.h"
#include "pkg/simulator/report.h"
#include "pkg/simulator/report_assets.h"
#include "pkg/simulator/report_json.h"

namespace ksched::simulator {
namespace report_html_detail {
namespace {

// Label keys the page offers to group nodes by, in this order when a
// cluster has them.
constexpr std::string_view kTopologyKeys[] = {
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "node.kubernetes.io/instance-type",
};
// A label with more values than this (hostnames, IDs) groups nothing.
constexpr size_t kMaxGroupValues = 1000;
constexpr size_t kMaxGroupKeys = 32;

void Key(JsonWriter& w, std::string_view key) {
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

// Strings written once and referred to by index: thousands of pods share a
// handful of messages.
class Interned {
 public:
  int Index(const std::string& s) {
    auto [it, added] = index_.try_emplace(s, static_cast<int>(list_.size()));
    if (added) list_.push_back(s);
    return it->second;
  }
  void Write(JsonWriter& w) const {
    w.StartArray();
    for (const std::string& s : list_) WriteString(w, s);
    w.EndArray();
  }

 private:
  std::unordered_map<std::string, int> index_;
  std::vector<std::string> list_;
};

// A resource the page can colour nodes by, and its unit: cpu in
// millicores, everything else in its own unit (bytes, devices, pods).
struct ResourceColumn {
  std::string name;
  bool milli = false;
};

std::vector<ResourceColumn> Columns(const std::vector<NodeSummary>& nodes) {
  std::vector<ResourceColumn> out = {{std::string(api::kResourceCpu), true},
                                     {std::string(api::kResourceMemory)},
                                     {std::string(api::kResourcePods)}};
  std::set<std::string> others;
  for (const NodeSummary& n : nodes) {
    for (const auto& [name, q] : n.allocatable) {
      if (name != api::kResourceCpu && name != api::kResourceMemory &&
          name != api::kResourcePods) {
        others.insert(std::string(name));
      }
    }
  }
  for (const std::string& name : others) out.push_back({name});
  return out;
}

int64_t Amount(const api::ResourceList& list, const ResourceColumn& column) {
  const api::Quantity* q = list.Find(column.name);
  if (q == nullptr) return 0;
  return column.milli ? q->MilliValue() : q->Value();
}

// Label keys worth grouping by: not unique per node (hostnames), at most
// kMaxGroupValues values; the well-known topology keys first, then by how
// many nodes carry them.
struct LabelTable {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;
  std::vector<std::map<std::string, int>> value_index;
};

LabelTable GroupableLabels(const std::vector<NodeSummary>& nodes) {
  std::map<std::string, std::set<std::string>> values;
  std::map<std::string, size_t> carriers;
  for (const NodeSummary& n : nodes) {
    for (const auto& [k, v] : n.labels) {
      values[k].insert(v);
      ++carriers[k];
    }
  }
  std::vector<std::string> keys;
  for (const auto& [k, vs] : values) {
    if (vs.size() <= kMaxGroupValues &&
        (vs.size() < nodes.size() || vs.size() == 1)) {
      keys.push_back(k);
    }
  }
  auto rank = [](const std::string& k) {
    for (size_t i = 0; i < std::size(kTopologyKeys); ++i) {
      if (k == kTopologyKeys[i]) return static_cast<int>(i);
    }
    return static_cast<int>(std::size(kTopologyKeys));
  };
  std::stable_sort(keys.begin(), keys.end(),
                   [&](const std::string& a, const std::string& b) {
                     if (rank(a) != rank(b)) return rank(a) < rank(b);
                     return carriers[a] > carriers[b];
                   });
  if (keys.size() > kMaxGroupKeys) keys.resize(kMaxGroupKeys);
  LabelTable table;
  for (const std::string& k : keys) {
    table.keys.push_back(k);
    table.values.emplace_back(values[k].begin(), values[k].end());
    auto& index = table.value_index.emplace_back();
    for (const std::string& v : table.values.back()) {
      index.emplace(v, static_cast<int>(index.size()));
    }
  }
  return table;
}

void WriteNodes(JsonWriter& w, const std::vector<NodeSummary>& nodes,
                const std::vector<ResourceColumn>& columns,
                const LabelTable& labels) {
  Key(w, "nodes");
  w.StartArray();
  for (const NodeSummary& n : nodes) {
    w.StartObject();
    Key(w, "n");
    WriteString(w, n.name);
    // allocatable, requested after and before, in `columns` order; pods
    // count as requested by the pods on the node.
    auto amounts = [&](std::string_view key, const api::ResourceList& list,
                       int pods) {
      Key(w, key);
      w.StartArray();
      for (const ResourceColumn& c : columns) {
        if (c.name == api::kResourcePods) {
          w.Int64(pods >= 0 ? pods : n.allowed_pods);
        } else {
          w.Int64(Amount(list, c));
        }
      }
      w.EndArray();
    };
    amounts("a", n.allocatable, -1);
    amounts("r", n.requested, n.pods);
    amounts("b", n.requested_before, n.pods_before);
    Key(w, "l");
    w.StartArray();
    for (size_t k = 0; k < labels.keys.size(); ++k) {
      const std::string* v = n.labels.Find(labels.keys[k]);
      w.Int(v == nullptr ? -1 : labels.value_index[k].at(*v));
    }
    w.EndArray();
    if (n.unschedulable) {
      Key(w, "c");
      w.Int(1);
    }
    if (!n.taints.empty()) {
      Key(w, "t");
      w.StartArray();
      for (const std::string& t : n.taints) WriteString(w, t);
      w.EndArray();
    }
    if (!n.devices.empty()) {
      Key(w, "d");
      w.StartArray();
      for (const NodeDevices& d : n.devices) {
        w.StartArray();
        WriteString(w, d.driver);
        w.Int(d.allocated);
        w.Int(d.total);
        w.EndArray();
      }
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
}

// The filter matrix of one explained pod: every filtered node's verdict
// per Filter plugin, as indexes into `reasons` (0: passed). The rows
// closest to fitting come first (the selected node, then feasible nodes,
// then by how many plugins rejected them), at most `limit` of them.
void WriteMatrix(JsonWriter& w, const framework::CycleRecorder& record,
                 const std::string& selected, int limit) {
  const std::map<std::string, framework::CycleRecorder::Verdicts> results =
      record.FilterResults();
  std::vector<std::string> plugins;
  std::map<std::string, size_t> plugin_index;
  for (const auto& [node, verdicts] : results) {
    for (const auto& v : verdicts) {
      if (plugin_index.emplace(v.plugin, plugins.size()).second) {
        plugins.push_back(v.plugin);
      }
    }
  }
  struct Row {
    const std::string* node;
    int rejected = 0;
    std::vector<const framework::CycleRecorder::Verdict*> cells;
  };
  std::vector<Row> rows;
  rows.reserve(results.size());
  for (const auto& [node, verdicts] : results) {
    Row row{&node, 0,
            std::vector<const framework::CycleRecorder::Verdict*>(
                plugins.size(), nullptr)};
    for (const auto& v : verdicts) {
      row.cells[plugin_index[v.plugin]] = &v;
      row.rejected += !v.passed();
    }
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    const bool sa = *a.node == selected, sb = *b.node == selected;
    if (sa != sb) return sa;
    return a.rejected < b.rejected;
  });
  Interned reasons;
  reasons.Index("passed");
  Key(w, "matrix");
  w.StartObject();
  Key(w, "plugins");
  w.StartArray();
  for (const std::string& p : plugins) WriteString(w, p);
  w.EndArray();
  Key(w, "total");
  w.Int(static_cast<int>(rows.size()));
  Key(w, "rows");
  w.StartArray();
  const size_t shown = std::min(rows.size(), static_cast<size_t>(limit));
  for (size_t i = 0; i < shown; ++i) {
    w.StartArray();
    WriteString(w, *rows[i].node);
    for (const auto* v : rows[i].cells) {
      // -1: the plugin did not run on this node; a negative index below
      // that marks a rejection preemption cannot help with.
      if (v == nullptr) {
        w.Int(-1);
      } else if (v->passed()) {
        w.Int(0);
      } else {
        const int r = reasons.Index(
            v->Outcome() + (v->detail.empty() ? "" : ": " + v->detail));
        w.Int(v->unresolvable ? -1 - r : r);
      }
    }
    w.EndArray();
  }
  w.EndArray();
  Key(w, "reasons");
  reasons.Write(w);
  w.EndObject();
}

// An explained pod: its outcome, the JSON output's "summary" (filtered,
// feasible and scored nodes, rejections, top nodes, closest groups) as
// explain::WriteSummary writes it, what the summary leaves to the per-node
// data (PreFilter, preemption per node), and the filter matrix.
void WriteExplanation(JsonWriter& w, const PodOutcome& p,
                      const HtmlReportOptions& options) {
  const explain::Explanation& e = *p.explanation;
  const explain::Subject& s = e.subject;
  w.StartObject();
  Key(w, "pod");
  WriteString(w, p.ns + "/" + p.name);
  Key(w, "profile");
  WriteString(w, s.profile);
  Key(w, "node");
  if (s.node) {
    WriteString(w, *s.node);
  } else {
    w.Null();
  }
  Key(w, "message");
  WriteString(w, s.message);
  Key(w, "attempted");
  w.Bool(s.attempted);
  Key(w, "totalNodes");
  w.Int(s.total_nodes);
  if (!s.nominated_node.empty()) {
    Key(w, "nominatedNode");
    WriteString(w, s.nominated_node);
  }
  if (!s.current_node.empty()) {
    Key(w, "currentNode");
    WriteString(w, s.current_node);
  }
  Key(w, "preFilter");
  w.StartArray();
  for (const auto& [plugin, outcome] : e.pre_filter) {
    w.StartArray();
    WriteString(w, plugin);
    WriteString(w, outcome);
    w.EndArray();
  }
  w.EndArray();
  Key(w, "scorePlugins");
  w.StartArray();
  for (const std::string& plugin : e.score_plugins) WriteString(w, plugin);
  w.EndArray();
  Key(w, "preemption");
  w.StartArray();
  for (const auto& [node, outcome] : e.preemption) {
    w.StartArray();
    WriteString(w, node);
    WriteString(w, outcome);
    w.EndArray();
  }
  w.EndArray();
  Key(w, "summary");
  explain::WriteSummary(w, e);
  if (p.record) {
    WriteMatrix(w, *p.record, s.node.value_or(""), options.matrix_rows);
  }
  w.EndObject();
}

// JSON inside <script>: "</" would end the element early, so the model
// writes "<\/" (the same string to a JSON parser).
std::string ScriptSafe(std::string_view json) {
  std::string out;
  out.reserve(json.size() + 16);
  for (size_t i = 0; i < json.size(); ++i) {
    out += json[i];
    if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') {
      out += '\\';
    }
  }
  return out;
}

std::string HtmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace
}  // namespace report_html_detail
using namespace report_html_detail;

std::string HtmlReportModel(const SimulationResult& r,
                            const HtmlReportOptions& options) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  Key(w, "title");
  WriteString(w, options.title);
  Key(w, "source");
  WriteString(w, options.source);
  Key(w, "focusPod");
  WriteString(w, options.focus_pod);
  Key(w, "cycles");
  w.Int(r.cycles);

  const std::vector<ResourceColumn> columns = Columns(r.nodes);
  Key(w, "resources");
  w.StartArray();
  for (const ResourceColumn& c : columns) {
    w.StartObject();
    Key(w, "name");
    WriteString(w, c.name);
    Key(w, "unit");
    w.String(c.milli                        ? "milli"
             : c.name == api::kResourcePods ? "pods"
             : c.name.find("memory") != std::string::npos ||
                     c.name.find("storage") != std::string::npos ||
                     c.name.rfind("hugepages-", 0) == 0
                 ? "bytes"
                 : "count");
    w.EndObject();
  }
  w.EndArray();
  const LabelTable labels = GroupableLabels(r.nodes);
  Key(w, "labelKeys");
  w.StartArray();
  for (const std::string& k : labels.keys) WriteString(w, k);
  w.EndArray();
  Key(w, "labelValues");
  w.StartArray();
  for (const auto& values : labels.values) {
    w.StartArray();
    for (const std::string& v : values) WriteString(w, v);
    w.EndArray();
  }
  w.EndArray();
  WriteNodes(w, r.nodes, columns, labels);

  // Pods: messages and profiles interned, each unschedulable pod's reason
  // as an index into pendingReasons.
  const std::vector<PendingReason> pending = PendingReasons(r);
  std::map<std::string, int> reason_index;
  for (const PendingReason& p : pending) {
    reason_index.emplace(p.reason, static_cast<int>(reason_index.size()));
  }
  Interned messages, profiles;
  int explained = 0;
  Key(w, "pods");
  w.StartArray();
  for (const PodOutcome& p : r.pods) {
    w.StartObject();
    Key(w, "ns");
    WriteString(w, p.ns);
    Key(w, "n");
    WriteString(w, p.name);
    Key(w, "node");
    if (p.node) {
      WriteString(w, *p.node);
    } else {
      w.Null();
      Key(w, "m");
      w.Int(messages.Index(p.message));
      Key(w, "why");
      w.Int(reason_index.at(PendingReasonOf(p)));
    }
    if (!p.nominated_node.empty()) {
      Key(w, "nom");
      WriteString(w, p.nominated_node);
    }
    Key(w, "p");
    w.Int(profiles.Index(p.profile));
    if (p.explanation) {
      Key(w, "x");
      w.Int(explained++);
    }
    WritePodClaims(w, p);
    w.EndObject();
  }
  w.EndArray();
  Key(w, "messages");
  messages.Write(w);
  Key(w, "profiles");
  profiles.Write(w);
  Key(w, "pendingReasons");
  w.StartArray();
  for (const PendingReason& p : pending) {
    w.StartObject();
    Key(w, "reason");
    WriteString(w, p.reason);
    Key(w, "pods");
    w.Int(p.pods);
    w.EndObject();
  }
  w.EndArray();
  Key(w, "explained");
  w.StartArray();
  for (const PodOutcome& p : r.pods) {
    if (p.explanation) WriteExplanation(w, p, options);
  }
  w.EndArray();
  WritePlanOutcomes(w, r);
  if (r.nodes_needed >= 0) {
    Key(w, "nodeTemplate");
    WriteString(w, r.node_template);
  }
  Key(w, "podGroupsIgnored");
  w.Int(r.pod_groups_ignored);
  WritePreempted(w, r);
  Key(w, "otherSchedulerPods");
  w.StartArray();
  for (const std::string& p : r.other_scheduler_pods) WriteString(w, p);
  w.EndArray();
  Key(w, "warnings");
  w.StartArray();
  for (const std::string& s : r.warnings) WriteString(w, s);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string RenderHtml(const SimulationResult& result,
                       const HtmlReportOptions& options) {
  const std::string model = ScriptSafe(HtmlReportModel(result, options));
  std::string page;
  page.reserve(model.size() + kReportCss.size() + kReportJs.size() + 1024);
  page +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page +=
      "<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\">\n";
  page += "<title>" + HtmlEscape(options.title) + "</title>\n<style>\n";
  page += kReportCss;
  page += "</style>\n</head>\n<body>\n";
  page += kReportBody;
  page += "<script id=\"ksched-report\" type=\"application/json\">";
  page += model;
  page += "</script>\n<script>\n";
  page += kReportJs;
  page += "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace ksched::simulator

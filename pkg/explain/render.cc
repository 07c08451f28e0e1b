#include "pkg/explain/render.h"

#include <algorithm>
#include <sstream>

namespace ksched::explain {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void Str(JsonWriter& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
void Key(JsonWriter& w, const std::string& s) {
  w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s + "  "
                           : s + std::string(width + 2 - s.size(), ' ');
}

std::string Nodes(int n) {
  return std::to_string(n) + (n == 1 ? " node" : " nodes");
}

// Rows of cells as aligned columns, each line indented.
void Columns(std::ostringstream& out, const std::string& indent,
             const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      line += i + 1 == row.size() ? row[i] : Pad(row[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
}

}  // namespace

std::string RenderText(const Explanation& e) {
  std::ostringstream out;
  const Subject& s = e.subject;
  out << "Pod " << s.ns << "/" << s.name << " (profile " << s.profile << "): ";
  if (s.node) {
    out << "scheduled on " << *s.node << "\n";
  } else {
    out << "unschedulable\n  " << s.message << "\n";
    if (!s.nominated_node.empty()) {
      out << "  Nominated node (after preemption): " << s.nominated_node
          << "\n";
    }
  }
  if (!s.attempted) {
    // A pod whose turn never came says so in its message; only one held
    // back (a scheduling gate) is told so here.
    if (s.message.rfind("not tried", 0) != 0) {
      out << "  Never tried: held back before its first scheduling cycle\n";
    }
    return out.str();
  }
  if (!s.current_node.empty() && e.fits_current_node.has_value()) {
    out << "  Its node " << s.current_node
        << (*e.fits_current_node ? " would still take it"
                                 : " would no longer take it")
        << "\n";
  }
  for (const auto& [plugin, outcome] : e.pre_filter) {
    out << "  PreFilter " << plugin << ": " << outcome << "\n";
  }
  if (!e.nominated_node_tried.empty()) {
    out << "  Its nominated node " << e.nominated_node_tried
        << " (from an earlier preemption) was filtered first, alone"
        << (s.node == e.nominated_node_tried ? ", and took it" : "") << "\n";
  }
  out << "  Filter: " << e.filtered_nodes << " of " << s.total_nodes
      << " nodes evaluated, " << e.feasible_nodes << " feasible";
  if (e.scored_nodes > 0 && e.scored_nodes < e.feasible_nodes) {
    out << ", " << e.scored_nodes
        << " of them scored (percentageOfNodesToScore)";
  }
  out << "\n";
  if (!e.rejections.empty()) {
    out << "  Rejected by plugin (every plugin runs on every node, so a node "
           "can count twice):\n";
    std::vector<std::vector<std::string>> rows;
    for (const PluginRejections& r : e.rejections) {
      std::string reasons;
      for (const auto& [reason, n] : r.reasons) {
        if (!reasons.empty()) reasons += ", ";
        reasons += reason + " " + std::to_string(n);
      }
      rows.push_back({r.plugin, Nodes(r.nodes), "(" + reasons + ")"});
    }
    Columns(out, "    ", rows);
    for (const PluginRejections& r : e.rejections) {
      for (const auto& [node, detail] : r.details) {
        out << "    " << r.plugin << " on " << node << ": " << detail << "\n";
      }
    }
  }
  if (!e.top.empty()) {
    out << "  Top " << e.top.size() << " of " << e.scored_nodes
        << " scored nodes (weighted; * = selected):\n";
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> header = {"", "NODE"};
    for (const std::string& p : e.score_plugins) header.push_back(p);
    header.push_back("TOTAL");
    rows.push_back(header);
    for (const RankedNode& n : e.top) {
      std::vector<std::string> row = {n.selected ? "*" : "", n.name};
      for (const std::string& p : e.score_plugins) {
        auto it = n.weighted.find(p);
        row.push_back(it == n.weighted.end() ? "-"
                                             : std::to_string(it->second));
      }
      row.push_back(std::to_string(n.total));
      rows.push_back(std::move(row));
    }
    Columns(out, "    ", rows);
  } else if (s.node && e.feasible_nodes == 1) {
    out << "  One feasible node: taken without scoring\n";
  }
  if (!s.node && e.closest_total > 0) {
    out << "  Closest nodes (rejected by one plugin only; " << e.closest_total
        << " in all):\n";
    std::vector<std::vector<std::string>> rows = {
        {"PLUGIN", "NODES", "REASON", "NODE NAMES"}};
    for (const CloseGroup& c : e.closest) {
      std::string names;
      for (const std::string& n : c.examples) {
        names += (names.empty() ? "" : ", ") + n;
      }
      if (static_cast<int>(c.examples.size()) < c.nodes) names += ", ...";
      rows.push_back({c.plugin, std::to_string(c.nodes), c.reason, names});
    }
    Columns(out, "    ", rows);
  }
  if (!e.preemption.empty()) {
    std::map<std::string, int> counts;
    std::vector<std::vector<std::string>> named;
    for (const auto& [node, outcome] : e.preemption) {
      if (outcome.rfind("chosen", 0) == 0 ||
          outcome.rfind("candidate", 0) == 0) {
        named.push_back({node, outcome});
      } else {
        ++counts[outcome];
      }
    }
    out << (e.preemption_cycle_earlier
                ? "  Preemption (in the earlier cycle that nominated "
                  "the node):\n"
                : "  Preemption:\n");
    for (const auto& [outcome, n] : counts) {
      out << "    " << Nodes(n) << ": " << outcome << "\n";
    }
    Columns(out, "    ", named);
  }
  return out.str();
}

void WriteJson(JsonWriter& w, const Explanation& e,
               const framework::CycleRecorder& record) {
  // The recorder's object, reopened to add our keys after its own.
  std::string simulator = record.ToSimulatorJson();
  rapidjson::Document doc;
  doc.Parse(simulator.data(), simulator.size());
  w.StartObject();
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    w.Key(it->name.GetString(), it->name.GetStringLength());
    it->value.Accept(w);
  }
  Key(w, "preemption-result");
  w.StartObject();
  for (const auto& [node, outcome] : e.preemption) {
    Key(w, node);
    Str(w, outcome);
  }
  w.EndObject();

  Key(w, "summary");
  WriteSummary(w, e);
  w.EndObject();
}

void WriteSummary(JsonWriter& w, const Explanation& e) {
  w.StartObject();
  Key(w, "filteredNodes");
  w.Int(e.filtered_nodes);
  Key(w, "feasibleNodes");
  w.Int(e.feasible_nodes);
  Key(w, "scoredNodes");
  w.Int(e.scored_nodes);
  Key(w, "rejections");
  w.StartArray();
  for (const PluginRejections& r : e.rejections) {
    w.StartObject();
    Key(w, "plugin");
    Str(w, r.plugin);
    Key(w, "nodes");
    w.Int(r.nodes);
    Key(w, "reasons");
    w.StartObject();
    for (const auto& [reason, n] : r.reasons) {
      Key(w, reason);
      w.Int(n);
    }
    w.EndObject();
    if (!r.details.empty()) {
      Key(w, "details");
      w.StartObject();
      for (const auto& [node, detail] : r.details) {
        Key(w, node);
        Str(w, detail);
      }
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndArray();
  Key(w, "top");
  w.StartArray();
  for (const RankedNode& n : e.top) {
    w.StartObject();
    Key(w, "node");
    Str(w, n.name);
    Key(w, "scores");
    w.StartObject();
    for (const auto& [plugin, score] : n.weighted) {
      Key(w, plugin);
      w.Int64(score);
    }
    w.EndObject();
    Key(w, "total");
    w.Int64(n.total);
    Key(w, "selected");
    w.Bool(n.selected);
    w.EndObject();
  }
  w.EndArray();
  Key(w, "closest");
  w.StartArray();
  for (const CloseGroup& c : e.closest) {
    w.StartObject();
    Key(w, "plugin");
    Str(w, c.plugin);
    Key(w, "reason");
    Str(w, c.reason);
    Key(w, "nodes");
    w.Int(c.nodes);
    Key(w, "examples");
    w.StartArray();
    for (const std::string& n : c.examples) Str(w, n);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  if (!e.nominated_node_tried.empty()) {
    Key(w, "nominatedNodeTried");
    Str(w, e.nominated_node_tried);
  }
  if (e.preemption_cycle_earlier) {
    // preemption-result comes from the cycle that nominated the node.
    Key(w, "preemptionFromEarlierCycle");
    w.Bool(true);
  }
  Key(w, "closestTotal");
  w.Int(e.closest_total);
  if (e.fits_current_node.has_value()) {
    Key(w, "fitsCurrentNode");
    w.Bool(*e.fits_current_node);
  }
  w.EndObject();
}

}  // namespace ksched::explain

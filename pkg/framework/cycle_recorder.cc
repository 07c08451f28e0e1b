#include "pkg/framework/cycle_recorder.h"

#include <algorithm>

#include "pkg/util/json.h"

namespace ksched::framework {

std::string CycleRecorder::Outcome(const Status& status) {
  if (status.IsSuccess()) return std::string(kSuccess);
  if (status.IsWait()) return std::string(kWait);
  if (status.IsSkip()) return std::string(kSkip);
  return status.Message();
}

void CycleRecorder::PreFilter(std::string_view plugin, const Status& status,
                              const PreFilterResult& result) {
  pre_filter_status_[std::string(plugin)] = Outcome(status);
  if (!result.AllNodes()) {
    pre_filter_result_[std::string(plugin)] = std::vector<std::string>(
        result.node_names->begin(), result.node_names->end());
  }
}

void CycleRecorder::BeginFilter(const std::vector<NodeInfoPtr>& nodes) {
  for (const NodeInfoPtr& node : nodes) {
    if (node == nullptr) continue;
    if (filter_index_.emplace(node.get(), filter_slots_.size()).second) {
      filter_nodes_.push_back(node->name());
      filter_slots_.emplace_back();
    }
  }
}

void CycleRecorder::Filter(const NodeInfo& node, std::string_view plugin,
                           const Status& status) {
  // The index is only read during the parallel pass.
  auto it = filter_index_.find(&node);
  if (it == filter_index_.end()) return;
  Verdicts& verdicts = filter_slots_[it->second];
  Verdict verdict{std::string(plugin), {}, false};
  if (!status.IsSuccess()) {
    verdict.reasons = status.reasons();
    // A rejection always says something, even when a plugin gave no words.
    if (verdict.reasons.empty()) {
      verdict.reasons.emplace_back(CodeName(status.code()));
    }
    verdict.unresolvable = status.code() == Code::kUnschedulableAndUnresolvable;
  }
  // A node filtered twice (with and without nominated pods) keeps the
  // last verdict of each plugin, and the detail its Filter just gave.
  for (Verdict& v : verdicts) {
    if (v.plugin == plugin) {
      if (!verdict.passed()) verdict.detail = std::move(v.detail);
      v = std::move(verdict);
      return;
    }
  }
  verdicts.push_back(std::move(verdict));
}

void CycleRecorder::Detail(const NodeInfo& node, std::string_view plugin,
                           std::string detail) {
  auto it = filter_index_.find(&node);
  if (it == filter_index_.end()) return;
  Verdicts& verdicts = filter_slots_[it->second];
  for (Verdict& v : verdicts) {
    if (v.plugin == plugin) {
      v.detail = std::move(detail);
      return;
    }
  }
  verdicts.push_back(
      Verdict{std::string(plugin), {}, false, std::move(detail)});
}

std::string CycleRecorder::Verdict::Outcome() const {
  if (passed()) return std::string(kPassed);
  std::string out;
  for (const std::string& r : reasons) {
    if (!out.empty()) out += ", ";
    out += r;
  }
  return out;
}

std::map<std::string, CycleRecorder::Verdicts> CycleRecorder::FilterResults()
    const {
  std::map<std::string, Verdicts> out;
  for (size_t i = 0; i < filter_slots_.size(); ++i) {
    if (!filter_slots_[i].empty()) out[filter_nodes_[i]] = filter_slots_[i];
  }
  return out;
}

void CycleRecorder::PreScore(std::string_view plugin, const Status& status) {
  pre_score_[std::string(plugin)] = Outcome(status);
}

void CycleRecorder::Score(std::string_view node, std::string_view plugin,
                          const Scores& scores) {
  scores_[std::string(node)][std::string(plugin)] = scores;
}

void CycleRecorder::PostFilter(std::string_view plugin, const Status& status,
                               const std::string& nominated_node) {
  post_filter_status_[std::string(plugin)] = Outcome(status);
  // kube-scheduler-simulator's wording for the node preemption chose.
  if (!nominated_node.empty()) {
    post_filter_[nominated_node][std::string(plugin)] = "preemption victim";
  }
}

void CycleRecorder::Preemption(const std::string& node, std::string outcome) {
  preemption_[node] = std::move(outcome);
}

void CycleRecorder::Reserve(std::string_view plugin, const Status& status) {
  reserve_[std::string(plugin)] = Outcome(status);
}

void CycleRecorder::Permit(std::string_view plugin, const Status& status,
                           std::chrono::milliseconds timeout) {
  permit_[std::string(plugin)] = Outcome(status);
  if (status.IsWait()) {
    permit_timeout_[std::string(plugin)] =
        std::to_string(timeout.count()) + "ms";
  }
}

void CycleRecorder::PreBind(std::string_view plugin, const Status& status) {
  pre_bind_[std::string(plugin)] = Outcome(status);
}

void CycleRecorder::Bind(std::string_view plugin, const Status& status) {
  bind_[std::string(plugin)] = Outcome(status);
}

namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteStrings(JsonWriter& w, const std::map<std::string, std::string>& m) {
  w.StartObject();
  for (const auto& [k, v] : m) {
    w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  }
  w.EndObject();
}

template <typename Inner, typename WriteInner>
void WriteNested(JsonWriter& w, const std::map<std::string, Inner>& m,
                 WriteInner write_inner) {
  w.StartObject();
  for (const auto& [k, v] : m) {
    w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
    write_inner(v);
  }
  w.EndObject();
}

}  // namespace

std::string CycleRecorder::ToSimulatorJson() const {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("prefilter-result-status");
  WriteStrings(w, pre_filter_status_);
  w.Key("prefilter-result");
  WriteNested(w, pre_filter_result_, [&](const std::vector<std::string>& v) {
    w.StartArray();
    for (const std::string& node : v) w.String(node.c_str());
    w.EndArray();
  });
  w.Key("filter-result");
  WriteNested(w, FilterResults(), [&](const Verdicts& verdicts) {
    w.StartObject();
    for (const Verdict& v : verdicts) {
      w.Key(v.plugin.c_str());
      const std::string outcome = v.Outcome();
      w.String(outcome.c_str());
    }
    w.EndObject();
  });
  w.Key("postfilter-result");
  WriteNested(
      w, post_filter_,
      [&](const std::map<std::string, std::string>& m) { WriteStrings(w, m); });
  w.Key("prescore-result");
  WriteStrings(w, pre_score_);
  auto write_scores = [&](int64_t Scores::*field) {
    WriteNested(w, scores_, [&](const std::map<std::string, Scores>& m) {
      w.StartObject();
      for (const auto& [plugin, s] : m) {
        w.Key(plugin.c_str());
        w.String(std::to_string(s.*field).c_str());
      }
      w.EndObject();
    });
  };
  w.Key("score-result");
  write_scores(&Scores::raw);
  w.Key("finalscore-result");
  write_scores(&Scores::weighted);
  w.Key("reserve-result");
  WriteStrings(w, reserve_);
  w.Key("permit-result");
  WriteStrings(w, permit_);
  w.Key("permit-result-timeout");
  WriteStrings(w, permit_timeout_);
  w.Key("prebind-result");
  WriteStrings(w, pre_bind_);
  w.Key("bind-result");
  WriteStrings(w, bind_);
  w.Key("selected-node");
  w.String(selected_node_.c_str());
  w.EndObject();
  return buffer.GetString();
}

}  // namespace ksched::framework

// CycleRecorder: what one scheduling cycle did, per extension point, per
// plugin and per node, so that `explain` can show why a pod went where it
// went, or why it went nowhere.
//
// The framework and the algorithm fill it when the cycle's CycleState
// carries one (CycleState::set_recorder); without one, recording costs a
// null check per extension point and per node. Filter verdicts come from
// the parallel workers: BeginFilter lays out one slot per node before the
// pass and each node is filtered by one worker at a time, so the workers
// never share a lock. Everything else is recorded from the scheduling
// thread.
//
// The wording follows kube-scheduler-simulator's result annotations, so
// tools that read those read this: "passed" for a Filter that let a node
// through, "success" for any other plugin that did, the status message
// otherwise, and scores as decimal strings.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/framework/node_info.h"
#include "pkg/framework/status.h"
#include "pkg/framework/types.h"

namespace ksched::framework {

class CycleRecorder {
 public:
  static constexpr std::string_view kPassed = "passed";
  static constexpr std::string_view kSuccess = "success";
  static constexpr std::string_view kWait = "wait";
  static constexpr std::string_view kSkip = "skip";

  // One Filter plugin's answer on one node.
  struct Verdict {
    std::string plugin;
    // Why it rejected the node, one entry per reason; empty: it passed.
    std::vector<std::string> reasons;
    // UnschedulableAndUnresolvable: preemption cannot help on this node.
    bool unresolvable = false;
    // What the plugin adds for people about this node beyond its reason
    // (DynamicResources: which request lacked devices); often empty.
    std::string detail;

    bool passed() const { return reasons.empty(); }
    // "passed", or the reasons joined as a Status message joins them.
    std::string Outcome() const;
    bool operator==(const Verdict&) const = default;
  };
  // One node's Filter verdicts, in the order the plugins ran.
  using Verdicts = std::vector<Verdict>;
  // A Score plugin's scores on one node.
  struct Scores {
    int64_t raw = 0;
    int64_t normalized = 0;
    int64_t weighted = 0;  // normalized x the plugin's weight
  };

  // ---- recording (framework, algorithm) ----
  void PreFilter(std::string_view plugin, const Status& status,
                 const PreFilterResult& result);
  // Gives each of `nodes` a Filter slot; nodes already laid out keep theirs.
  void BeginFilter(const std::vector<NodeInfoPtr>& nodes);
  // Thread-safe across nodes: only the worker filtering `node` writes its
  // slot. Nodes without a slot (the copies preemption filters) are not
  // recorded.
  void Filter(const NodeInfo& node, std::string_view plugin,
              const Status& status);
  // A plugin's detail about its verdict on `node`, given while its Filter
  // runs (before the framework records the verdict itself). Thread-safe
  // across nodes as Filter is.
  void Detail(const NodeInfo& node, std::string_view plugin,
              std::string detail);
  void PreScore(std::string_view plugin, const Status& status);
  void Score(std::string_view node, std::string_view plugin,
             const Scores& scores);
  void PostFilter(std::string_view plugin, const Status& status,
                  const std::string& nominated_node);
  // Preemption's view of one node: "not helpful" for nodes no eviction can
  // fix, the dry run's answer for the others ("victims: ns/a, ns/b" for a
  // candidate). DefaultPreemption records it from the scheduling thread.
  void Preemption(const std::string& node, std::string outcome);
  void Reserve(std::string_view plugin, const Status& status);
  void Permit(std::string_view plugin, const Status& status,
              std::chrono::milliseconds timeout);
  void PreBind(std::string_view plugin, const Status& status);
  void Bind(std::string_view plugin, const Status& status);
  void SelectNode(std::string node) { selected_node_ = std::move(node); }
  // The pod's nominated node was filtered alone before the others.
  void TryNominatedNode(std::string node) {
    nominated_node_tried_ = std::move(node);
  }

  // ---- reading ----
  const std::map<std::string, std::string>& pre_filter_status() const {
    return pre_filter_status_;
  }
  const std::map<std::string, std::vector<std::string>>& pre_filter_result()
      const {
    return pre_filter_result_;
  }
  // Every node that was filtered, by name, with its verdicts.
  std::map<std::string, Verdicts> FilterResults() const;
  const std::map<std::string, std::string>& pre_score() const {
    return pre_score_;
  }
  // node -> plugin -> scores.
  const std::map<std::string, std::map<std::string, Scores>>& scores() const {
    return scores_;
  }
  // node -> plugin -> "preemption victim" for the node preemption chose.
  const std::map<std::string, std::map<std::string, std::string>>& post_filter()
      const {
    return post_filter_;
  }
  const std::map<std::string, std::string>& post_filter_status() const {
    return post_filter_status_;
  }
  const std::map<std::string, std::string>& preemption() const {
    return preemption_;
  }
  const std::map<std::string, std::string>& reserve() const { return reserve_; }
  const std::map<std::string, std::string>& permit() const { return permit_; }
  const std::map<std::string, std::string>& permit_timeout() const {
    return permit_timeout_;
  }
  const std::map<std::string, std::string>& pre_bind() const {
    return pre_bind_;
  }
  const std::map<std::string, std::string>& bind() const { return bind_; }
  const std::string& selected_node() const { return selected_node_; }
  const std::string& nominated_node_tried() const {
    return nominated_node_tried_;
  }

  // The outcome a status records as: "success", "wait", "skip" or its
  // message.
  static std::string Outcome(const Status& status);

  // The record as one JSON object whose keys and value shapes are
  // kube-scheduler-simulator's result annotations (prefilter-result-status,
  // prefilter-result, filter-result, postfilter-result, prescore-result,
  // score-result, finalscore-result, reserve-result, permit-result,
  // permit-result-timeout, prebind-result, bind-result, selected-node),
  // each value an object rather than an annotation's string of one.
  std::string ToSimulatorJson() const;

 private:
  std::map<std::string, std::string> pre_filter_status_;
  std::map<std::string, std::vector<std::string>> pre_filter_result_;
  std::unordered_map<const NodeInfo*, size_t> filter_index_;
  std::vector<std::string> filter_nodes_;  // parallel to filter_slots_
  std::vector<Verdicts> filter_slots_;
  std::map<std::string, std::string> pre_score_;
  std::map<std::string, std::map<std::string, Scores>> scores_;
  std::map<std::string, std::map<std::string, std::string>> post_filter_;
  std::map<std::string, std::string> post_filter_status_;
  std::map<std::string, std::string> preemption_;
  std::map<std::string, std::string> reserve_;
  std::map<std::string, std::string> permit_;
  std::map<std::string, std::string> permit_timeout_;
  std::map<std::string, std::string> pre_bind_;
  std::map<std::string, std::string> bind_;
  std::string selected_node_;
  std::string nominated_node_tried_;
};

}  // namespace ksched::framework

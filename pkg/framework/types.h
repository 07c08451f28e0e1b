// Types the extension points exchange: node scores, per-node statuses, the
// results of PreFilter and PostFilter, and a pod as the queue holds it.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "pkg/framework/pod_info.h"
#include "pkg/framework/status.h"
#include "pkg/util/clock.h"

namespace ksched::framework {

// Scores a Score plugin may return after normalisation.
inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kMinNodeScore = 0;
// Extenders score 0..10; their scores are scaled to 0..kMaxNodeScore.
inline constexpr int64_t kMaxExtenderPriority = 10;

// A node's score from one plugin. The name refers to the cycle's snapshot,
// which outlives every score list of the cycle.
struct NodeScore {
  std::string_view name;
  int64_t score = 0;
};
using NodeScoreList = std::vector<NodeScore>;

// PreFilterResult: a PreFilter plugin may narrow the nodes worth filtering.
struct PreFilterResult {
  // std::nullopt: every node.
  std::optional<std::set<std::string>> node_names;

  bool AllNodes() const { return !node_names.has_value(); }
  // The intersection of two results (PreFilterResult.Merge).
  PreFilterResult Merge(const PreFilterResult& other) const;
};

// The statuses of the nodes filtering rejected; nodes not listed share
// `absent` (framework.NodeToStatus). A GPU pod is rejected by thousands of
// nodes each cycle, so entries sit in one array with an open-addressing
// index beside it: setting one costs no allocation of its own.
class NodeToStatus {
 public:
  struct Entry {
    std::string node;
    Status status;
  };

  NodeToStatus() : absent_(Code::kUnschedulableAndUnresolvable) {}

  // Sets or replaces the node's status.
  void Set(const std::string& node, Status status);
  void Reserve(size_t nodes);
  // The status of `node`: explicit, else the absent-nodes status.
  const Status& Get(const std::string& node) const;
  const Status* Find(const std::string& node) const;
  void SetAbsent(Status status) { absent_ = std::move(status); }
  const Status& absent() const { return absent_; }
  size_t size() const { return entries_.size(); }
  // Every explicit status, in the order first set.
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  // The slot holding `node`, or the empty slot where it would go.
  size_t SlotOf(std::string_view node, size_t hash) const;
  void Grow();

  std::vector<Entry> entries_;
  std::vector<size_t> hashes_;  // of entries_' names
  // Entry position + 1 (0: empty); a power of two, at most half full.
  std::vector<uint32_t> slots_;
  Status absent_;
};

// Diagnosis: why a pod fits nowhere, as FitError reports it.
struct Diagnosis {
  NodeToStatus node_to_status;
  // Plugins that rejected the pod (for queueing hints and metrics).
  std::set<std::string> unschedulable_plugins;
  std::set<std::string> pending_plugins;
  std::string pre_filter_msg;
  std::string post_filter_msg;
  // Nodes evaluated by filtering.
  int evaluated_nodes = 0;
  // Nodes rejected because a FilterCandidatesPlugin left them out, without
  // a status in node_to_status: statuses are worked out only for a pod
  // that fits nowhere, so this is 0 whenever they are needed.
  int unexplained_rejections = 0;
};

// "0/N nodes are available: 3 Insufficient cpu, 1 ... ." with the reasons
// counted over nodes and sorted as kube-scheduler sorts them.
std::string FitErrorMessage(int num_all_nodes, const Diagnosis& diagnosis);

inline constexpr std::string_view kNoNodesAvailableMsg =
    "no nodes available to schedule pods";

struct PostFilterResult {
  std::string nominated_node_name;
  // When true, the nominated node is cleared rather than set.
  bool clear_nomination = false;
};

// A pod in the scheduling queue (framework.QueuedPodInfo).
struct QueuedPodInfo {
  PodInfoPtr pod_info;
  // When the pod was (re)added to the queue: the tie-breaker of PrioritySort.
  util::Clock::TimePoint timestamp{};
  // Scheduling attempts so far.
  int attempts = 0;
  // The first time the pod was added; for latency metrics.
  std::optional<util::Clock::TimePoint> initial_attempt_timestamp;
  std::set<std::string> unschedulable_plugins;
  std::set<std::string> pending_plugins;
  bool gated = false;
  // The PreEnqueue plugin that gates the pod ("" when none): only the
  // events that plugin registered can release it.
  std::string gating_plugin;
  // Attempts that ended in a rejection, and attempts in a row that ended in
  // an error; the backoff grows with the latter while it is non-zero, else
  // with the former (kube v1.33+; v1.32 counted every attempt).
  int unschedulable_count = 0;
  int consecutive_errors_count = 0;
  // When the backoff ends, computed once per requeue (BackoffQueue).
  mutable std::optional<util::Clock::TimePoint> backoff_expiration;
  // Moved out of the unschedulable pods by the periodic flush (it stayed
  // past podMaxInUnschedulablePodsDuration) since its last attempt; a pod
  // that then binds hints at a missing queueing hint (v1.36's
  // scheduler_pod_scheduled_after_flush_total).
  bool was_flushed_from_unschedulable = false;

  const api::Pod& pod() const { return pod_info->pod(); }
};

}  // namespace ksched::framework

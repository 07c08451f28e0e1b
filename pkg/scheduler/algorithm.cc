#include "pkg/scheduler/algorithm.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "pkg/framework/cycle_recorder.h"

namespace ksched::scheduler {

using framework::Code;
using framework::NodeInfoPtr;
using framework::Status;

int32_t NumFeasibleNodesToFind(int32_t percentage, int32_t num_all_nodes) {
  if (num_all_nodes < kMinFeasibleNodesToFind) return num_all_nodes;
  if (percentage == 0) {
    percentage = 50 - num_all_nodes / 125;
    if (percentage < kMinFeasibleNodesPercentageToFind) {
      percentage = kMinFeasibleNodesPercentageToFind;
    }
  }
  int32_t n = static_cast<int32_t>(int64_t{num_all_nodes} * percentage / 100);
  return n < kMinFeasibleNodesToFind ? kMinFeasibleNodesToFind : n;
}

std::string ScheduleResult::FailureMessage() const {
  switch (kind) {
    case Kind::kScheduled:
      return "";
    case Kind::kNoFit:
      return framework::FitErrorMessage(num_all_nodes, diagnosis);
    case Kind::kError:
      return error_message;
  }
  return error_message;
}

namespace {

void AddPluginStatus(const Status& s, framework::Diagnosis* d) {
  if (s.plugin().empty()) return;
  if (s.IsRejected()) d->unschedulable_plugins.insert(s.plugin());
  if (s.code() == Code::kPending) d->pending_plugins.insert(s.plugin());
}

// A pointer to `node` that does not own it. The feasible list is kept for
// one cycle, while `nodes` (and the snapshot behind it) own every node, and
// no plugin keeps the pointers it is handed. Copying owning pointers would
// bump each node's reference count: an atomic write to a cache line the
// filter pass never touched, for each of the hundreds of feasible nodes.
NodeInfoPtr Unowned(const NodeInfoPtr& node) {
  return NodeInfoPtr(NodeInfoPtr(), node.get());
}

}  // namespace

bool SchedulingAlgorithm::FindNodesThatPassFilters(
    framework::Framework& fwk, const framework::CycleState& state,
    const framework::PodInfo& pod, const std::vector<NodeInfoPtr>& nodes,
    framework::Diagnosis* diagnosis, std::vector<NodeInfoPtr>* feasible,
    std::string* error, NodeResultMemo* memo, std::vector<int32_t>* positions,
    const std::vector<uint8_t>* candidates) {
  const int num_nodes = static_cast<int>(nodes.size());
  feasible->clear();
  if (positions != nullptr) positions->clear();
  if (num_nodes == 0) return true;
  int32_t to_find = NumFeasibleNodesToFind(
      fwk.percentage_of_nodes_to_score().value_or(percentage_), num_nodes);
  // Without scoring any feasible node will do.
  if (!fwk.HasScorePlugins()) to_find = 1;
  const size_t start = next_start_node_index_ % nodes.size();
  // Slots for the recorder before the workers start.
  if (framework::CycleRecorder* recorder = state.recorder()) {
    recorder->BeginFilter(nodes);
  }

  if (!fwk.HasFilterPlugins()) {
    for (int i = 0; i < to_find; ++i) {
      feasible->push_back(Unowned(nodes[(start + i) % nodes.size()]));
      if (positions != nullptr) {
        positions->push_back(static_cast<int32_t>((start + i) % nodes.size()));
      }
    }
    return true;
  }

  // Workers filter whole chunks: each node's verdict goes to its own slot
  // (no lock, no shared counter per node), and a chunk's rejections (most
  // nodes, for a pod that spreads) are gathered under one lock per chunk.
  // Chunks are handed out in list order and always finish, so the positions
  // processed form a prefix of the list; keeping the first `to_find` feasible
  // nodes by position (and the rejections before the last of them) gives the
  // result a sequential scan would, whatever the thread timing, and a seeded
  // tie-break stays reproducible.
  struct Rejection {
    int position;
    Status status;
  };
  // kLeftOut: rejected because the candidates leave the node out.
  enum Verdict : uint8_t { kUnseen = 0, kPassed, kFailed, kLeftOut };
  std::vector<uint8_t> verdicts(num_nodes, kUnseen);
  std::mutex mu;
  // Each chunk's rejections, in position order within the chunk: put in
  // order by the chunks' first positions afterwards, not node by node.
  struct ChunkRejections {
    int begin;
    std::vector<Rejection> rejected;
  };
  std::vector<ChunkRejections> rejections;
  std::atomic<int32_t> found_count{0};
  std::string first_error;

  fwk.parallelizer().UntilChunks(num_nodes, [&](int begin, int end) {
    int32_t passed = 0;
    int32_t reused = 0;  // of the passes, those the memo answered
    std::vector<Rejection> rejected;
    // Sized once: for a GPU pod nearly every node of a chunk is rejected,
    // and growing by doubling was 1.8 % of the scheduler's CPU end to end.
    rejected.reserve(end - begin);
    // A sampled cycle's plugin durations, observed once a chunk.
    framework::PluginTimings timings;
    auto flush = [&] {
      if (!timings.empty()) fwk.FlushFilterTimings(timings);
      if (rejected.empty()) return;
      std::lock_guard<std::mutex> lock(mu);
      rejections.push_back({begin, std::move(rejected)});
    };
    for (int i = begin; i < end; ++i) {
      const size_t position = (start + i) % nodes.size();
      if (candidates != nullptr && !(*candidates)[position]) {
        verdicts[i] = kLeftOut;
        continue;
      }
      // A node that passed at its generation passes: its NodeInfo is not
      // even loaded.
      if (memo != nullptr && memo->Passed(position)) {
        verdicts[i] = kPassed;
        ++passed;
        ++reused;
        continue;
      }
      // A few nodes ahead: its NodeInfo was asked for kAhead steps earlier,
      // so its Node pointer can be followed now.
      constexpr int kAhead = 4;
      if (memo == nullptr) {
        if (i + kAhead < end) {
          nodes[(start + i + kAhead) % nodes.size()]->Prefetch(
              /*node_too=*/true);
        }
        if (i + 2 * kAhead < end) {
          nodes[(start + i + 2 * kAhead) % nodes.size()]->Prefetch(
              /*node_too=*/false);
        }
      }
      const NodeInfoPtr& node = nodes[position];
      Status s =
          fwk.RunFilterPluginsWithNominatedPods(state, pod, *node, &timings);
      if (s.IsSuccess()) {
        verdicts[i] = kPassed;
        ++passed;
        if (memo != nullptr) memo->SetPassed(position);
      } else if (s.code() == Code::kError) {
        flush();
        std::lock_guard<std::mutex> lock(mu);
        if (first_error.empty()) first_error = s.Message();
        return false;
      } else {
        verdicts[i] = kFailed;
        rejected.push_back({i, std::move(s)});
      }
    }
    flush();
    if (memo != nullptr && reused > 0) memo->CountReusedPasses(reused);
    return found_count.fetch_add(passed) + passed < to_find;
  });

  int last_processed = num_nodes - 1;
  int32_t kept = 0;
  feasible->reserve(std::min(to_find, num_nodes));
  for (int i = 0; i < num_nodes && kept < to_find; ++i) {
    if (verdicts[i] != kPassed) continue;
    feasible->push_back(Unowned(nodes[(start + i) % nodes.size()]));
    if (positions != nullptr) {
      positions->push_back(static_cast<int32_t>((start + i) % nodes.size()));
    }
    if (++kept == to_find) last_processed = i;
  }
  if (candidates != nullptr && first_error.empty()) {
    if (kept == 0) {
      // The pod fits nowhere: the nodes left out are filtered after all,
      // so the diagnosis says what each plugin found there, as it would
      // have without the candidates.
      std::vector<Rejection> late;
      for (int i = 0; i < num_nodes; ++i) {
        if (verdicts[i] == kLeftOut) late.push_back({i, Status()});
      }
      fwk.parallelizer().UntilChunks(
          static_cast<int>(late.size()), [&](int begin, int end) {
            for (int k = begin; k < end; ++k) {
              const framework::NodeInfo& node =
                  *nodes[(start + late[k].position) % nodes.size()];
              Status s = fwk.RunFilterPluginsWithNominatedPods(state, pod, node,
                                                               nullptr);
              if (s.IsRejected()) {
                late[k].status = std::move(s);
                continue;
              }
              std::lock_guard<std::mutex> lock(mu);
              if (first_error.empty()) {
                // A plugin broke FilterCandidates' promise: say so rather
                // than reject a node that passes.
                first_error = s.code() == Code::kError
                                  ? s.Message()
                                  : "node " + node.name() +
                                        " was left out of the filter "
                                        "candidates but passes every filter";
              }
              return false;
            }
            return true;
          });
      if (!first_error.empty()) {
        *error = first_error;
        return false;
      }
      // One list in position order, as the chunks would have given it:
      // each rejection put where its position says, not sorted (a pod that
      // fits nowhere is retried, thousands of nodes each time).
      std::vector<Rejection*> at(num_nodes, nullptr);
      for (Rejection& r : late) at[r.position] = &r;
      for (ChunkRejections& chunk : rejections) {
        for (Rejection& r : chunk.rejected) at[r.position] = &r;
      }
      std::vector<Rejection> all;
      all.reserve(num_nodes);
      for (Rejection* r : at) {
        if (r != nullptr) all.push_back(std::move(*r));
      }
      rejections.clear();
      rejections.push_back({0, std::move(all)});
    } else {
      int left_out = 0;
      for (int i = 0; i <= last_processed; ++i)
        left_out += verdicts[i] == kLeftOut;
      diagnosis->unexplained_rejections += left_out;
      candidate_rejections_ += left_out;
    }
  }
  std::sort(rejections.begin(), rejections.end(),
            [](const ChunkRejections& a, const ChunkRejections& b) {
              return a.begin < b.begin;
            });
  size_t rejected_nodes = 0;
  for (const ChunkRejections& chunk : rejections) {
    rejected_nodes += chunk.rejected.size();
  }
  diagnosis->node_to_status.Reserve(diagnosis->node_to_status.size() +
                                    rejected_nodes);
  // Runs of nodes rejected by one plugin are the rule: the plugin sets are
  // asked once a run, not once a node.
  std::string last_plugin;
  Code last_code = Code::kSuccess;
  for (ChunkRejections& chunk : rejections) {
    for (Rejection& r : chunk.rejected) {
      if (r.position > last_processed) break;
      if (r.status.code() != last_code || r.status.plugin() != last_plugin) {
        AddPluginStatus(r.status, diagnosis);
        last_code = r.status.code();
        last_plugin = r.status.plugin();
      }
      diagnosis->node_to_status.Set(
          nodes[(start + r.position) % nodes.size()]->name(),
          std::move(r.status));
    }
  }
  if (!first_error.empty()) {
    *error = first_error;
    return false;
  }
  return true;
}

std::string SchedulingAlgorithm::SelectHost(
    const std::vector<framework::NodePluginScores>& scores) {
  if (scores.empty()) return "";
  int64_t best = scores[0].total_score;
  uint64_t ties = 0;
  for (const framework::NodePluginScores& s : scores) {
    if (s.total_score > best) {
      best = s.total_score;
      ties = 1;
    } else if (s.total_score == best) {
      ++ties;
    }
  }
  // One draw picks uniformly among the tied nodes, as kube-scheduler's
  // reservoir sampling does, without a random number per tie.
  uint64_t pick = ties > 1 ? random_.Intn(ties) : 0;
  for (const framework::NodePluginScores& s : scores) {
    if (s.total_score == best && pick-- == 0) return s.node->name();
  }
  return scores[0].node->name();  // unreachable: `best` is in `scores`
}

void SchedulingAlgorithm::EnableOpportunisticBatching(
    const util::Clock& clock, framework::MetricsRecorder* metrics) {
  batch_clock_ = &clock;
  batch_metrics_ = metrics;
}

int64_t SchedulingAlgorithm::memoized_filter_passes() const {
  int64_t n = 0;
  for (const auto& [profile, memo] : memos_) n += memo->reused_passes();
  return n;
}

int64_t SchedulingAlgorithm::batched_pods() const {
  int64_t n = 0;
  for (const auto& [profile, batch] : batches_) n += batch->batched_pods();
  return n;
}

ScheduleResult SchedulingAlgorithm::Schedule(
    framework::Framework& fwk, framework::CycleState& state,
    const framework::PodInfo& pod, const framework::Snapshot& snapshot) {
  const int64_t cycle = cycles_++;
  framework::CycleRecorder* recorder = state.recorder();
  OpportunisticBatch* batch = nullptr;
  // A recorded cycle is a full one: it explains, it does not reuse.
  if (batch_clock_ != nullptr && recorder == nullptr) {
    auto it = batches_.find(fwk.profile_name());
    if (it == batches_.end()) {
      it = batches_
               .emplace(fwk.profile_name(),
                        std::make_unique<OpportunisticBatch>(
                            *batch_clock_, random_, batch_metrics_))
               .first;
    }
    batch = it->second.get();
  }
  ScheduleResult result = Run(fwk, state, pod, snapshot, batch, cycle);
  if (batch != nullptr && result.kind != ScheduleResult::Kind::kScheduled) {
    batch->Failed(cycle);
  }
  if (recorder != nullptr && result.kind == ScheduleResult::Kind::kScheduled) {
    recorder->SelectNode(result.suggested_host);
  }
  return result;
}

ScheduleResult SchedulingAlgorithm::Run(framework::Framework& fwk,
                                        framework::CycleState& state,
                                        const framework::PodInfo& pod,
                                        const framework::Snapshot& snapshot,
                                        OpportunisticBatch* batch,
                                        int64_t cycle) {
  ScheduleResult result;
  const std::vector<NodeInfoPtr>& all_nodes = snapshot.nodes();
  result.num_all_nodes = static_cast<int>(all_nodes.size());
  if (all_nodes.empty()) {
    result.kind = ScheduleResult::Kind::kError;
    result.error_message = std::string(framework::kNoNodesAvailableMsg);
    return result;
  }
  framework::Diagnosis& diagnosis = result.diagnosis;

  framework::PreFilterResult pre_result;
  std::set<std::string> narrowing_plugins;
  Status s = fwk.RunPreFilterPlugins(state, pod, all_nodes, &pre_result,
                                     &narrowing_plugins);
  if (!s.IsSuccess()) {
    if (!s.IsRejected()) {
      result.kind = ScheduleResult::Kind::kError;
      result.error_message = s.Message();
      return result;
    }
    // Every node shares the PreFilter status, so preemption sees it.
    diagnosis.pre_filter_msg = s.Message();
    AddPluginStatus(s, &diagnosis);
    diagnosis.node_to_status.SetAbsent(std::move(s));
    result.kind = ScheduleResult::Kind::kNoFit;
    return result;
  }

  // With batching, the signature and, when the last cycle's results
  // apply, the node they rank best.
  std::optional<std::string> signature;
  std::string hint;
  if (batch != nullptr) {
    signature = fwk.SignPod(pod.pod());
    hint = batch->NodeHint(fwk, state, pod, signature, cycle, snapshot);
  }

  std::vector<NodeInfoPtr> feasible;
  std::string error;
  // A node nominated by an earlier preemption is likely the only one that
  // fits: try it alone first. So is a batching hint (never both: a
  // nominated pod gets no hint).
  const std::string& nominated = pod.pod().status.nominated_node_name;
  const std::string& try_first = nominated.empty() ? hint : nominated;
  if (!try_first.empty()) {
    if (framework::CycleRecorder* recorder = state.recorder();
        recorder != nullptr && !nominated.empty()) {
      recorder->TryNominatedNode(nominated);
    }
    if (NodeInfoPtr node = snapshot.GetPtr(try_first)) {
      framework::Diagnosis scratch;
      size_t saved = next_start_node_index_;
      next_start_node_index_ = 0;
      bool ok = FindNodesThatPassFilters(fwk, state, pod, {node}, &scratch,
                                         &feasible, &error);
      next_start_node_index_ = saved;
      if (ok && !feasible.empty()) {
        result.kind = ScheduleResult::Kind::kScheduled;
        result.suggested_host = node->name();
        result.evaluated_nodes = 1;
        result.feasible_nodes = 1;
        if (batch != nullptr) {
          batch->Store(fwk, signature, hint, result.suggested_host, {}, {},
                       cycle);
        }
        return result;
      }
      feasible.clear();
    }
  }

  std::vector<NodeInfoPtr> narrowed;
  const std::vector<NodeInfoPtr>* nodes = &all_nodes;
  if (!pre_result.AllNodes()) {
    for (const std::string& name : *pre_result.node_names) {
      // A PreFilter may name nodes that no longer exist.
      if (NodeInfoPtr n = snapshot.GetPtr(name)) narrowed.push_back(n);
    }
    nodes = &narrowed;
    std::string plugins;
    for (const std::string& p : narrowing_plugins) {
      if (!plugins.empty()) plugins += " ";
      plugins += p;
    }
    diagnosis.node_to_status.SetAbsent(Status::Unresolvable(
        "node(s) didn't satisfy plugin(s) [" + plugins + "]"));
  }

  // Over the snapshot's own list, node-local answers kept from earlier
  // cycles stand (node_result_memo.h).
  NodeResultMemo* memo = nullptr;
  if (memoize_ && nodes == &all_nodes) {
    std::unique_ptr<NodeResultMemo>& m = memos_[fwk.profile_name()];
    if (m == nullptr) m = std::make_unique<NodeResultMemo>();
    if (m->StartFilter(fwk, state, pod, snapshot)) memo = m.get();
  }
  // Nodes a plugin's candidates leave out are rejected unfiltered; a
  // recorded cycle filters every node, to explain each.
  const std::vector<uint8_t>* candidates = nullptr;
  if (use_candidates_ && nodes == &all_nodes && state.recorder() == nullptr) {
    candidates =
        candidate_positions_.Update(fwk.FilterCandidates(state), snapshot);
  }
  std::vector<int32_t> positions;
  bool ok =
      FindNodesThatPassFilters(fwk, state, pod, *nodes, &diagnosis, &feasible,
                               &error, memo, &positions, candidates);
  size_t processed = feasible.size() + diagnosis.node_to_status.size() +
                     diagnosis.unexplained_rejections;
  next_start_node_index_ =
      (next_start_node_index_ + processed) % all_nodes.size();
  if (!ok) {
    result.kind = ScheduleResult::Kind::kError;
    result.error_message = error;
    return result;
  }
  result.evaluated_nodes = static_cast<int>(processed);
  result.feasible_nodes = static_cast<int>(feasible.size());
  if (feasible.empty()) {
    result.kind = ScheduleResult::Kind::kNoFit;
    return result;
  }
  if (feasible.size() == 1) {
    result.kind = ScheduleResult::Kind::kScheduled;
    result.suggested_host = feasible.front()->name();
    if (batch != nullptr) {
      batch->Store(fwk, signature, hint, result.suggested_host, {}, {}, cycle);
    }
    return result;
  }

  std::vector<framework::NodePluginScores> scores;
  framework::RawScores raw;
  if (!fwk.HasScorePlugins()) {
    // Every node scores 1: the choice is uniformly random.
    scores.resize(feasible.size());
    for (size_t i = 0; i < feasible.size(); ++i) {
      scores[i] = {feasible[i].get(), 1};
    }
  } else {
    s = fwk.RunPreScorePlugins(state, pod, feasible);
    if (s.IsSuccess()) {
      framework::RawScoreCache* kept =
          memo != nullptr ? memo->StartScore(fwk, state, pod, positions)
                          : nullptr;
      s = fwk.RunScorePlugins(state, pod, feasible, &scores,
                              batch != nullptr && signature ? &raw : nullptr,
                              kept);
    }
    if (!s.IsSuccess()) {
      result.kind = ScheduleResult::Kind::kError;
      result.error_message = s.Message();
      return result;
    }
  }
  result.kind = ScheduleResult::Kind::kScheduled;
  result.suggested_host = SelectHost(scores);
  if (batch != nullptr) {
    std::vector<int64_t> totals;
    if (!raw.nodes.empty()) {
      totals.reserve(scores.size());
      for (const framework::NodePluginScores& n : scores) {
        totals.push_back(n.total_score);
      }
    }
    batch->Store(fwk, signature, hint, result.suggested_host, raw, totals,
                 cycle);
  }
  return result;
}

}  // namespace ksched::scheduler

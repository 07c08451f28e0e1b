// Framework: one scheduling profile's plugins, instantiated from its
// configuration, and the code that runs them at each extension point
// (framework/runtime/framework.go).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/framework/metrics_recorder.h"
#include "pkg/framework/plugin_timings.h"
#include "pkg/framework/raw_score_cache.h"
#include "pkg/framework/registry.h"

namespace ksched::framework {

// Per-node result of the Score extension point.
struct NodePluginScores {
  const NodeInfo* node = nullptr;
  int64_t total_score = 0;
};

// Raw (not yet normalised) scores of some nodes: per Score plugin that ran
// (by its position in the profile), one score per node, in `nodes` order.
struct RawScores {
  std::vector<std::string> nodes;
  std::vector<size_t> plugins;               // positions in the profile
  std::vector<std::vector<int64_t>> scores;  // [plugin][node]
};

class Framework final : public Handle {
 public:
  struct Options {
    Parallelizer* parallelizer = nullptr;  // required
    const util::Clock* clock = nullptr;    // required
    Binder* binder = nullptr;
    // Namespaces, PDBs, volumes; an empty store when null.
    const ClusterObjects* objects = nullptr;
    ClusterWriter* writer = nullptr;
    PodNominator* nominator = nullptr;
    // Shared by the profiles of one scheduler; the framework's own if null.
    WaitingPods* waiting_pods = nullptr;
    PodsInPreBind* pods_in_prebind = nullptr;
    // Extension point and (sampled) plugin durations; none when null.
    MetricsRecorder* metrics = nullptr;
    // The members of each PodGroup, kept by the scheduler; none when null.
    const PodGroupMembers* pod_group_members = nullptr;
    // DRA's state (Handle::dra_manager); none when null.
    dra::DraManager* dra = nullptr;
    // The gates the plugins are built with (Handle::features).
    config::FeatureGates features;
    // Handle::Activate, GetPod and RunInBackground; the Handle's defaults
    // when unset.
    std::function<void(const std::vector<std::shared_ptr<const api::Pod>>&)>
        activate;
    std::function<std::shared_ptr<const api::Pod>(const std::string& ns,
                                                  const std::string& name)>
        get_pod;
    std::function<void(std::function<void()>)> run_in_background;
  };

  // Instantiates every plugin the profile enables (once each, with its
  // args), expands MultiPoint, and checks the profile is runnable: exactly
  // one QueueSort plugin, at least one Bind plugin, sane score weights.
  static util::Result<std::unique_ptr<Framework>> Create(
      const config::Profile& profile, const Registry& registry,
      Options options);

  const std::string& profile_name() const override { return profile_name_; }
  std::optional<int32_t> percentage_of_nodes_to_score() const {
    return percentage_of_nodes_to_score_;
  }

  // ---- Handle ----
  const Snapshot& snapshot() const override { return *snapshot_; }
  Parallelizer& parallelizer() override { return *options_.parallelizer; }
  const util::Clock& clock() const override { return *options_.clock; }
  const api::StringMap* NamespaceLabels(std::string_view ns) const override;
  Binder* binder() override { return options_.binder; }
  MetricsRecorder* metrics() override { return options_.metrics; }
  const ClusterObjects& objects() const override { return *options_.objects; }
  ClusterWriter* writer() override { return options_.writer; }
  PodNominator* nominator() override { return options_.nominator; }
  WaitingPods& waiting_pods() override { return *options_.waiting_pods; }
  PodsInPreBind& pods_in_prebind() override {
    return *options_.pods_in_prebind;
  }
  const PodGroupMembers* pod_group_members() const override {
    return options_.pod_group_members;
  }
  const config::FeatureGates& features() const override {
    return options_.features;
  }
  dra::DraManager* dra_manager() override { return options_.dra; }
  void Activate(
      const std::vector<std::shared_ptr<const api::Pod>>& pods) override {
    if (options_.activate) options_.activate(pods);
  }
  std::shared_ptr<const api::Pod> GetPod(
      const std::string& ns, const std::string& name) const override {
    return options_.get_pod ? options_.get_pod(ns, name) : nullptr;
  }
  void RunInBackground(std::function<void()> task) override {
    if (options_.run_in_background) {
      options_.run_in_background(std::move(task));
    } else {
      task();
    }
  }
  Status RunFilterPluginsWithNominatedPods(const CycleState& state,
                                           const PodInfo& pod,
                                           const NodeInfo& node) override;
  // The same, the durations of a sampled cycle's plugin calls gathered in
  // `timings` (when not null) for FlushFilterTimings.
  Status RunFilterPluginsWithNominatedPods(const CycleState& state,
                                           const PodInfo& pod,
                                           const NodeInfo& node,
                                           PluginTimings* timings);
  // Points the framework (and its plugins) at the snapshot of the next
  // cycle, and lets go of what the previous cycle looked up.
  void SetSnapshot(const Snapshot* snapshot);

  // ---- extension points ----
  bool QueueSortLess(const QueuedPodInfo& a, const QueuedPodInfo& b) const;

  // First non-success of the PreEnqueue plugins, with its plugin set.
  Status RunPreEnqueuePlugins(const api::Pod& pod) const;

  // Runs every PreFilter plugin; merges their PreFilterResults into
  // *result. An UnschedulableAndUnresolvable stops at once; an
  // Unschedulable lets the others run (preemption needs their state).
  // `plugins_with_nodes` receives the plugins that narrowed the node set.
  Status RunPreFilterPlugins(CycleState& state, const PodInfo& pod,
                             const std::vector<NodeInfoPtr>& nodes,
                             PreFilterResult* result,
                             std::set<std::string>* plugins_with_nodes);

  // The first Filter plugin that rejects the node, or success. Thread-safe.
  // In a cycle that records plugin metrics each call is timed: observed at
  // once, or gathered in `timings` when given (one per thread).
  Status RunFilterPlugins(const CycleState& state, const PodInfo& pod,
                          const NodeInfo& node,
                          PluginTimings* timings = nullptr) const;
  // Observes what `timings` gathered from Filter calls, and empties it.
  void FlushFilterTimings(PluginTimings& timings) const;

  // For preemption: PreFilter extensions with a pod added / removed.
  Status RunPreFilterExtensionAddPod(CycleState& state, const PodInfo& pod,
                                     const PodInfoPtr& to_add,
                                     const NodeInfo& node) const override;
  Status RunPreFilterExtensionRemovePod(CycleState& state, const PodInfo& pod,
                                        const PodInfoPtr& to_remove,
                                        const NodeInfo& node) const override;

  Status RunPostFilterPlugins(CycleState& state, const PodInfo& pod,
                              const NodeToStatus& filtered,
                              PostFilterResult* result);

  Status RunPreScorePlugins(CycleState& state, const PodInfo& pod,
                            const std::vector<NodeInfoPtr>& nodes);
  // Scores every node with every (not skipped) Score plugin in parallel,
  // normalises, applies weights and sums.
  // With `raw`, also the plugins' scores before normalisation.
  // With `cache`, the raw scores it has for a node are taken instead of
  // asking the plugins, and the ones computed are given to it; NodeScore
  // names are then left empty (no normaliser reads them).
  Status RunScorePlugins(const CycleState& state, const PodInfo& pod,
                         const std::vector<NodeInfoPtr>& nodes,
                         std::vector<NodePluginScores>* scores,
                         RawScores* raw = nullptr,
                         RawScoreCache* cache = nullptr);
  // The two halves of RunScorePlugins, for a caller that keeps raw scores
  // across cycles (opportunistic batching): the plugins' raw scores per
  // node, and the normalised, weighted totals of a set of raw scores.
  Status RunRawScorePlugins(const CycleState& state, const PodInfo& pod,
                            const std::vector<NodeInfoPtr>& nodes,
                            RawScores* raw);
  Status NormalizeAndWeigh(const CycleState& state, const PodInfo& pod,
                           const RawScores& raw,
                           std::vector<int64_t>* totals) const;

  // The pod's scheduling signature: what the PreFilter, Filter, PreScore
  // and Score plugins read of it, encoded; nullopt when a plugin cannot
  // sign it (or is not a SignPlugin).
  std::optional<std::string> SignPod(const api::Pod& pod) const;
  // The signature of `pod` for the Filter (or, with `score`, the Score)
  // plugins that run in this cycle, each of them NodeLocal: equal
  // signatures get equal verdicts (raw scores) on a node at one generation
  // in a snapshot of one size. nullopt when one that runs is not NodeLocal
  // or cannot sign the pod, when nominated pods exist (filtering then
  // counts them), when the cycle is recorded, and for Filter when its
  // plugins are timed (every Filter call of the cycle is then observed).
  struct NodeLocal {
    std::string signature;
    size_t plugins = 0;  // that run, which the signature names
  };
  std::optional<NodeLocal> NodeLocalSignature(const CycleState& state,
                                              const api::Pod& pod,
                                              bool score) const;

  Status RunReservePluginsReserve(CycleState& state, const PodInfo& pod,
                                  const std::string& node);
  // In reverse order, as kube-scheduler does.
  void RunReservePluginsUnreserve(CycleState& state, const PodInfo& pod,
                                  const std::string& node);
  // Success; or Wait, with each waiting plugin's timeout (capped at 15
  // minutes) in *waits; or the first rejection.
  Status RunPermitPlugins(
      CycleState& state, const PodInfo& pod, const std::string& node,
      std::vector<std::pair<std::string, std::chrono::milliseconds>>* waits);
  // Runs the PreBind plugins PreBindPreFlight did not skip, in profile
  // order; neighbours that all allowed it at PreBindPreFlight run together,
  // and the first of them to fail cancels the others (v1.36). The first
  // failure is the result.
  Status RunPreBindPlugins(CycleState& state, const PodInfo& pod,
                           const std::string& node);
  // NominatedNodeNameForExpectation: asks each PreBind plugin whether its
  // PreBind will do anything for the pod. Success when one will; Skip when
  // none will (each skipping plugin is then left out of RunPreBindPlugins
  // for this cycle); Error, wrapped with the plugin's name, when one fails
  // or answers anything but Success or Skip.
  Status RunPreBindPreFlights(CycleState& state, const PodInfo& pod,
                              const std::string& node);
  Status RunBindPlugins(CycleState& state, const PodInfo& pod,
                        const std::string& node);
  void RunPostBindPlugins(CycleState& state, const PodInfo& pod,
                          const std::string& node);

  bool HasFilterPlugins() const { return !filter_.empty(); }
  // After PreFilter: the nodes that might pass every Filter plugin, named
  // by the first plugin in run order to give a FilterCandidates list
  // (null: any node might). Plugins that run before it must have errors
  // that are cycle-wide, so that a node it leaves out is rejected exactly
  // as filtering it would decide.
  std::shared_ptr<const NodeNames> FilterCandidates(
      const CycleState& state) const;
  // Whether the profile instantiated a plugin of this name.
  bool HasPlugin(std::string_view name) const;
  bool HasPostFilterPlugins() const { return !post_filter_.empty(); }
  bool HasScorePlugins() const { return !score_.empty(); }

  // Per extension point, the plugin names in run order (for logs and tests).
  std::vector<std::pair<std::string, std::vector<std::string>>> ListPlugins()
      const;
  int32_t ScoreWeight(std::string_view plugin) const;

  // Events each plugin declared (plugins without EnqueueExtensions that
  // can reject a pod get every event, as in kube-scheduler).
  struct PluginEvents {
    std::string plugin;
    std::vector<ClusterEventWithHint> events;
  };
  const std::vector<PluginEvents>& enqueue_extensions() const {
    return enqueue_extensions_;
  }

 private:
  // The extension points as they run, untimed; the public Run* time them.
  Status RunPreFilterPluginsUntimed(CycleState& state, const PodInfo& pod,
                                    const std::vector<NodeInfoPtr>& nodes,
                                    PreFilterResult* result,
                                    std::set<std::string>* plugins_with_nodes);
  Status RunPostFilterPluginsUntimed(CycleState& state, const PodInfo& pod,
                                     const NodeToStatus& filtered,
                                     PostFilterResult* result);
  Status RunPreScorePluginsUntimed(CycleState& state, const PodInfo& pod,
                                   const std::vector<NodeInfoPtr>& nodes);
  Status RunScorePluginsUntimed(const CycleState& state, const PodInfo& pod,
                                const std::vector<NodeInfoPtr>& nodes,
                                std::vector<NodePluginScores>* scores,
                                RawScores* raw, RawScoreCache* cache);
  Status RunReservePluginsReserveUntimed(CycleState& state, const PodInfo& pod,
                                         const std::string& node);
  void RunReservePluginsUnreserveUntimed(CycleState& state, const PodInfo& pod,
                                         const std::string& node);
  Status RunPermitPluginsUntimed(
      CycleState& state, const PodInfo& pod, const std::string& node,
      std::vector<std::pair<std::string, std::chrono::milliseconds>>* waits);
  Status RunPreBindPluginsUntimed(CycleState& state, const PodInfo& pod,
                                  const std::string& node);
  // The PreBind plugins to run this cycle, in the order of their groups; a
  // group of several runs in parallel (RunPreBindGroup).
  std::vector<std::vector<PreBindPlugin*>> PreBindGroups(
      const CycleState& state) const;
  Status RunPreBindGroup(CycleState& state, const PodInfo& pod,
                         const std::string& node,
                         const std::vector<PreBindPlugin*>& group);
  Status RunBindPluginsUntimed(CycleState& state, const PodInfo& pod,
                               const std::string& node);
  void RunPostBindPluginsUntimed(CycleState& state, const PodInfo& pod,
                                 const std::string& node);
  // RunFilterPlugins for a recorded cycle: every plugin runs and is
  // recorded under `record_as` (the node itself, or the node a copy with
  // nominated pods stands for); the first rejection is the verdict.
  Status RunFilterPluginsRecorded(const CycleState& state, const PodInfo& pod,
                                  const NodeInfo& node, CycleRecorder& recorder,
                                  const NodeInfo& record_as) const;
  void RecordPoint(std::string_view point, Code code,
                   std::chrono::steady_clock::time_point start) const;
  // Records in `state` which Filter plugins PreFilter skipped, by position.
  void SetFilterSkipMask(CycleState& state) const;
  Framework() = default;

  std::string profile_name_;
  std::optional<int32_t> percentage_of_nodes_to_score_;
  Options options_;
  const Snapshot* snapshot_ = nullptr;
  Snapshot empty_snapshot_;
  InMemoryClusterObjects empty_objects_;
  WaitingPods own_waiting_pods_;
  PodsInPreBind own_pods_in_prebind_;
  // Namespaces looked up this cycle, kept alive so NamespaceLabels can hand
  // out plain pointers.
  mutable std::mutex pinned_mu_;
  mutable std::vector<std::shared_ptr<const api::Namespace>> pinned_;

  std::vector<std::unique_ptr<Plugin>> owned_;
  std::vector<QueueSortPlugin*> queue_sort_;
  std::vector<PreEnqueuePlugin*> pre_enqueue_;
  std::vector<PreFilterPlugin*> pre_filter_;
  std::vector<FilterPlugin*> filter_;
  // filter_'s plugins that name candidates (null where one does not).
  std::vector<const FilterCandidatesPlugin*> filter_candidates_;
  // filter_'s names, for the plugin metrics.
  std::vector<std::string_view> filter_names_;
  std::vector<PostFilterPlugin*> post_filter_;
  std::vector<PreScorePlugin*> pre_score_;
  std::vector<ScorePlugin*> score_;
  std::vector<int32_t> score_weights_;  // parallel to score_
  std::vector<ReservePlugin*> reserve_;
  std::vector<PermitPlugin*> permit_;
  std::vector<PreBindPlugin*> pre_bind_;
  std::vector<BindPlugin*> bind_;
  std::vector<PostBindPlugin*> post_bind_;
  std::vector<PluginEvents> enqueue_extensions_;
};

}  // namespace ksched::framework

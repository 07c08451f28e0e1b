#include "pkg/framework/runtime/framework.h"

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <utility>

#include "pkg/api/codec.h"
#include "pkg/framework/cancel_cause.h"
#include "pkg/framework/cycle_recorder.h"
#include "pkg/framework/runtime/prebind_groups.h"

namespace ksched::framework {
namespace {

constexpr std::chrono::minutes kMaxPermitWait{15};

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

Status AsError(std::string_view context, std::string_view plugin,
               const Status& s) {
  std::string message =
      std::string(context) + " " + Quoted(plugin) + ": " +
      (s.Message().empty() ? std::string(CodeName(s.code())) : s.Message());
  Status out = Status::Error(std::move(message));
  out.WithPlugin(plugin);
  return out;
}

// Every event a plugin without EnqueueExtensions might care about.
std::vector<ClusterEventWithHint> AllEvents() {
  std::vector<ClusterEventWithHint> events;
  for (EventResource r :
       {EventResource::kAssignedPod, EventResource::kUnscheduledPod,
        EventResource::kNode, EventResource::kPersistentVolume,
        EventResource::kPersistentVolumeClaim, EventResource::kCsiNode,
        EventResource::kCsiDriver, EventResource::kVolumeAttachment,
        EventResource::kStorageClass, EventResource::kPodGroup,
        EventResource::kResourceClaim, EventResource::kResourceSlice,
        EventResource::kDeviceClass}) {
    events.push_back({ClusterEvent{r, kAll}, nullptr});
  }
  return events;
}

// updatePluginList + expandMultiPointPlugins for one extension point: the
// explicitly enabled plugins, then MultiPoint's, with an explicit entry for
// a MultiPoint plugin overriding its MultiPoint position.
template <typename P>
util::Result<void> BuildExtensionPoint(
    std::string_view type_name, const config::PluginSet& set,
    const config::PluginSet& multi_point,
    const std::map<std::string, Plugin*>& plugins, std::vector<P*>* out) {
  std::vector<std::string> enabled;
  for (const config::Plugin& e : set.enabled) {
    auto it = plugins.find(e.name);
    if (it == plugins.end()) {
      return util::Error(std::string(type_name) + " " + Quoted(e.name) +
                         " does not exist");
    }
    if (dynamic_cast<P*>(it->second) == nullptr) {
      return util::Error("plugin " + Quoted(e.name) + " does not extend " +
                         std::string(type_name) + " plugin");
    }
    if (std::find(enabled.begin(), enabled.end(), e.name) != enabled.end()) {
      return util::Error("plugin " + Quoted(e.name) +
                         " already registered as " + Quoted(type_name));
    }
    enabled.push_back(e.name);
  }

  std::vector<std::string> order = enabled;
  bool all_disabled = std::any_of(set.disabled.begin(), set.disabled.end(),
                                  [](const auto& d) { return d.name == "*"; });
  if (!multi_point.enabled.empty() && !all_disabled) {
    auto is_disabled = [&](const std::string& name) {
      return std::any_of(set.disabled.begin(), set.disabled.end(),
                         [&](const auto& d) { return d.name == name; });
    };
    std::vector<std::string> from_multi_point;
    std::vector<std::string> overridden;
    for (const config::Plugin& e : multi_point.enabled) {
      auto it = plugins.find(e.name);
      if (it == plugins.end()) {
        return util::Error(std::string(type_name) + " " + Quoted(e.name) +
                           " does not exist");
      }
      if (dynamic_cast<P*>(it->second) == nullptr) continue;
      if (is_disabled(e.name)) continue;
      if (std::find(enabled.begin(), enabled.end(), e.name) != enabled.end()) {
        overridden.push_back(e.name);
        continue;
      }
      if (std::find(from_multi_point.begin(), from_multi_point.end(), e.name) !=
          from_multi_point.end()) {
        return util::Error("plugin " + Quoted(e.name) +
                           " already registered as " + Quoted(type_name));
      }
      from_multi_point.push_back(e.name);
    }
    auto is_overridden = [&](const std::string& name) {
      return std::find(overridden.begin(), overridden.end(), name) !=
             overridden.end();
    };
    order.clear();
    for (const std::string& name : enabled) {
      if (is_overridden(name)) order.push_back(name);
    }
    order.insert(order.end(), from_multi_point.begin(), from_multi_point.end());
    for (const std::string& name : enabled) {
      if (!is_overridden(name)) order.push_back(name);
    }
  }
  out->clear();
  for (const std::string& name : order) {
    out->push_back(dynamic_cast<P*>(plugins.at(name)));
  }
  return {};
}

void CollectNames(const config::PluginSet& set,
                  std::vector<std::string>* names) {
  for (const config::Plugin& p : set.enabled) {
    if (std::find(names->begin(), names->end(), p.name) == names->end()) {
      names->push_back(p.name);
    }
  }
}

}  // namespace

util::Result<std::unique_ptr<Framework>> Framework::Create(
    const config::Profile& profile, const Registry& registry, Options options) {
  std::unique_ptr<Framework> f(new Framework());
  f->profile_name_ = profile.scheduler_name;
  f->percentage_of_nodes_to_score_ = profile.percentage_of_nodes_to_score;
  f->options_ = std::move(options);
  if (f->options_.objects == nullptr) f->options_.objects = &f->empty_objects_;
  if (f->options_.waiting_pods == nullptr) {
    f->options_.waiting_pods = &f->own_waiting_pods_;
  }
  if (f->options_.pods_in_prebind == nullptr) {
    f->options_.pods_in_prebind = &f->own_pods_in_prebind_;
  }
  f->snapshot_ = &f->empty_snapshot_;
  auto fail = [&](const std::string& message) {
    return util::Error("profile " + Quoted(profile.scheduler_name) + ": " +
                       message);
  };

  const config::Plugins& p = profile.plugins;
  // v1.36's placement points are read but not run: a plugin enabled there
  // would be silently ignored, so it is refused.
  for (const auto& [point, set] :
       {std::pair{"placementGenerate", &p.placement_generate},
        std::pair{"placementScore", &p.placement_score}}) {
    for (const config::Plugin& plugin : set->enabled) {
      return fail("plugins." + std::string(point) + ": plugin " +
                  Quoted(plugin.name) +
                  " cannot run: ksched does not run pod-group placement "
                  "plugins yet");
    }
  }
  const config::PluginSet* sets[] = {
      &p.pre_enqueue, &p.queue_sort, &p.pre_filter, &p.filter, &p.post_filter,
      &p.pre_score,   &p.score,      &p.reserve,    &p.permit, &p.pre_bind,
      &p.bind,        &p.post_bind,  &p.multi_point};
  std::vector<std::string> needed;
  for (const config::PluginSet* s : sets) CollectNames(*s, &needed);

  std::map<std::string, Plugin*> by_name;
  for (const std::string& name : needed) {
    const PluginFactory* factory = registry.Find(name);
    if (factory == nullptr) {
      return fail("plugin " + Quoted(name) + " does not exist");
    }
    auto plugin = (*factory)(profile.ArgsFor(name), *f);
    if (!plugin.ok()) {
      return fail("initializing plugin " + Quoted(name) + ": " +
                  plugin.error().message());
    }
    by_name[name] = plugin->get();
    f->owned_.push_back(std::move(*plugin));
  }

  const config::PluginSet& mp = p.multi_point;
  util::Result<void> built[] = {
      BuildExtensionPoint("PreFilterPlugin", p.pre_filter, mp, by_name,
                          &f->pre_filter_),
      BuildExtensionPoint("FilterPlugin", p.filter, mp, by_name, &f->filter_),
      BuildExtensionPoint("PostFilterPlugin", p.post_filter, mp, by_name,
                          &f->post_filter_),
      BuildExtensionPoint("ReservePlugin", p.reserve, mp, by_name,
                          &f->reserve_),
      BuildExtensionPoint("PreScorePlugin", p.pre_score, mp, by_name,
                          &f->pre_score_),
      BuildExtensionPoint("ScorePlugin", p.score, mp, by_name, &f->score_),
      BuildExtensionPoint("PreBindPlugin", p.pre_bind, mp, by_name,
                          &f->pre_bind_),
      BuildExtensionPoint("BindPlugin", p.bind, mp, by_name, &f->bind_),
      BuildExtensionPoint("PostBindPlugin", p.post_bind, mp, by_name,
                          &f->post_bind_),
      BuildExtensionPoint("PermitPlugin", p.permit, mp, by_name, &f->permit_),
      BuildExtensionPoint("PreEnqueuePlugin", p.pre_enqueue, mp, by_name,
                          &f->pre_enqueue_),
      BuildExtensionPoint("QueueSortPlugin", p.queue_sort, mp, by_name,
                          &f->queue_sort_),
  };
  for (const auto& r : built) {
    if (!r.ok()) return fail(r.error().message());
  }
  if (f->queue_sort_.size() != 1) {
    return fail("only one queue sort plugin required, but got " +
                std::to_string(f->queue_sort_.size()));
  }
  if (f->bind_.empty()) return fail("at least one bind plugin is needed");
  for (const FilterPlugin* pl : f->filter_) {
    f->filter_names_.push_back(pl->Name());
    f->filter_candidates_.push_back(
        dynamic_cast<const FilterCandidatesPlugin*>(pl));
  }

  // Score weights: an explicit Score entry wins over MultiPoint's; an unset
  // or zero weight means 1.
  std::map<std::string, int32_t> weights;
  int64_t total = 0;
  std::vector<config::Plugin> weighted = p.score.enabled;
  weighted.insert(weighted.end(), mp.enabled.begin(), mp.enabled.end());
  for (const config::Plugin& e : weighted) {
    auto it = by_name.find(e.name);
    if (it == by_name.end() ||
        dynamic_cast<ScorePlugin*>(it->second) == nullptr) {
      continue;
    }
    if (weights.count(e.name)) continue;
    int32_t w = e.weight.value_or(0);
    if (w < 0) {
      return fail("score plugin " + Quoted(e.name) + " has a negative weight " +
                  std::to_string(w));
    }
    if (w == 0) w = 1;
    if (int64_t{w} * kMaxNodeScore >
        std::numeric_limits<int64_t>::max() - total) {
      return fail("total score of Score plugins could overflow");
    }
    total += int64_t{w} * kMaxNodeScore;
    weights[e.name] = w;
  }
  for (ScorePlugin* s : f->score_) {
    auto it = weights.find(std::string(s->Name()));
    if (it == weights.end()) {
      return fail("score plugin " + Quoted(s->Name()) +
                  " is not configured with weight");
    }
    f->score_weights_.push_back(it->second);
  }

  for (const auto& owned : f->owned_) {
    Plugin* plugin = owned.get();
    bool can_reject = dynamic_cast<PreEnqueuePlugin*>(plugin) ||
                      dynamic_cast<PreFilterPlugin*>(plugin) ||
                      dynamic_cast<FilterPlugin*>(plugin) ||
                      dynamic_cast<ReservePlugin*>(plugin) ||
                      dynamic_cast<PermitPlugin*>(plugin);
    if (!can_reject) continue;
    if (auto* ext = dynamic_cast<EnqueueExtensions*>(plugin)) {
      f->enqueue_extensions_.push_back(
          {std::string(plugin->Name()), ext->EventsToRegister()});
    } else {
      f->enqueue_extensions_.push_back(
          {std::string(plugin->Name()), AllEvents()});
    }
  }
  return f;
}

const api::StringMap* Framework::NamespaceLabels(std::string_view ns) const {
  std::shared_ptr<const api::Namespace> found =
      options_.objects->GetNamespace(ns);
  if (found == nullptr) return nullptr;
  const api::StringMap* labels = &found->metadata.labels;
  std::lock_guard<std::mutex> lock(pinned_mu_);
  pinned_.push_back(std::move(found));
  return labels;
}

void Framework::SetSnapshot(const Snapshot* snapshot) {
  snapshot_ = snapshot;
  std::lock_guard<std::mutex> lock(pinned_mu_);
  pinned_.clear();
}

Status Framework::RunFilterPluginsWithNominatedPods(const CycleState& state,
                                                    const PodInfo& pod,
                                                    const NodeInfo& node) {
  return RunFilterPluginsWithNominatedPods(state, pod, node, nullptr);
}

Status Framework::RunFilterPluginsWithNominatedPods(const CycleState& state,
                                                    const PodInfo& pod,
                                                    const NodeInfo& node,
                                                    PluginTimings* timings) {
  std::vector<PodInfoPtr> nominated;
  if (options_.nominator != nullptr &&
      options_.nominator->NumNominatedPods() > 0) {
    nominated = options_.nominator->NominatedPodsForNode(node.name());
  }
  // Pods of equal or higher priority nominated here are counted as running:
  // this pod must not take the room preemption freed for them.
  std::unique_ptr<CycleState> state_with;
  std::shared_ptr<NodeInfo> node_with;
  for (const PodInfoPtr& p : nominated) {
    if (p->priority() < pod.priority() || p->uid() == pod.uid()) {
      continue;
    }
    if (!node_with) {
      node_with = std::make_shared<NodeInfo>(node);
      state_with = state.Clone();
    }
    node_with->AddPod(p);
    Status s = RunPreFilterExtensionAddPod(*state_with, pod, p, *node_with);
    if (!s.IsSuccess()) return s;
  }
  if (!node_with) return RunFilterPlugins(state, pod, node, timings);
  // A recorded cycle records the pass with nominated pods under the real
  // node: the copy has no slot, and when that pass rejects it is the
  // node's verdict.
  Status with = state.recorder() != nullptr
                    ? RunFilterPluginsRecorded(*state_with, pod, *node_with,
                                               *state.recorder(), node)
                    : RunFilterPlugins(*state_with, pod, *node_with, timings);
  if (!with.IsSuccess()) return with;
  // Then without them: affinity-like filters may need them absent to pass
  // just as resource filters need them present.
  return RunFilterPlugins(state, pod, node, timings);
}

bool Framework::QueueSortLess(const QueuedPodInfo& a,
                              const QueuedPodInfo& b) const {
  return queue_sort_.front()->Less(a, b);
}

Status Framework::RunPreEnqueuePlugins(const api::Pod& pod) const {
  for (PreEnqueuePlugin* pl : pre_enqueue_) {
    Status s = pl->PreEnqueue(pod);
    if (!s.IsSuccess()) {
      s.WithPlugin(pl->Name());
      if (!s.IsRejected())
        return AsError("running PreEnqueue plugin", pl->Name(), s);
      return s;
    }
  }
  return Status();
}

Status Framework::RunPreFilterPluginsUntimed(
    CycleState& state, const PodInfo& pod,
    const std::vector<NodeInfoPtr>& nodes, PreFilterResult* result,
    std::set<std::string>* plugins_with_nodes) {
  Status returned;
  PreFilterResult merged;
  for (PreFilterPlugin* pl : pre_filter_) {
    PreFilterResult r;
    const auto plugin_start = std::chrono::steady_clock::now();
    Status s = pl->PreFilter(state, pod, nodes, &r);
    if (CycleRecorder* recorder = state.recorder()) {
      recorder->PreFilter(pl->Name(), s, r);
    }
    if (options_.metrics != nullptr && state.record_plugin_metrics()) {
      options_.metrics->ObservePlugin(
          pl->Name(), "PreFilter", s.code(),
          std::chrono::steady_clock::now() - plugin_start);
    }
    if (s.IsSkip()) {
      state.SkipFilter(pl->Name());
      continue;
    }
    if (!s.IsSuccess()) {
      s.WithPlugin(pl->Name());
      if (s.code() == Code::kUnschedulableAndUnresolvable) return s;
      if (s.code() == Code::kUnschedulable) {
        // Preemption needs every PreFilter's state: keep going.
        returned = std::move(s);
        continue;
      }
      return AsError("running PreFilter plugin", pl->Name(), s);
    }
    if (!r.AllNodes()) plugins_with_nodes->insert(std::string(pl->Name()));
    merged = merged.Merge(r);
    if (!merged.AllNodes() && merged.node_names->empty()) {
      std::string msg;
      if (plugins_with_nodes->size() == 1) {
        msg = "node(s) didn't satisfy plugin " + *plugins_with_nodes->begin();
      } else {
        msg = "node(s) didn't satisfy plugin(s) [";
        bool first = true;
        for (const std::string& n : *plugins_with_nodes) {
          if (!first) msg += " ";
          msg += n;
          first = false;
        }
        msg += "] simultaneously";
      }
      *result = std::move(merged);
      return Status::Unresolvable(std::move(msg));
    }
  }
  *result = std::move(merged);
  SetFilterSkipMask(state);
  return returned;
}

void Framework::SetFilterSkipMask(CycleState& state) const {
  uint64_t mask = 0;
  for (size_t i = 0; i < filter_.size() && i < 64; ++i) {
    if (state.FilterSkipped(filter_[i]->Name())) mask |= uint64_t{1} << i;
  }
  state.set_filter_skip_mask(mask);
}

Status Framework::RunFilterPlugins(const CycleState& state, const PodInfo& pod,
                                   const NodeInfo& node,
                                   PluginTimings* timings) const {
  if (CycleRecorder* recorder = state.recorder()) {
    return RunFilterPluginsRecorded(state, pod, node, *recorder, node);
  }
  const bool timed =
      options_.metrics != nullptr && state.record_plugin_metrics();
  // Timed, one clock read ends a plugin's call and starts the next one's.
  std::chrono::steady_clock::time_point last;
  if (timed) last = std::chrono::steady_clock::now();
  const std::optional<uint64_t>& mask = state.filter_skip_mask();
  for (size_t i = 0; i < filter_.size(); ++i) {
    FilterPlugin* pl = filter_[i];
    const bool skipped = mask.has_value() && i < 64
                             ? (*mask >> i) & 1
                             : state.FilterSkipped(pl->Name());
    if (skipped) continue;
    // Built in place, never move-assigned: the copy of a Status the plugin
    // just wrote cost ~8% of a 5,000-node cycle in store-forwarding stalls.
    Status s = pl->Filter(state, pod, node);
    if (timed) {
      const auto now = std::chrono::steady_clock::now();
      if (timings != nullptr) {
        timings->Add(i, s.code(), now - last);
      } else {
        options_.metrics->ObservePlugin(pl->Name(), "Filter", s.code(),
                                        now - last);
      }
      last = now;
    }
    if (!s.IsSuccess()) {
      if (!s.IsRejected())
        return AsError("running filter plugin", pl->Name(), s);
      s.WithPlugin(pl->Name());
      return s;
    }
  }
  return Status();
}

std::shared_ptr<const NodeNames> Framework::FilterCandidates(
    const CycleState& state) const {
  const std::optional<uint64_t>& mask = state.filter_skip_mask();
  for (size_t i = 0; i < filter_.size(); ++i) {
    const FilterPlugin* pl = filter_[i];
    const bool skipped = mask.has_value() && i < 64
                             ? (*mask >> i) & 1
                             : state.FilterSkipped(pl->Name());
    if (skipped) continue;
    if (const FilterCandidatesPlugin* naming = filter_candidates_[i]) {
      if (auto names = naming->FilterCandidates(state)) return names;
    }
    // A node this plugin might fail with an error must be filtered.
    if (!pl->FilterErrorsAreCycleWide()) return nullptr;
  }
  return nullptr;
}

void Framework::FlushFilterTimings(PluginTimings& timings) const {
  if (options_.metrics == nullptr) return;
  timings.Flush(*options_.metrics, "Filter", filter_names_);
}

Status Framework::RunFilterPluginsRecorded(const CycleState& state,
                                           const PodInfo& pod,
                                           const NodeInfo& node,
                                           CycleRecorder& recorder,
                                           const NodeInfo& record_as) const {
  // Every plugin runs, so that a node's record says all that stands in the
  // way ("failed by one plugin only"); the verdict is still the first
  // rejection, as without a recorder.
  Status first;
  for (FilterPlugin* pl : filter_) {
    if (state.FilterSkipped(pl->Name())) continue;
    Status s = pl->Filter(state, pod, node);
    recorder.Filter(record_as, pl->Name(), s);
    if (s.IsSuccess() || !first.IsSuccess()) continue;
    if (!s.IsRejected()) return AsError("running filter plugin", pl->Name(), s);
    s.WithPlugin(pl->Name());
    first = std::move(s);
  }
  return first;
}

Status Framework::RunPreFilterExtensionAddPod(CycleState& state,
                                              const PodInfo& pod,
                                              const PodInfoPtr& to_add,
                                              const NodeInfo& node) const {
  for (PreFilterPlugin* pl : pre_filter_) {
    if (!pl->HasExtensions() || state.FilterSkipped(pl->Name())) continue;
    Status s = pl->AddPod(state, pod, to_add, node);
    if (!s.IsSuccess())
      return AsError("running AddPod on PreFilter plugin", pl->Name(), s);
  }
  return Status();
}

Status Framework::RunPreFilterExtensionRemovePod(CycleState& state,
                                                 const PodInfo& pod,
                                                 const PodInfoPtr& to_remove,
                                                 const NodeInfo& node) const {
  for (PreFilterPlugin* pl : pre_filter_) {
    if (!pl->HasExtensions() || state.FilterSkipped(pl->Name())) continue;
    Status s = pl->RemovePod(state, pod, to_remove, node);
    if (!s.IsSuccess())
      return AsError("running RemovePod on PreFilter plugin", pl->Name(), s);
  }
  return Status();
}

Status Framework::RunPostFilterPluginsUntimed(CycleState& state,
                                              const PodInfo& pod,
                                              const NodeToStatus& filtered,
                                              PostFilterResult* result) {
  std::vector<std::string> reasons;
  std::string rejector;
  for (PostFilterPlugin* pl : post_filter_) {
    PostFilterResult r;
    Status s = pl->PostFilter(state, pod, filtered, &r);
    if (CycleRecorder* recorder = state.recorder()) {
      recorder->PostFilter(pl->Name(), s, r.nominated_node_name);
    }
    if (s.IsSuccess()) {
      *result = std::move(r);
      return s;
    }
    if (s.code() == Code::kUnschedulableAndUnresolvable) {
      *result = std::move(r);
      s.WithPlugin(pl->Name());
      return s;
    }
    if (!s.IsRejected()) {
      // Unlike the other points, kube passes the plugin's error on as it
      // is: it becomes the failure message's PostFilter part.
      Status error = Status::Error(
          s.Message().empty() ? std::string(CodeName(s.code())) : s.Message());
      error.WithPlugin(pl->Name());
      return error;
    }
    if (!r.nominated_node_name.empty() || r.clear_nomination) *result = r;
    for (const std::string& reason : s.reasons()) reasons.push_back(reason);
    if (rejector.empty()) rejector = std::string(pl->Name());
  }
  Status out(Code::kUnschedulable, std::move(reasons));
  out.WithPlugin(rejector);
  return out;
}

Status Framework::RunPreScorePluginsUntimed(
    CycleState& state, const PodInfo& pod,
    const std::vector<NodeInfoPtr>& nodes) {
  state.ClearSkipScore();
  for (PreScorePlugin* pl : pre_score_) {
    const auto plugin_start = std::chrono::steady_clock::now();
    Status s = pl->PreScore(state, pod, nodes);
    if (CycleRecorder* recorder = state.recorder()) {
      recorder->PreScore(pl->Name(), s);
    }
    if (options_.metrics != nullptr && state.record_plugin_metrics()) {
      options_.metrics->ObservePlugin(
          pl->Name(), "PreScore", s.code(),
          std::chrono::steady_clock::now() - plugin_start);
    }
    if (s.IsSkip()) {
      state.SkipScore(pl->Name());
      continue;
    }
    if (!s.IsSuccess())
      return AsError("running PreScore plugin", pl->Name(), s);
  }
  return Status();
}

Status Framework::RunRawScorePlugins(const CycleState& state,
                                     const PodInfo& pod,
                                     const std::vector<NodeInfoPtr>& nodes,
                                     RawScores* raw) {
  raw->nodes.clear();
  raw->plugins.clear();
  raw->scores.clear();
  for (const NodeInfoPtr& node : nodes) raw->nodes.push_back(node->name());
  for (size_t p = 0; p < score_.size(); ++p) {
    if (!state.ScoreSkipped(score_[p]->Name())) raw->plugins.push_back(p);
  }
  raw->scores.assign(raw->plugins.size(),
                     std::vector<int64_t>(nodes.size(), 0));
  // Few nodes (the batching path rescores one): no parallel pass.
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (size_t a = 0; a < raw->plugins.size(); ++a) {
      const ScorePlugin* pl = score_[raw->plugins[a]];
      Status s = pl->Score(state, pod, *nodes[i], &raw->scores[a][i]);
      if (!s.IsSuccess()) return AsError("running Score plugin", pl->Name(), s);
    }
  }
  return Status();
}

Status Framework::NormalizeAndWeigh(const CycleState& state, const PodInfo& pod,
                                    const RawScores& raw,
                                    std::vector<int64_t>* totals) const {
  totals->assign(raw.nodes.size(), 0);
  NodeScoreList list(raw.nodes.size());
  for (size_t a = 0; a < raw.plugins.size(); ++a) {
    const ScorePlugin* pl = score_[raw.plugins[a]];
    for (size_t i = 0; i < raw.nodes.size(); ++i) {
      list[i].name = raw.nodes[i];
      list[i].score = raw.scores[a][i];
    }
    if (pl->HasNormalizeScore()) {
      Status s = pl->NormalizeScore(state, pod, list);
      if (!s.IsSuccess())
        return AsError("running Normalize on Score plugin", pl->Name(), s);
    }
    const int64_t weight = score_weights_[raw.plugins[a]];
    for (size_t i = 0; i < raw.nodes.size(); ++i) {
      const int64_t score = list[i].score;
      if (score > kMaxNodeScore || score < kMinNodeScore) {
        return Status::Error("plugin " + Quoted(pl->Name()) +
                             " returns an invalid score " +
                             std::to_string(score) +
                             ", it should in the range of [0, 100] after "
                             "normalizing");
      }
      (*totals)[i] += score * weight;
    }
  }
  return Status();
}

std::optional<std::string> Framework::SignPod(const api::Pod& pod) const {
  api::Pod into;
  into.spec.containers.resize(pod.spec.containers.size());
  into.spec.init_containers.resize(pod.spec.init_containers.size());
  // Every profile signs its own pods: the scheduler name keeps pods of two
  // profiles apart.
  into.spec.scheduler_name = pod.spec.scheduler_name;
  // Filtering with nominated pods counts those of equal or higher priority.
  into.spec.priority = pod.spec.priority;
  std::set<const Plugin*> signed_by;
  auto sign = [&](const Plugin* plugin) {
    if (!signed_by.insert(plugin).second) return true;
    const auto* signer = dynamic_cast<const SignPlugin*>(plugin);
    return signer != nullptr && signer->SignPod(pod, into);
  };
  for (const PreFilterPlugin* pl : pre_filter_) {
    if (!sign(pl)) return std::nullopt;
  }
  for (const FilterPlugin* pl : filter_) {
    if (!sign(pl)) return std::nullopt;
  }
  for (const PreScorePlugin* pl : pre_score_) {
    if (!sign(pl)) return std::nullopt;
  }
  for (const ScorePlugin* pl : score_) {
    if (!sign(pl)) return std::nullopt;
  }
  return api::EncodeJson(into);
}

std::optional<Framework::NodeLocal> Framework::NodeLocalSignature(
    const CycleState& state, const api::Pod& pod, bool score) const {
  // A cycle that records plugin metrics times every Filter call on every
  // node it filters, as kube does: none may be answered from the memo.
  // Score calls are not timed one by one.
  if (state.recorder() != nullptr || (!score && options_.metrics != nullptr &&
                                      state.record_plugin_metrics())) {
    return std::nullopt;
  }
  if (!score && options_.nominator != nullptr &&
      options_.nominator->NumNominatedPods() > 0) {
    return std::nullopt;
  }
  api::Pod into;
  into.spec.containers.resize(pod.spec.containers.size());
  into.spec.init_containers.resize(pod.spec.init_containers.size());
  // The plugins that run are part of what is signed: two pods that differ
  // only in which plugins skipped them get different signatures.
  std::string ran;
  size_t plugins = 0;
  auto sign = [&](const Plugin* plugin) {
    const auto* signer = dynamic_cast<const SignPlugin*>(plugin);
    if (signer == nullptr || !signer->NodeLocal() ||
        !signer->SignPod(pod, into)) {
      return false;
    }
    ran += plugin->Name();
    ran += ',';
    ++plugins;
    return true;
  };
  if (score) {
    for (const ScorePlugin* pl : score_) {
      if (!state.ScoreSkipped(pl->Name()) && !sign(pl)) return std::nullopt;
    }
  } else {
    for (const FilterPlugin* pl : filter_) {
      if (!state.FilterSkipped(pl->Name()) && !sign(pl)) return std::nullopt;
    }
  }
  return NodeLocal{ran + api::EncodeJson(into), plugins};
}

Status Framework::RunScorePluginsUntimed(const CycleState& state,
                                         const PodInfo& pod,
                                         const std::vector<NodeInfoPtr>& nodes,
                                         std::vector<NodePluginScores>* out,
                                         RawScores* raw, RawScoreCache* cache) {
  if (raw != nullptr) *raw = RawScores{};
  out->assign(nodes.size(), NodePluginScores{});
  for (size_t i = 0; i < nodes.size(); ++i) (*out)[i].node = nodes[i].get();

  std::vector<size_t> active;
  for (size_t p = 0; p < score_.size(); ++p) {
    if (!state.ScoreSkipped(score_[p]->Name())) active.push_back(p);
  }
  if (active.empty() || nodes.empty()) return Status();

  // Names are filled in by the pass below, which has the node in cache.
  std::vector<NodeScoreList> lists(active.size());
  for (auto& list : lists) list.resize(nodes.size());

  std::mutex error_mu;
  Status first_error;
  bool failed = false;
  auto record = [&](Status s) {
    std::lock_guard<std::mutex> lock(error_mu);
    if (!failed) {
      failed = true;
      first_error = std::move(s);
    }
  };

  // One pass over the nodes runs every plugin on a node: the node's data
  // stays in cache between plugins.
  parallelizer().UntilChunks(
      static_cast<int>(nodes.size()), [&](int begin, int end) {
        // Kept scores need no NodeInfo: only the nodes scored afresh are
        // loaded (and named).
        std::vector<int64_t> fresh(cache != nullptr ? active.size() : 0);
        for (int i = begin; i < end; ++i) {
          if (cache != nullptr) {
            if (const int64_t* kept = cache->Find(i)) {
              for (size_t a = 0; a < active.size(); ++a) {
                lists[a][i].score = kept[a];
              }
              continue;
            }
          } else {
            // As in filtering: start loading the nodes a few steps ahead.
            if (i + 2 < end) nodes[i + 2]->Prefetch(true);
            if (i + 4 < end) nodes[i + 4]->Prefetch(false);
          }
          const std::string_view name =
              cache != nullptr ? std::string_view() : nodes[i]->name();
          for (size_t a = 0; a < active.size(); ++a) {
            const ScorePlugin* pl = score_[active[a]];
            lists[a][i].name = name;
            int64_t score = 0;
            Status s = pl->Score(state, pod, *nodes[i], &score);
            if (!s.IsSuccess()) {
              record(AsError("running Score plugin", pl->Name(), s));
              return false;
            }
            lists[a][i].score = score;
            if (cache != nullptr) fresh[a] = score;
          }
          if (cache != nullptr) cache->Store(i, fresh);
        }
        return true;
      });
  if (failed) return first_error;
  if (raw != nullptr) {
    raw->nodes.clear();
    for (const NodeInfoPtr& node : nodes) raw->nodes.push_back(node->name());
    raw->plugins = active;
    raw->scores.assign(active.size(), std::vector<int64_t>(nodes.size()));
    for (size_t a = 0; a < active.size(); ++a) {
      for (size_t i = 0; i < nodes.size(); ++i) {
        raw->scores[a][i] = lists[a][i].score;
      }
    }
  }

  CycleRecorder* recorder = state.recorder();
  std::vector<std::vector<int64_t>> raw_for_record;
  if (recorder != nullptr) {
    for (const NodeScoreList& list : lists) {
      std::vector<int64_t>& column = raw_for_record.emplace_back();
      for (const NodeScore& n : list) column.push_back(n.score);
    }
  }
  for (size_t a = 0; a < active.size(); ++a) {
    const ScorePlugin* pl = score_[active[a]];
    if (!pl->HasNormalizeScore()) continue;
    Status s = pl->NormalizeScore(state, pod, lists[a]);
    if (!s.IsSuccess())
      return AsError("running Normalize on Score plugin", pl->Name(), s);
  }
  if (recorder != nullptr) {
    for (size_t a = 0; a < active.size(); ++a) {
      const int64_t weight = score_weights_[active[a]];
      for (size_t i = 0; i < nodes.size(); ++i) {
        recorder->Score(nodes[i]->name(), score_[active[a]]->Name(),
                        {raw_for_record[a][i], lists[a][i].score,
                         lists[a][i].score * weight});
      }
    }
  }

  for (size_t a = 0; a < active.size(); ++a) {
    const ScorePlugin* pl = score_[active[a]];
    int64_t weight = score_weights_[active[a]];
    for (size_t i = 0; i < nodes.size(); ++i) {
      int64_t s = lists[a][i].score;
      if (s > kMaxNodeScore || s < kMinNodeScore) {
        return Status::Error("plugin " + Quoted(pl->Name()) +
                             " returns an invalid score " + std::to_string(s) +
                             ", it should in the range of [0, 100] after "
                             "normalizing");
      }
      (*out)[i].total_score += s * weight;
    }
  }
  return Status();
}

Status Framework::RunReservePluginsReserveUntimed(CycleState& state,
                                                  const PodInfo& pod,
                                                  const std::string& node) {
  for (ReservePlugin* pl : reserve_) {
    Status s = pl->Reserve(state, pod, node);
    if (CycleRecorder* recorder = state.recorder()) {
      recorder->Reserve(pl->Name(), s);
    }
    if (!s.IsSuccess()) {
      if (s.IsRejected()) {
        s.WithPlugin(pl->Name());
        return s;
      }
      return AsError("running Reserve plugin", pl->Name(), s);
    }
  }
  return Status();
}

void Framework::RunReservePluginsUnreserveUntimed(CycleState& state,
                                                  const PodInfo& pod,
                                                  const std::string& node) {
  for (auto it = reserve_.rbegin(); it != reserve_.rend(); ++it) {
    (*it)->Unreserve(state, pod, node);
  }
}

Status Framework::RunPermitPluginsUntimed(
    CycleState& state, const PodInfo& pod, const std::string& node,
    std::vector<std::pair<std::string, std::chrono::milliseconds>>* waits) {
  waits->clear();
  Status wait_status;
  for (PermitPlugin* pl : permit_) {
    std::chrono::milliseconds timeout{0};
    Status s = pl->Permit(state, pod, node, &timeout);
    if (CycleRecorder* recorder = state.recorder()) {
      recorder->Permit(pl->Name(), s, timeout);
    }
    if (s.IsSuccess()) continue;
    if (s.IsRejected()) {
      s.WithPlugin(pl->Name());
      return s;
    }
    if (s.IsWait()) {
      waits->emplace_back(
          std::string(pl->Name()),
          std::min<std::chrono::milliseconds>(timeout, kMaxPermitWait));
      wait_status = std::move(s);
      continue;
    }
    return AsError("running Permit plugin", pl->Name(), s);
  }
  if (!waits->empty()) {
    // v1.36: the last waiting plugin's status, with the reason added (v1.35
    // wrote a message of its own naming the pod).
    wait_status.AppendReason(
        "one or more plugins asked to wait and no plugin rejected pod");
    return wait_status;
  }
  return Status();
}

namespace {

// What PreBindPreFlight found this cycle: the plugins that answered Skip
// and those that allow their PreBind to run in parallel (kube's CycleState
// SkipPreBindPlugins and ParallelPreBindPlugins).
constexpr StateKey kPreBindPlanKey{"PreBindPlan"};
struct PreBindPlan final : StateData {
  PluginNames skipped;
  PluginNames parallel;
  std::shared_ptr<StateData> Clone() const override {
    return std::make_shared<PreBindPlan>(*this);
  }
};

// The cause a parallel PreBind group cancels its other plugins with.
constexpr char kOtherPreBindFailed[] = "some other PreBind operation failed";

}  // namespace

Status Framework::RunPreBindPreFlights(CycleState& state, const PodInfo& pod,
                                       const std::string& node) {
  const auto start = std::chrono::steady_clock::now();
  auto plan = std::make_shared<PreBindPlan>();
  Status out = Status::Skip();
  for (PreBindPlugin* pl : pre_bind_) {
    PreBindPreFlightResult result;
    Status s = pl->PreBindPreFlight(state, pod, node, result);
    if (result.allow_parallel) plan->parallel.insert(std::string(pl->Name()));
    if (s.code() == Code::kError) {
      out = AsError("running PreBindPreFlight", pl->Name(), s);
      RecordPoint("PreBindPreFlight", out.code(), start);
      return out;
    }
    if (s.IsSuccess()) {
      out = Status();
    } else if (s.IsSkip()) {
      plan->skipped.insert(std::string(pl->Name()));
    } else {
      out = Status::Error("PreBindPreFlight " + std::string(pl->Name()) +
                          " returned " + Quoted(CodeName(s.code())) +
                          ", which is unsupported. It is supposed to return "
                          "Success, Skip, or Error status");
      RecordPoint("PreBindPreFlight", out.code(), start);
      return out;
    }
  }
  state.Write(kPreBindPlanKey, std::move(plan));
  RecordPoint("PreBindPreFlight", out.code(), start);
  return out;
}

namespace {

// A PreBind plugin's failure as the cycle reports it.
Status PreBindFailure(const PreBindPlugin& pl, Status s) {
  if (s.IsRejected()) {
    s.WithPlugin(pl.Name());
    return s;
  }
  return AsError("running PreBind plugin", pl.Name(), s);
}

}  // namespace

std::vector<std::vector<PreBindPlugin*>> Framework::PreBindGroups(
    const CycleState& state) const {
  // Without a PreBindPreFlight run (its gate off) every plugin runs, one at
  // a time.
  const auto* plan = state.Read<PreBindPlan>(kPreBindPlanKey);
  if (plan == nullptr) return PreBindPluginGroups(pre_bind_, {}, {});
  return PreBindPluginGroups(pre_bind_, plan->skipped, plan->parallel);
}

Status Framework::RunPreBindGroup(CycleState& state, const PodInfo& pod,
                                  const std::string& node,
                                  const std::vector<PreBindPlugin*>& group) {
  // The first plugin to fail cancels the others, which stop before their
  // next API write; its status is the group's.
  const CancelCause* outer = state.binding_cancellation();
  CancelCause group_cancel(outer);
  state.set_binding_cancellation(&group_cancel);
  std::vector<Status> statuses(group.size());
  std::mutex mu;
  std::optional<Status> first_failure;
  auto run = [&](size_t i) {
    Status s = group[i]->PreBind(state, pod, node);
    if (!s.IsSuccess()) {
      std::lock_guard<std::mutex> lock(mu);
      if (!first_failure.has_value()) {
        first_failure = PreBindFailure(*group[i], s);
        group_cancel.Cancel(kOtherPreBindFailed);
      }
    }
    statuses[i] = std::move(s);
  };
  {
    // PreBind waits on the API server: each plugin gets a thread of its own
    // (the parallelizer's pool serves the scheduling cycle meanwhile). The
    // group is rare (a pod with both volumes to provision and claims to
    // allocate) and a thread costs far less than the writes it overlaps.
    std::vector<std::jthread> others;
    others.reserve(group.size() - 1);
    for (size_t i = 1; i < group.size(); ++i) {
      try {
        others.emplace_back(run, i);
      } catch (const std::system_error&) {
        run(i);  // no thread to be had: in turn, as before v1.36
      }
    }
    run(0);
  }  // joins the others
  state.set_binding_cancellation(outer);
  if (CycleRecorder* recorder = state.recorder()) {
    for (size_t i = 0; i < group.size(); ++i) {
      recorder->PreBind(group[i]->Name(), statuses[i]);
    }
  }
  return first_failure.value_or(Status());
}

Status Framework::RunPreBindPluginsUntimed(CycleState& state,
                                           const PodInfo& pod,
                                           const std::string& node) {
  for (const std::vector<PreBindPlugin*>& group : PreBindGroups(state)) {
    if (group.size() > 1) {
      Status s = RunPreBindGroup(state, pod, node, group);
      if (!s.IsSuccess()) return s;
      continue;
    }
    PreBindPlugin* pl = group.front();
    Status s = pl->PreBind(state, pod, node);
    if (CycleRecorder* recorder = state.recorder()) {
      recorder->PreBind(pl->Name(), s);
    }
    if (!s.IsSuccess()) return PreBindFailure(*pl, std::move(s));
  }
  return Status();
}

Status Framework::RunBindPluginsUntimed(CycleState& state, const PodInfo& pod,
                                        const std::string& node) {
  Status last = Status::Skip();
  for (BindPlugin* pl : bind_) {
    last = pl->Bind(state, pod, node);
    if (CycleRecorder* recorder = state.recorder()) {
      recorder->Bind(pl->Name(), last);
    }
    if (last.IsSkip()) continue;
    if (!last.IsSuccess()) {
      if (last.IsRejected()) {
        last.WithPlugin(pl->Name());
        return last;
      }
      return AsError("running Bind plugin", pl->Name(), last);
    }
    return last;
  }
  return last;
}

void Framework::RunPostBindPluginsUntimed(CycleState& state, const PodInfo& pod,
                                          const std::string& node) {
  for (PostBindPlugin* pl : post_bind_) pl->PostBind(state, pod, node);
}

std::vector<std::pair<std::string, std::vector<std::string>>>
Framework::ListPlugins() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  auto add = [&](const char* point, const auto& list) {
    std::vector<std::string> names;
    for (const auto* pl : list) names.emplace_back(pl->Name());
    if (!names.empty()) out.emplace_back(point, std::move(names));
  };
  add("PreEnqueue", pre_enqueue_);
  add("QueueSort", queue_sort_);
  add("PreFilter", pre_filter_);
  add("Filter", filter_);
  add("PostFilter", post_filter_);
  add("PreScore", pre_score_);
  add("Score", score_);
  add("Reserve", reserve_);
  add("Permit", permit_);
  add("PreBind", pre_bind_);
  add("Bind", bind_);
  add("PostBind", post_bind_);
  return out;
}

int32_t Framework::ScoreWeight(std::string_view plugin) const {
  for (size_t i = 0; i < score_.size(); ++i) {
    if (score_[i]->Name() == plugin) return score_weights_[i];
  }
  return 0;
}

// ---- timed entry points (scheduler_framework_extension_point_duration) --

namespace {
using MetricsClock = std::chrono::steady_clock;
}  // namespace

void Framework::RecordPoint(std::string_view point, Code code,
                            MetricsClock::time_point start) const {
  if (options_.metrics == nullptr) return;
  options_.metrics->ObserveExtensionPoint(point, code, profile_name_,
                                          MetricsClock::now() - start);
}

Status Framework::RunPreFilterPlugins(
    CycleState& state, const PodInfo& pod,
    const std::vector<NodeInfoPtr>& nodes, PreFilterResult* result,
    std::set<std::string>* plugins_with_nodes) {
  const auto start = MetricsClock::now();
  Status s =
      RunPreFilterPluginsUntimed(state, pod, nodes, result, plugins_with_nodes);
  RecordPoint("PreFilter", s.code(), start);
  return s;
}

Status Framework::RunPostFilterPlugins(CycleState& state, const PodInfo& pod,
                                       const NodeToStatus& filtered,
                                       PostFilterResult* result) {
  const auto start = MetricsClock::now();
  Status s = RunPostFilterPluginsUntimed(state, pod, filtered, result);
  RecordPoint("PostFilter", s.code(), start);
  return s;
}

Status Framework::RunPreScorePlugins(CycleState& state, const PodInfo& pod,
                                     const std::vector<NodeInfoPtr>& nodes) {
  const auto start = MetricsClock::now();
  Status s = RunPreScorePluginsUntimed(state, pod, nodes);
  RecordPoint("PreScore", s.code(), start);
  return s;
}

Status Framework::RunScorePlugins(const CycleState& state, const PodInfo& pod,
                                  const std::vector<NodeInfoPtr>& nodes,
                                  std::vector<NodePluginScores>* scores,
                                  RawScores* raw, RawScoreCache* cache) {
  const auto start = MetricsClock::now();
  Status s = RunScorePluginsUntimed(state, pod, nodes, scores, raw, cache);
  RecordPoint("Score", s.code(), start);
  return s;
}

Status Framework::RunReservePluginsReserve(CycleState& state,
                                           const PodInfo& pod,
                                           const std::string& node) {
  const auto start = MetricsClock::now();
  Status s = RunReservePluginsReserveUntimed(state, pod, node);
  RecordPoint("Reserve", s.code(), start);
  return s;
}

void Framework::RunReservePluginsUnreserve(CycleState& state,
                                           const PodInfo& pod,
                                           const std::string& node) {
  const auto start = MetricsClock::now();
  RunReservePluginsUnreserveUntimed(state, pod, node);
  RecordPoint("Unreserve", Code::kSuccess, start);
}

Status Framework::RunPermitPlugins(
    CycleState& state, const PodInfo& pod, const std::string& node,
    std::vector<std::pair<std::string, std::chrono::milliseconds>>* waits) {
  const auto start = MetricsClock::now();
  Status s = RunPermitPluginsUntimed(state, pod, node, waits);
  RecordPoint("Permit", s.code(), start);
  return s;
}

Status Framework::RunPreBindPlugins(CycleState& state, const PodInfo& pod,
                                    const std::string& node) {
  const auto start = MetricsClock::now();
  Status s = RunPreBindPluginsUntimed(state, pod, node);
  RecordPoint("PreBind", s.code(), start);
  return s;
}

Status Framework::RunBindPlugins(CycleState& state, const PodInfo& pod,
                                 const std::string& node) {
  const auto start = MetricsClock::now();
  Status s = RunBindPluginsUntimed(state, pod, node);
  RecordPoint("Bind", s.code(), start);
  return s;
}

void Framework::RunPostBindPlugins(CycleState& state, const PodInfo& pod,
                                   const std::string& node) {
  const auto start = MetricsClock::now();
  RunPostBindPluginsUntimed(state, pod, node);
  RecordPoint("PostBind", Code::kSuccess, start);
}

bool Framework::HasPlugin(std::string_view name) const {
  for (const std::unique_ptr<Plugin>& p : owned_) {
    if (p->Name() == name) return true;
  }
  return false;
}

}  // namespace ksched::framework

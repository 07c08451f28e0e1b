#include "pkg/extender/service.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <utility>

#include "pkg/framework/cycle_state.h"
#include "pkg/framework/parallelizer.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/snapshot.h"
#include "pkg/framework/status.h"
#include "pkg/scheduler/profile.h"

namespace ksched::extender {
namespace {

using framework::Code;
using framework::NodeInfoPtr;
using framework::Status;

VerbError BadRequest(std::string message) {
  return {VerbError::Kind::kBadRequest, std::move(message)};
}
VerbError Internal(std::string message) {
  return {VerbError::Kind::kInternal, std::move(message)};
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

// The nodes a request names, in its order: ksched's own NodeInfos (with
// the pods it knows of). A node sent in full that the cache does not have
// yet is taken as sent, with no pods; a bare name ksched does not know
// cannot be evaluated and fails the request.
VerbResult<std::vector<NodeInfoPtr>> ResolveNodes(
    const framework::Snapshot& snapshot, const ExtenderArgs& args) {
  std::vector<NodeInfoPtr> nodes;
  if (args.node_names.has_value()) {
    std::vector<std::string> unknown;
    nodes.reserve(args.node_names->size());
    for (const std::string& name : *args.node_names) {
      if (NodeInfoPtr node = snapshot.GetPtr(name)) {
        nodes.push_back(std::move(node));
      } else {
        unknown.push_back(name);
      }
    }
    if (!unknown.empty()) {
      return BadRequest("node(s) not in ksched's cache: " + Join(unknown));
    }
    return nodes;
  }
  nodes.reserve(args.nodes->size());
  for (const SentNode& sent : *args.nodes) {
    if (NodeInfoPtr node = snapshot.GetPtr(sent.node.metadata.name)) {
      nodes.push_back(std::move(node));
      continue;
    }
    auto fresh = std::make_shared<framework::NodeInfo>();
    fresh->SetNode(std::make_shared<const api::Node>(sent.node));
    nodes.push_back(std::move(fresh));
  }
  return nodes;
}

}  // namespace

struct ExtenderService::Context {
  framework::Snapshot snapshot;
  // One thread: parallel requests, not parallel nodes, use the cores.
  framework::Parallelizer parallelizer{1};
  scheduler::ProfileMap profiles;
  framework::Framework* fwk = nullptr;  // the profile leased for
};

// A context on loan; goes back to the pool when destroyed.
class ExtenderService::Lease {
 public:
  Lease(ExtenderService* service, std::unique_ptr<Context> context)
      : service_(service), context_(std::move(context)) {}
  Lease(Lease&& other) noexcept = default;
  Lease& operator=(Lease&&) = delete;
  ~Lease() {
    if (context_ != nullptr) service_->Release(std::move(context_));
  }
  Context* operator->() const { return context_.get(); }
  framework::Framework& fwk() const { return *context_->fwk; }

 private:
  ExtenderService* service_;
  std::unique_ptr<Context> context_;
};

// What every verb starts from: a context leased for the profile and brought
// up to date, and the pod's PreFilter run over the whole cluster (plugins
// such as PodTopologySpread count across every node, not only the ones
// kube-scheduler sent).
struct ExtenderService::Cycle {
  explicit Cycle(Lease leased) : lease(std::move(leased)) {}
  framework::Framework& fwk() const { return lease.fwk(); }
  const framework::Snapshot& snapshot() const { return lease->snapshot; }

  Lease lease;
  framework::PodInfoPtr pod;
  framework::CycleState state;
  framework::PreFilterResult narrowed;
  std::set<std::string> narrowing_plugins;
  Status pre_filter;  // success or a rejection; errors end Begin
  // filter and prioritize: the nodes the request names, in its order.
  std::vector<NodeInfoPtr> nodes;
};

VerbResult<std::unique_ptr<ExtenderService::Cycle>> ExtenderService::Begin(
    const std::string& profile, const api::Pod& pod) {
  auto leased = Acquire(profile);
  if (auto* e = std::get_if<VerbError>(&leased)) return *e;
  auto cycle = std::make_unique<Cycle>(std::move(std::get<Lease>(leased)));
  cycle->pod = framework::PodInfo::Create(
      std::make_shared<api::Pod>(pod),
      framework::ResourceFeaturesOf(options_.features));
  cycle->pre_filter = cycle->fwk().RunPreFilterPlugins(
      cycle->state, *cycle->pod, cycle->snapshot().nodes(), &cycle->narrowed,
      &cycle->narrowing_plugins);
  if (!cycle->pre_filter.IsSuccess() && !cycle->pre_filter.IsRejected()) {
    return Internal(cycle->pre_filter.Message());
  }
  return cycle;
}

VerbResult<std::unique_ptr<ExtenderService::Cycle>> ExtenderService::Begin(
    const std::string& profile, const ExtenderArgs& args) {
  auto begun = Begin(profile, args.pod);
  if (auto* e = std::get_if<VerbError>(&begun)) return *e;
  auto& cycle = std::get<std::unique_ptr<Cycle>>(begun);
  auto resolved = ResolveNodes(cycle->snapshot(), args);
  if (auto* e = std::get_if<VerbError>(&resolved)) return *e;
  cycle->nodes = std::move(std::get<std::vector<NodeInfoPtr>>(resolved));
  return std::move(cycle);
}

util::Result<std::unique_ptr<ExtenderService>> ExtenderService::Create(
    const config::KubeSchedulerConfiguration& cfg,
    const framework::Registry& registry, cache::Cache& cache, Options options) {
  if (options.clock == nullptr) return util::Error("extender: no clock");
  options.max_parallel_requests = std::max(1, options.max_parallel_requests);
  std::unique_ptr<ExtenderService> service(
      new ExtenderService(cfg, registry, cache, options));
  auto first = service->NewContext();
  if (!first.ok()) return first.error();
  service->contexts_ = 1;
  service->idle_.push_back(std::move(*first));
  return service;
}

ExtenderService::ExtenderService(const config::KubeSchedulerConfiguration& cfg,
                                 const framework::Registry& registry,
                                 cache::Cache& cache, Options options)
    : cfg_(cfg), registry_(registry), cache_(cache), options_(options) {}

ExtenderService::~ExtenderService() = default;

bool ExtenderService::HasProfile(const std::string& name) const {
  return std::any_of(
      cfg_.profiles.begin(), cfg_.profiles.end(),
      [&](const config::Profile& p) { return p.scheduler_name == name; });
}

util::Result<std::unique_ptr<ExtenderService::Context>>
ExtenderService::NewContext() const {
  auto context = std::make_unique<Context>();
  framework::Framework::Options fwk_options;
  fwk_options.parallelizer = &context->parallelizer;
  fwk_options.clock = options_.clock;
  fwk_options.objects = options_.objects;
  fwk_options.pod_group_members = options_.pod_group_members;
  fwk_options.features = options_.features;
  // Frameworks here only evaluate: binding goes through Bind, and nothing
  // is reserved or written.
  auto profiles = scheduler::BuildProfiles(cfg_, registry_, fwk_options);
  if (!profiles.ok()) return profiles.error();
  context->profiles = std::move(*profiles);
  return context;
}

VerbResult<ExtenderService::Lease> ExtenderService::Acquire(
    const std::string& profile) {
  if (!HasProfile(profile)) {
    return BadRequest("no profile with schedulerName \"" + profile + "\"");
  }
  std::unique_ptr<Context> context;
  {
    std::unique_lock lock(mu_);
    released_.wait(lock, [this] {
      return !idle_.empty() || contexts_ < options_.max_parallel_requests;
    });
    if (!idle_.empty()) {
      context = std::move(idle_.back());
      idle_.pop_back();
    } else {
      ++contexts_;
    }
  }
  if (context == nullptr) {
    auto fresh = NewContext();
    if (!fresh.ok()) {
      std::lock_guard lock(mu_);
      --contexts_;
      released_.notify_one();
      return Internal(fresh.error().message());
    }
    context = std::move(*fresh);
  }
  Lease lease(this, std::move(context));
  if (auto s = cache_.UpdateSnapshot(&lease->snapshot); !s.ok()) {
    return Internal("snapshot: " + s.error().message());
  }
  lease->fwk = lease->profiles.find(profile)->second.get();
  lease->fwk->SetSnapshot(&lease->snapshot);
  return lease;
}

void ExtenderService::Release(std::unique_ptr<Context> context) {
  std::lock_guard lock(mu_);
  idle_.push_back(std::move(context));
  released_.notify_one();
}

VerbResult<ExtenderFilterResult> ExtenderService::Filter(
    const std::string& profile, const ExtenderArgs& args) {
  auto begun = Begin(profile, args);
  if (auto* e = std::get_if<VerbError>(&begun)) return *e;
  Cycle& cycle = *std::get<std::unique_ptr<Cycle>>(begun);
  framework::Framework& fwk = cycle.fwk();
  const std::vector<NodeInfoPtr>& nodes = cycle.nodes;
  const Status& pre = cycle.pre_filter;
  const framework::PreFilterResult& narrowed = cycle.narrowed;

  std::vector<Status> statuses(nodes.size());
  if (!pre.IsSuccess()) {
    // Every node shares the PreFilter verdict.
    std::fill(statuses.begin(), statuses.end(), pre);
  } else {
    std::string outside;  // for nodes a PreFilter result left out
    for (const std::string& p : cycle.narrowing_plugins) {
      outside += (outside.empty() ? "" : " ") + p;
    }
    fwk.parallelizer().Until(static_cast<int>(nodes.size()), [&](int i) {
      const framework::NodeInfo& node = *nodes[i];
      if (!narrowed.AllNodes() && !narrowed.node_names->contains(node.name())) {
        statuses[i] = Status::Unresolvable(
            "node(s) didn't satisfy plugin(s) [" + outside + "]");
      } else {
        statuses[i] = fwk.RunFilterPlugins(cycle.state, *cycle.pod, node);
      }
      return true;
    });
  }

  ExtenderFilterResult result;
  std::vector<std::string> fitting_names;
  std::vector<std::string> fitting_json;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Status& s = statuses[i];
    const std::string name = args.node_names.has_value()
                                 ? (*args.node_names)[i]
                                 : (*args.nodes)[i].node.metadata.name;
    if (s.IsSuccess()) {
      fitting_names.push_back(name);
      if (args.nodes.has_value()) fitting_json.push_back((*args.nodes)[i].json);
    } else if (s.code() == Code::kError) {
      return Internal("node " + name + ": " + s.Message());
    } else if (s.code() == Code::kUnschedulableAndUnresolvable) {
      result.failed_and_unresolvable_nodes[name] = s.Message();
    } else {
      result.failed_nodes[name] = s.Message();
    }
  }
  if (args.node_names.has_value()) {
    result.node_names = std::move(fitting_names);
  } else {
    result.nodes_json = std::move(fitting_json);
  }
  return result;
}

VerbResult<std::vector<HostPriority>> ExtenderService::Prioritize(
    const std::string& profile, const ExtenderArgs& args) {
  // Score plugins may read what PreFilter computed; a PreFilter rejection
  // is filter's business, not prioritize's.
  auto begun = Begin(profile, args);
  if (auto* e = std::get_if<VerbError>(&begun)) return *e;
  Cycle& cycle = *std::get<std::unique_ptr<Cycle>>(begun);
  framework::Framework& fwk = cycle.fwk();
  const std::vector<NodeInfoPtr>& nodes = cycle.nodes;

  std::vector<HostPriority> list;
  list.reserve(nodes.size());
  for (const NodeInfoPtr& node : nodes) list.push_back({node->name(), 0});
  if (nodes.empty() || !fwk.HasScorePlugins()) return list;

  Status s = fwk.RunPreScorePlugins(cycle.state, *cycle.pod, nodes);
  if (!s.IsSuccess()) return Internal(s.Message());
  std::vector<framework::NodePluginScores> scores;
  s = fwk.RunScorePlugins(cycle.state, *cycle.pod, nodes, &scores);
  if (!s.IsSuccess()) return Internal(s.Message());

  // The weighted totals onto 0..10, best 10 and worst 0. Totals of feasible
  // nodes usually differ by a few percent, which a scale anchored at zero
  // would round away in eleven steps; this keeps ksched's ranking, and the
  // extender entry's weight sets how much it counts.
  std::unordered_map<const framework::NodeInfo*, int64_t> total;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const framework::NodePluginScores& score : scores) {
    total[score.node] = score.total_score;
    lo = std::min(lo, score.total_score);
    hi = std::max(hi, score.total_score);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int64_t t = total[nodes[i].get()];
    list[i].score = hi == lo
                        ? kMaxExtenderPriority
                        : ((t - lo) * kMaxExtenderPriority * 2 + (hi - lo)) /
                              (2 * (hi - lo));  // rounded
  }
  return list;
}

ExtenderBindingResult ExtenderService::Bind(const std::string& profile,
                                            const ExtenderBindingArgs& args) {
  if (options_.binder == nullptr || !options_.pod_lookup) {
    return {"binding is not available in this ksched"};
  }
  const std::string key = args.pod_namespace + "/" + args.pod_name;
  // The pod as ksched's informers have it: the one kube-scheduler means,
  // still waiting for a node, and not one ksched schedules itself.
  std::shared_ptr<const api::Pod> pod =
      options_.pod_lookup(args.pod_namespace, args.pod_name);
  if (pod == nullptr) return {"pod " + key + " is not in ksched's cache"};
  if (!args.pod_uid.empty() && pod->metadata.uid != args.pod_uid) {
    return {"pod " + key + " has UID " + pod->metadata.uid + ", not " +
            args.pod_uid};
  }
  if (!pod->spec.node_name.empty()) {
    return {"pod " + key + " is already bound to node " + pod->spec.node_name};
  }
  if (pod->metadata.deletion_timestamp.has_value()) {
    return {"pod " + key + " is being deleted"};
  }
  if (HasProfile(pod->spec.scheduler_name)) {
    return {"pod " + key + " is scheduled by ksched's own profile \"" +
            pod->spec.scheduler_name +
            "\"; the extender binds only pods kube-scheduler schedules"};
  }
  // Where kube-scheduler's own rules, as ksched runs them, would refuse.
  auto begun = Begin(profile, *pod);
  if (auto* e = std::get_if<VerbError>(&begun)) return {e->message};
  Cycle& cycle = *std::get<std::unique_ptr<Cycle>>(begun);
  const NodeInfoPtr node = cycle.snapshot().GetPtr(args.node);
  if (node == nullptr)
    return {"node " + args.node + " is not in ksched's cache"};
  Status fits = cycle.pre_filter;
  if (fits.IsSuccess() && !cycle.narrowed.AllNodes() &&
      !cycle.narrowed.node_names->contains(args.node)) {
    fits = Status::Unresolvable(
        "node(s) didn't satisfy plugin(s) [" +
        Join({cycle.narrowing_plugins.begin(), cycle.narrowing_plugins.end()}) +
        "]");
  }
  if (fits.IsSuccess()) {
    fits = cycle.fwk().RunFilterPlugins(cycle.state, *cycle.pod, *node);
  }
  if (!fits.IsSuccess()) {
    return {"pod " + key + " does not fit node " + args.node + ": " +
            fits.Message()};
  }
  const Status s = options_.binder->Bind(*pod, args.node);
  return {s.IsSuccess() ? std::string() : s.Message()};
}

VerbResult<ExtenderPreemptionResult> ExtenderService::Preempt(
    const std::string& profile, const ExtenderPreemptionArgs& args) {
  auto begun = Begin(profile, args.pod);
  if (auto* e = std::get_if<VerbError>(&begun)) return *e;
  Cycle& cycle = *std::get<std::unique_ptr<Cycle>>(begun);
  framework::Framework& fwk = cycle.fwk();

  // Candidates as UIDs, whichever form they came in.
  std::map<std::string, MetaVictims> candidates;
  if (args.node_to_meta_victims.has_value()) {
    candidates = *args.node_to_meta_victims;
  } else if (args.node_to_victims.has_value()) {
    for (const auto& [node, victims] : *args.node_to_victims) {
      MetaVictims& meta = candidates[node];
      meta.num_pdb_violations = victims.num_pdb_violations;
      for (const api::Pod& p : victims.pods) {
        meta.pod_uids.push_back(p.metadata.uid);
      }
    }
  }

  ExtenderPreemptionResult result;
  // A PreFilter rejection: the pod fits nowhere, whatever is removed.
  if (!cycle.pre_filter.IsSuccess()) return result;
  const framework::PreFilterResult& narrowed = cycle.narrowed;
  const framework::PodInfo& pod = *cycle.pod;
  for (const auto& [name, victims] : candidates) {
    const NodeInfoPtr cached = cycle.snapshot().GetPtr(name);
    // A node ksched does not know cannot be vouched for.
    if (cached == nullptr) continue;
    if (!narrowed.AllNodes() && !narrowed.node_names->contains(name)) continue;
    // The node as it would be without the victims.
    framework::NodeInfo reduced = *cached;
    std::unique_ptr<framework::CycleState> what_if = cycle.state.Clone();
    bool failed = false;
    for (const std::string& uid : victims.pod_uids) {
      framework::PodInfoPtr victim;
      for (const framework::PodInfoPtr& p : cached->pods()) {
        if (p->uid() == uid) victim = p;
      }
      if (victim == nullptr) continue;  // gone already
      reduced.RemovePod(uid);
      Status s =
          fwk.RunPreFilterExtensionRemovePod(*what_if, pod, victim, reduced);
      if (!s.IsSuccess()) {
        failed = true;
        break;
      }
    }
    if (failed) continue;
    const Status s = fwk.RunFilterPlugins(*what_if, pod, reduced);
    if (s.code() == Code::kError) return Internal(name + ": " + s.Message());
    if (s.IsSuccess()) result.node_to_meta_victims[name] = victims;
  }
  return result;
}

}  // namespace ksched::extender

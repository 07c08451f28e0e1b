// Test fixtures for the DefaultPreemption tests: a real Framework built from
// a profile of real plugins (plus the fakes kube's tests use), a recording
// writer, an in-memory nominator and a scripted random source.
#pragma once

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/policy.h"
#include "pkg/config/types.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/framework/parallelizer.h"
#include "pkg/framework/pod_nominator.h"
#include "pkg/framework/registry.h"
#include "pkg/framework/runtime/framework.h"
#include "pkg/framework/snapshot.h"
#include "pkg/framework/testing/recording_writer.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/defaultpreemption/default_preemption.h"
#include "pkg/plugins/registry.h"
#include "pkg/util/fake_clock.h"
#include "pkg/util/random.h"

namespace ksched::plugins::defaultpreemption::testing {

using ::ksched::testing::NodeBuilder;
using ::ksched::testing::PodBuilder;
using ::ksched::testing::ResourcePairs;

// The priorities and requests of kube's default_preemption_test.go.
inline constexpr int32_t kNegPriority = -100;
inline constexpr int32_t kLowPriority = 0;
inline constexpr int32_t kMidPriority = 100;
inline constexpr int32_t kHighPriority = 1000;
inline constexpr int32_t kVeryHighPriority = 10000;

inline ResourcePairs SmallRes() { return {{"cpu", "100m"}, {"memory", "100"}}; }
inline ResourcePairs MediumRes() {
  return {{"cpu", "200m"}, {"memory", "200"}};
}
inline ResourcePairs LargeRes() { return {{"cpu", "300m"}, {"memory", "300"}}; }
inline ResourcePairs VeryLargeRes() {
  return {{"cpu", "500m"}, {"memory", "500"}};
}
// kube's st.MakeNode().Capacity() adds pods: 32 unless given.
inline ResourcePairs NodeCapacity(ResourcePairs r) {
  bool has_pods = std::any_of(r.begin(), r.end(),
                              [](const auto& p) { return p.first == "pods"; });
  if (!has_pods) r.emplace_back("pods", "32");
  return r;
}

// Pods named as in kube's tests: uid = name, namespace "default".
inline PodBuilder MakePod(const std::string& name) {
  PodBuilder b(name);
  b.Uid(name);
  return b;
}

// A pod whose status.startTime is `micros` after the epoch, like kube's
// StartTime(epochTimeN).
inline api::Pod WithStart(api::Pod pod, int64_t micros) {
  pod.status.start_time =
      api::Time{api::Timestamp(std::chrono::microseconds(micros))};
  return pod;
}

inline api::PodDisruptionBudget MakePdb(
    std::string name, api::StringMap match_labels, int32_t disruptions_allowed,
    std::vector<std::string> disrupted = {}) {
  api::PodDisruptionBudget pdb;
  pdb.metadata.name = std::move(name);
  pdb.metadata.ns = "default";
  pdb.spec.selector = api::LabelSelector{std::move(match_labels), {}};
  pdb.status.disruptions_allowed = disruptions_allowed;
  for (const std::string& p : disrupted) {
    pdb.status.disrupted_pods.Set(p, api::Time{});
  }
  return pdb;
}

// Returns a scripted sequence (kube's tests seed rand with 4, which gives
// 4, 1, 3 for Int31n(5)); 0 once exhausted.
class ScriptedRandom final : public util::Random {
 public:
  explicit ScriptedRandom(std::vector<uint64_t> values = {})
      : values_(values.begin(), values.end()) {}
  uint64_t Intn(uint64_t n) override {
    if (values_.empty()) return 0;
    uint64_t v = values_.front();
    values_.pop_front();
    return v % n;
  }

 private:
  std::deque<uint64_t> values_;
};

// The scheduling queue's nominator, reduced to a list.
class FakeNominator final : public framework::PodNominator {
 public:
  void AddNominatedPod(const framework::PodInfoPtr& pod,
                       const std::string& node) override {
    std::lock_guard<std::mutex> lock(mu_);
    RemoveLocked(pod->pod().metadata.uid);
    std::string n = node.empty() ? pod->pod().status.nominated_node_name : node;
    if (!n.empty()) pods_.emplace_back(pod, n);
  }
  void DeleteNominatedPodIfExists(const api::Pod& pod) override {
    std::lock_guard<std::mutex> lock(mu_);
    RemoveLocked(pod.metadata.uid);
  }
  void UpdateNominatedPod(const api::Pod& old_pod,
                          const framework::PodInfoPtr& new_pod) override {
    DeleteNominatedPodIfExists(old_pod);
    AddNominatedPod(new_pod, "");
  }
  size_t NumNominatedPods() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return pods_.size();
  }
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(
      const std::string& node) const override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<framework::PodInfoPtr> out;
    for (const auto& [p, n] : pods_) {
      if (n == node) out.push_back(p);
    }
    return out;
  }

 private:
  void RemoveLocked(const std::string& uid) {
    std::erase_if(pods_, [&](const auto& e) {
      return e.first->pod().metadata.uid == uid;
    });
  }
  mutable std::mutex mu_;
  std::vector<std::pair<framework::PodInfoPtr, std::string>> pods_;
};

// kube's tf.FakeFilterPlugin: counts Filter calls and answers each node
// with a configured code (success when unset).
class CountingFilter final : public framework::FilterPlugin {
 public:
  std::string_view Name() const override { return "FakeFilter"; }
  framework::Status Filter(const framework::CycleState&,
                           const framework::PodInfo&,
                           const framework::NodeInfo& node) const override {
    ++calls;
    auto it = codes.find(node.name());
    if (it == codes.end() || it->second == framework::Code::kSuccess) {
      return framework::Status();
    }
    return framework::Status(it->second,
                             "injecting failure for pod " + node.name());
  }
  std::map<std::string, framework::Code> codes;
  mutable std::atomic<int> calls{0};
};

// kube's tf.NewFalseFilterPlugin.
class FalseFilter final : public framework::FilterPlugin {
 public:
  std::string_view Name() const override { return "FalseFilter"; }
  framework::Status Filter(const framework::CycleState&,
                           const framework::PodInfo&,
                           const framework::NodeInfo&) const override {
    return framework::Status::Unschedulable("injecting failure for pod");
  }
};

// kube's TestPlugin: its PreFilter extensions fail on nodes labelled
// error=true.
class ErrorExtensionsPlugin final : public framework::PreFilterPlugin {
 public:
  std::string_view Name() const override { return "test-plugin"; }
  framework::Status PreFilter(framework::CycleState&, const framework::PodInfo&,
                              const std::vector<framework::NodeInfoPtr>&,
                              framework::PreFilterResult*) override {
    return framework::Status();
  }
  bool HasExtensions() const override { return true; }
  framework::Status AddPod(framework::CycleState&,
                           const framework::PodInfo& pod,
                           const framework::PodInfoPtr&,
                           const framework::NodeInfo& node) const override {
    if (IsError(node)) {
      return framework::Status::Error("failed to add pod: " +
                                      pod.pod().metadata.name);
    }
    return framework::Status();
  }
  framework::Status RemovePod(framework::CycleState&,
                              const framework::PodInfo& pod,
                              const framework::PodInfoPtr&,
                              const framework::NodeInfo& node) const override {
    if (IsError(node)) {
      return framework::Status::Error("failed to remove pod: " +
                                      pod.pod().metadata.name);
    }
    return framework::Status();
  }

 private:
  static bool IsError(const framework::NodeInfo& node) {
    const std::string* v = node.node()->metadata.labels.Find("error");
    return v != nullptr && *v == "true";
  }
};

// A stateful filter in the manner of InterPodAffinity's anti-affinity: a
// node is unschedulable while it runs a pod labelled "blocker". PreFilter
// counts them per node into the CycleState and the PreFilter extensions
// keep the count right, so preemption only works if the state is cloned
// and updated as kube requires.
class BlockerFilter final : public framework::PreFilterPlugin,
                            public framework::FilterPlugin {
 public:
  static constexpr framework::StateKey kKey{"PreFilterBlockerFilter"};
  struct State final : framework::StateData {
    std::map<std::string, int> blockers;
    std::shared_ptr<framework::StateData> Clone() const override {
      return std::make_shared<State>(*this);
    }
  };

  std::string_view Name() const override { return "BlockerFilter"; }
  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo&,
                              const std::vector<framework::NodeInfoPtr>& nodes,
                              framework::PreFilterResult*) override {
    auto s = std::make_shared<State>();
    for (const framework::NodeInfoPtr& n : nodes) {
      for (const framework::PodInfoPtr& p : n->pods()) {
        if (IsBlocker(*p)) ++s->blockers[n->name()];
      }
    }
    state.Write(kKey, std::move(s));
    return framework::Status();
  }
  bool HasExtensions() const override { return true; }
  framework::Status AddPod(framework::CycleState& state,
                           const framework::PodInfo&,
                           const framework::PodInfoPtr& p,
                           const framework::NodeInfo& node) const override {
    if (IsBlocker(*p)) ++state.Read<State>(kKey)->blockers[node.name()];
    return framework::Status();
  }
  framework::Status RemovePod(framework::CycleState& state,
                              const framework::PodInfo&,
                              const framework::PodInfoPtr& p,
                              const framework::NodeInfo& node) const override {
    if (IsBlocker(*p)) --state.Read<State>(kKey)->blockers[node.name()];
    return framework::Status();
  }
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo&,
                           const framework::NodeInfo& node) const override {
    const State* s = state.Read<State>(kKey);
    if (s == nullptr) return framework::Status::Error("no BlockerFilter state");
    auto it = s->blockers.find(node.name());
    if (it != s->blockers.end() && it->second > 0) {
      return framework::Status::Unschedulable("node(s) had a blocker pod");
    }
    return framework::Status();
  }

 private:
  static bool IsBlocker(const framework::PodInfo& pod) {
    return pod.labels().Contains("blocker");
  }
};

// One profile's Framework over a snapshot, with DefaultPreemption (the real
// plugin) registered under its name and reachable through plugin().
class Env {
 public:
  struct Options {
    // Enabled at PreFilter and at Filter (each where it applies), in order.
    std::vector<std::string> plugins = {"NodeResourcesFit"};
    std::shared_ptr<const config::DefaultPreemptionArgs> args;
    int parallelism = 1;
    std::vector<uint64_t> random = {};
    // v1.32's unless set: the synchronous preemption that kube's tables
    // check right after PostFilter. Tests of v1.35's asynchronous preemption
    // set FeatureGates(); its background work then waits for RunBackground.
    config::FeatureGates features =
        config::FeatureGates(config::KubeVersion{1, 32});
  };

  explicit Env(Options o)
      : parallelizer_(o.parallelism), random_(std::move(o.random)) {
    registry_ = NewInTreeRegistry();
    Replace("DefaultPreemption",
            [this](const config::PluginArgs* args, framework::Handle& h)
                -> util::Result<std::unique_ptr<framework::Plugin>> {
              auto p = NewDefaultPreemptionWithRandom(args, h, random_);
              if (p.ok()) plugin_ = dynamic_cast<DefaultPreemption*>(p->get());
              return p;
            });
    Add("FakeFilter",
        [this](const config::PluginArgs*, framework::Handle&)
            -> util::Result<std::unique_ptr<framework::Plugin>> {
          auto p = std::make_unique<CountingFilter>();
          counting_filter_ = p.get();
          return std::unique_ptr<framework::Plugin>(std::move(p));
        });
    Add("FalseFilter", Simple<FalseFilter>());
    Add("test-plugin", Simple<ErrorExtensionsPlugin>());
    Add("BlockerFilter", Simple<BlockerFilter>());

    config::Profile profile;
    profile.scheduler_name = "default-scheduler";
    profile.plugins.queue_sort.enabled = {{"PrioritySort"}};
    profile.plugins.bind.enabled = {{"DefaultBinder"}};
    profile.plugins.post_filter.enabled = {{"DefaultPreemption"}};
    // kube registers FakeFilter first so that it sees every Filter call.
    profile.plugins.filter.enabled = {{"FakeFilter"}};
    for (const std::string& name : o.plugins) {
      if (name != "test-plugin")
        profile.plugins.filter.enabled.push_back({name});
      if (name != "FalseFilter") {
        profile.plugins.pre_filter.enabled.push_back({name});
      }
    }
    if (o.args) profile.plugin_config.push_back({"DefaultPreemption", o.args});

    framework::Framework::Options fo;
    fo.parallelizer = &parallelizer_;
    fo.clock = &clock_;
    fo.objects = &objects_;
    fo.writer = &writer_;
    fo.nominator = &nominator_;
    fo.features = o.features;
    fo.activate =
        [this](const std::vector<std::shared_ptr<const api::Pod>>& pods) {
          for (const auto& p : pods) activated_.push_back(p->metadata.name);
        };
    // The cluster as the pod lister would see it: the pods SetCluster put
    // there, less those the writer deleted.
    fo.get_pod =
        [this](const std::string& ns,
               const std::string& name) -> std::shared_ptr<const api::Pod> {
      const std::string key = ns + "/" + name;
      for (const std::string& d : writer_.deleted) {
        if (d == key) return nullptr;
      }
      auto it = pods_.find(key);
      return it == pods_.end() ? nullptr : it->second;
    };
    fo.run_in_background = [this](std::function<void()> task) {
      background_.push_back(std::move(task));
    };
    auto f = framework::Framework::Create(profile, registry_, fo);
    if (!f.ok()) {
      create_error_ = f.error().message();
      return;
    }
    fwk_ = std::move(*f);
  }

  // Nodes and the pods on them (by spec.nodeName).
  void SetCluster(const std::vector<api::Node>& nodes,
                  const std::vector<api::Pod>& pods) {
    std::vector<framework::NodeInfoPtr> infos;
    for (const api::Node& n : nodes) {
      std::vector<api::Pod> on_node;
      for (const api::Pod& p : pods) {
        if (p.spec.node_name == n.metadata.name) on_node.push_back(p);
      }
      infos.push_back(::ksched::testing::MakeNodeInfo(n, on_node));
    }
    for (const api::Pod& p : pods) {
      pods_[p.metadata.ns + "/" + p.metadata.name] =
          std::make_shared<const api::Pod>(p);
    }
    snapshot_.Reset(std::move(infos));
    fwk_->SetSnapshot(&snapshot_);
  }
  void AddPdb(api::PodDisruptionBudget pdb) { objects_.Upsert(std::move(pdb)); }

  // Runs the PreFilter plugins to fill `state`; their status.
  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo& pod) {
    framework::PreFilterResult r;
    std::set<std::string> with_nodes;
    return fwk_->RunPreFilterPlugins(state, pod, snapshot_.nodes(), &r,
                                     &with_nodes);
  }

  // The snapshot's nodes, sorted by name (as kube's dry-run tests do).
  std::vector<framework::NodeInfoPtr> SortedNodes() const {
    std::vector<framework::NodeInfoPtr> nodes = snapshot_.nodes();
    std::sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) {
      return a->name() < b->name();
    });
    return nodes;
  }

  // Runs the background work handed out so far (asynchronous preemption),
  // in order; how many tasks ran.
  size_t RunBackground() {
    std::vector<std::function<void()>> tasks;
    tasks.swap(background_);
    for (auto& t : tasks) t();
    return tasks.size();
  }
  size_t background_tasks() const { return background_.size(); }
  // The pods Handle::Activate was given, by name, in order.
  const std::vector<std::string>& activated() const { return activated_; }

  const std::string& create_error() const { return create_error_; }
  framework::Framework& fwk() { return *fwk_; }
  DefaultPreemption& plugin() { return *plugin_; }
  CountingFilter& counting_filter() { return *counting_filter_; }
  ::ksched::testing::RecordingWriter& writer() { return writer_; }
  FakeNominator& nominator() { return nominator_; }
  util::FakeClock& clock() { return clock_; }

 private:
  template <typename T>
  static framework::PluginFactory Simple() {
    return [](const config::PluginArgs*, framework::Handle&)
               -> util::Result<std::unique_ptr<framework::Plugin>> {
      return std::unique_ptr<framework::Plugin>(std::make_unique<T>());
    };
  }
  void Add(const std::string& name, framework::PluginFactory f) {
    (void)registry_.Register(name, std::move(f));
  }
  // The in-tree registry maps DefaultPreemption to a placeholder until the
  // plugin is wired in; rebuild the registry with the real one.
  void Replace(const std::string& name, framework::PluginFactory f) {
    framework::Registry r;
    for (const std::string& n : registry_.Names()) {
      if (n != name) (void)r.Register(n, *registry_.Find(n));
    }
    (void)r.Register(name, std::move(f));
    registry_ = std::move(r);
  }

  framework::Registry registry_;
  framework::Parallelizer parallelizer_;
  util::FakeClock clock_;
  ScriptedRandom random_;
  framework::InMemoryClusterObjects objects_;
  ::ksched::testing::RecordingWriter writer_;
  FakeNominator nominator_;
  framework::Snapshot snapshot_;
  std::unique_ptr<framework::Framework> fwk_;
  std::map<std::string, std::shared_ptr<const api::Pod>> pods_;
  std::vector<std::function<void()>> background_;
  std::vector<std::string> activated_;
  DefaultPreemption* plugin_ = nullptr;
  CountingFilter* counting_filter_ = nullptr;
  std::string create_error_;
};

// Pod names of a list of victims, optionally sorted (kube's dry-run tests
// sort them, since its sort is not stable).
inline std::vector<std::string> Names(
    const std::vector<framework::PodInfoPtr>& pods, bool sorted = false) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->name());
  if (sorted) std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ksched::plugins::defaultpreemption::testing

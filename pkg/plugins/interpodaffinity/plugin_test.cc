// Queueing hints (kube-scheduler's interpodaffinity/plugin_test.go:
// Test_isSchedulableAfterPodChange, Test_isSchedulableAfterNodeChange, as of
// v1.32), the factory, and Filter/PreFilter/PreScore under concurrency.
#include "pkg/plugins/interpodaffinity/plugin.h"

#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "pkg/framework/parallelizer.h"
#include "pkg/framework/pod_count_memo.h"
#include "pkg/framework/testing/fake_handle.h"
#include "pkg/plugins/interpodaffinity/test_util.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using framework::QueueingHint;
using framework::Status;
using interpodaffinity::test::CaseName;
using interpodaffinity::test::Exists;
using interpodaffinity::test::In;
using interpodaffinity::test::MakeSnapshot;
using interpodaffinity::test::N;
using interpodaffinity::test::P;

constexpr QueueingHint kQueue = QueueingHint::kQueue;
constexpr QueueingHint kSkip = QueueingHint::kQueueSkip;

std::unique_ptr<framework::Plugin> MakePlugin(framework::Handle& handle) {
  config::InterPodAffinityArgs args;
  auto plugin = NewInterPodAffinity(&args, handle);
  EXPECT_TRUE(plugin.ok()) << plugin.error().message();
  return std::move(plugin).value();
}

// The hint registered for `resource`.
framework::QueueingHintFn HintFor(framework::EventResource resource) {
  testing::FakeHandle handle;
  auto plugin = MakePlugin(handle);
  for (const auto& e :
       dynamic_cast<InterPodAffinity&>(*plugin).EventsToRegister()) {
    if (e.event.resource == resource) return e.hint;
  }
  return nullptr;
}

TEST(InterPodAffinityTest, EventsToRegister) {
  testing::FakeHandle handle;
  auto plugin = MakePlugin(handle);
  auto events = dynamic_cast<InterPodAffinity&>(*plugin).EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[0].event.action,
            framework::kAdd | framework::kUpdatePodLabel | framework::kDelete);
  EXPECT_TRUE(events[0].hint);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[1].event.action,
            framework::kAdd | framework::kUpdateNodeLabel);
  EXPECT_TRUE(events[1].hint);
}

// ---- Test_isSchedulableAfterPodChange ----

struct PodHintCase {
  std::string name{};
  api::Pod pod{};
  std::optional<api::Pod> old_pod{};
  std::optional<api::Pod> new_pod{};
  QueueingHint want = kQueue;
  friend void PrintTo(const PodHintCase& c, std::ostream* os) { *os << c.name; }
};

std::vector<PodHintCase> PodHintCases() {
  const api::PodAffinityTerm scan =
      In("service", "region", {"securityscan", "value2"});
  const api::Pod affinity_pod = P("p").Affinity(scan).Obj();
  const api::Pod anti_pod = P("p").AntiAffinity(scan).Obj();
  const api::Pod two_terms = P("p")
                                 .Affinity(Exists("aaa", "hostname"))
                                 .Affinity(Exists("bbb", "hostname"))
                                 .Obj();
  const auto other = [] { return P("other").Node("fake-node"); };
  return {
      {.name = "add a pod which matches the pod affinity",
       .pod = affinity_pod,
       .new_pod = other().Label("service", "securityscan").Obj()},
      {.name = "add an un-scheduled pod",
       .pod = affinity_pod,
       .new_pod = P("other").Label("service", "securityscan").Obj(),
       .want = kSkip},
      {.name = "add a pod which doesn't match the pod affinity",
       .pod = affinity_pod,
       .new_pod = other().Label("aaa", "a").Obj(),
       .want = kSkip},
      {.name = "update a pod from non-match to match pod affinity",
       .pod = affinity_pod,
       .old_pod = other().Label("aaa", "a").Obj(),
       .new_pod = other().Label("service", "securityscan").Obj()},
      {.name = "the updating pod matches target pod's affinity both before "
               "and after label changes",
       .pod = affinity_pod,
       .old_pod = other().Label("service", "value2").Obj(),
       .new_pod = other().Label("service", "securityscan").Obj(),
       .want = kSkip},
      {.name = "update an un-scheduled pod",
       .pod = affinity_pod,
       .old_pod = P("other").Label("aaa", "a").Obj(),
       .new_pod = P("other").Label("service", "securityscan").Obj(),
       .want = kSkip},
      {.name = "update a pod from match to non-match the pod affinity",
       .pod = affinity_pod,
       .old_pod = other().Label("service", "securityscan").Obj(),
       .new_pod = other().Label("aaa", "a").Obj(),
       .want = kSkip},
      {.name = "update a pod from match to non-match pod's affinity - "
               "multiple terms case",
       .pod = two_terms,
       .old_pod = other().Label("aaa", "a").Obj(),
       .new_pod = other().Label("service", "securityscan").Obj(),
       .want = kSkip},
      {.name = "update a pod from non-match to match pod's affinity - "
               "multiple terms case",
       .pod = two_terms,
       .old_pod = other().Label("aaa", "a").Obj(),
       .new_pod = other().Label("aaa", "").Label("bbb", "").Obj()},
      {.name = "modify pod label to change it from satisfying pod "
               "anti-affinity to not satisfying anti-affinity",
       .pod = anti_pod,
       .old_pod = other().Label("service", "securityscan").Obj(),
       .new_pod = other().Label("service", "aaaa").Obj()},
      {.name = "modify pod label to change it from not satisfying pod "
               "anti-affinity to satisfying anti-affinity",
       .pod = anti_pod,
       .old_pod = other().Label("service", "bbb").Obj(),
       .new_pod = other().Label("service", "securityscan").Obj(),
       .want = kSkip},
      {.name = "delete a pod which doesn't match pod's anti-affinity",
       .pod = anti_pod,
       .old_pod = other().Label("aaa", "a").Obj(),
       .want = kSkip},
      {.name = "delete a pod which matches pod's anti-affinity",
       .pod = anti_pod,
       .old_pod = other().Label("service", "securityscan").Obj()},
      // v1.32 looks only at the rejected pod's own anti-affinity on delete;
      // kubernetes#135325 (v1.35) also requeues here.
      {.name = "delete a pod with anti-affinity that matches pending pod",
       .pod = P("p").Label("service", "securityscan").Obj(),
       .old_pod = other().AntiAffinity(scan).Obj(),
       .want = kSkip},
      {.name = "a pod whose required terms do not parse is always requeued",
       .pod =
           P("p").Affinity(In("service", "region", {"{{.bad-value.}}"})).Obj(),
       .new_pod = other().Label("aaa", "a").Obj()},
  };
}

class PodChangeHint : public ::testing::TestWithParam<PodHintCase> {};

TEST_P(PodChangeHint, Hint) {
  const PodHintCase& c = GetParam();
  framework::QueueingHintFn hint = HintFor(framework::EventResource::kPod);
  ASSERT_TRUE(hint);
  framework::EventObjects objs;
  if (c.old_pod) objs.old_pod = &*c.old_pod;
  if (c.new_pod) objs.new_pod = &*c.new_pod;
  EXPECT_EQ(hint(c.pod, objs), c.want);
}

INSTANTIATE_TEST_SUITE_P(InterPodAffinity, PodChangeHint,
                         ::testing::ValuesIn(PodHintCases()),
                         CaseName<PodHintCase>);

// ---- Test_isSchedulableAfterNodeChange ----

struct NodeHintCase {
  std::string name{};
  api::Pod pod{};
  std::optional<api::Node> old_node{};
  api::Node new_node{};
  QueueingHint want = kQueue;
  friend void PrintTo(const NodeHintCase& c, std::ostream* os) {
    *os << c.name;
  }
};

std::vector<NodeHintCase> NodeHintCases() {
  const api::Pod affinity_zone =
      P("p").Affinity(In("service", "zone", {"securityscan", "value2"})).Obj();
  const api::Pod affinity_region =
      P("p")
          .Affinity(In("service", "region", {"securityscan", "value2"}))
          .Obj();
  const api::Pod anti_zone =
      P("p").AntiAffinity(In("another", "zone", {"label"})).Obj();
  return {
      {.name = "add a new node with matched pod affinity topologyKey",
       .pod = affinity_zone,
       .new_node = N("node-a", {{"zone", "zone1"}})},
      {.name = "add a new node without matched topologyKey",
       .pod = affinity_region,
       .new_node = N("node-a", {{"zone", "zone1"}}),
       .want = kSkip},
      {.name = "update node label but not topologyKey",
       .pod = affinity_zone,
       .old_node = N("node-a", {{"aaa", "a"}}),
       .new_node = N("node-a", {{"aaa", "b"}}),
       .want = kSkip},
      {.name = "update node label that isn't related to the pod affinity",
       .pod = affinity_zone,
       .old_node = N("node-a", {{"zone", "zone1"}}),
       .new_node = N("node-a", {{"zone", "zone1"}, {"unrelated-label", "x"}}),
       .want = kSkip},
      {.name = "update node with different affinity topologyKey value",
       .pod = affinity_zone,
       .old_node = N("node-a", {{"zone", "zone1"}}),
       .new_node = N("node-a", {{"zone", "zone2"}})},
      {.name = "update node to have the affinity topology label",
       .pod = affinity_zone,
       .old_node = N("node-a", {{"aaa", "a"}}),
       .new_node = N("node-a", {{"zone", "zone1"}})},
      {.name = "add a new node with matched pod anti-affinity topologyKey",
       .pod = anti_zone,
       .new_node = N("node-a", {{"zone", "zone1"}})},
      {.name = "add a new node without matched pod anti-affinity topologyKey",
       .pod = anti_zone,
       .new_node = N("node-a")},
      {.name = "update node label that isn't related to the pod anti-affinity",
       .pod = anti_zone,
       .old_node = N("node-a", {{"zone", "zone1"}}),
       .new_node = N("node-a", {{"zone", "zone1"}, {"unrelated-label", "x"}}),
       .want = kSkip},
      {.name = "update node with different anti-affinity topologyKey value",
       .pod = anti_zone,
       .old_node = N("node-a", {{"zone", "zone1"}}),
       .new_node = N("node-a", {{"zone", "zone2"}})},
      {.name = "update node to have the anti-affinity topology label",
       .pod = anti_zone,
       .old_node = N("node-a", {{"aaa", "a"}}),
       .new_node = N("node-a", {{"zone", "zone1"}}),
       .want = kSkip},
      {.name = "update node label not to have anti-affinity topology label",
       .pod = anti_zone,
       .old_node = N("node-a", {{"zone", "zone1"}}),
       .new_node = N("node-a", {{"aaa", "a"}})},
  };
}

class NodeChangeHint : public ::testing::TestWithParam<NodeHintCase> {};

TEST_P(NodeChangeHint, Hint) {
  const NodeHintCase& c = GetParam();
  framework::QueueingHintFn hint = HintFor(framework::EventResource::kNode);
  ASSERT_TRUE(hint);
  framework::EventObjects objs;
  if (c.old_node) objs.old_node = &*c.old_node;
  objs.new_node = &c.new_node;
  EXPECT_EQ(hint(c.pod, objs), c.want);
}

INSTANTIATE_TEST_SUITE_P(InterPodAffinity, NodeChangeHint,
                         ::testing::ValuesIn(NodeHintCases()),
                         CaseName<NodeHintCase>);

// ---- factory ----

TEST(InterPodAffinityTest, FactoryDefaultsAndValidates) {
  testing::FakeHandle handle;
  auto plugin = NewInterPodAffinity(nullptr, handle);
  ASSERT_TRUE(plugin.ok());
  EXPECT_EQ((*plugin)->Name(), "InterPodAffinity");

  config::InterPodAffinityArgs bad;
  bad.hard_pod_affinity_weight = 101;
  auto failed = NewInterPodAffinity(&bad, handle);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message(),
            "hardPodAffinityWeight: Invalid value: 101: not in valid range "
            "[0, 100]");

  config::NodeAffinityArgs wrong;
  EXPECT_FALSE(NewInterPodAffinity(&wrong, handle).ok());
}

// ---- concurrency ----

// A Handle whose parallelizer really runs on several threads; everything
// else is FakeHandle's.
class ParallelHandle final : public framework::Handle {
 public:
  explicit ParallelHandle(std::vector<framework::NodeInfoPtr> nodes)
      : fake_(std::move(nodes)), parallelizer_(8) {
    fake_.namespace_labels["team-ns"].Set("team", "a");
  }
  framework::Parallelizer& parallelizer() override { return parallelizer_; }

  const framework::Snapshot& snapshot() const override {
    return fake_.snapshot();
  }
  const util::Clock& clock() const override { return fake_.clock(); }
  const api::StringMap* NamespaceLabels(std::string_view ns) const override {
    return fake_.NamespaceLabels(ns);
  }
  const framework::ClusterObjects& objects() const override {
    return fake_.objects();
  }
  framework::ClusterWriter* writer() override { return fake_.writer(); }
  framework::PodNominator* nominator() override { return fake_.nominator(); }
  framework::WaitingPods& waiting_pods() override {
    return fake_.waiting_pods();
  }
  framework::PodsInPreBind& pods_in_prebind() override {
    return fake_.pods_in_prebind();
  }
  Status RunFilterPluginsWithNominatedPods(
      const framework::CycleState& state, const framework::PodInfo& pod,
      const framework::NodeInfo& node) override {
    return fake_.RunFilterPluginsWithNominatedPods(state, pod, node);
  }
  Status RunPreFilterExtensionAddPod(
      framework::CycleState& state, const framework::PodInfo& pod,
      const framework::PodInfoPtr& to_add,
      const framework::NodeInfo& node) const override {
    return fake_.RunPreFilterExtensionAddPod(state, pod, to_add, node);
  }
  Status RunPreFilterExtensionRemovePod(
      framework::CycleState& state, const framework::PodInfo& pod,
      const framework::PodInfoPtr& to_remove,
      const framework::NodeInfo& node) const override {
    return fake_.RunPreFilterExtensionRemovePod(state, pod, to_remove, node);
  }
  framework::Binder* binder() override { return fake_.binder(); }

 private:
  testing::FakeHandle fake_;
  framework::Parallelizer parallelizer_;
};

// 300 nodes in 30 zones; every node holds a web pod, some a db pod, some a
// pod whose anti-affinity repels caches, some pods in team-ns.
std::vector<framework::NodeInfoPtr> BigCluster() {
  std::vector<api::Node> nodes;
  std::vector<api::Pod> pods;
  for (int i = 0; i < 300; ++i) {
    std::string name = "node-" + std::to_string(i);
    nodes.push_back(N(name, {{"kubernetes.io/hostname", name},
                             {"zone", "zone-" + std::to_string(i % 30)}}));
    pods.push_back(P("web").Node(name).Label("app", "web").Obj());
    if (i % 7 == 0) pods.push_back(P("db").Node(name).Label("app", "db").Obj());
    if (i % 11 == 0) {
      pods.push_back(P("guard")
                         .Node(name)
                         .Label("app", "guard")
                         .AntiAffinity(In("app", "zone", {"cache"}))
                         .Preferred(3, In("app", "hostname", {"cache"}))
                         .Obj());
    }
    if (i % 13 == 0) {
      pods.push_back(
          P("team").Ns("team-ns").Node(name).Label("app", "api").Obj());
    }
  }
  return MakeSnapshot(pods, nodes);
}

framework::PodInfoPtr BigPod() {
  api::PodAffinityTerm team_api = In("app", "zone", {"api"});
  team_api.namespace_selector.emplace().match_labels.Set("team", "a");
  return P("incoming")
      .Label("app", "cache")
      .Affinity(team_api)
      .AntiAffinity(In("app", "kubernetes.io/hostname", {"db"}))
      .Preferred(10, In("app", "zone", {"web"}))
      .PreferredAnti(4, In("app", "zone", {"db"}))
      .Info();
}

TEST(InterPodAffinityTest, ParallelPreFilterMatchesSequential) {
  auto nodes = BigCluster();
  framework::PodInfoPtr pod = BigPod();
  ParallelHandle parallel(nodes);
  testing::FakeHandle sequential(nodes);
  sequential.namespace_labels["team-ns"].Set("team", "a");
  auto p1 = MakePlugin(parallel);
  auto p2 = MakePlugin(sequential);
  auto* a = dynamic_cast<InterPodAffinity*>(p1.get());
  auto* b = dynamic_cast<InterPodAffinity*>(p2.get());
  framework::CycleState sa;
  framework::CycleState sb;
  ASSERT_TRUE(a->PreFilter(sa, *pod, nodes, nullptr).IsSuccess());
  ASSERT_TRUE(b->PreFilter(sb, *pod, nodes, nullptr).IsSuccess());
  ASSERT_TRUE(a->PreScore(sa, *pod, nodes).IsSuccess());
  ASSERT_TRUE(b->PreScore(sb, *pod, nodes).IsSuccess());
  int feasible = 0;
  for (const auto& info : nodes) {
    Status fa = a->Filter(sa, *pod, *info);
    Status fb = b->Filter(sb, *pod, *info);
    EXPECT_EQ(fa, fb) << info->name();
    if (fa.IsSuccess()) ++feasible;
    int64_t ca = 0;
    int64_t cb = 0;
    ASSERT_TRUE(a->Score(sa, *pod, *info, &ca).IsSuccess());
    ASSERT_TRUE(b->Score(sb, *pod, *info, &cb).IsSuccess());
    EXPECT_EQ(ca, cb) << info->name();
  }
  // api pods reach 24 zones, guards repel the cache from 28, db nodes are
  // out by hostname: 8 nodes remain.
  EXPECT_EQ(feasible, 8);
}

TEST(InterPodAffinityTest, ConcurrentFilterOnOneCycleState) {
  auto nodes = BigCluster();
  framework::PodInfoPtr pod = BigPod();
  ParallelHandle handle(nodes);
  auto plugin = MakePlugin(handle);
  auto* pl = dynamic_cast<InterPodAffinity*>(plugin.get());
  framework::CycleState state;
  ASSERT_TRUE(pl->PreFilter(state, *pod, nodes, nullptr).IsSuccess());
  ASSERT_TRUE(pl->PreScore(state, *pod, nodes).IsSuccess());
  std::vector<Code> want_codes;
  std::vector<int64_t> want_scores;
  for (const auto& info : nodes) {
    want_codes.push_back(pl->Filter(state, *pod, *info).code());
    int64_t s = 0;
    ASSERT_TRUE(pl->Score(state, *pod, *info, &s).IsSuccess());
    want_scores.push_back(s);
  }
  std::vector<int> mismatches(8, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (size_t i = 0; i < nodes.size(); ++i) {
          size_t n = (i + t * 37) % nodes.size();
          int64_t s = 0;
          if (pl->Filter(state, *pod, *nodes[n]).code() != want_codes[n] ||
              !pl->Score(state, *pod, *nodes[n], &s).IsSuccess() ||
              s != want_scores[n]) {
            ++mismatches[t];
          }
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

// ---- counts kept across cycles ----

// A snapshot kept as the scheduler cache keeps one (memo keys, NodeInfos
// replaced by fresh copies between cycles) answers as a snapshot built
// afresh each cycle, which counts every node without memo or index.
TEST(InterPodAffinityTest, CountsKeptAcrossCyclesEqualFreshCounts) {
  std::vector<api::Node> nodes;
  for (int i = 0; i < 60; ++i) {
    std::string name = "node-" + std::to_string(i);
    nodes.push_back(N(name, {{"kubernetes.io/hostname", name},
                             {"zone", "zone-" + std::to_string(i % 6)}}));
  }
  testing::FakeHandle kept(MakeSnapshot({}, nodes));
  kept.mutable_snapshot().set_pod_count_keys(
      std::make_shared<framework::PodCountKeys>());
  kept.mutable_snapshot().set_generations_unique(true);
  auto plugin = MakePlugin(kept);
  auto* pl = dynamic_cast<InterPodAffinity*>(plugin.get());

  std::mt19937 random(7);
  int64_t generation = 100;
  std::vector<std::pair<std::string, std::string>> placed;  // uid, node
  int mismatches = 0;
  for (int cycle = 0; cycle < 300; ++cycle) {
    // Eight groups: anti-affinity by hostname or zone, some also wanting
    // a group-0 pod in their zone, some preferring group 1.
    const int group = static_cast<int>(random() % 8);
    const std::string app = "g" + std::to_string(group);
    P builder("pod-" + std::to_string(cycle));
    builder.Label("app", app)
        .AntiAffinity(
            In("app", group % 2 ? "zone" : "kubernetes.io/hostname", {app}));
    if (group % 3 == 2) builder.Affinity(In("app", "zone", {"g0"}));
    if (group % 4 == 3) builder.Preferred(5, In("app", "zone", {"g1"}));
    framework::PodInfoPtr pod = builder.Info();

    const framework::Snapshot& snapshot = kept.snapshot();
    testing::FakeHandle fresh(snapshot.nodes());
    auto fresh_plugin = MakePlugin(fresh);
    auto* f = dynamic_cast<InterPodAffinity*>(fresh_plugin.get());
    framework::CycleState sk;
    framework::CycleState sf;
    const Status pk = pl->PreFilter(sk, *pod, snapshot.nodes(), nullptr);
    const Status pf = f->PreFilter(sf, *pod, snapshot.nodes(), nullptr);
    ASSERT_EQ(pk, pf) << "cycle " << cycle;
    const Status qk = pl->PreScore(sk, *pod, snapshot.nodes());
    const Status qf = f->PreScore(sf, *pod, snapshot.nodes());
    ASSERT_EQ(qk, qf) << "cycle " << cycle;
    std::vector<int> feasible;
    for (size_t i = 0; i < snapshot.nodes().size(); ++i) {
      const framework::NodeInfo& info = *snapshot.nodes()[i];
      const Status a = pk.IsSkip() ? Status() : pl->Filter(sk, *pod, info);
      const Status b = pf.IsSkip() ? Status() : f->Filter(sf, *pod, info);
      mismatches += a != b;
      if (a.IsSuccess()) feasible.push_back(static_cast<int>(i));
      if (qk.IsSuccess()) {
        int64_t x = 0;
        int64_t y = 0;
        ASSERT_TRUE(pl->Score(sk, *pod, info, &x).IsSuccess());
        ASSERT_TRUE(f->Score(sf, *pod, info, &y).IsSuccess());
        mismatches += x != y;
      }
    }

    // Place the pod on a feasible node, and now and then take a pod away:
    // each a fresh copy of the node, as the cache makes.
    framework::Snapshot& writable = kept.mutable_snapshot();
    auto replace = [&](int position, auto&& change) {
      auto copy =
          std::make_shared<framework::NodeInfo>(*writable.nodes()[position]);
      change(*copy);
      copy->set_generation(++generation);
      writable.Upsert(copy);
    };
    if (!feasible.empty()) {
      const int at = feasible[random() % feasible.size()];
      api::Pod bound = builder.Node(snapshot.nodes()[at]->name()).Obj();
      placed.emplace_back(bound.metadata.uid, bound.spec.node_name);
      replace(at, [&](framework::NodeInfo& info) {
        info.AddPod(framework::PodInfo::CreateBound(bound));
      });
    }
    if (cycle % 5 == 4 && !placed.empty()) {
      const size_t k = random() % placed.size();
      const std::string uid = placed[k].first;
      const std::string node = placed[k].second;
      placed.erase(placed.begin() + static_cast<long>(k));
      replace(writable.PositionOf(node), [&](framework::NodeInfo& info) {
        EXPECT_TRUE(info.RemovePod(uid));
      });
    }
  }
  EXPECT_EQ(mismatches, 0);
  // The index answered: far fewer nodes counted than 60 per question per
  // cycle.
  EXPECT_GT(kept.snapshot().node_counts().questions(), 0u);
  EXPECT_LT(kept.snapshot().node_counts().nodes_counted(), 300u * 60u);
}

}  // namespace
}  // namespace ksched::plugins

// Decisions stay right across cycles when PodTopologySpread and
// InterPodAffinity answer from the per-node memo (pod_count_memo.h): the
// snapshot comes from the cache as in the scheduler, the pods move between
// cycles, and a stale memo would send the next pod to the wrong node.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/config/config.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/podtopologyspread/common.h"
#include "pkg/plugins/podtopologyspread/state.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/algorithm.h"
#include "pkg/scheduler/default_profile_test_base.h"
#include "pkg/scheduler/profile.h"
#include "pkg/util/fake_clock.h"
#include "pkg/util/random.h"

namespace ksched::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHostname[] = "kubernetes.io/hostname";

class MemoisedCountsTest : public test::DefaultProfileTest {
 protected:
  void SetUp() override {
    DefaultProfileTest::SetUp();
    if (HasFatalFailure()) return;
    for (const char* name : {"n1", "n2"}) {
      cache_.AddNode(std::make_shared<const api::Node>(
          NodeBuilder(name)
              .Label(kHostname, name)
              .Label(kZone, std::string("zone-") + name)
              .Capacity({{"cpu", "1000"}, {"memory", "1Ti"}, {"pods", "110"}})
              .Obj()));
    }
  }

  void AddPod(const PodBuilder& pod) {
    ASSERT_TRUE(cache_.AddPod(pod.Info()).ok());
  }
  void RemovePod(const PodBuilder& pod) {
    ASSERT_TRUE(cache_.RemovePod(pod.Obj()).ok());
  }

  std::string Schedule(const PodBuilder& pod) {
    EXPECT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
    fwk_->SetSnapshot(&snapshot_);
    framework::CycleState state;
    ScheduleResult r =
        algorithm_.Schedule(*fwk_, state, *pod.Info(), snapshot_);
    return r.kind == ScheduleResult::Kind::kScheduled ? r.suggested_host
                                                      : r.FailureMessage();
  }

  static PodBuilder Web(const std::string& name, const std::string& node) {
    PodBuilder p(name);
    p.Uid(name).Label("app", "web").Node(node);
    return p;
  }
  static PodBuilder NewWeb() {
    PodBuilder p("web-new");
    p.Uid("web-new")
        .Label("app", "web")
        .SpreadConstraint(1, kZone,
                          api::UnsatisfiableConstraintAction::kDoNotSchedule,
                          "app", "web");
    return p;
  }

  cache::Cache cache_{clock_, std::chrono::seconds(30)};
  framework::Snapshot snapshot_;
  util::DefaultRandom random_{1};
  SchedulingAlgorithm algorithm_{0, random_};
};

TEST_F(MemoisedCountsTest, SpreadCountsFollowPodsBetweenCycles) {
  AddPod(Web("w1", "n1"));
  EXPECT_EQ(Schedule(NewWeb()), "n2");

  // The first cycle left its counts in the memo of both nodes.
  api::Selector selector;
  ASSERT_TRUE(selector.Add("app", api::Selector::Op::kIn, {"web"}).ok());
  const uint32_t key = plugins::podtopologyspread::CountKey(
      snapshot_.pod_count_keys(), selector, "default");
  ASSERT_NE(key, 0u);
  EXPECT_EQ(snapshot_.GetPtr("n1")->pod_counts().Find(key), 1);
  EXPECT_EQ(snapshot_.GetPtr("n2")->pod_counts().Find(key), 0);

  // Two web pods land on n2: with n2 counted afresh, only n1 keeps the
  // skew within 1; n2's remembered 0 would have chosen n2.
  AddPod(Web("w2", "n2"));
  AddPod(Web("w3", "n2"));
  EXPECT_EQ(Schedule(NewWeb()), "n1");
  EXPECT_EQ(snapshot_.GetPtr("n2")->pod_counts().Find(key), 2);

  // Unchanged since: the memo answers, and answers the same.
  EXPECT_EQ(Schedule(NewWeb()), "n1");
}

TEST_F(MemoisedCountsTest, IncomingAntiAffinityFollowsPodsBetweenCycles) {
  PodBuilder db("db");
  db.Uid("db").Label("app", "db").Node("n1");
  AddPod(db);
  PodBuilder incoming("client");
  incoming.Uid("client").PodAffinity(kHostname, "app", "db", /*anti=*/true);
  EXPECT_EQ(Schedule(incoming), "n2");
  EXPECT_EQ(Schedule(incoming), "n2");

  RemovePod(db);
  PodBuilder moved("db2");
  moved.Uid("db2").Label("app", "db").Node("n2");
  AddPod(moved);
  EXPECT_EQ(Schedule(incoming), "n1");
}

TEST_F(MemoisedCountsTest, ExistingAntiAffinityFollowsPodsBetweenCycles) {
  PodBuilder guard("guard");
  guard.Uid("guard").Node("n1").PodAffinity(kHostname, "app", "cache",
                                            /*anti=*/true);
  AddPod(guard);
  PodBuilder incoming("cache");
  incoming.Uid("cache").Label("app", "cache");
  EXPECT_EQ(Schedule(incoming), "n2");
  EXPECT_EQ(Schedule(incoming), "n2");

  RemovePod(guard);
  PodBuilder moved("guard2");
  moved.Uid("guard2").Node("n2").PodAffinity(kHostname, "app", "cache",
                                             /*anti=*/true);
  AddPod(moved);
  EXPECT_EQ(Schedule(incoming), "n1");
}

TEST_F(MemoisedCountsTest, ExistingPodsAffinityScoreFollowsPodsBetweenCycles) {
  // An existing pod's required affinity to app=api scores its node for an
  // incoming api pod (hardPodAffinityWeight); the memo must not keep the
  // node that scored nothing at nothing once the pod moves there.
  PodBuilder fan("fan");
  fan.Uid("fan").Node("n1").PodAffinity(kHostname, "app", "api");
  PodBuilder api_pod("api-0");
  api_pod.Uid("api-0").Label("app", "api").Node("n1");
  AddPod(api_pod);
  AddPod(fan);
  PodBuilder incoming("api-new");
  incoming.Uid("api-new").Label("app", "api");
  EXPECT_EQ(Schedule(incoming), "n1");
  EXPECT_EQ(Schedule(incoming), "n1");

  RemovePod(fan);
  PodBuilder moved("fan2");
  moved.Uid("fan2").Node("n2").PodAffinity(kHostname, "app", "api");
  AddPod(moved);
  EXPECT_EQ(Schedule(incoming), "n2");
}

// PodTopologySpread keeps its PreFilter counts between cycles and recounts
// only the nodes whose NodeInfo changed (incremental_counts.h). Random
// changes to pods and nodes, and after each the counts must equal a full
// count over the same nodes (a snapshot without memo keys always counts in
// full).
TEST_F(MemoisedCountsTest, KeptSpreadCountsEqualAFullCountAfterAnyChange) {
  auto profiles =
      BuildProfiles(config::DefaultConfig(), registry_,
                    {.parallelizer = &parallelizer_, .clock = &clock_});
  ASSERT_TRUE(profiles.ok());
  framework::Framework* full_fwk = profiles->begin()->second.get();

  std::mt19937 rng(7);
  auto pick = [&rng](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  std::vector<std::string> nodes = {"n1", "n2"};
  int next_node = 3;
  auto node_obj = [&](const std::string& name, int zone) {
    NodeBuilder b(name);
    b.Label(kHostname, name)
        .Capacity({{"cpu", "1000"}, {"memory", "1Ti"}, {"pods", "110"}});
    // Zone 3 stands for no zone label: such nodes count for no constraint.
    if (zone < 3) b.Label(kZone, "zone-" + std::to_string(zone));
    if (zone == 1) b.Label("disk", "ssd");
    return std::make_shared<const api::Node>(b.Obj());
  };
  std::map<std::string, std::shared_ptr<const api::Node>> node_objs;
  for (int i = 0; i < 10; ++i) {
    std::string name = "n" + std::to_string(next_node++);
    node_objs[name] = node_obj(name, pick(4));
    cache_.AddNode(node_objs[name]);
    nodes.push_back(name);
  }
  std::vector<PodBuilder> pods;
  int next_pod = 0;

  const auto kDoNotSchedule =
      api::UnsatisfiableConstraintAction::kDoNotSchedule;
  std::vector<PodBuilder> incoming;
  incoming.push_back(NewWeb());
  PodBuilder two("two");
  two.Uid("two")
      .Label("app", "web")
      .SpreadConstraint(1, kZone, kDoNotSchedule, "app", "web")
      .SpreadConstraint(1, kHostname, kDoNotSchedule, "app", "web");
  incoming.push_back(two);
  PodBuilder other_ns("db");
  other_ns.Uid("db").Namespace("other").SpreadConstraint(
      2, kZone, kDoNotSchedule, "app", "db");
  incoming.push_back(other_ns);
  PodBuilder pinned("pinned");  // inclusion depends on the pod: full count
  pinned.Uid("pinned")
      .NodeSelector("disk", "ssd")
      .SpreadConstraint(1, kZone, kDoNotSchedule, "app", "web");
  incoming.push_back(pinned);

  using plugins::podtopologyspread::GetPreFilterState;
  using plugins::podtopologyspread::PreFilterState;
  auto domains = [](const PreFilterState& s, size_t c) {
    std::map<std::string, int64_t> out;
    const auto& dc = s.counts[c];
    for (int32_t id = 0; id < dc.domains->size(); ++id) {
      out[std::string(dc.domains->value(id))] = dc.match_num[id];
    }
    return out;
  };

  // The last operations, printed when the counts differ.
  std::string log;
  for (int step = 0; step < 3000; ++step) {
    const int op = pick(10);
    log += "\nstep " + std::to_string(step) + ": op " + std::to_string(op);
    if (op < 4 && !nodes.empty()) {  // a pod lands
      PodBuilder p("p" + std::to_string(next_pod));
      p.Uid("p" + std::to_string(next_pod++))
          .Label("app", pick(2) == 0 ? "web" : "db")
          .Namespace(pick(4) == 0 ? "other" : "default")
          .Node(nodes[pick(static_cast<int>(nodes.size()))]);
      if (pick(8) == 0) p.Terminating();
      AddPod(p);
      log += " pod on " + p.Obj().spec.node_name;
      pods.push_back(p);
    } else if (op < 6 && !pods.empty()) {  // a pod goes
      const int i = pick(static_cast<int>(pods.size()));
      RemovePod(pods[i]);
      log += " pod off " + pods[i].Obj().spec.node_name;
      pods.erase(pods.begin() + i);
    } else if (op < 8 && !node_objs.empty()) {  // a node changes zone
      auto it = node_objs.begin();
      std::advance(it, pick(static_cast<int>(node_objs.size())));
      auto updated = node_obj(it->first, pick(4));
      cache_.UpdateNode(*it->second, updated);
      log += " relabel " + it->first;
      it->second = updated;
    } else if (op == 8 && node_objs.size() > 2) {  // a node leaves
      auto it = node_objs.begin();
      std::advance(it, pick(static_cast<int>(node_objs.size())));
      cache_.RemoveNode(*it->second);
      log += " remove " + it->first;
      std::erase(nodes, it->first);
      node_objs.erase(it);
    } else {  // a node joins
      std::string name = "n" + std::to_string(next_node++);
      node_objs[name] = node_obj(name, pick(4));
      cache_.AddNode(node_objs[name]);
      nodes.push_back(name);
    }
    ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
    fwk_->SetSnapshot(&snapshot_);
    framework::Snapshot by_hand(snapshot_.nodes());
    full_fwk->SetSnapshot(&by_hand);
    for (const PodBuilder& pod : incoming) {
      framework::CycleState kept_state, full_state;
      framework::PreFilterResult r1, r2;
      std::set<std::string> narrowed;
      const framework::PodInfoPtr info = pod.Info();
      fwk_->RunPreFilterPlugins(kept_state, *info, snapshot_.nodes(), &r1,
                                &narrowed);
      full_fwk->RunPreFilterPlugins(full_state, *info, by_hand.nodes(), &r2,
                                    &narrowed);
      const PreFilterState* kept = GetPreFilterState(kept_state);
      const PreFilterState* full = GetPreFilterState(full_state);
      ASSERT_NE(kept, nullptr);
      ASSERT_NE(full, nullptr);
      ASSERT_EQ(kept->counts.size(), full->counts.size());
      for (size_t c = 0; c < kept->counts.size(); ++c) {
        ASSERT_EQ(domains(*kept, c), domains(*full, c))
            << "step " << step << " pod " << info->pod().metadata.name
            << " constraint " << c << "; before it:"
            << log.substr(log.size() > 2000 ? log.size() - 2000 : 0);
        ASSERT_EQ(kept->MinMatchNum(c), full->MinMatchNum(c))
            << "step " << step << " pod " << info->pod().metadata.name;
      }
    }
  }
  // The counts were kept, not counted afresh: with nothing changed in
  // between, two cycles read the same domain table.
  framework::CycleState first, second;
  framework::PreFilterResult r;
  std::set<std::string> narrowed;
  const framework::PodInfoPtr info = incoming[0].Info();
  fwk_->RunPreFilterPlugins(first, *info, snapshot_.nodes(), &r, &narrowed);
  fwk_->RunPreFilterPlugins(second, *info, snapshot_.nodes(), &r, &narrowed);
  ASSERT_NE(GetPreFilterState(first), nullptr);
  ASSERT_NE(GetPreFilterState(second), nullptr);
  EXPECT_EQ(GetPreFilterState(first)->counts[0].domains,
            GetPreFilterState(second)->counts[0].domains);
  EXPECT_GE(next_pod, 100);
}

}  // namespace
}  // namespace ksched::scheduler

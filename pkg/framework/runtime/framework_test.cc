#include "pkg/framework/runtime/framework.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "pkg/framework/cancel_cause.h"
#include "pkg/framework/cycle_recorder.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/util/fake_clock.h"

namespace ksched::framework {
namespace {

// A configurable plugin serving every extension point; it logs its calls.
struct Log {
  std::vector<std::string> calls;
};

class FakePlugin : public QueueSortPlugin,
                   public PreFilterPlugin,
                   public FilterPlugin,
                   public PostFilterPlugin,
                   public PreScorePlugin,
                   public ScorePlugin,
                   public ReservePlugin,
                   public PermitPlugin,
                   public PreBindPlugin,
                   public BindPlugin,
                   public PostBindPlugin {
 public:
  struct Behaviour {
    Status pre_filter;
    std::optional<std::set<std::string>> pre_filter_nodes;
    Status filter;
    std::string reject_node;  // Filter rejects only this node when set
    Status pre_score;
    std::map<std::string, int64_t> scores;
    bool normalize_to_100 = false;
    Status reserve;
    Status permit;
    std::chrono::milliseconds permit_timeout{0};
    Status pre_bind_pre_flight;
    Status bind;
  };

  FakePlugin(std::string name, Behaviour b, Log* log)
      : name_(std::move(name)), b_(std::move(b)), log_(log) {}

  std::string_view Name() const override { return name_; }
  bool Less(const QueuedPodInfo&, const QueuedPodInfo&) const override {
    return false;
  }
  Status PreFilter(CycleState&, const PodInfo&, const std::vector<NodeInfoPtr>&,
                   PreFilterResult* r) override {
    log_->calls.push_back("PreFilter/" + name_);
    if (b_.pre_filter_nodes) r->node_names = b_.pre_filter_nodes;
    return b_.pre_filter;
  }
  Status Filter(const CycleState&, const PodInfo&,
                const NodeInfo& node) const override {
    if (!b_.reject_node.empty() && node.name() != b_.reject_node)
      return Status();
    return b_.filter;
  }
  Status PostFilter(CycleState&, const PodInfo&, const NodeToStatus&,
                    PostFilterResult*) override {
    return Status::Unschedulable(name_ + " could not help");
  }
  Status PreScore(CycleState&, const PodInfo&,
                  const std::vector<NodeInfoPtr>&) override {
    return b_.pre_score;
  }
  Status Score(const CycleState&, const PodInfo&, const NodeInfo& node,
               int64_t* score) const override {
    auto it = b_.scores.find(node.name());
    *score = it == b_.scores.end() ? 0 : it->second;
    return Status();
  }
  bool HasNormalizeScore() const override { return b_.normalize_to_100; }
  Status NormalizeScore(const CycleState&, const PodInfo&,
                        NodeScoreList& scores) const override {
    int64_t max = 0;
    for (const auto& s : scores) max = std::max(max, s.score);
    for (auto& s : scores) s.score = max == 0 ? 0 : s.score * 100 / max;
    return Status();
  }
  Status Reserve(CycleState&, const PodInfo&, const std::string&) override {
    log_->calls.push_back("Reserve/" + name_);
    return b_.reserve;
  }
  void Unreserve(CycleState&, const PodInfo&, const std::string&) override {
    log_->calls.push_back("Unreserve/" + name_);
  }
  Status Permit(CycleState&, const PodInfo&, const std::string&,
                std::chrono::milliseconds* timeout) override {
    *timeout = b_.permit_timeout;
    return b_.permit;
  }
  Status PreBindPreFlight(CycleState&, const PodInfo&, const std::string&,
                          PreBindPreFlightResult&) override {
    log_->calls.push_back("PreBindPreFlight/" + name_);
    return b_.pre_bind_pre_flight;
  }
  Status PreBind(CycleState&, const PodInfo&, const std::string&) override {
    log_->calls.push_back("PreBind/" + name_);
    return Status();
  }
  Status Bind(CycleState&, const PodInfo&, const std::string&) override {
    log_->calls.push_back("Bind/" + name_);
    return b_.bind;
  }
  void PostBind(CycleState&, const PodInfo&, const std::string&) override {}

 private:
  std::string name_;
  Behaviour b_;
  Log* log_;
};

// A plugin that only filters (to test "does not extend").
class FilterOnly final : public FilterPlugin {
 public:
  std::string_view Name() const override { return "FilterOnly"; }
  Status Filter(const CycleState&, const PodInfo&,
                const NodeInfo&) const override {
    return Status();
  }
};

// A PreBind plugin that allows parallel PreBind and runs `body` in it.
class ParallelPreBind final : public PreBindPlugin {
 public:
  ParallelPreBind(std::string name, std::function<Status(CycleState&)> body)
      : name_(std::move(name)), body_(std::move(body)) {}
  std::string_view Name() const override { return name_; }
  Status PreBindPreFlight(CycleState&, const PodInfo&, const std::string&,
                          PreBindPreFlightResult& result) override {
    result.allow_parallel = true;
    return Status();
  }
  Status PreBind(CycleState& state, const PodInfo&,
                 const std::string&) override {
    return body_(state);
  }

 private:
  std::string name_;
  std::function<Status(CycleState&)> body_;
};

class FrameworkTest : public ::testing::Test {
 protected:
  void AddParallelPreBind(const std::string& name,
                          std::function<Status(CycleState&)> body) {
    ASSERT_TRUE(
        registry_
            .Register(name,
                      [name, body](const config::PluginArgs*, Handle&) {
                        return util::Result<std::unique_ptr<Plugin>>(
                            std::make_unique<ParallelPreBind>(name, body));
                      })
            .ok());
  }

  // A profile whose PreBind plugins are `names`, in order.
  util::Result<std::unique_ptr<Framework>> BuildPreBind(
      std::initializer_list<std::pair<const char*, int32_t>> names) {
    if (registry_.Find("Sorts") == nullptr) Add("Sorts");
    config::Plugins p;
    p.queue_sort = Enabled({{"Sorts", 0}});
    p.pre_bind = Enabled(names);
    p.bind = Enabled({{"Sorts", 0}});
    return Build(p);
  }

  void Add(const std::string& name, FakePlugin::Behaviour b = {}) {
    ASSERT_TRUE(
        registry_
            .Register(name,
                      [this, name, b](const config::PluginArgs*, Handle&) {
                        return util::Result<std::unique_ptr<Plugin>>(
                            std::make_unique<FakePlugin>(name, b, &log_));
                      })
            .ok());
  }

  // Every fake plugin is also a QueueSort plugin; unless told otherwise the
  // first MultiPoint plugin is kept as the profile's only one.
  util::Result<std::unique_ptr<Framework>> Build(config::Plugins p,
                                                 bool one_queue_sort = true) {
    if (one_queue_sort && p.queue_sort.enabled.empty() &&
        p.queue_sort.disabled.empty() && !p.multi_point.enabled.empty()) {
      p.queue_sort.disabled = {{"*", {}}};
      p.queue_sort.enabled = {{p.multi_point.enabled.front().name, {}}};
    }
    config::Profile profile;
    profile.scheduler_name = "test";
    profile.plugins = p;
    Framework::Options o;
    o.parallelizer = &parallelizer_;
    o.clock = &clock_;
    return Framework::Create(profile, registry_, o);
  }

  static config::PluginSet Enabled(
      std::initializer_list<std::pair<const char*, int32_t>> names) {
    config::PluginSet s;
    for (const auto& [n, w] : names) {
      s.enabled.push_back({n, w == 0 ? std::nullopt : std::optional(w)});
    }
    return s;
  }

  Registry registry_;
  Log log_;
  Parallelizer parallelizer_{2};
  util::FakeClock clock_;
};

std::vector<std::string> PointOf(const Framework& f, const std::string& point) {
  for (const auto& [name, plugins] : f.ListPlugins()) {
    if (name == point) return plugins;
  }
  return {};
}

TEST_F(FrameworkTest, MultiPointExpandsToEveryExtensionPointAPluginServes) {
  Add("A");
  Add("B");
  registry_
      .Register("FilterOnly",
                [](const config::PluginArgs*, Handle&) {
                  return util::Result<std::unique_ptr<Plugin>>(
                      std::make_unique<FilterOnly>());
                })
      .ok();
  config::Plugins p;
  p.multi_point = Enabled({{"A", 0}, {"FilterOnly", 0}, {"B", 3}});
  auto f = Build(p);
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_EQ(PointOf(**f, "Filter"),
            (std::vector<std::string>{"A", "FilterOnly", "B"}));
  EXPECT_EQ(PointOf(**f, "Score"), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(PointOf(**f, "Bind"), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ((*f)->ScoreWeight("A"), 1);
  EXPECT_EQ((*f)->ScoreWeight("B"), 3);
}

TEST_F(FrameworkTest, ExplicitEntryOverridesMultiPointOrderAndWeight) {
  Add("A");
  Add("B");
  Add("C");
  config::Plugins p;
  p.multi_point = Enabled({{"A", 1}, {"B", 1}, {"C", 1}});
  p.queue_sort.disabled = {{"*", {}}};
  p.queue_sort.enabled = {{"C", {}}};
  p.score.enabled = {{"C", 7}};
  p.filter.disabled = {{"B", {}}};
  auto f = Build(p);
  ASSERT_TRUE(f.ok()) << f.error().message();
  // Overridden plugins come first, then MultiPoint's own.
  EXPECT_EQ(PointOf(**f, "Score"), (std::vector<std::string>{"C", "A", "B"}));
  EXPECT_EQ((*f)->ScoreWeight("C"), 7);
  EXPECT_EQ(PointOf(**f, "Filter"), (std::vector<std::string>{"A", "C"}));
  EXPECT_EQ(PointOf(**f, "QueueSort"), (std::vector<std::string>{"C"}));
}

TEST_F(FrameworkTest, ProfileErrorsAreExplained) {
  Add("A");
  registry_
      .Register("FilterOnly",
                [](const config::PluginArgs*, Handle&) {
                  return util::Result<std::unique_ptr<Plugin>>(
                      std::make_unique<FilterOnly>());
                })
      .ok();
  {
    config::Plugins p;
    p.multi_point = Enabled({{"FilterOnly", 0}});
    auto f = Build(p, false);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(
        f.error().message(),
        "profile \"test\": only one queue sort plugin required, but got 0");
  }
  {
    config::Plugins p;
    p.queue_sort = Enabled({{"A", 0}});
    auto f = Build(p, false);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().message(),
              "profile \"test\": at least one bind plugin is needed");
  }
  {
    config::Plugins p;
    p.multi_point = Enabled({{"A", 0}});
    p.bind = Enabled({{"FilterOnly", 0}});
    auto f = Build(p, false);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().message(),
              "profile \"test\": plugin \"FilterOnly\" does not extend "
              "BindPlugin plugin");
  }
  {
    config::Plugins p;
    p.multi_point = Enabled({{"A", 0}, {"Missing", 0}});
    auto f = Build(p, false);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().message(),
              "profile \"test\": plugin \"Missing\" does not exist");
  }
  {
    // v1.36's placement points load, but ksched runs nothing there.
    config::Plugins p;
    p.multi_point = Enabled({{"A", 0}});
    p.placement_score = Enabled({{"A", 1}});
    auto f = Build(p, false);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().message(),
              "profile \"test\": plugins.placementScore: plugin \"A\" cannot "
              "run: ksched does not run pod-group placement plugins yet");
  }
  {
    config::Plugins p;
    p.multi_point = Enabled({{"A", 0}});
    p.placement_generate.disabled = {{"*", std::nullopt}};
    EXPECT_TRUE(Build(p, false).ok());
  }
  {
    config::Plugins p;
    p.multi_point = Enabled({{"A", -2}});
    auto f = Build(p, false);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.error().message().find("negative weight"), std::string::npos);
  }
}

TEST_F(FrameworkTest, FilterReturnsTheFirstRejectionWithItsPlugin) {
  Add("A", {.filter = Status::Unresolvable("A says no"), .reject_node = "n2"});
  Add("B", {.filter = Status::Unschedulable("B says no")});
  config::Plugins p;
  p.multi_point = Enabled({{"A", 0}, {"B", 0}});
  auto f = Build(p);
  ASSERT_TRUE(f.ok());
  CycleState state;
  auto pod = testing::PodBuilder("p").Info();
  auto n1 = testing::MakeNodeInfo(testing::NodeBuilder("n1").Obj());
  auto n2 = testing::MakeNodeInfo(testing::NodeBuilder("n2").Obj());
  Status s1 = (*f)->RunFilterPlugins(state, *pod, *n1);
  EXPECT_EQ(s1.code(), Code::kUnschedulable);
  EXPECT_EQ(s1.plugin(), "B");
  Status s2 = (*f)->RunFilterPlugins(state, *pod, *n2);
  EXPECT_EQ(s2.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s2.plugin(), "A");
  EXPECT_EQ(s2.Message(), "A says no");
  // A skipped Filter is not consulted.
  state.SkipFilter("A");
  EXPECT_EQ((*f)->RunFilterPlugins(state, *pod, *n2).plugin(), "B");
}

TEST_F(FrameworkTest, FilterErrorsBecomeErrorStatuses) {
  Add("A", {.filter = Status::Error("boom")});
  config::Plugins p;
  p.multi_point = Enabled({{"A", 0}});
  auto f = Build(p);
  ASSERT_TRUE(f.ok());
  CycleState state;
  Status s = (*f)->RunFilterPlugins(
      state, *testing::PodBuilder().Info(),
      *testing::MakeNodeInfo(testing::NodeBuilder("n").Obj()));
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "running filter plugin \"A\": boom");
}

TEST_F(FrameworkTest, PreFilterMergesResultsAndExplainsAnEmptyIntersection) {
  Add("A", {.pre_filter_nodes = std::set<std::string>{"n1", "n2"}});
  Add("B", {.pre_filter_nodes = std::set<std::string>{"n2", "n3"}});
  Add("C", {.pre_filter_nodes = std::set<std::string>{"n3"}});
  Add("D", {.pre_filter = Status::Skip()});
  config::Plugins p;
  p.multi_point = Enabled({{"A", 0}, {"B", 0}, {"D", 0}});
  auto f = Build(p);
  ASSERT_TRUE(f.ok());
  CycleState state;
  PreFilterResult r;
  std::set<std::string> narrowing;
  auto pod = testing::PodBuilder().Info();
  Status s = (*f)->RunPreFilterPlugins(state, *pod, {}, &r, &narrowing);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(*r.node_names, (std::set<std::string>{"n2"}));
  EXPECT_TRUE(state.FilterSkipped("D"));
  EXPECT_FALSE(state.FilterSkipped("A"));

  config::Plugins p2;
  p2.multi_point = Enabled({{"A", 0}, {"C", 0}});
  auto f2 = Build(p2);
  ASSERT_TRUE(f2.ok());
  CycleState state2;
  narrowing.clear();
  s = (*f2)->RunPreFilterPlugins(state2, *pod, {}, &r, &narrowing);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(),
            "node(s) didn't satisfy plugin(s) [A C] simultaneously");
}

TEST_F(FrameworkTest,
       PreFilterUnschedulableLetsTheOthersRunButUnresolvableStops) {
  Add("A", {.pre_filter = Status::Unschedulable("not now")});
  Add("B");
  Add("C", {.pre_filter = Status::Unresolvable("never")});
  auto pod = testing::PodBuilder().Info();
  {
    config::Plugins p;
    p.multi_point = Enabled({{"A", 0}, {"B", 0}});
    auto f = Build(p);
    ASSERT_TRUE(f.ok());
    CycleState state;
    PreFilterResult r;
    std::set<std::string> n;
    log_.calls.clear();
    Status s = (*f)->RunPreFilterPlugins(state, *pod, {}, &r, &n);
    EXPECT_EQ(s.code(), Code::kUnschedulable);
    EXPECT_EQ(s.plugin(), "A");
    EXPECT_EQ(log_.calls,
              (std::vector<std::string>{"PreFilter/A", "PreFilter/B"}));
  }
  {
    config::Plugins p;
    p.multi_point = Enabled({{"C", 0}, {"B", 0}});
    auto f = Build(p);
    ASSERT_TRUE(f.ok());
    CycleState state;
    PreFilterResult r;
    std::set<std::string> n;
    log_.calls.clear();
    Status s = (*f)->RunPreFilterPlugins(state, *pod, {}, &r, &n);
    EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_EQ(log_.calls, std::vector<std::string>{"PreFilter/C"});
  }
}

TEST_F(FrameworkTest, ScoresAreNormalizedWeightedAndSummed) {
  Add("A", {.scores = {{"n1", 10}, {"n2", 5}}, .normalize_to_100 = true});
  Add("B", {.scores = {{"n1", 0}, {"n2", 40}}});
  config::Plugins p;
  p.multi_point = Enabled({{"A", 2}, {"B", 1}});
  auto f = Build(p);
  ASSERT_TRUE(f.ok());
  std::vector<NodeInfoPtr> nodes;
  for (int i = 1; i <= 40; ++i) {  // enough nodes to use the worker pool
    nodes.push_back(testing::MakeNodeInfo(
        testing::NodeBuilder("n" + std::to_string(i)).Obj()));
  }
  CycleState state;
  std::vector<NodePluginScores> scores;
  auto pod = testing::PodBuilder().Info();
  ASSERT_TRUE((*f)->RunPreScorePlugins(state, *pod, nodes).IsSuccess());
  Status s = (*f)->RunScorePlugins(state, *pod, nodes, &scores);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  ASSERT_EQ(scores.size(), 40u);
  EXPECT_EQ(scores[0].total_score, 100 * 2 + 0);  // n1
  EXPECT_EQ(scores[1].total_score, 50 * 2 + 40);  // n2
  EXPECT_EQ(scores[2].total_score, 0);
}

TEST_F(FrameworkTest, ScoreOutOfRangeIsAnError) {
  Add("A", {.scores = {{"n1", 101}}});
  config::Plugins p;
  p.multi_point = Enabled({{"A", 0}});
  auto f = Build(p);
  ASSERT_TRUE(f.ok());
  CycleState state;
  std::vector<NodePluginScores> scores;
  Status s = (*f)->RunScorePlugins(
      state, *testing::PodBuilder().Info(),
      {testing::MakeNodeInfo(testing::NodeBuilder("n1").Obj())}, &scores);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "plugin \"A\" returns an invalid score 101, it should in the range "
            "of [0, 100] after normalizing");
}

TEST_F(FrameworkTest, PreScoreSkipSkipsThatPluginsScore) {
  Add("A", {.pre_score = Status::Skip(), .scores = {{"n1", 90}}});
  Add("B", {.scores = {{"n1", 10}}});
  config::Plugins p;
  p.multi_point = Enabled({{"A", 0}, {"B", 0}});
  auto f = Build(p);
  ASSERT_TRUE(f.ok());
  CycleState state;
  auto pod = testing::PodBuilder().Info();
  std::vector<NodeInfoPtr> nodes = {
      testing::MakeNodeInfo(testing::NodeBuilder("n1").Obj())};
  ASSERT_TRUE((*f)->RunPreScorePlugins(state, *pod, nodes).IsSuccess());
  std::vector<NodePluginScores> scores;
  ASSERT_TRUE((*f)->RunScorePlugins(state, *pod, nodes, &scores).IsSuccess());
  EXPECT_EQ(scores[0].total_score, 10);
}

TEST_F(FrameworkTest, ReserveFailureRejectsAndUnreserveRunsInReverse) {
  Add("A");
  Add("B", {.reserve = Status::Unschedulable("full")});
  config::Plugins p;
  p.multi_point = Enabled({{"A", 0}, {"B", 0}});
  auto f = Build(p);
  ASSERT_TRUE(f.ok());
  CycleState state;
  auto pod = testing::PodBuilder().Info();
  log_.calls.clear();
  Status s = (*f)->RunReservePluginsReserve(state, *pod, "n1");
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "B");
  (*f)->RunReservePluginsUnreserve(state, *pod, "n1");
  EXPECT_EQ(log_.calls,
            (std::vector<std::string>{"Reserve/A", "Reserve/B", "Unreserve/B",
                                      "Unreserve/A"}));
}

TEST_F(FrameworkTest, PermitCollectsWaitsCappedAtFifteenMinutes) {
  Add("A",
      {.permit = Status(Code::kWait), .permit_timeout = std::chrono::hours(1)});
  Add("B", {.permit = Status(Code::kWait, "waiting for the group"),
            .permit_timeout = std::chrono::milliseconds(500)});
  Add("C", {.permit = Status::Unschedulable("denied")});
  auto pod = testing::PodBuilder("p").Info();
  config::Plugins p;
  p.multi_point = Enabled({{"A", 0}, {"B", 0}});
  auto f = Build(p);
  ASSERT_TRUE(f.ok());
  CycleState state;
  std::vector<std::pair<std::string, std::chrono::milliseconds>> waits;
  Status s = (*f)->RunPermitPlugins(state, *pod, "n1", &waits);
  EXPECT_TRUE(s.IsWait());
  // v1.36: the last waiting plugin's reasons, then kube's own.
  EXPECT_EQ(s.Message(),
            "waiting for the group, one or more plugins asked to wait and no "
            "plugin rejected pod");
  ASSERT_EQ(waits.size(), 2u);
  EXPECT_EQ(waits[0].second, std::chrono::minutes(15));
  EXPECT_EQ(waits[1].second, std::chrono::milliseconds(500));

  config::Plugins p2;
  p2.multi_point = Enabled({{"A", 0}, {"C", 0}});
  auto f2 = Build(p2);
  ASSERT_TRUE(f2.ok());
  s = (*f2)->RunPermitPlugins(state, *pod, "n1", &waits);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "C");
}

// kube v1.35's RunPreBindPreFlights: Success when one plugin's PreBind will
// work, Skip when none will (and those are then left out of PreBind), an
// error wrapped with the plugin's name, and any other code refused.
TEST_F(FrameworkTest, PreBindPreFlightsDecideWhichPreBindsRun) {
  Add("Works");
  Add("Idle", {.pre_bind_pre_flight = Status::Skip()});
  Add("Broken", {.pre_bind_pre_flight = Status::Error("no state")});
  Add("Odd", {.pre_bind_pre_flight = Status::Unschedulable("huh")});
  auto pod = testing::PodBuilder().Info();
  auto build = [&](std::initializer_list<std::pair<const char*, int32_t>> n) {
    config::Plugins p;
    p.queue_sort = Enabled({{"Works", 0}});
    p.pre_bind = Enabled(n);
    p.bind = Enabled({{"Works", 0}});
    return Build(p);
  };

  auto f = build({{"Works", 0}, {"Idle", 0}});
  ASSERT_TRUE(f.ok()) << f.error().message();
  CycleState state;
  log_.calls.clear();
  EXPECT_TRUE((*f)->RunPreBindPreFlights(state, *pod, "n1").IsSuccess());
  ASSERT_TRUE((*f)->RunPreBindPlugins(state, *pod, "n1").IsSuccess());
  EXPECT_EQ(log_.calls, (std::vector<std::string>{"PreBindPreFlight/Works",
                                                  "PreBindPreFlight/Idle",
                                                  "PreBind/Works"}));

  f = build({{"Idle", 0}});
  ASSERT_TRUE(f.ok());
  CycleState idle;
  EXPECT_TRUE((*f)->RunPreBindPreFlights(idle, *pod, "n1").IsSkip());

  f = build({{"Works", 0}, {"Broken", 0}});
  ASSERT_TRUE(f.ok());
  CycleState broken;
  Status s = (*f)->RunPreBindPreFlights(broken, *pod, "n1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "running PreBindPreFlight \"Broken\": no state");

  f = build({{"Odd", 0}});
  ASSERT_TRUE(f.ok());
  CycleState odd;
  s = (*f)->RunPreBindPreFlights(odd, *pod, "n1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "PreBindPreFlight Odd returned \"Unschedulable\", which is "
            "unsupported. It is supposed to return Success, Skip, or Error "
            "status");

  // Without the pre-flights (the gate off), every PreBind runs.
  f = build({{"Works", 0}, {"Idle", 0}});
  ASSERT_TRUE(f.ok());
  CycleState v132;
  log_.calls.clear();
  ASSERT_TRUE((*f)->RunPreBindPlugins(v132, *pod, "n1").IsSuccess());
  EXPECT_EQ(log_.calls,
            (std::vector<std::string>{"PreBind/Works", "PreBind/Idle"}));
}

// v1.36: neighbouring PreBind plugins that allow it at PreBindPreFlight
// (VolumeBinding and DynamicResources) run at the same time.
TEST_F(FrameworkTest, ParallelPreBindPluginsRunTogether) {
  std::mutex mu;
  std::condition_variable cv;
  int started = 0;
  // Each waits for the other to start: run in turn, the first would wait
  // in vain.
  auto meet = [&](CycleState&) {
    std::unique_lock lock(mu);
    ++started;
    cv.notify_all();
    return cv.wait_for(lock, std::chrono::seconds(20),
                       [&] { return started == 2; })
               ? Status()
               : Status::Error("ran alone");
  };
  AddParallelPreBind("Volumes", meet);
  AddParallelPreBind("Claims", meet);
  auto f = BuildPreBind({{"Volumes", 0}, {"Claims", 0}});
  ASSERT_TRUE(f.ok()) << f.error().message();
  auto pod = testing::PodBuilder().Info();
  CycleState state;
  ASSERT_TRUE((*f)->RunPreBindPreFlights(state, *pod, "n1").IsSuccess());
  Status s = (*f)->RunPreBindPlugins(state, *pod, "n1");
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(started, 2);
}

// Waits (boundedly) for the binding cycle's cancellation and fails with
// its cause, as a plugin whose API call is cut short does.
Status AwaitCancellation(CycleState& state, std::string* seen) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    const CancelCause* cancel = state.binding_cancellation();
    if (cancel != nullptr && cancel->cancelled()) {
      *seen = cancel->cause();
      return Status::Error(cancel->cause());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Status();
}

// The first plugin of a parallel group to fail cancels the others; its
// status is the result, and the plugins after the group do not run.
TEST_F(FrameworkTest, TheFirstParallelPreBindFailureCancelsTheOthers) {
  std::string seen;
  AddParallelPreBind("Fails", [](CycleState&) {
    return Status::Error("claim write refused");
  });
  AddParallelPreBind(
      "Waits", [&](CycleState& s) { return AwaitCancellation(s, &seen); });
  Add("After");
  auto f = BuildPreBind({{"Waits", 0}, {"Fails", 0}, {"After", 0}});
  ASSERT_TRUE(f.ok()) << f.error().message();
  auto pod = testing::PodBuilder().Info();
  CycleState state;
  ASSERT_TRUE((*f)->RunPreBindPreFlights(state, *pod, "n1").IsSuccess());
  log_.calls.clear();
  Status s = (*f)->RunPreBindPlugins(state, *pod, "n1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "running PreBind plugin \"Fails\": claim write refused");
  EXPECT_EQ(seen, "some other PreBind operation failed");
  EXPECT_EQ(log_.calls, std::vector<std::string>{});
  // The group's cancellation does not outlive it.
  EXPECT_EQ(state.binding_cancellation(), nullptr);
}

// The binding cycle's own cancellation (preemption, v1.36) reaches every
// plugin of a group.
TEST_F(FrameworkTest, PreemptionCancelsAParallelPreBindGroup) {
  std::string seen_a;
  std::string seen_b;
  AddParallelPreBind(
      "A", [&](CycleState& s) { return AwaitCancellation(s, &seen_a); });
  AddParallelPreBind(
      "B", [&](CycleState& s) { return AwaitCancellation(s, &seen_b); });
  auto f = BuildPreBind({{"A", 0}, {"B", 0}});
  ASSERT_TRUE(f.ok()) << f.error().message();
  auto pod = testing::PodBuilder().Info();
  CycleState state;
  ASSERT_TRUE((*f)->RunPreBindPreFlights(state, *pod, "n1").IsSuccess());
  CancelCause preempted;
  preempted.Cancel("preempted by DefaultPreemption");
  state.set_binding_cancellation(&preempted);
  Status s = (*f)->RunPreBindPlugins(state, *pod, "n1");
  EXPECT_EQ(s.code(), Code::kError);
  // Whichever failed first: both saw the preemption.
  EXPECT_TRUE(
      s.Message() ==
          "running PreBind plugin \"A\": preempted by DefaultPreemption" ||
      s.Message() ==
          "running PreBind plugin \"B\": preempted by DefaultPreemption")
      << s.Message();
  EXPECT_EQ(seen_a, "preempted by DefaultPreemption");
  EXPECT_EQ(seen_b, "preempted by DefaultPreemption");
  EXPECT_EQ(state.binding_cancellation(), &preempted);
}

TEST_F(FrameworkTest, BindSkipPassesToTheNextBinder) {
  Add("A", {.bind = Status::Skip()});
  Add("B");
  Add("C");
  config::Plugins p;
  p.multi_point = Enabled({{"A", 0}, {"B", 0}, {"C", 0}});
  auto f = Build(p);
  ASSERT_TRUE(f.ok());
  CycleState state;
  log_.calls.clear();
  Status s = (*f)->RunBindPlugins(state, *testing::PodBuilder().Info(), "n1");
  EXPECT_TRUE(s.IsSuccess());
  EXPECT_EQ(log_.calls, (std::vector<std::string>{"Bind/A", "Bind/B"}));
}

TEST_F(FrameworkTest, PostFilterCollectsReasonsOfEveryPlugin) {
  Add("A");
  Add("B");
  config::Plugins p;
  p.multi_point = Enabled({{"A", 0}, {"B", 0}});
  auto f = Build(p);
  ASSERT_TRUE(f.ok());
  CycleState state;
  PostFilterResult r;
  Status s = (*f)->RunPostFilterPlugins(state, *testing::PodBuilder().Info(),
                                        NodeToStatus(), &r);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "A");
  EXPECT_EQ(s.reasons(),
            (std::vector<std::string>{"A could not help", "B could not help"}));
}

TEST_F(FrameworkTest, ARecordedCycleKeepsEveryPluginsAnswerPerNode) {
  Add("A", {.pre_filter = Status::Skip(), .pre_score = Status::Skip()});
  Add("B", {.pre_filter_nodes = std::set<std::string>{"n1", "n2"},
            .filter = Status::Unschedulable("B says no"),
            .reject_node = "n2",
            .scores = {{"n1", 10}, {"n2", 20}},
            .normalize_to_100 = true,
            .permit = Status(Code::kWait),
            .permit_timeout = std::chrono::seconds(5)});
  Add("C", {.filter = Status::Unschedulable("C says no"),
            .reject_node = "n2",
            .scores = {{"n1", 3}}});
  config::Plugins p;
  p.multi_point = Enabled({{"A", 0}, {"B", 2}, {"C", 0}});
  auto f = Build(p);
  ASSERT_TRUE(f.ok()) << f.error().message();
  std::vector<NodeInfoPtr> nodes = {
      testing::MakeNodeInfo(testing::NodeBuilder("n1").Obj()),
      testing::MakeNodeInfo(testing::NodeBuilder("n2").Obj())};
  auto pod = testing::PodBuilder("p").Info();
  CycleRecorder recorder;
  CycleState state;
  state.set_recorder(&recorder);

  PreFilterResult pre;
  std::set<std::string> narrowing;
  ASSERT_TRUE((*f)->RunPreFilterPlugins(state, *pod, nodes, &pre, &narrowing)
                  .IsSuccess());
  EXPECT_EQ(recorder.pre_filter_status(),
            (std::map<std::string, std::string>{
                {"A", "skip"}, {"B", "success"}, {"C", "success"}}));
  EXPECT_EQ(
      recorder.pre_filter_result(),
      (std::map<std::string, std::vector<std::string>>{{"B", {"n1", "n2"}}}));

  // Every plugin answers for every node; the verdict stays the first no.
  recorder.BeginFilter(nodes);
  EXPECT_TRUE((*f)->RunFilterPlugins(state, *pod, *nodes[0]).IsSuccess());
  Status n2 = (*f)->RunFilterPlugins(state, *pod, *nodes[1]);
  EXPECT_EQ(n2.Message(), "B says no");
  EXPECT_EQ(n2.plugin(), "B");
  using Verdicts = CycleRecorder::Verdicts;
  EXPECT_EQ(
      recorder.FilterResults(),
      (std::map<std::string, Verdicts>{
          {"n1", {{"B", {}, false}, {"C", {}, false}}},
          {"n2", {{"B", {"B says no"}, false}, {"C", {"C says no"}, false}}}}));
  // A node copy (as preemption filters) has no slot and is not recorded.
  NodeInfoPtr copy = std::make_shared<NodeInfo>(*nodes[0]);
  (void)(*f)->RunFilterPlugins(state, *pod, *copy);
  EXPECT_EQ(recorder.FilterResults().size(), 2u);

  ASSERT_TRUE((*f)->RunPreScorePlugins(state, *pod, nodes).IsSuccess());
  EXPECT_EQ(recorder.pre_score(),
            (std::map<std::string, std::string>{
                {"A", "skip"}, {"B", "success"}, {"C", "success"}}));
  std::vector<NodePluginScores> scores;
  ASSERT_TRUE((*f)->RunScorePlugins(state, *pod, nodes, &scores).IsSuccess());
  const auto& recorded = recorder.scores();
  // B: raw 10 / 20, normalised to 50 / 100, weight 2; C: raw, weight 1.
  EXPECT_EQ(recorded.at("n1").at("B").raw, 10);
  EXPECT_EQ(recorded.at("n1").at("B").normalized, 50);
  EXPECT_EQ(recorded.at("n1").at("B").weighted, 100);
  EXPECT_EQ(recorded.at("n2").at("B").weighted, 200);
  EXPECT_EQ(recorded.at("n1").at("C").weighted, 3);
  EXPECT_FALSE(recorded.at("n1").count("A")) << "A skipped PreScore";
  // The recorded weighted scores add up to the totals the cycle used.
  for (const NodePluginScores& node : scores) {
    int64_t sum = 0;
    for (const auto& [plugin, s] : recorded.at(node.node->name())) {
      sum += s.weighted;
    }
    EXPECT_EQ(sum, node.total_score) << node.node->name();
  }

  ASSERT_TRUE((*f)->RunReservePluginsReserve(state, *pod, "n1").IsSuccess());
  EXPECT_EQ(recorder.reserve().at("B"), "success");
  std::vector<std::pair<std::string, std::chrono::milliseconds>> waits;
  EXPECT_TRUE((*f)->RunPermitPlugins(state, *pod, "n1", &waits).IsWait());
  EXPECT_EQ(recorder.permit(),
            (std::map<std::string, std::string>{
                {"A", "success"}, {"B", "wait"}, {"C", "success"}}));
  EXPECT_EQ(recorder.permit_timeout(),
            (std::map<std::string, std::string>{{"B", "5000ms"}}));
  ASSERT_TRUE((*f)->RunBindPlugins(state, *pod, "n1").IsSuccess());
  EXPECT_EQ(recorder.bind(),
            (std::map<std::string, std::string>{{"A", "success"}}));
  recorder.SelectNode("n1");

  // kube-scheduler-simulator's keys and shapes; scores as strings.
  EXPECT_EQ(
      recorder.ToSimulatorJson(),
      R"({"prefilter-result-status":{"A":"skip","B":"success","C":"success"},)"
      R"("prefilter-result":{"B":["n1","n2"]},)"
      R"("filter-result":{"n1":{"B":"passed","C":"passed"},)"
      R"("n2":{"B":"B says no","C":"C says no"}},)"
      R"("postfilter-result":{},)"
      R"("prescore-result":{"A":"skip","B":"success","C":"success"},)"
      R"("score-result":{"n1":{"B":"10","C":"3"},"n2":{"B":"20","C":"0"}},)"
      R"("finalscore-result":{"n1":{"B":"100","C":"3"},)"
      R"("n2":{"B":"200","C":"0"}},)"
      R"("reserve-result":{"A":"success","B":"success","C":"success"},)"
      R"("permit-result":{"A":"success","B":"wait","C":"success"},)"
      R"("permit-result-timeout":{"B":"5000ms"},)"
      R"("prebind-result":{},"bind-result":{"A":"success"},)"
      R"("selected-node":"n1"})");
}

}  // namespace
}  // namespace ksched::framework

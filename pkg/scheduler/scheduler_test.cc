// Tests of the scheduling loop (scheduler.{h,cc}), after kube-scheduler's
// schedule_one_test.go, eventhandlers_test.go and the binding-cycle cases of
// framework/runtime/framework_test.go. The cluster is a fake API server that
// records bindings and writes; informer events are delivered by the tests
// themselves (OnPod*/OnNode*), so every step happens when the test says so.
#include "pkg/scheduler/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "pkg/config/config.h"
#include "pkg/framework/cancel_cause.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/fake_api_server.h"
#include "pkg/scheduler/test_gate.h"
#include "pkg/util/fake_clock.h"

namespace ksched::scheduler {
namespace {

using framework::Code;
using framework::Status;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::NodeBuilder;
using testing::PodBuilder;
using ::testing::StartsWith;

using test::kWaitLimit;
constexpr char kProfile[] = "ksched";
constexpr char kTestA[] = "TestA";
constexpr char kTestB[] = "TestB";

using test::Gate;

// ---------------------------------------------------------------- plugins

// What a test plugin answers; Reserve, Permit and PreBind succeed and Bind
// skips (hands the pod to DefaultBinder) unless told otherwise.
struct Behaviour {
  Status reserve;
  Status permit;
  std::chrono::milliseconds permit_timeout{0};
  Status pre_bind;
  // What PreBindPreFlight answers: Success (PreBind will work, so the
  // node is written as nominatedNodeName first), Skip or an error.
  Status pre_flight;
  Status bind = Status::Skip();
  // PreBind fails with the binding cycle's cancellation cause when it was
  // cancelled (as a plugin whose next API write is cut short).
  bool pre_bind_stops_when_cancelled = false;
  // Registered at start-up (EnqueueExtensions): the events that may make a
  // pod this plugin rejected schedulable.
  std::vector<framework::ClusterEventWithHint> events = {
      {{framework::EventResource::kNode, framework::kAdd}, nullptr}};
};

// Called at every extension point a test plugin runs, from whichever thread
// runs it: (point, plugin, pod).
using Hook =
    std::function<void(std::string_view, std::string_view, const api::Pod&)>;

// Shared by the test plugins and the test: their behaviour, and the calls
// they saw in order ("Reserve:TestA", "Unreserve:TestB", ...).
class PluginControl {
 public:
  void Set(const std::string& plugin, Behaviour b) {
    std::lock_guard<std::mutex> lock(mu_);
    behaviours_[plugin] = std::move(b);
  }
  Behaviour Get(std::string_view plugin) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = behaviours_.find(std::string(plugin));
    return it == behaviours_.end() ? Behaviour() : it->second;
  }
  void SetHook(Hook hook) {
    std::lock_guard<std::mutex> lock(mu_);
    hook_ = std::move(hook);
  }
  void Called(std::string_view point, std::string_view plugin,
              const api::Pod& pod) {
    Hook hook;
    {
      std::lock_guard<std::mutex> lock(mu_);
      calls_.push_back(std::string(point) + ":" + std::string(plugin));
      hook = hook_;
    }
    if (hook) hook(point, plugin, pod);
  }
  std::vector<std::string> Calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  void ClearCalls() {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.clear();
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, Behaviour> behaviours_;
  std::vector<std::string> calls_;
  Hook hook_;
};

class RecordingPlugin final : public framework::PreFilterPlugin,
                              public framework::ReservePlugin,
                              public framework::PermitPlugin,
                              public framework::PreBindPlugin,
                              public framework::BindPlugin,
                              public framework::PostBindPlugin,
                              public framework::EnqueueExtensions {
 public:
  RecordingPlugin(std::string name, PluginControl* control)
      : name_(std::move(name)), control_(control) {}

  std::string_view Name() const override { return name_; }

  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override {
    return control_->Get(name_).events;
  }
  Status PreFilter(framework::CycleState&, const framework::PodInfo& pod,
                   const std::vector<framework::NodeInfoPtr>&,
                   framework::PreFilterResult*) override {
    control_->Called("PreFilter", name_, pod.pod());
    return Status();
  }
  Status Reserve(framework::CycleState&, const framework::PodInfo& pod,
                 const std::string&) override {
    control_->Called("Reserve", name_, pod.pod());
    return control_->Get(name_).reserve;
  }
  void Unreserve(framework::CycleState&, const framework::PodInfo& pod,
                 const std::string&) override {
    control_->Called("Unreserve", name_, pod.pod());
  }
  Status Permit(framework::CycleState&, const framework::PodInfo& pod,
                const std::string&,
                std::chrono::milliseconds* timeout) override {
    control_->Called("Permit", name_, pod.pod());
    Behaviour b = control_->Get(name_);
    *timeout = b.permit_timeout;
    return b.permit;
  }
  Status PreBindPreFlight(framework::CycleState&, const framework::PodInfo&,
                          const std::string&,
                          framework::PreBindPreFlightResult&) override {
    return control_->Get(name_).pre_flight;
  }
  Status PreBind(framework::CycleState& state, const framework::PodInfo& pod,
                 const std::string&) override {
    control_->Called("PreBind", name_, pod.pod());
    const Behaviour b = control_->Get(name_);
    const framework::CancelCause* cancel = state.binding_cancellation();
    if (b.pre_bind_stops_when_cancelled && cancel != nullptr &&
        cancel->cancelled()) {
      return Status::Error(cancel->cause());
    }
    return b.pre_bind;
  }
  Status Bind(framework::CycleState&, const framework::PodInfo& pod,
              const std::string&) override {
    control_->Called("Bind", name_, pod.pod());
    return control_->Get(name_).bind;
  }
  void PostBind(framework::CycleState&, const framework::PodInfo& pod,
                const std::string&) override {
    control_->Called("PostBind", name_, pod.pod());
  }

 private:
  const std::string name_;
  PluginControl* const control_;
};

using test::FakeApiServer;

// ---------------------------------------------------------------- fixture

struct StartOptions {
  int binding_workers = 0;
  std::chrono::nanoseconds assumed_pod_ttl = std::chrono::minutes(15);
  // TestA and TestB at Reserve, Permit, PreBind and PostBind (in that
  // order), and TestA at Bind ahead of DefaultBinder.
  bool test_plugins = true;
  // TestA at PreFilter too (for hooks that run inside the cycle).
  bool test_pre_filter = false;
  bool preemption = true;
  // Report to metrics_ (the scheduler then samples cycles for plugin
  // timings, drawing from the random source).
  bool metrics = false;
  bool record_failed_decisions = false;
  // kube-scheduler v1.35's gates unless set.
  config::FeatureGates features;
};

// What the framework and plugins report for metrics.
class RecordingMetrics final : public framework::MetricsRecorder {
 public:
  void ObserveExtensionPoint(std::string_view point, framework::Code status,
                             std::string_view,
                             std::chrono::nanoseconds) override {
    std::lock_guard lock(mu_);
    points.push_back(std::string(point) + ":" +
                     std::string(framework::CodeName(status)));
  }
  void ObservePlugin(std::string_view, std::string_view, framework::Code,
                     std::chrono::nanoseconds) override {}
  void ObservePreemptionAttempt() override {
    std::lock_guard lock(mu_);
    ++preemption_attempts;
  }
  void ObservePreemptionVictims(int n) override {
    std::lock_guard lock(mu_);
    victims.push_back(n);
  }
  void ObservePreemptionGoroutine(std::string_view result,
                                  std::chrono::nanoseconds) override {
    std::lock_guard lock(mu_);
    goroutines.emplace_back(result);
  }
  std::vector<std::string> goroutines;
  std::mutex mu_;
  std::vector<std::string> points;
  int preemption_attempts = 0;
  std::vector<int> victims;
};

class SchedulerTest : public ::testing::Test {
 protected:
  void TearDown() override {
    // A test that failed half-way may leave a binding held in a hook.
    control_.SetHook(nullptr);
    gate_.Open();
    sched_.reset();
  }

  bool Start(StartOptions o = {}) {
    registry_ = plugins::NewInTreeRegistry();
    for (const char* name : {kTestA, kTestB}) {
      auto registered = registry_.Register(
          name,
          [this, name](const config::PluginArgs*, framework::Handle&)
              -> util::Result<std::unique_ptr<framework::Plugin>> {
            return std::unique_ptr<framework::Plugin>(
                std::make_unique<RecordingPlugin>(name, &control_));
          });
      if (!registered.ok()) {
        ADD_FAILURE() << registered.error().message();
        return false;
      }
    }
    config::KubeSchedulerConfiguration cfg = config::DefaultConfig();
    config::Profile& profile = cfg.profiles.front();
    EXPECT_EQ(profile.scheduler_name, kProfile);
    config::Plugins& p = profile.plugins;
    if (o.test_plugins) {
      const std::vector<config::Plugin> both = {{kTestA, std::nullopt},
                                                {kTestB, std::nullopt}};
      p.reserve.enabled = both;
      p.permit.enabled = both;
      p.pre_bind.enabled = both;
      p.post_bind.enabled = both;
      // TestA first, then DefaultBinder (moved out of MultiPoint's order).
      p.bind.enabled = {{kTestA, std::nullopt},
                        {"DefaultBinder", std::nullopt}};
      p.bind.disabled = {{"DefaultBinder", std::nullopt}};
      if (o.test_pre_filter) p.pre_filter.enabled = {{kTestA, std::nullopt}};
    }
    if (!o.preemption) {
      p.post_filter.disabled.push_back({"DefaultPreemption", std::nullopt});
    }

    Scheduler::Dependencies deps;
    deps.clock = &clock_;
    deps.random = &random_;
    deps.binder = &api_;
    deps.writer = &api_;
    deps.objects = &objects_;
    deps.pod_lookup = [this](const std::string& ns, const std::string& name) {
      return api_.Get(ns, name);
    };
    deps.binding_workers = o.binding_workers;
    if (o.metrics) deps.metrics = &metrics_;
    deps.assumed_pod_ttl = o.assumed_pod_ttl;
    deps.record_failed_decisions = o.record_failed_decisions;
    deps.features = o.features;
    deps.on_attempt = [this](const AttemptOutcome& outcome) {
      {
        std::lock_guard<std::mutex> lock(outcomes_mu_);
        outcomes_.push_back(outcome);
      }
      outcomes_cv_.notify_all();
    };
    auto created = Scheduler::Create(cfg, registry_, std::move(deps));
    if (!created.ok()) {
      ADD_FAILURE() << created.error().message();
      return false;
    }
    sched_ = std::move(*created);
    return true;
  }

  static PodBuilder Pending(const std::string& name,
                            const std::string& cpu = "1") {
    return PodBuilder(name).SchedulerName(kProfile).Req(
        {{"cpu", cpu}, {"memory", "1Gi"}});
  }
  // Stores the pod in the API server and delivers its Add event.
  std::shared_ptr<const api::Pod> AddPod(const PodBuilder& builder) {
    std::shared_ptr<const api::Pod> pod = builder.Ptr();
    api_.Store(pod);
    sched_->OnPodAdd(pod);
    return pod;
  }
  static NodeBuilder MakeNode(const std::string& name,
                              const std::string& cpu = "4") {
    return NodeBuilder(name)
        .Label("kubernetes.io/hostname", name)
        .Capacity({{"cpu", cpu}, {"memory", "16Gi"}, {"pods", "110"}});
  }
  std::shared_ptr<const api::Node> AddNode(const std::string& name,
                                           const std::string& cpu = "4") {
    std::shared_ptr<const api::Node> node = MakeNode(name, cpu).Ptr();
    sched_->OnNodeAdd(node);
    return node;
  }
  // The informer's update for a binding: the API server's version of `pod`.
  std::shared_ptr<const api::Pod> ConfirmBinding(
      const std::shared_ptr<const api::Pod>& pod) {
    std::shared_ptr<const api::Pod> bound = api_.Get(*pod);
    EXPECT_NE(bound, nullptr);
    if (bound == nullptr) return nullptr;
    EXPECT_FALSE(bound->spec.node_name.empty());
    sched_->OnPodUpdate(pod, bound);
    return bound;
  }

  int64_t RequestedMilliCpu(const std::string& node) const {
    framework::NodeInfoPtr info = sched_->cache().GetNodeInfo(node);
    return info == nullptr ? -1 : info->requested().milli_cpu;
  }
  std::string WhereIs(const api::Pod& pod) const {
    return sched_->queue().Find(pod).first;
  }
  bool WaitForOutcomes(size_t n) {
    std::unique_lock<std::mutex> lock(outcomes_mu_);
    return outcomes_cv_.wait_for(lock, kWaitLimit,
                                 [&] { return outcomes_.size() >= n; });
  }
  std::vector<AttemptOutcome> Outcomes() {
    std::lock_guard<std::mutex> lock(outcomes_mu_);
    return outcomes_;
  }

  // The failure was written to the pod as kube-scheduler writes it: a
  // PodScheduled=False condition and a FailedScheduling event.
  void ExpectFailureRecorded(const std::string& pod, const std::string& reason,
                             const std::string& message) {
    std::vector<framework::PodStatusUpdate> writes = api_.StatusWrites(pod);
    ASSERT_FALSE(writes.empty()) << "no status written for " << pod;
    ASSERT_TRUE(writes.back().condition.has_value());
    const api::PodCondition& c = *writes.back().condition;
    EXPECT_EQ(c.type, api::kPodScheduled);
    EXPECT_EQ(c.status, "False");
    EXPECT_EQ(c.reason, reason);
    EXPECT_EQ(c.message, message);
    std::vector<FakeApiServer::Event> events = api_.Events(pod);
    ASSERT_FALSE(events.empty()) << "no event recorded for " << pod;
    EXPECT_EQ(events.back().type, "Warning");
    EXPECT_EQ(events.back().reason, "FailedScheduling");
    EXPECT_EQ(events.back().action, "Scheduling");
    EXPECT_EQ(events.back().note, message);
  }

  util::FakeClock clock_;
  util::DefaultRandom random_{1};
  framework::InMemoryClusterObjects objects_;
  FakeApiServer api_;
  RecordingMetrics metrics_;
  PluginControl control_;
  framework::Registry registry_;
  std::mutex outcomes_mu_;
  std::condition_variable outcomes_cv_;
  std::vector<AttemptOutcome> outcomes_;
  // What the tests' hooks hold bindings at.
  Gate gate_;
  // Last: destroyed (and drained) before what it uses.
  std::unique_ptr<Scheduler> sched_;
};

const std::vector<std::string> kSuccessfulCalls = {
    "Reserve:TestA", "Reserve:TestB",  "Permit:TestA",
    "Permit:TestB",  "PreBind:TestA",  "PreBind:TestB",
    "Bind:TestA",    "PostBind:TestA", "PostBind:TestB"};

// ---------------------------------------------------------------- success

// TestSchedulerScheduleOne "bind assumed pod scheduled".
TEST_F(SchedulerTest, SchedulesAssumesAndBindsThroughTheBinder) {
  ASSERT_TRUE(Start());
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  EXPECT_EQ(WhereIs(*pod), "active");

  ASSERT_TRUE(sched_->ScheduleOne());

  EXPECT_THAT(api_.Binds(), ElementsAre(std::make_pair(std::string("default/p"),
                                                       std::string("n1"))));
  std::vector<FakeApiServer::Event> events = api_.Events("default/p");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "Normal");
  EXPECT_EQ(events[0].reason, "Scheduled");
  EXPECT_EQ(events[0].action, "Binding");
  EXPECT_EQ(events[0].note, "Successfully assigned default/p to n1");
  // NominatedNodeNameForExpectation: the test plugins' PreBind may take
  // time (their PreBindPreFlight answers Success), so the node is written
  // as the pod's nominatedNodeName first, and nothing else.
  std::vector<framework::PodStatusUpdate> writes =
      api_.StatusWrites("default/p");
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].nominated_node_name, std::optional<std::string>("n1"));
  EXPECT_FALSE(writes[0].condition.has_value());
  // Every binding extension point ran once, PostBind last.
  EXPECT_EQ(control_.Calls(), kSuccessfulCalls);

  std::vector<AttemptOutcome> outcomes = Outcomes();
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].result, AttemptOutcome::Result::kScheduled);
  EXPECT_EQ(outcomes[0].pod, "default/p");
  EXPECT_EQ(outcomes[0].node, "n1");
  EXPECT_EQ(outcomes[0].profile, kProfile);

  // Out of the queue, no longer in flight.
  EXPECT_EQ(WhereIs(*pod), "");
  EXPECT_EQ(sched_->queue().InFlightPodCount(), 0u);

  // Assumed on n1 until the informer confirms the binding.
  EXPECT_TRUE(sched_->cache().IsAssumedPod(*pod));
  framework::PodInfoPtr cached = sched_->cache().GetPod(pod->metadata.uid);
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(cached->node_name(), "n1");
  EXPECT_EQ(RequestedMilliCpu("n1"), 1000);

  ASSERT_NE(ConfirmBinding(pod), nullptr);
  EXPECT_FALSE(sched_->cache().IsAssumedPod(*pod));
  cached = sched_->cache().GetPod(pod->metadata.uid);
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(cached->node_name(), "n1");
  // Counted once, not once assumed and once added.
  EXPECT_EQ(RequestedMilliCpu("n1"), 1000);
  EXPECT_EQ(sched_->cache().GetStats().pods, 1u);
}

TEST_F(SchedulerTest, AssumedPodsCountForTheNextCycle) {
  ASSERT_TRUE(Start());
  AddNode("n1", "2");
  AddNode("n2", "2");
  for (const char* name : {"a", "b", "c", "d"}) AddPod(Pending(name, "1500m"));
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(sched_->ScheduleOne());
  // None of the bindings was confirmed yet: the assumed pods alone keep a
  // second pod off each node.
  std::vector<AttemptOutcome> outcomes = Outcomes();
  ASSERT_EQ(outcomes.size(), 4u);
  int scheduled = 0;
  for (const AttemptOutcome& o : outcomes) {
    if (o.result == AttemptOutcome::Result::kScheduled) ++scheduled;
  }
  EXPECT_EQ(scheduled, 2);
  EXPECT_EQ(RequestedMilliCpu("n1"), 1500);
  EXPECT_EQ(RequestedMilliCpu("n2"), 1500);
  EXPECT_EQ(api_.Binds().size(), 2u);
}

// A released snapshot is built anew from the cache by the next cycle:
// the pods placed before still count, and new nodes are seen.
TEST_F(SchedulerTest, ACycleAfterReleaseSnapshotReadsTheWholeCache) {
  ASSERT_TRUE(Start());
  AddNode("n1", "2");
  AddPod(Pending("a", "1500m"));
  ASSERT_TRUE(sched_->ScheduleOne());
  sched_->ReleaseSnapshot();
  AddPod(Pending("b", "1500m"));
  ASSERT_TRUE(sched_->ScheduleOne());
  std::vector<AttemptOutcome> outcomes = Outcomes();
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].result, AttemptOutcome::Result::kScheduled);
  // a still holds 1500m of n1's 2 CPUs in the rebuilt snapshot.
  EXPECT_NE(outcomes[1].result, AttemptOutcome::Result::kScheduled);

  sched_->ReleaseSnapshot();
  AddNode("n2", "2");
  AddPod(Pending("c", "1500m"));
  ASSERT_TRUE(sched_->ScheduleOne());
  outcomes = Outcomes();
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(outcomes[2].result, AttemptOutcome::Result::kScheduled);
  EXPECT_EQ(outcomes[2].node, "n2");
  EXPECT_EQ(RequestedMilliCpu("n1"), 1500);
}

// The binding cycle runs on the pool: the loop goes on to the next pod
// while a binding is still in PreBind.
TEST_F(SchedulerTest, BindingWorkersBindOffTheSchedulingThread) {
  ASSERT_TRUE(Start({.binding_workers = 2}));
  const std::thread::id loop_thread = std::this_thread::get_id();
  std::mutex threads_mu;
  std::vector<std::thread::id> pre_bind_threads;
  control_.SetHook([&](std::string_view point, std::string_view plugin,
                       const api::Pod& pod) {
    if (point != "PreBind" || plugin != kTestA) return;
    {
      std::lock_guard<std::mutex> lock(threads_mu);
      pre_bind_threads.push_back(std::this_thread::get_id());
    }
    if (pod.metadata.name == "slow") {
      EXPECT_TRUE(gate_.Wait());
    }
  });
  AddNode("n1", "8");
  std::shared_ptr<const api::Pod> slow = AddPod(Pending("slow"));
  ASSERT_TRUE(sched_->ScheduleOne());
  // ScheduleOne returned with the slow pod's binding held in PreBind.
  EXPECT_TRUE(sched_->cache().IsAssumedPod(*slow));
  EXPECT_EQ(RequestedMilliCpu("n1"), 1000);

  std::vector<std::shared_ptr<const api::Pod>> fast;
  for (int i = 0; i < 4; ++i) {
    fast.push_back(AddPod(Pending("fast-" + std::to_string(i))));
    ASSERT_TRUE(sched_->ScheduleOne());
  }
  ASSERT_TRUE(WaitForOutcomes(4));
  for (const AttemptOutcome& o : Outcomes()) {
    EXPECT_NE(o.pod, "default/slow");
    EXPECT_EQ(o.result, AttemptOutcome::Result::kScheduled) << o.message;
  }
  for (const auto& [pod, node] : api_.Binds()) EXPECT_NE(pod, "default/slow");

  gate_.Open();
  ASSERT_TRUE(WaitForOutcomes(5));
  sched_->WaitForBindings();
  EXPECT_EQ(api_.Binds().size(), 5u);
  EXPECT_EQ(RequestedMilliCpu("n1"), 5000);
  for (const auto& pod : fast) {
    EXPECT_EQ(api_.Events("default/" + pod->metadata.name).size(), 1u);
  }
  std::lock_guard<std::mutex> lock(threads_mu);
  ASSERT_EQ(pre_bind_threads.size(), 5u);
  for (std::thread::id id : pre_bind_threads) EXPECT_NE(id, loop_thread);
}

// ---------------------------------------------------------------- failures

// A failure after Assume, from Reserve to Bind. After kube-scheduler's
// TestSchedulerScheduleOne ("error reserve pod", "error permit pod",
// "error prebind pod", "error bind forget pod") and the Unreserve ordering
// of framework_test.go's TestReservePlugins.
struct FailureCase {
  std::string name;
  std::function<void(PluginControl&, FakeApiServer&)> setup;
  std::vector<std::string> calls;
  std::string reason;
  std::string message;
  std::string queue;  // where the pod waits afterwards
  size_t binds = 0;   // Binding requests sent
};

// ctest lists each case by its name, not by its bytes.
void PrintTo(const FailureCase& c, std::ostream* os) { *os << c.name; }

class SchedulerFailureTest : public SchedulerTest,
                             public ::testing::WithParamInterface<FailureCase> {
};

TEST_P(SchedulerFailureTest, UnreservesInReverseForgetsAndRequeues) {
  const FailureCase& c = GetParam();
  c.setup(control_, api_);
  ASSERT_TRUE(Start());
  AddNode("n1");
  // Another pod already on the node: forgetting the failed one must bring
  // the node back to exactly this.
  AddPod(PodBuilder("running").Node("n1").Req({{"cpu", "500m"}}));
  ASSERT_EQ(RequestedMilliCpu("n1"), 500);
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));

  ASSERT_TRUE(sched_->ScheduleOne());

  EXPECT_EQ(control_.Calls(), c.calls);
  EXPECT_EQ(api_.Binds().size(), c.binds);
  // Forgotten: no longer in the cache, its room given back.
  EXPECT_EQ(sched_->cache().GetPod(pod->metadata.uid), nullptr);
  EXPECT_FALSE(sched_->cache().IsAssumedPod(*pod));
  EXPECT_EQ(RequestedMilliCpu("n1"), 500);
  // Back in the queue, its cycle over.
  EXPECT_EQ(WhereIs(*pod), c.queue);
  EXPECT_EQ(sched_->queue().InFlightPodCount(), 0u);

  ExpectFailureRecorded("default/p", c.reason, c.message);
  // No "Scheduled" event.
  for (const auto& e : api_.Events("default/p")) {
    EXPECT_NE(e.reason, "Scheduled");
  }
  std::vector<AttemptOutcome> outcomes = Outcomes();
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].result, c.reason == "Unschedulable"
                                    ? AttemptOutcome::Result::kUnschedulable
                                    : AttemptOutcome::Result::kError);
  EXPECT_EQ(outcomes[0].message, c.message);
}

Behaviour With(std::function<void(Behaviour&)> edit) {
  Behaviour b;
  edit(b);
  return b;
}

INSTANTIATE_TEST_SUITE_P(
    Failures, SchedulerFailureTest,
    ::testing::Values(
        FailureCase{"SecondReserveRejects",
                    [](PluginControl& c, FakeApiServer&) {
                      c.Set(kTestB, With([](Behaviour& b) {
                              b.reserve =
                                  Status::Unschedulable("reserve says no");
                            }));
                    },
                    {"Reserve:TestA", "Reserve:TestB", "Unreserve:TestB",
                     "Unreserve:TestA"},
                    "Unschedulable",
                    "0/1 nodes are available: 1 reserve says no.",
                    "unschedulable"},
        FailureCase{"FirstReserveErrs",
                    [](PluginControl& c, FakeApiServer&) {
                      c.Set(kTestA, With([](Behaviour& b) {
                              b.reserve = Status::Error("boom");
                            }));
                    },
                    // Unreserve runs for every Reserve plugin, reached or not.
                    {"Reserve:TestA", "Unreserve:TestB", "Unreserve:TestA"},
                    "SchedulerError",
                    "running Reserve plugin \"TestA\": boom",
                    "backoff"},
        FailureCase{"PermitRejects",
                    [](PluginControl& c, FakeApiServer&) {
                      c.Set(kTestB, With([](Behaviour& b) {
                              b.permit =
                                  Status::Unschedulable("permit says no");
                            }));
                    },
                    {"Reserve:TestA", "Reserve:TestB", "Permit:TestA",
                     "Permit:TestB", "Unreserve:TestB", "Unreserve:TestA"},
                    "Unschedulable",
                    "0/1 nodes are available: 1 permit says no.",
                    "unschedulable"},
        FailureCase{"PermitErrs",
                    [](PluginControl& c, FakeApiServer&) {
                      c.Set(kTestA, With([](Behaviour& b) {
                              b.permit = Status::Error("permit broke");
                            }));
                    },
                    {"Reserve:TestA", "Reserve:TestB", "Permit:TestA",
                     "Unreserve:TestB", "Unreserve:TestA"},
                    "SchedulerError",
                    "running Permit plugin \"TestA\": permit broke",
                    "backoff"},
        FailureCase{"PreBindErrs",
                    [](PluginControl& c, FakeApiServer&) {
                      c.Set(kTestB, With([](Behaviour& b) {
                              b.pre_bind = Status::Error("volume not ready");
                            }));
                    },
                    {"Reserve:TestA", "Reserve:TestB", "Permit:TestA",
                     "Permit:TestB", "PreBind:TestA", "PreBind:TestB",
                     "Unreserve:TestB", "Unreserve:TestA"},
                    "SchedulerError",
                    "running PreBind plugin \"TestB\": volume not ready",
                    "backoff"},
        // Past Permit a pod is never "unschedulable" for the queue: it
        // retries after its backoff (kube's bindingCycle comment). Since
        // v1.33 the rejection is reported as it is, not as a fit error.
        FailureCase{
            "PreBindRejects",
            [](PluginControl& c, FakeApiServer&) {
              c.Set(kTestA, With([](Behaviour& b) {
                      b.pre_bind = Status::Unschedulable("no room after all");
                    }));
            },
            {"Reserve:TestA", "Reserve:TestB", "Permit:TestA", "Permit:TestB",
             "PreBind:TestA", "Unreserve:TestB", "Unreserve:TestA"},
            "Unschedulable",
            "no room after all",
            "backoff"},
        FailureCase{"BinderFails",
                    [](PluginControl&, FakeApiServer& api) {
                      api.SetBindResult(Status::Error("etcd unavailable"));
                    },
                    {"Reserve:TestA", "Reserve:TestB", "Permit:TestA",
                     "Permit:TestB", "PreBind:TestA", "PreBind:TestB",
                     "Bind:TestA", "Unreserve:TestB", "Unreserve:TestA"},
                    "SchedulerError",
                    "running Bind plugin \"DefaultBinder\": etcd unavailable",
                    "backoff",
                    1},
        // kube wraps only WaitOnPermit and PreBind rejections in a FitError;
        // a Bind plugin's rejection is reported as it is.
        FailureCase{"BindPluginRejects",
                    [](PluginControl& c, FakeApiServer&) {
                      c.Set(kTestA, With([](Behaviour& b) {
                              b.bind = Status::Unschedulable("node went away");
                            }));
                    },
                    {"Reserve:TestA", "Reserve:TestB", "Permit:TestA",
                     "Permit:TestB", "PreBind:TestA", "PreBind:TestB",
                     "Bind:TestA", "Unreserve:TestB", "Unreserve:TestA"},
                    "Unschedulable",
                    "node went away",
                    "backoff"}),
    [](const ::testing::TestParamInfo<FailureCase>& info) {
      return info.param.name;
    });

// Forgetting a pod whose binding failed gives its room back, which is
// treated as an assigned pod's deletion: pods waiting for that room are
// requeued (handleBindingCycleError).
TEST_F(SchedulerTest, FailedBindingRequeuesPodsWaitingForItsRoom) {
  ASSERT_TRUE(Start({.binding_workers = 1}));
  control_.SetHook([&](std::string_view point, std::string_view plugin,
                       const api::Pod& pod) {
    if (point == "PreBind" && plugin == kTestA && pod.metadata.name == "big") {
      EXPECT_TRUE(gate_.Wait());
    }
  });
  api_.SetBindResult(Status::Error("etcd unavailable"));
  AddNode("n1", "2");
  std::shared_ptr<const api::Pod> big = AddPod(Pending("big", "2"));
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_TRUE(sched_->cache().IsAssumedPod(*big));

  // While `big` holds the node, `small` does not fit.
  std::shared_ptr<const api::Pod> small = AddPod(Pending("small", "1"));
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_TRUE(WaitForOutcomes(1));
  EXPECT_EQ(Outcomes()[0].pod, "default/small");
  EXPECT_EQ(WhereIs(*small), "unschedulable");

  gate_.Open();
  ASSERT_TRUE(WaitForOutcomes(2));
  sched_->WaitForBindings();
  EXPECT_EQ(Outcomes()[1].pod, "default/big");
  EXPECT_EQ(Outcomes()[1].result, AttemptOutcome::Result::kError);
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);
  EXPECT_EQ(WhereIs(*big), "backoff");
  // NodeResourcesFit registered Pod/Delete: `small` may fit now.
  EXPECT_EQ(WhereIs(*small), "backoff");
}

// ---------------------------------------------------------------- Permit

TEST_F(SchedulerTest, PermitWaitIsAllowedFromAnotherThread) {
  control_.Set(kTestA, With([](Behaviour& b) {
                 b.permit = Status(Code::kWait);
                 b.permit_timeout = std::chrono::seconds(10);
               }));
  control_.Set(kTestB, With([](Behaviour& b) {
                 b.permit = Status(Code::kWait);
                 b.permit_timeout = std::chrono::seconds(20);
               }));
  ASSERT_TRUE(Start({.binding_workers = 1}));
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());

  // The scheduling cycle is over; the binding cycle waits, with the pod
  // assumed on its node.
  std::shared_ptr<framework::WaitingPod> waiting =
      sched_->waiting_pods().Get(pod->metadata.uid);
  ASSERT_NE(waiting, nullptr);
  EXPECT_THAT(waiting->PendingPlugins(), ElementsAre(kTestA, kTestB));
  EXPECT_TRUE(sched_->cache().IsAssumedPod(*pod));
  EXPECT_EQ(RequestedMilliCpu("n1"), 1000);
  EXPECT_THAT(api_.Binds(), IsEmpty());

  // One of two plugins allowing is not enough.
  std::thread([&] { waiting->Allow(kTestA); }).join();
  EXPECT_FALSE(waiting->Done());
  EXPECT_THAT(waiting->PendingPlugins(), ElementsAre(kTestB));

  std::thread([&] { waiting->Allow(kTestB); }).join();
  ASSERT_TRUE(WaitForOutcomes(1));
  sched_->WaitForBindings();
  EXPECT_EQ(Outcomes()[0].result, AttemptOutcome::Result::kScheduled);
  EXPECT_EQ(api_.Binds().size(), 1u);
  EXPECT_EQ(control_.Calls(), kSuccessfulCalls);
  EXPECT_EQ(sched_->waiting_pods().Get(pod->metadata.uid), nullptr);
  EXPECT_EQ(sched_->queue().InFlightPodCount(), 0u);
}

TEST_F(SchedulerTest, PermitWaitRejectedUnreservesAndRequeues) {
  control_.Set(kTestA, With([](Behaviour& b) {
                 b.permit = Status(Code::kWait);
                 b.permit_timeout = std::chrono::seconds(10);
               }));
  ASSERT_TRUE(Start({.binding_workers = 1}));
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  std::shared_ptr<framework::WaitingPod> waiting =
      sched_->waiting_pods().Get(pod->metadata.uid);
  ASSERT_NE(waiting, nullptr);

  std::thread([&] { waiting->Reject(kTestA, "gang incomplete"); }).join();
  ASSERT_TRUE(WaitForOutcomes(1));
  sched_->WaitForBindings();

  EXPECT_EQ(control_.Calls(),
            (std::vector<std::string>{"Reserve:TestA", "Reserve:TestB",
                                      "Permit:TestA", "Permit:TestB",
                                      "Unreserve:TestB", "Unreserve:TestA"}));
  EXPECT_THAT(api_.Binds(), IsEmpty());
  EXPECT_EQ(sched_->cache().GetPod(pod->metadata.uid), nullptr);
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);
  EXPECT_EQ(sched_->waiting_pods().Get(pod->metadata.uid), nullptr);
  // Rejected by TestA, which only a node addition may change its mind.
  EXPECT_EQ(WhereIs(*pod), "unschedulable");
  EXPECT_EQ(sched_->queue().InFlightPodCount(), 0u);
  ExpectFailureRecorded("default/p", "Unschedulable",
                        "0/1 nodes are available: 1 gang incomplete.");
  EXPECT_EQ(Outcomes()[0].result, AttemptOutcome::Result::kUnschedulable);
}

TEST_F(SchedulerTest, PermitWaitTimesOutOnTick) {
  control_.Set(kTestA, With([](Behaviour& b) {
                 b.permit = Status(Code::kWait);
                 b.permit_timeout = std::chrono::seconds(10);
               }));
  ASSERT_TRUE(Start({.binding_workers = 1}));
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  std::shared_ptr<framework::WaitingPod> waiting =
      sched_->waiting_pods().Get(pod->metadata.uid);
  ASSERT_NE(waiting, nullptr);

  clock_.Advance(std::chrono::milliseconds(9999));
  sched_->Tick();
  EXPECT_FALSE(waiting->Done());
  EXPECT_TRUE(sched_->cache().IsAssumedPod(*pod));

  clock_.Advance(std::chrono::milliseconds(1));
  sched_->Tick();
  ASSERT_TRUE(WaitForOutcomes(1));
  sched_->WaitForBindings();
  EXPECT_THAT(
      control_.Calls(),
      ElementsAre("Reserve:TestA", "Reserve:TestB", "Permit:TestA",
                  "Permit:TestB", "Unreserve:TestB", "Unreserve:TestA"));
  EXPECT_EQ(sched_->cache().GetPod(pod->metadata.uid), nullptr);
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);
  EXPECT_THAT(api_.Binds(), IsEmpty());
  EXPECT_EQ(WhereIs(*pod), "unschedulable");
  ExpectFailureRecorded("default/p", "Unschedulable",
                        "0/1 nodes are available: 1 rejected due to timeout "
                        "after waiting 10s at plugin TestA.");
}

TEST_F(SchedulerTest, DeletingAPodWaitingAtPermitRejectsIt) {
  control_.Set(kTestA, With([](Behaviour& b) {
                 b.permit = Status(Code::kWait);
                 b.permit_timeout = std::chrono::minutes(1);
               }));
  ASSERT_TRUE(Start({.binding_workers = 1}));
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  std::shared_ptr<framework::WaitingPod> waiting =
      sched_->waiting_pods().Get(pod->metadata.uid);
  ASSERT_NE(waiting, nullptr);

  api_.Remove(*pod);
  sched_->OnPodDelete(pod);
  ASSERT_TRUE(WaitForOutcomes(1));
  sched_->WaitForBindings();

  EXPECT_TRUE(waiting->Done());
  EXPECT_THAT(
      control_.Calls(),
      ElementsAre("Reserve:TestA", "Reserve:TestB", "Permit:TestA",
                  "Permit:TestB", "Unreserve:TestB", "Unreserve:TestA"));
  EXPECT_THAT(api_.Binds(), IsEmpty());
  EXPECT_EQ(sched_->cache().GetPod(pod->metadata.uid), nullptr);
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);
  // Gone: not requeued, nothing written to it but the node it was to wait
  // for (NominatedNodeNameForExpectation), before the wait.
  EXPECT_EQ(WhereIs(*pod), "");
  EXPECT_EQ(sched_->queue().InFlightPodCount(), 0u);
  std::vector<framework::PodStatusUpdate> writes =
      api_.StatusWrites("default/p");
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].nominated_node_name, std::optional<std::string>("n1"));
  EXPECT_EQ(Outcomes()[0].result, AttemptOutcome::Result::kUnschedulable);
}

// v1.35's handleAssumedPodDeletion: an assumed pod whose deletion starts
// (an update with deletionTimestamp) gives its room back at once, its wait
// at Permit rejected, rather than holding it until the deletion completes.
TEST_F(SchedulerTest, AssumedPodWhoseDeletionStartsGivesItsRoomBackAtOnce) {
  control_.Set(kTestA, With([](Behaviour& b) {
                 b.permit = Status(Code::kWait);
                 b.permit_timeout = std::chrono::minutes(1);
               }));
  ASSERT_TRUE(Start({.binding_workers = 1}));
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  std::shared_ptr<framework::WaitingPod> waiting =
      sched_->waiting_pods().Get(pod->metadata.uid);
  ASSERT_NE(waiting, nullptr);
  ASSERT_EQ(RequestedMilliCpu("n1"), 1000);

  auto deleting = std::make_shared<api::Pod>(*pod);
  deleting->metadata.deletion_timestamp =
      api::Time{api::Timestamp(std::chrono::seconds(1))};
  sched_->OnPodUpdate(pod, deleting);
  ASSERT_TRUE(WaitForOutcomes(1));
  sched_->WaitForBindings();
  EXPECT_TRUE(waiting->Done());
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);
  EXPECT_THAT(api_.Binds(), IsEmpty());
}

// kube's handleBindingCycleError defers the AssignedPodDelete event of a
// pod rejected at Permit and keeps the pod itself out of it (a pre-check),
// so the pod waits in the pool for an event that may help it instead of
// being retried after its backoff because of its own forgetting.
TEST_F(SchedulerTest, PermitRejectionIsNotUndoneByThePodsOwnForgetting) {
  control_.Set(kTestA, With([](Behaviour& b) {
                 b.permit = Status(Code::kWait);
                 b.permit_timeout = std::chrono::seconds(10);
                 b.events = {{{framework::EventResource::kAssignedPod,
                               framework::kDelete},
                              nullptr}};
               }));
  ASSERT_TRUE(Start({.binding_workers = 1}));
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  std::shared_ptr<framework::WaitingPod> waiting =
      sched_->waiting_pods().Get(pod->metadata.uid);
  ASSERT_NE(waiting, nullptr);
  waiting->Reject(kTestA, "gang incomplete");
  ASSERT_TRUE(WaitForOutcomes(1));
  sched_->WaitForBindings();
  EXPECT_EQ(WhereIs(*pod), "unschedulable");
}

// Nothing calls Allow or Tick once the scheduler is being destroyed: its
// destructor must not wait forever for a binding held at Permit.
TEST_F(SchedulerTest, DestroyingTheSchedulerReleasesPodsWaitingAtPermit) {
  control_.Set(kTestA, With([](Behaviour& b) {
                 b.permit = Status(Code::kWait);
                 b.permit_timeout = std::chrono::minutes(10);
               }));
  ASSERT_TRUE(Start({.binding_workers = 1}));
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  std::shared_ptr<framework::WaitingPod> waiting =
      sched_->waiting_pods().Get(pod->metadata.uid);
  ASSERT_NE(waiting, nullptr);

  auto destroyed = std::make_shared<std::promise<void>>();
  std::future<void> done = destroyed->get_future();
  Scheduler* raw = sched_.release();
  std::thread destroyer([raw, destroyed] {
    delete raw;
    destroyed->set_value();
  });
  bool finished = done.wait_for(kWaitLimit) == std::future_status::ready;
  if (!finished) {
    // Let the destructor finish so the test can end; the failure stands.
    waiting->Reject("", "rescued by the test");
  }
  destroyer.join();
  EXPECT_TRUE(finished) << "~Scheduler waited for a pod held at Permit";
  EXPECT_TRUE(waiting->Done());
  // The plugins released what they reserved.
  EXPECT_THAT(
      control_.Calls(),
      ElementsAre("Reserve:TestA", "Reserve:TestB", "Permit:TestA",
                  "Permit:TestB", "Unreserve:TestB", "Unreserve:TestA"));
  EXPECT_THAT(api_.Binds(), IsEmpty());
}

// ----------------------------------------------------------------
// unschedulable

TEST_F(SchedulerTest, UnschedulablePodWaitsForANodeThatHelpsThenBacksOff) {
  // v1.32's backoffQ: waited out, then flushed.
  ASSERT_TRUE(Start({.features = config::FeatureGates({1, 32})}));
  AddNode("n1", "1");
  AddNode("n2", "1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p", "2"));
  ASSERT_TRUE(sched_->ScheduleOne());

  std::vector<AttemptOutcome> outcomes = Outcomes();
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].result, AttemptOutcome::Result::kUnschedulable);
  EXPECT_THAT(outcomes[0].message,
              StartsWith("0/2 nodes are available: 2 Insufficient cpu."));
  ExpectFailureRecorded("default/p", "Unschedulable", outcomes[0].message);
  EXPECT_THAT(api_.Binds(), IsEmpty());
  EXPECT_THAT(control_.Calls(), IsEmpty());  // no Reserve without a node
  EXPECT_EQ(sched_->cache().GetPod(pod->metadata.uid), nullptr);
  EXPECT_EQ(WhereIs(*pod), "unschedulable");
  EXPECT_EQ(sched_->queue().InFlightPodCount(), 0u);

  // Housekeeping alone does not bring it back.
  sched_->Tick();
  EXPECT_EQ(WhereIs(*pod), "unschedulable");

  // A node it fits on: back to the queue, but its 1s backoff still runs
  // (its last instant included, since v1.33).
  AddNode("n3", "4");
  EXPECT_EQ(WhereIs(*pod), "backoff");
  clock_.Advance(std::chrono::seconds(1));
  sched_->Tick();
  EXPECT_EQ(WhereIs(*pod), "backoff");
  EXPECT_EQ(sched_->queue().PendingCounts().active, 0u);
  EXPECT_FALSE(sched_->queue().CanPop());

  clock_.Advance(std::chrono::nanoseconds(1));
  sched_->Tick();
  EXPECT_EQ(WhereIs(*pod), "active");
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_THAT(api_.Binds(), ElementsAre(std::make_pair(std::string("default/p"),
                                                       std::string("n3"))));
}

TEST_F(SchedulerTest, NodeAddAfterTheBackoffMovesThePodStraightToActive) {
  ASSERT_TRUE(Start());
  AddNode("n1", "1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p", "2"));
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_EQ(WhereIs(*pod), "unschedulable");
  clock_.Advance(std::chrono::seconds(5));
  sched_->Tick();
  EXPECT_EQ(WhereIs(*pod), "unschedulable");
  AddNode("n2", "4");
  EXPECT_EQ(WhereIs(*pod), "active");
}

// v1.35 (SchedulerPopFromBackoffQ): with nothing else to do the loop takes
// the pod from backoffQ as soon as a node may help it.
TEST_F(SchedulerTest, UnschedulablePodIsPoppedFromBackoffAtOnceWhenIdle) {
  ASSERT_TRUE(Start());
  AddNode("n1", "1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p", "2"));
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_EQ(WhereIs(*pod), "unschedulable");
  AddNode("n3", "4");
  EXPECT_EQ(WhereIs(*pod), "backoff");
  ASSERT_TRUE(sched_->queue().CanPop());
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_THAT(api_.Binds(), ElementsAre(std::make_pair(std::string("default/p"),
                                                       std::string("n3"))));
}

// ...but a pod that failed with an error serves its backoff, in whole
// seconds since v1.33 counts errors in a row on their own.
TEST_F(SchedulerTest, ErroredPodServesItsBackoffEvenWhenIdle) {
  ASSERT_TRUE(Start());
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());  // no nodes at all
  EXPECT_EQ(WhereIs(*pod), "backoff");
  EXPECT_FALSE(sched_->queue().CanPop());
  // Failed at 0s: 1s of backoff, rounded to its window, ends at 2s.
  clock_.Advance(std::chrono::milliseconds(1999));
  sched_->Tick();
  EXPECT_EQ(WhereIs(*pod), "backoff");
  clock_.Advance(std::chrono::milliseconds(1));
  sched_->Tick();
  EXPECT_EQ(WhereIs(*pod), "active");
}

TEST_F(SchedulerTest, SecondFailureDoublesTheBackoff) {
  ASSERT_TRUE(Start({.features = config::FeatureGates({1, 32})}));
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  // No nodes at all: an internal "error" kube-scheduler still reports as
  // unschedulable; nothing to wait for but the backoff.
  ASSERT_TRUE(sched_->ScheduleOne());
  ExpectFailureRecorded("default/p", "Unschedulable",
                        "no nodes available to schedule pods");
  EXPECT_EQ(WhereIs(*pod), "backoff");
  clock_.Advance(std::chrono::seconds(1) + std::chrono::nanoseconds(1));
  sched_->Tick();
  ASSERT_EQ(WhereIs(*pod), "active");
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_EQ(WhereIs(*pod), "backoff");
  clock_.Advance(std::chrono::seconds(2));
  sched_->Tick();
  EXPECT_EQ(WhereIs(*pod), "backoff");
  clock_.Advance(std::chrono::nanoseconds(1));
  sched_->Tick();
  EXPECT_EQ(WhereIs(*pod), "active");
}

// A pod at metadata.generation 3, not yet known to the scheduler.
std::shared_ptr<const api::Pod> AtGeneration3(const PodBuilder& builder) {
  auto pod = std::make_shared<api::Pod>(*builder.Ptr());
  pod->metadata.generation = 3;
  return pod;
}

// kube's handleSchedulingFailure and podutil.UpdatePodCondition: the
// PodScheduled=False condition carries the pod's generation
// (PodObservedGenerationTracking, GA since 1.35) and the time its status
// turned False, which a later failure with the same status keeps; a
// failure that changes nothing writes nothing.
TEST_F(SchedulerTest, FailureConditionCarriesTheGenerationAndTransitionTime) {
  ASSERT_TRUE(Start());
  std::shared_ptr<const api::Pod> pod = AtGeneration3(Pending("p"));
  api_.Store(pod);
  sched_->OnPodAdd(pod);
  const api::Time failed_at{
      std::chrono::time_point_cast<std::chrono::microseconds>(
          clock_.WallNow())};
  ASSERT_TRUE(sched_->ScheduleOne());
  std::vector<framework::PodStatusUpdate> writes =
      api_.StatusWrites("default/p");
  ASSERT_EQ(writes.size(), 1u);
  ASSERT_TRUE(writes[0].condition.has_value());
  EXPECT_EQ(writes[0].condition->observed_generation, 3);
  EXPECT_EQ(writes[0].condition->last_transition_time, failed_at);
  EXPECT_FALSE(writes[0].condition->last_probe_time.has_value());

  clock_.Advance(std::chrono::seconds(11));
  sched_->Tick();
  ASSERT_EQ(WhereIs(*pod), "active");
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_EQ(api_.StatusWrites("default/p").size(), 1u)
      << "the same failure again changes nothing";
}

// Before 1.34 the gate is off (alpha at 1.33): no generation is written.
TEST_F(SchedulerTest, FailureConditionAt133CarriesNoGeneration) {
  ASSERT_TRUE(Start({.features = config::FeatureGates({1, 33})}));
  std::shared_ptr<const api::Pod> pod = AtGeneration3(Pending("p"));
  api_.Store(pod);
  sched_->OnPodAdd(pod);
  ASSERT_TRUE(sched_->ScheduleOne());
  std::vector<framework::PodStatusUpdate> writes =
      api_.StatusWrites("default/p");
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].condition->observed_generation, 0);
}

// NodeUnschedulable waits for a node that becomes schedulable: uncordoning
// is reported (as UpdateNodeTaint), cordoning another node is not.
TEST_F(SchedulerTest, UncordoningRequeuesButCordoningDoesNot) {
  ASSERT_TRUE(Start());
  std::shared_ptr<const api::Node> cordoned =
      MakeNode("n1").Unschedulable().Ptr();
  sched_->OnNodeAdd(cordoned);
  std::shared_ptr<const api::Node> small = AddNode("n2", "1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p", "2"));
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_EQ(WhereIs(*pod), "unschedulable");
  EXPECT_THAT(Outcomes()[0].message,
              StartsWith("0/2 nodes are available: 1 Insufficient cpu, 1 "
                         "node(s) were unschedulable."));

  sched_->OnNodeUpdate(small, MakeNode("n2", "1").Unschedulable().Ptr());
  EXPECT_EQ(WhereIs(*pod), "unschedulable");

  sched_->OnNodeUpdate(cordoned, MakeNode("n1").Ptr());
  EXPECT_EQ(WhereIs(*pod), "backoff");
}

TEST_F(SchedulerTest, NodeUpdateThatChangesNothingRelevantRequeuesNothing) {
  ASSERT_TRUE(Start());
  std::shared_ptr<const api::Node> node = AddNode("n1", "1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p", "2"));
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_EQ(WhereIs(*pod), "unschedulable");
  api::Node same = *node;
  same.metadata.resource_version = "2";
  sched_->OnNodeUpdate(node, std::make_shared<const api::Node>(same));
  EXPECT_EQ(WhereIs(*pod), "unschedulable");
  // More allocatable is what NodeResourcesFit waits for.
  sched_->OnNodeUpdate(node, MakeNode("n1", "4").Ptr());
  EXPECT_EQ(WhereIs(*pod), "backoff");
}

// Pods rejected by a plugin that registered AssignedPod events are requeued
// by any assigned pod's add or update, as kube-scheduler v1.32 (queueing
// hints on) does with MoveAllToActiveOrBackoffQueue; not only pods with
// cross-topology terms.
TEST_F(SchedulerTest, AssignedPodEventsReachPluginsThatRegisteredThem) {
  // Events are registered at start-up; what Reserve answers is read at
  // each call.
  control_.Set(kTestA, With([](Behaviour& b) {
                 b.events = {{{framework::EventResource::kAssignedPod,
                               framework::kUpdatePodLabel},
                              nullptr}};
               }));
  control_.Set(kTestB, With([](Behaviour& b) {
                 b.reserve = Status::Unschedulable("waiting for a peer");
                 b.events = {{{framework::EventResource::kAssignedPod,
                               framework::kAdd | framework::kUpdatePodLabel},
                              nullptr}};
               }));
  ASSERT_TRUE(Start());
  AddNode("n1");
  std::shared_ptr<const api::Pod> by_b = AddPod(Pending("by-b"));
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_EQ(WhereIs(*by_b), "unschedulable");

  control_.Set(kTestA, With([](Behaviour& b) {
                 b.reserve = Status::Unschedulable("waiting for a label");
               }));
  control_.Set(kTestB, Behaviour());
  std::shared_ptr<const api::Pod> by_a = AddPod(Pending("by-a"));
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_EQ(WhereIs(*by_a), "unschedulable");

  // A pod bound elsewhere appears: only TestB registered AssignedPod/Add.
  std::shared_ptr<const api::Pod> peer =
      AddPod(PodBuilder("peer").Node("n1").Label("app", "db"));
  EXPECT_EQ(WhereIs(*by_b), "backoff");
  EXPECT_EQ(WhereIs(*by_a), "unschedulable");

  // Its labels change: TestA registered that.
  std::shared_ptr<const api::Pod> relabelled =
      PodBuilder("peer").Node("n1").Label("app", "cache").Ptr();
  api_.Store(relabelled);
  sched_->OnPodUpdate(peer, relabelled);
  EXPECT_EQ(WhereIs(*by_a), "backoff");
}

// A Pending status (kube's AddPluginStatus) makes the plugin a pending
// plugin: its events requeue the pod at once, skipping the backoff.
TEST_F(SchedulerTest, PendingAtReserveRequeuesWithoutBackoff) {
  control_.Set(kTestB, With([](Behaviour& b) {
                 b.reserve = Status(Code::kPending, "waiting for quota");
               }));
  ASSERT_TRUE(Start());
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  ExpectFailureRecorded("default/p", "Unschedulable",
                        "0/1 nodes are available: 1 waiting for quota.");
  ASSERT_EQ(WhereIs(*pod), "unschedulable");
  AddNode("n2");  // TestB registered Node/Add
  EXPECT_EQ(WhereIs(*pod), "active");
}

// ---------------------------------------------------------------- skips

TEST_F(SchedulerTest, TerminatingPodIsNotScheduled) {
  ASSERT_TRUE(Start());
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p").Terminating());
  ASSERT_EQ(WhereIs(*pod), "active");
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_THAT(api_.Binds(), IsEmpty());
  EXPECT_THAT(control_.Calls(), IsEmpty());
  EXPECT_EQ(sched_->cache().GetPod(pod->metadata.uid), nullptr);
  EXPECT_EQ(WhereIs(*pod), "");
  EXPECT_EQ(sched_->queue().InFlightPodCount(), 0u);
  EXPECT_THAT(Outcomes(), IsEmpty());
  EXPECT_THAT(api_.StatusWrites("default/p"), IsEmpty());
  // kube-scheduler's skipPodSchedule says so in an event.
  std::vector<FakeApiServer::Event> events = api_.Events("default/p");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "Warning");
  EXPECT_EQ(events[0].reason, "FailedScheduling");
  EXPECT_EQ(events[0].note, "skip schedule deleting pod: default/p");
}

TEST_F(SchedulerTest, PodsOfOtherSchedulersAreLeftToThem) {
  ASSERT_TRUE(Start());
  AddNode("n1");
  EXPECT_FALSE(sched_->IsResponsibleFor(
      PodBuilder("x").SchedulerName("default-scheduler").Obj()));
  EXPECT_TRUE(sched_->IsResponsibleFor(Pending("y").Obj()));
  std::shared_ptr<const api::Pod> theirs =
      AddPod(PodBuilder("theirs").SchedulerName("default-scheduler"));
  std::shared_ptr<const api::Pod> unnamed = AddPod(PodBuilder("unnamed"));
  EXPECT_EQ(WhereIs(*theirs), "");
  EXPECT_EQ(WhereIs(*unnamed), "");
  queue::SchedulingQueue::Counts counts = sched_->queue().PendingCounts();
  EXPECT_EQ(
      counts.active + counts.backoff + counts.unschedulable + counts.gated, 0u);
  // Their updates are ignored too...
  auto updated = std::make_shared<api::Pod>(*theirs);
  updated->metadata.labels.Set("app", "x");
  sched_->OnPodUpdate(theirs, updated);
  EXPECT_EQ(WhereIs(*updated), "");
  // ...but once bound, their pods take room like any other.
  AddPod(PodBuilder("bound")
             .SchedulerName("default-scheduler")
             .Node("n1")
             .Req({{"cpu", "3"}}));
  EXPECT_EQ(RequestedMilliCpu("n1"), 3000);
}

TEST_F(SchedulerTest, TerminalPodsAreIgnored) {
  ASSERT_TRUE(Start());
  AddNode("n1");
  api::Pod succeeded = Pending("done").Obj();
  succeeded.status.phase = std::string(api::kPodPhaseSucceeded);
  sched_->OnPodAdd(std::make_shared<const api::Pod>(succeeded));
  EXPECT_EQ(WhereIs(succeeded), "");

  api::Pod failed = PodBuilder("failed").Node("n1").Req({{"cpu", "1"}}).Obj();
  failed.status.phase = std::string(api::kPodPhaseFailed);
  sched_->OnPodAdd(std::make_shared<const api::Pod>(failed));
  EXPECT_EQ(sched_->cache().GetPod(failed.metadata.uid), nullptr);
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);

  // A running pod that finishes leaves the cache.
  std::shared_ptr<const api::Pod> running =
      AddPod(PodBuilder("running").Node("n1").Req({{"cpu", "2"}}));
  EXPECT_EQ(RequestedMilliCpu("n1"), 2000);
  auto finished = std::make_shared<api::Pod>(*running);
  finished->status.phase = std::string(api::kPodPhaseSucceeded);
  sched_->OnPodUpdate(running, finished);
  EXPECT_EQ(sched_->cache().GetPod(running->metadata.uid), nullptr);
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);

  // A pending pod of ours that ends before it was scheduled leaves the
  // queue.
  std::shared_ptr<const api::Pod> pending = AddPod(Pending("pending"));
  ASSERT_EQ(WhereIs(*pending), "active");
  auto gone = std::make_shared<api::Pod>(*pending);
  gone->status.phase = std::string(api::kPodPhaseFailed);
  sched_->OnPodUpdate(pending, gone);
  EXPECT_EQ(WhereIs(*pending), "");
}

// An informer resync redelivers an object unchanged (same resourceVersion):
// kube ignores such an update (#96071), so a gated pod stays gated even if
// the copy it is handed differs, and a real update (new version) counts.
TEST_F(SchedulerTest, UpdatesWithAnUnchangedResourceVersionAreIgnored) {
  ASSERT_TRUE(Start());
  AddNode("n1");
  PodBuilder gated = Pending("p");
  gated.SchedulingGate("example.com/wait");
  auto pod = std::make_shared<api::Pod>(gated.Obj());
  pod->metadata.resource_version = "5";
  sched_->OnPodAdd(pod);
  ASSERT_EQ(WhereIs(*pod), "gated");

  auto ungated = std::make_shared<api::Pod>(*pod);
  ungated->spec.scheduling_gates.clear();
  sched_->OnPodUpdate(pod, ungated);
  EXPECT_EQ(WhereIs(*pod), "gated");

  ungated->metadata.resource_version = "6";
  sched_->OnPodUpdate(pod, ungated);
  EXPECT_EQ(WhereIs(*ungated), "active");
}

// An assumed pod's own updates (our status writes, say) must not put it
// back in the queue while its binding is in flight.
TEST_F(SchedulerTest, UpdatesOfAPodBeingBoundAreIgnored) {
  ASSERT_TRUE(Start({.binding_workers = 1}));
  control_.SetHook(
      [&](std::string_view point, std::string_view plugin, const api::Pod&) {
        if (point == "PreBind" && plugin == kTestA) {
          EXPECT_TRUE(gate_.Wait());
        }
      });
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_TRUE(sched_->cache().IsAssumedPod(*pod));
  auto labelled = std::make_shared<api::Pod>(*pod);
  labelled->metadata.labels.Set("app", "web");
  api_.Store(labelled);
  sched_->OnPodUpdate(pod, labelled);
  EXPECT_EQ(WhereIs(*labelled), "");
  EXPECT_EQ(sched_->queue().PendingCounts().active, 0u);
  gate_.Open();
  ASSERT_TRUE(WaitForOutcomes(1));
  EXPECT_EQ(Outcomes()[0].result, AttemptOutcome::Result::kScheduled);
}

// The failure handler requeues the latest version of the pod, and neither
// requeues nor nominates a pod that was deleted or bound meanwhile.
TEST_F(SchedulerTest, FailedPodDeletedDuringItsCycleIsNotRequeued) {
  control_.Set(kTestB, With([](Behaviour& b) {
                 b.reserve = Status::Unschedulable("reserve says no");
               }));
  ASSERT_TRUE(Start());
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  control_.SetHook(
      [&](std::string_view point, std::string_view plugin, const api::Pod&) {
        if (point == "Reserve" && plugin == kTestA) api_.Remove(*pod);
      });
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_EQ(WhereIs(*pod), "");
  EXPECT_EQ(sched_->queue().InFlightPodCount(), 0u);
  EXPECT_THAT(api_.StatusWrites("default/p"), IsEmpty());
  EXPECT_EQ(sched_->cache().GetPod(pod->metadata.uid), nullptr);
}

TEST_F(SchedulerTest, FailedPodIsRequeuedWithItsLatestVersion) {
  control_.Set(kTestB, With([](Behaviour& b) {
                 b.reserve = Status::Unschedulable("reserve says no");
               }));
  ASSERT_TRUE(Start());
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  control_.SetHook(
      [&](std::string_view point, std::string_view plugin, const api::Pod&) {
        if (point != "Reserve" || plugin != kTestA) return;
        auto labelled = std::make_shared<api::Pod>(*pod);
        labelled->metadata.labels.Set("version", "2");
        api_.Store(labelled);
      });
  ASSERT_TRUE(sched_->ScheduleOne());
  auto [where, queued] = sched_->queue().Find(*pod);
  EXPECT_EQ(where, "unschedulable");
  ASSERT_NE(queued, nullptr);
  const std::string* version = queued->pod().metadata.labels.Find("version");
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(*version, "2");
}

TEST_F(SchedulerTest,
       PodBoundElsewhereDuringItsCycleIsNeitherRequeuedNorNominated) {
  ASSERT_TRUE(Start({.test_pre_filter = true, .preemption = false}));
  AddNode("n1");
  AddNode("n2", "1");
  // Nominated to n1 by an earlier preemption; too big for any node now.
  std::shared_ptr<const api::Pod> pod =
      AddPod(Pending("p", "8").NominatedNode("n1"));
  ASSERT_EQ(sched_->queue().NominatedPodsForNode("n1").size(), 1u);
  // While its cycle runs, another scheduler binds it to n2 and the informer
  // delivers that.
  control_.SetHook(
      [&](std::string_view point, std::string_view, const api::Pod&) {
        if (point != "PreFilter") return;
        auto bound = std::make_shared<api::Pod>(*pod);
        bound->spec.node_name = "n2";
        api_.Store(bound);
        sched_->OnPodUpdate(pod, bound);
      });
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_EQ(Outcomes().size(), 1u);
  EXPECT_EQ(Outcomes()[0].result, AttemptOutcome::Result::kUnschedulable);
  EXPECT_EQ(WhereIs(*pod), "");
  EXPECT_EQ(sched_->queue().InFlightPodCount(), 0u);
  // A bound pod nominated to n1 would hold room there for good: nothing
  // removes it from the nominator any more.
  EXPECT_THAT(sched_->queue().NominatedPodsForNode("n1"), IsEmpty());
  EXPECT_EQ(sched_->queue().NumNominatedPods(), 0u);
  framework::PodInfoPtr cached = sched_->cache().GetPod(pod->metadata.uid);
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(cached->node_name(), "n2");
}

// ---------------------------------------------------------------- expiry

TEST_F(SchedulerTest, AssumedPodExpiresWithoutConfirmation) {
  ASSERT_TRUE(Start({.assumed_pod_ttl = std::chrono::seconds(30)}));
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_EQ(api_.Binds().size(), 1u);
  ASSERT_TRUE(sched_->cache().IsAssumedPod(*pod));

  clock_.Advance(std::chrono::seconds(30));
  sched_->Tick();
  EXPECT_TRUE(sched_->cache().IsAssumedPod(*pod));
  EXPECT_EQ(RequestedMilliCpu("n1"), 1000);

  clock_.Advance(std::chrono::milliseconds(1));
  sched_->Tick();
  EXPECT_FALSE(sched_->cache().IsAssumedPod(*pod));
  EXPECT_EQ(sched_->cache().GetPod(pod->metadata.uid), nullptr);
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);

  // A late confirmation adds it back.
  ASSERT_NE(ConfirmBinding(pod), nullptr);
  EXPECT_EQ(RequestedMilliCpu("n1"), 1000);
  EXPECT_FALSE(sched_->cache().IsAssumedPod(*pod));
}

TEST_F(SchedulerTest, ConfirmedPodDoesNotExpire) {
  ASSERT_TRUE(Start({.assumed_pod_ttl = std::chrono::seconds(30)}));
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  clock_.Advance(std::chrono::seconds(10));
  sched_->Tick();
  ASSERT_NE(ConfirmBinding(pod), nullptr);
  clock_.Advance(std::chrono::hours(1));
  sched_->Tick();
  EXPECT_FALSE(sched_->cache().IsAssumedPod(*pod));
  EXPECT_NE(sched_->cache().GetPod(pod->metadata.uid), nullptr);
  EXPECT_EQ(RequestedMilliCpu("n1"), 1000);
}

// A relist delivers the bound pod as an Add rather than an Update.
TEST_F(SchedulerTest, AddOfTheBoundPodAlsoConfirmsIt) {
  ASSERT_TRUE(Start({.assumed_pod_ttl = std::chrono::seconds(30)}));
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  std::shared_ptr<const api::Pod> bound = api_.Get(*pod);
  ASSERT_NE(bound, nullptr);
  sched_->OnPodAdd(bound);
  EXPECT_FALSE(sched_->cache().IsAssumedPod(*pod));
  clock_.Advance(std::chrono::minutes(5));
  sched_->Tick();
  EXPECT_NE(sched_->cache().GetPod(pod->metadata.uid), nullptr);
  EXPECT_EQ(RequestedMilliCpu("n1"), 1000);
}

// A relist that missed the binding (its watch cut, the bound pod deleted
// meanwhile) tells of the deletion with the last known, unbound, pod: the
// assumed pod leaves the cache all the same, with its room, even though
// assumed pods never expire.
TEST_F(SchedulerTest, DeletionReplayedAsUnboundRemovesTheAssumedPod) {
  ASSERT_TRUE(Start({.assumed_pod_ttl = std::chrono::nanoseconds(0)}));
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_EQ(api_.Binds().size(), 1u);
  ASSERT_TRUE(sched_->cache().IsAssumedPod(*pod));
  ASSERT_EQ(RequestedMilliCpu("n1"), 1000);

  sched_->OnPodDelete(pod);
  EXPECT_FALSE(sched_->cache().IsAssumedPod(*pod));
  EXPECT_EQ(sched_->cache().GetPod(pod->metadata.uid), nullptr);
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);
  clock_.Advance(std::chrono::hours(1));
  sched_->Tick();
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);
}

// Running pods of one workload keep one copy of their labels between
// them, in the cache and through updates.
TEST_F(SchedulerTest, RunningPodsOfAWorkloadShareTheirLabels) {
  ASSERT_TRUE(Start());
  AddNode("n1");
  auto running = [](const std::string& name, const std::string& hash) {
    api::Pod pod = PodBuilder(name)
                       .Uid(name)
                       .Label("app", "web")
                       .Label("pod-template-hash", hash)
                       .Node("n1")
                       .Obj();
    pod.status.phase = "Running";
    return std::make_shared<const api::Pod>(pod);
  };
  auto a = running("a", "1");
  auto b = running("b", "1");
  auto c = running("c", "2");
  for (const auto& pod : {a, b, c}) sched_->OnPodAdd(pod);
  auto cached = [&](const std::string& uid) {
    return sched_->cache().GetPod(uid);
  };
  ASSERT_NE(cached("a"), nullptr);
  ASSERT_NE(cached("b"), nullptr);
  ASSERT_NE(cached("c"), nullptr);
  EXPECT_EQ(&cached("a")->labels(), &cached("b")->labels());
  EXPECT_NE(&cached("a")->labels(), &cached("c")->labels());
  EXPECT_EQ(sched_->cache().label_sets().size(), 2u);

  // c rolls to a's template: it joins a's set, and its old one goes.
  auto c2 = running("c", "1");
  sched_->OnPodUpdate(c, c2);
  EXPECT_EQ(&cached("c")->labels(), &cached("a")->labels());
  EXPECT_EQ(sched_->cache().label_sets().size(), 1u);
}

// The TTL runs from the end of the binding, never during it.
TEST_F(SchedulerTest, AssumedPodDoesNotExpireWhileItsBindingRuns) {
  ASSERT_TRUE(Start(
      {.binding_workers = 1, .assumed_pod_ttl = std::chrono::seconds(30)}));
  control_.SetHook(
      [&](std::string_view point, std::string_view plugin, const api::Pod&) {
        if (point == "PreBind" && plugin == kTestA) {
          EXPECT_TRUE(gate_.Wait());
        }
      });
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  clock_.Advance(std::chrono::hours(1));
  sched_->Tick();
  EXPECT_TRUE(sched_->cache().IsAssumedPod(*pod));
  EXPECT_EQ(RequestedMilliCpu("n1"), 1000);
  gate_.Open();
  ASSERT_TRUE(WaitForOutcomes(1));
  sched_->WaitForBindings();
  clock_.Advance(std::chrono::seconds(31));
  sched_->Tick();
  EXPECT_EQ(sched_->cache().GetPod(pod->metadata.uid), nullptr);
}

// ---------------------------------------------------------------- preemption

TEST_F(SchedulerTest, HighPriorityPodPreemptsThroughTheWriter) {
  // v1.32: the victims are deleted within the preemptor's cycle.
  ASSERT_TRUE(Start({.test_plugins = false,
                     .metrics = true,
                     .features = config::FeatureGates({1, 32})}));
  AddNode("n1", "2");
  std::shared_ptr<const api::Pod> victim =
      AddPod(PodBuilder("victim").Node("n1").Priority(0).Req({{"cpu", "2"}}));
  std::shared_ptr<const api::Pod> preemptor =
      AddPod(Pending("preemptor", "2").Priority(1000));
  ASSERT_TRUE(sched_->ScheduleOne());

  std::vector<AttemptOutcome> outcomes = Outcomes();
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].result, AttemptOutcome::Result::kUnschedulable);
  EXPECT_EQ(outcomes[0].nominated_node, "n1");
  EXPECT_THAT(outcomes[0].message,
              StartsWith("0/1 nodes are available: 1 Insufficient cpu."));
  EXPECT_THAT(api_.Deleted(), ElementsAre("default/victim"));
  // kube-scheduler's preemption metrics, and the extension points timed.
  EXPECT_EQ(metrics_.preemption_attempts, 1);
  EXPECT_THAT(metrics_.victims, ElementsAre(1));
  EXPECT_THAT(metrics_.points, Contains("PreFilter:Success"));
  EXPECT_THAT(metrics_.points, Contains("PostFilter:Success"));
  std::vector<FakeApiServer::Event> victim_events =
      api_.Events("default/victim");
  ASSERT_FALSE(victim_events.empty());
  EXPECT_EQ(victim_events.back().reason, "Preempted");
  EXPECT_THAT(victim_events.back().note,
              HasSubstr("Preempted by pod " + preemptor->metadata.uid));

  // The nomination is written with the failure, and known to the queue at
  // once.
  std::vector<framework::PodStatusUpdate> writes =
      api_.StatusWrites("default/preemptor");
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].nominated_node_name, std::optional<std::string>("n1"));
  ASSERT_TRUE(writes[0].condition.has_value());
  EXPECT_EQ(writes[0].condition->reason, "Unschedulable");
  std::vector<framework::PodInfoPtr> nominated =
      sched_->queue().NominatedPodsForNode("n1");
  ASSERT_EQ(nominated.size(), 1u);
  EXPECT_EQ(nominated[0]->pod().metadata.name, "preemptor");
  EXPECT_THAT(api_.Binds(), IsEmpty());

  // The victim's deletion arrives: the preemptor is retried after its
  // backoff and lands on the node it was nominated to.
  sched_->OnPodDelete(victim);
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);
  EXPECT_EQ(WhereIs(*preemptor), "backoff");
  clock_.Advance(std::chrono::seconds(1) + std::chrono::nanoseconds(1));
  sched_->Tick();
  ASSERT_EQ(WhereIs(*preemptor), "active");
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_THAT(api_.Binds(),
              ElementsAre(std::make_pair(std::string("default/preemptor"),
                                         std::string("n1"))));
  ASSERT_NE(ConfirmBinding(preemptor), nullptr);
  EXPECT_EQ(sched_->queue().NumNominatedPods(), 0u);
}

// ---------------------------------------------------------------- lifecycle

TEST_F(SchedulerTest, StopEndsTheLoop) {
  ASSERT_TRUE(Start());
  AddPod(Pending("p"));
  sched_->Stop();
  EXPECT_FALSE(sched_->ScheduleOne());
  EXPECT_THAT(Outcomes(), IsEmpty());
}

TEST_F(SchedulerTest, StopWakesABlockedScheduleOne) {
  ASSERT_TRUE(Start());
  auto returned = std::make_shared<std::promise<bool>>();
  std::future<bool> result = returned->get_future();
  Scheduler* s = sched_.get();
  std::thread loop([s, returned] { returned->set_value(s->ScheduleOne()); });
  // Blocked in Pop: nothing to schedule.
  EXPECT_EQ(result.wait_for(std::chrono::milliseconds(20)),
            std::future_status::timeout);
  sched_->Stop();
  bool ready = result.wait_for(kWaitLimit) == std::future_status::ready;
  if (!ready) {
    AddPod(Pending("rescue"));  // let the thread end
  }
  loop.join();
  ASSERT_TRUE(ready);
  EXPECT_FALSE(result.get());
}

TEST(SchedulerCreateTest, RequiresAClockAndARandomSource) {
  framework::Registry registry = plugins::NewInTreeRegistry();
  Scheduler::Dependencies deps;
  auto s = Scheduler::Create(config::DefaultConfig(), registry, deps);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message(), HasSubstr("clock"));

  util::FakeClock clock;
  util::DefaultRandom random(1);
  deps.clock = &clock;
  deps.random = &random;
  config::KubeSchedulerConfiguration cfg = config::DefaultConfig();
  cfg.profiles.clear();
  s = Scheduler::Create(cfg, registry, deps);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message(), HasSubstr("no profiles"));

  cfg = config::DefaultConfig();
  cfg.profiles.front().plugins.multi_point.enabled.push_back(
      {"NoSuchPlugin", std::nullopt});
  s = Scheduler::Create(cfg, registry, deps);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message(), HasSubstr("NoSuchPlugin"));
}

// ---------------------------------------------------------------- explain

TEST_F(SchedulerTest, ExplainRecordsACycleAndLeavesTheLoopAlone) {
  ASSERT_TRUE(Start());
  AddNode("big", "4");
  AddNode("small", "1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p", "2"));

  auto explained = sched_->Explain("default", "p", 5);
  ASSERT_TRUE(explained.ok()) << explained.error().message();
  const explain::Explanation& e = explained->explanation;
  EXPECT_EQ(e.subject.node, std::optional<std::string>("big"));
  EXPECT_EQ(e.subject.total_nodes, 2);
  EXPECT_EQ(e.filtered_nodes, 2);
  EXPECT_EQ(e.feasible_nodes, 1);
  ASSERT_EQ(e.rejections.size(), 1u);
  EXPECT_EQ(e.rejections[0].plugin, "NodeResourcesFit");
  EXPECT_EQ(explained->record->selected_node(), "big");
  // Nothing reserved, bound or written; the pod still waits its turn.
  EXPECT_THAT(control_.Calls(), IsEmpty());
  EXPECT_THAT(api_.Binds(), IsEmpty());
  EXPECT_THAT(api_.StatusWrites("default/p"), IsEmpty());
  EXPECT_EQ(RequestedMilliCpu("big"), 0);
  EXPECT_EQ(WhereIs(*pod), "active");

  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_THAT(api_.Binds(), ElementsAre(std::make_pair(std::string("default/p"),
                                                       std::string("big"))));
}

TEST_F(SchedulerTest, ExplainSaysWhyItCannot) {
  ASSERT_TRUE(Start());
  AddNode("n1");
  AddPod(PodBuilder("bound").SchedulerName(kProfile).Node("n1"));
  AddPod(PodBuilder("theirs").SchedulerName("default-scheduler"));
  auto missing = sched_->Explain("default", "nope", 5);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(),
            "pods \"nope\" not found in namespace default");
  auto bound = sched_->Explain("default", "bound", 5);
  ASSERT_FALSE(bound.ok());
  EXPECT_THAT(bound.error().message(), HasSubstr("is bound to node n1"));
  auto theirs = sched_->Explain("default", "theirs", 5);
  ASSERT_FALSE(theirs.ok());
  EXPECT_THAT(theirs.error().message(),
              HasSubstr("schedulerName default-scheduler, which is not a "
                        "profile of this scheduler"));
}

TEST_F(SchedulerTest, FailedDecisionsCarryTheirExplanationInTheEventOnly) {
  ASSERT_TRUE(Start({.preemption = false, .record_failed_decisions = true}));
  AddNode("n1", "1");
  AddNode("n2", "1");
  AddPod(Pending("p", "2"));
  ASSERT_TRUE(sched_->ScheduleOne());

  // Without DefaultPreemption, DynamicResources is the only PostFilter.
  const std::string message =
      "0/2 nodes are available: 2 Insufficient cpu. no new claims to "
      "deallocate";
  std::vector<framework::PodStatusUpdate> writes =
      api_.StatusWrites("default/p");
  ASSERT_FALSE(writes.empty());
  ASSERT_TRUE(writes.back().condition.has_value());
  // The condition keeps kube-scheduler's words.
  EXPECT_EQ(writes.back().condition->message, message);
  std::vector<FakeApiServer::Event> events = api_.Events("default/p");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].note,
            message +
                " Explain: NodeResourcesFit rejected 2 nodes (Insufficient "
                "cpu); closest n1, rejected by NodeResourcesFit only "
                "(Insufficient cpu).");
  EXPECT_LE(events[0].note.size(), 1024u);
}

// ------------------------------------------- v1.35: asynchronous preemption

// The preemptor is nominated at once; its victims are deleted in the
// background (here, at the next Tick: no binding workers), and until then an
// event that would requeue it finds it held at PreEnqueue. The victim's
// deletion event releases it, and with nothing else to do the loop takes it
// from backoffQ and binds it on the nominated node.
TEST_F(SchedulerTest, AsyncPreemptionHoldsThePreemptorUntilVictimsAreGone) {
  ASSERT_TRUE(Start({.test_plugins = false, .metrics = true}));
  AddNode("n1", "3");
  std::shared_ptr<const api::Pod> victim =
      AddPod(PodBuilder("victim").Node("n1").Priority(0).Req({{"cpu", "2"}}));
  // Not a victim (it outranks the preemptor); its deletion frees too little.
  std::shared_ptr<const api::Pod> bystander = AddPod(
      PodBuilder("bystander").Node("n1").Priority(2000).Req({{"cpu", "1"}}));
  std::shared_ptr<const api::Pod> preemptor =
      AddPod(Pending("preemptor", "2").Priority(1000));
  ASSERT_TRUE(sched_->ScheduleOne());

  std::vector<AttemptOutcome> outcomes = Outcomes();
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].nominated_node, "n1");
  // Nominated at once, in the status and in the nominator...
  std::vector<framework::PodStatusUpdate> writes =
      api_.StatusWrites("default/preemptor");
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].nominated_node_name, std::optional<std::string>("n1"));
  ASSERT_EQ(sched_->queue().NominatedPodsForNode("n1").size(), 1u);
  // ...but nothing deleted yet. Rejected by NodeResourcesFit, it waits in
  // the pool; an event that may help it finds it held at PreEnqueue.
  EXPECT_THAT(api_.Deleted(), IsEmpty());
  EXPECT_EQ(WhereIs(*preemptor), "unschedulable");
  api_.Remove(*bystander);
  sched_->OnPodDelete(bystander);
  EXPECT_EQ(WhereIs(*preemptor), "gated");
  auto [where, queued] = sched_->queue().Find(*preemptor);
  ASSERT_NE(queued, nullptr);
  EXPECT_EQ(queued->gating_plugin, "DefaultPreemption");
  EXPECT_FALSE(sched_->queue().CanPop());

  sched_->Tick();  // the background work runs
  EXPECT_THAT(api_.Deleted(), ElementsAre("default/victim"));
  EXPECT_THAT(metrics_.goroutines, ElementsAre("success"));
  std::vector<FakeApiServer::Event> victim_events =
      api_.Events("default/victim");
  ASSERT_FALSE(victim_events.empty());
  EXPECT_EQ(victim_events.back().reason, "Preempted");
  // The informer tells of the deletion: the preemptor is released.
  sched_->OnPodDelete(victim);
  EXPECT_EQ(WhereIs(*preemptor), "backoff");
  ASSERT_TRUE(sched_->queue().CanPop());
  ASSERT_TRUE(sched_->ScheduleOne());
  sched_->WaitForBindings();
  EXPECT_THAT(api_.Binds(),
              ElementsAre(std::make_pair(std::string("default/preemptor"),
                                         std::string("n1"))));
}

// A failed deletion in the background: the preemptor is activated rather
// than left in the pool, and preempts again on its next cycle.
TEST_F(SchedulerTest, FailedAsyncPreemptionActivatesThePreemptor) {
  ASSERT_TRUE(Start({.test_plugins = false, .metrics = true}));
  AddNode("n1", "2");
  AddPod(PodBuilder("victim").Node("n1").Priority(0).Req({{"cpu", "2"}}));
  std::shared_ptr<const api::Pod> preemptor =
      AddPod(Pending("preemptor", "2").Priority(1000));
  api_.SetDeleteResult(Status::Error("etcd unavailable"));
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_EQ(WhereIs(*preemptor), "unschedulable");
  sched_->Tick();
  EXPECT_THAT(metrics_.goroutines, ElementsAre("error"));
  EXPECT_THAT(api_.Deleted(), IsEmpty());
  EXPECT_EQ(WhereIs(*preemptor), "active");
}

// ------------------------------- v1.35: NominatedNodeNameForExpectation

TEST_F(SchedulerTest, NoExpectationWriteBeforeBindingWithV132) {
  ASSERT_TRUE(Start({.features = config::FeatureGates({1, 32})}));
  AddNode("n1");
  AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_EQ(api_.Binds().size(), 1u);
  EXPECT_THAT(api_.StatusWrites("default/p"), IsEmpty());
  EXPECT_EQ(control_.Calls(), kSuccessfulCalls);
}

// PreBind plugins with nothing to do say Skip: no nominatedNodeName is
// written (the pod is bound at once anyway) and their PreBind is not run.
TEST_F(SchedulerTest, PreBindThatWillDoNothingIsSkippedWithoutAWrite) {
  for (const char* name : {kTestA, kTestB}) {
    control_.Set(name,
                 With([](Behaviour& b) { b.pre_flight = Status::Skip(); }));
  }
  ASSERT_TRUE(Start());
  AddNode("n1");
  AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_EQ(api_.Binds().size(), 1u);
  EXPECT_THAT(api_.StatusWrites("default/p"), IsEmpty());
  EXPECT_THAT(control_.Calls(),
              ElementsAre("Reserve:TestA", "Reserve:TestB", "Permit:TestA",
                          "Permit:TestB", "Bind:TestA", "PostBind:TestA",
                          "PostBind:TestB"));
}

// A PreBindPreFlight error ends the binding cycle before anything is
// written; the nomination written for a later failure is cleared.
TEST_F(SchedulerTest, PreBindPreFlightErrorFailsTheBinding) {
  control_.Set(kTestB, With([](Behaviour& b) {
                 b.pre_flight = Status::Error("cannot tell");
               }));
  ASSERT_TRUE(Start());
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_THAT(api_.Binds(), IsEmpty());
  ExpectFailureRecorded("default/p", "SchedulerError",
                        "running PreBindPreFlight \"TestB\": cannot tell");
  EXPECT_EQ(WhereIs(*pod), "backoff");
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);
}

// Preemption (v1.36) cancels a pod in PreBind: its PreBind plugins see
// the cancellation before their next API write and the binding fails with
// its cause.
TEST_F(SchedulerTest, PreemptionReachesThePreBindPluginsOfAPodInPreBind) {
  control_.Set(kTestA, With([](Behaviour& b) {
                 b.pre_bind_stops_when_cancelled = true;
               }));
  ASSERT_TRUE(Start());
  control_.SetHook([&](std::string_view point, std::string_view plugin,
                       const api::Pod& pod) {
    if (point != "PreBind" || plugin != kTestA) return;
    std::shared_ptr<framework::PodInPreBind> binding =
        sched_->pods_in_prebind().Get(pod.metadata.uid);
    ASSERT_NE(binding, nullptr);
    EXPECT_TRUE(binding->CancelPod("preempted by DefaultPreemption"));
  });
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  sched_->WaitForBindings();
  EXPECT_THAT(api_.Binds(), IsEmpty());
  ExpectFailureRecorded(
      "default/p", "SchedulerError",
      "running PreBind plugin \"TestA\": preempted by DefaultPreemption");
  EXPECT_EQ(RequestedMilliCpu("n1"), 0);
}

// A pod held at Permit has its node written as nominatedNodeName before it
// waits; rejected at Permit, the nomination is cleared with the failure.
TEST_F(SchedulerTest, PodWaitingAtPermitIsNominatedFirstAndClearedOnFailure) {
  control_.Set(kTestA, With([](Behaviour& b) {
                 b.permit = Status(Code::kWait);
                 b.permit_timeout = std::chrono::seconds(10);
               }));
  ASSERT_TRUE(Start());
  AddNode("n1");
  std::shared_ptr<const api::Pod> pod = AddPod(Pending("p"));
  ASSERT_TRUE(sched_->ScheduleOne());
  sched_->WaitForBindings();  // the write runs off the loop
  std::vector<framework::PodStatusUpdate> writes =
      api_.StatusWrites("default/p");
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].nominated_node_name, std::optional<std::string>("n1"));
  // The wait times out.
  clock_.Advance(std::chrono::seconds(11));
  sched_->Tick();
  sched_->WaitForBindings();
  writes = api_.StatusWrites("default/p");
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[1].nominated_node_name, std::optional<std::string>(""));
  ASSERT_TRUE(writes[1].condition.has_value());
  EXPECT_EQ(writes[1].condition->reason, "Unschedulable");
  EXPECT_THAT(api_.Binds(), IsEmpty());
}

}  // namespace
}  // namespace ksched::scheduler

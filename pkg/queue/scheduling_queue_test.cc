#include "pkg/queue/scheduling_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pkg/framework/testing/wrappers.h"
#include "pkg/util/fake_clock.h"

namespace ksched::queue {
namespace {

using framework::ClusterEvent;
using framework::EventResource;
using framework::QueueingHint;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;
using testing::PodBuilder;

// The plugins of the test profile and the events they registered.
constexpr char kFoo[] = "fooPlugin";            // Node/Add: Queue
constexpr char kSkipper[] = "skipPlugin";       // Node/Add: QueueSkip
constexpr char kPendingPl[] = "pendingPlugin";  // Node/Add: Queue
constexpr char kLabelPl[] = "labelPlugin";      // UnscheduledPod/UpdatePodLabel
constexpr char kGates[] = "SchedulingGates";    // Pod/...GatesEliminated
constexpr char kCustomGate[] = "customGate";    // PreEnqueue; Node/Add: Queue
constexpr char kSpread[] = "PodTopologySpread";   // AssignedPod/*
constexpr char kAffinity[] = "InterPodAffinity";  // AssignedPod/*
constexpr char kFit[] = "NodeResourcesFit";   // AssignedPod/UpdatePodScaleDown
constexpr char kNodeReader[] = "nodeReader";  // Node/UpdateNodeLabel

const ClusterEvent kNodeAdd{EventResource::kNode, framework::kAdd};
const ClusterEvent kNodeLabel{EventResource::kNode,
                              framework::kUpdateNodeLabel};
// Registered by no plugin.
const ClusterEvent kNodeTaint{EventResource::kNode,
                              framework::kUpdateNodeTaint};

// PrioritySort: higher priority first, then earlier timestamp.
bool PrioritySortLess(const framework::QueuedPodInfo& a,
                      const framework::QueuedPodInfo& b) {
  const int32_t pa = a.pod().spec.priority.value_or(0);
  const int32_t pb = b.pod().spec.priority.value_or(0);
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

class SchedulingQueueTest : public ::testing::Test {
 protected:
  void SetUp() override { Build(); }

  void Build(SchedulingQueue::Options options = {}) {
    options.clock = &clock_;
    options.features = features_;
    q_ = std::make_unique<SchedulingQueue>(std::move(options), PrioritySortLess,
                                           PreEnqueue(), Hints());
  }

  // SchedulingGates, plus a custom gate holding pods labelled "hold" until
  // the test releases them.
  PreEnqueueFn PreEnqueue() {
    return [this](const api::Pod& pod) {
      if (!pod.spec.scheduling_gates.empty()) {
        framework::Status s = framework::Status::Unresolvable("gated");
        s.WithPlugin(kGates);
        return s;
      }
      if (pod.metadata.labels.Contains("hold") && !release_hold_) {
        framework::Status s = framework::Status::Unschedulable("held");
        s.WithPlugin(kCustomGate);
        return s;
      }
      return framework::Status();
    };
  }

  // A hint that counts its calls (the queue calls hints under its lock).
  framework::QueueingHintFn Counted(std::string plugin, QueueingHint answer) {
    return [this, plugin, answer](const api::Pod&,
                                  const framework::EventObjects&) {
      ++hint_calls_[plugin];
      return answer;
    };
  }

  QueueingHintMap Hints() {
    using PE = framework::Framework::PluginEvents;
    std::vector<PE> plugins = {
        PE{kFoo, {{kNodeAdd, Counted(kFoo, QueueingHint::kQueue)}}},
        PE{kSkipper, {{kNodeAdd, Counted(kSkipper, QueueingHint::kQueueSkip)}}},
        PE{kPendingPl, {{kNodeAdd, Counted(kPendingPl, QueueingHint::kQueue)}}},
        PE{kLabelPl,
           {{{EventResource::kUnscheduledPod, framework::kUpdatePodLabel},
             Counted(kLabelPl, QueueingHint::kQueue)}}},
        PE{kGates,
           {{{EventResource::kPod,
              framework::kUpdatePodSchedulingGatesEliminated},
             nullptr}}},
        PE{kCustomGate, {{kNodeAdd, nullptr}}},
        PE{kSpread,
           {{{EventResource::kAssignedPod, framework::kAll}, nullptr}}},
        PE{kAffinity,
           {{{EventResource::kAssignedPod, framework::kAll}, nullptr}}},
        PE{kFit,
           {{{EventResource::kAssignedPod, framework::kUpdatePodScaleDown},
             nullptr}}},
        // Reads the event's objects, which must still be alive.
        PE{kNodeReader,
           {{kNodeLabel,
             [this](const api::Pod&, const framework::EventObjects& objs) {
               const std::string* ready =
                   objs.new_node ? objs.new_node->metadata.labels.Find("ready")
                                 : nullptr;
               seen_nodes_.push_back(
                   (objs.new_node ? objs.new_node->metadata.name : "-") + ":" +
                   (ready ? *ready : "-"));
               return QueueingHint::kQueue;
             }}}},
    };
    QueueingHintMap hints;
    hints[std::string(api::kDefaultSchedulerName)] = std::move(plugins);
    return hints;
  }

  // Pops the head, which must be `name`.
  QueuedPodInfoPtr PopExpect(const std::string& name) {
    QueuedPodInfoPtr p = q_->Pop();
    EXPECT_NE(p, nullptr);
    if (p != nullptr) {
      EXPECT_EQ(p->pod().metadata.name, name);
    }
    return p;
  }

  // Returns a popped pod as the scheduling cycle does when `plugins`
  // rejected it.
  void Reject(const QueuedPodInfoPtr& p, std::set<std::string> plugins,
              std::set<std::string> pending = {}) {
    p->unschedulable_plugins = std::move(plugins);
    p->pending_plugins = std::move(pending);
    util::Result<void> r =
        q_->AddUnschedulableIfNotPresent(p, q_->SchedulingCycle());
    EXPECT_TRUE(r.ok()) << r.error().message();
  }

  // Adds the pod, pops it and rejects it (activeQ must hold nothing else).
  QueuedPodInfoPtr AddAndReject(const PodBuilder& b,
                                std::set<std::string> plugins) {
    q_->Add(b.Info());
    QueuedPodInfoPtr p = PopExpect(b.Obj().metadata.name);
    Reject(p, std::move(plugins));
    return p;
  }

  std::string Where(const PodBuilder& b) { return q_->Find(b.Obj()).first; }

  // Rebuilds the queue with kube v1.32's gates (no popping from backoffQ,
  // backoff expiries not rounded to windows).
  void UseV132() {
    features_ = config::FeatureGates(config::KubeVersion{1, 32});
    Build();
  }

  util::FakeClock clock_;
  config::FeatureGates features_;
  std::map<std::string, int> hint_calls_;
  std::vector<std::string> seen_nodes_;
  bool release_hold_ = false;
  std::unique_ptr<SchedulingQueue> q_;
};

// ---- Add / Pop ----

TEST_F(SchedulingQueueTest, PopsByPriorityThenTimestamp) {
  q_->Add(PodBuilder("medium").Priority(100).Info());
  clock_.Advance(milliseconds(1));
  q_->Add(PodBuilder("low").Priority(0).Info());
  clock_.Advance(milliseconds(1));
  q_->Add(PodBuilder("high").Priority(1000).Info());
  clock_.Advance(milliseconds(1));
  q_->Add(PodBuilder("medium2").Priority(100).Info());
  EXPECT_EQ(q_->PendingCounts().active, 4u);
  PopExpect("high");
  PopExpect("medium");
  PopExpect("medium2");
  PopExpect("low");
  EXPECT_EQ(q_->PendingCounts().active, 0u);
}

TEST_F(SchedulingQueueTest, AddOfTheSamePodReplacesIt) {
  q_->Add(PodBuilder("p").Info());
  q_->Add(PodBuilder("p").Label("v", "2").Info());
  EXPECT_EQ(q_->PendingCounts().active, 1u);
  QueuedPodInfoPtr p = PopExpect("p");
  EXPECT_TRUE(p->pod().metadata.labels.Contains("v"));
}

TEST_F(SchedulingQueueTest, AddRecordsTheNominationInTheStatus) {
  q_->Add(PodBuilder("p").NominatedNode("node1").Info());
  q_->Add(PodBuilder("q").Info());
  EXPECT_EQ(q_->NumNominatedPods(), 1u);
  ASSERT_EQ(q_->NominatedPodsForNode("node1").size(), 1u);
  EXPECT_EQ(q_->NominatedPodsForNode("node1")[0]->pod().metadata.name, "p");
}

TEST_F(SchedulingQueueTest, PopCountsAttemptsAndCyclesAndClearsRejectors) {
  const auto added_at = clock_.Now();
  q_->Add(PodBuilder("p").Info());
  clock_.Advance(seconds(3));
  QueuedPodInfoPtr p = PopExpect("p");
  EXPECT_EQ(p->attempts, 1);
  EXPECT_EQ(q_->SchedulingCycle(), 1);
  ASSERT_TRUE(p->initial_attempt_timestamp.has_value());
  EXPECT_EQ(*p->initial_attempt_timestamp, added_at);
  EXPECT_EQ(q_->InFlightPodCount(), 1u);

  Reject(p, {kFoo});
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
  clock_.Advance(seconds(1));
  q_->FlushBackoffQCompleted();
  p = PopExpect("p");
  EXPECT_EQ(p->attempts, 2);
  EXPECT_EQ(q_->SchedulingCycle(), 2);
  EXPECT_TRUE(p->unschedulable_plugins.empty());
  EXPECT_EQ(*p->initial_attempt_timestamp, added_at);
}

TEST_F(SchedulingQueueTest, PopBlocksUntilAPodIsAdded) {
  std::promise<QueuedPodInfoPtr> popped;
  std::future<QueuedPodInfoPtr> result = popped.get_future();
  std::thread t([&] { popped.set_value(q_->Pop()); });
  EXPECT_EQ(result.wait_for(milliseconds(50)), std::future_status::timeout);
  q_->Add(PodBuilder("p").Info());
  ASSERT_EQ(result.wait_for(seconds(10)), std::future_status::ready);
  t.join();
  QueuedPodInfoPtr p = result.get();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->pod().metadata.name, "p");
}

TEST_F(SchedulingQueueTest, CloseWakesEveryPop) {
  std::vector<std::future<QueuedPodInfoPtr>> results;
  for (int i = 0; i < 2; ++i) {
    results.push_back(
        std::async(std::launch::async, [&] { return q_->Pop(); }));
  }
  q_->Close();
  for (auto& r : results) {
    ASSERT_EQ(r.wait_for(seconds(10)), std::future_status::ready);
    EXPECT_EQ(r.get(), nullptr);
  }
  // Closed for good, even with pods queued.
  q_->Add(PodBuilder("p").Info());
  EXPECT_EQ(q_->Pop(), nullptr);
}

TEST_F(SchedulingQueueTest, RecentlyTriedPodsGoBehindPodsOfTheirPriority) {
  UseV132();
  q_->Add(PodBuilder("p1").Info());
  clock_.Advance(milliseconds(1));
  q_->Add(PodBuilder("p2").Info());
  QueuedPodInfoPtr p1 = PopExpect("p1");
  Reject(p1, {});
  clock_.Advance(seconds(1) + nanoseconds(1));
  q_->FlushBackoffQCompleted();
  ASSERT_EQ(q_->PendingCounts().active, 2u);
  // p1's timestamp is its failure's now, later than p2's.
  PopExpect("p2");
  PopExpect("p1");
}

TEST_F(SchedulingQueueTest, BackingOffHighPriorityPodDoesNotBlockOthers) {
  q_->Add(PodBuilder("high").Priority(100).Info());
  q_->Add(PodBuilder("low").Priority(1).Info());
  Reject(PopExpect("high"), {});
  PopExpect("low");
}

TEST_F(SchedulingQueueTest, DuplicateOfAPodInFlightIsDiscardedByPop) {
  q_->Add(PodBuilder("p").Priority(10).Info());
  QueuedPodInfoPtr p = PopExpect("p");
  // Tracked twice by mistake: Pop must not start a second cycle for it.
  q_->Add(PodBuilder("p").Priority(10).Info());
  q_->Add(PodBuilder("q").Info());
  PopExpect("q");
  EXPECT_EQ(q_->PendingCounts().active, 0u);
  EXPECT_EQ(q_->InFlightPodCount(), 2u);
}

// ---- AddUnschedulableIfNotPresent ----

TEST_F(SchedulingQueueTest, RejectedPodWithoutEventsGoesToThePool) {
  QueuedPodInfoPtr p = AddAndReject(PodBuilder("p"), {kFoo});
  EXPECT_EQ(Where(PodBuilder("p")), "unschedulable");
  SchedulingQueue::Counts c = q_->PendingCounts();
  EXPECT_EQ(c.active, 0u);
  EXPECT_EQ(c.backoff, 0u);
  EXPECT_EQ(c.unschedulable, 1u);
  EXPECT_EQ(c.gated, 0u);
  // AddUnschedulableIfNotPresent ends the pod's cycle.
  EXPECT_EQ(q_->InFlightPodCount(), 0u);
}

TEST_F(SchedulingQueueTest, PodWithoutRejectorIsRetriedAfterBackoff) {
  UseV132();
  // An internal error: no plugin to wait for.
  AddAndReject(PodBuilder("p"), {});
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
  // Since v1.33 the expiry instant itself still backs off.
  clock_.Advance(seconds(1));
  q_->FlushBackoffQCompleted();
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
  clock_.Advance(nanoseconds(1));
  q_->FlushBackoffQCompleted();
  EXPECT_EQ(Where(PodBuilder("p")), "active");
}

TEST_F(SchedulingQueueTest, AddUnschedulableRefusesAQueuedPodAndEndsTheCycle) {
  q_->Add(PodBuilder("p").Info());
  QueuedPodInfoPtr p = PopExpect("p");
  // The informer re-added it meanwhile.
  q_->Add(PodBuilder("p").Info());
  p->unschedulable_plugins = {kFoo};
  util::Result<void> r = q_->AddUnschedulableIfNotPresent(p, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("active"), std::string::npos);
  EXPECT_EQ(q_->InFlightPodCount(), 0u);
  EXPECT_EQ(q_->PendingCounts().unschedulable, 0u);
}

TEST_F(SchedulingQueueTest, AddUnschedulableRefreshesTheTimestamp) {
  q_->Add(PodBuilder("p").Info());
  QueuedPodInfoPtr p = PopExpect("p");
  clock_.Advance(seconds(5));
  Reject(p, {kFoo});
  EXPECT_EQ(q_->Find(PodBuilder("p").Obj()).second->timestamp, clock_.Now());
}

// ---- events while the pod is in flight ----

TEST_F(SchedulingQueueTest, EventDuringTheCycleRequeuesThePod) {
  q_->Add(PodBuilder("p").Info());
  QueuedPodInfoPtr p = PopExpect("p");
  // Nothing is pooled, but the event is kept for the pod in flight.
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(hint_calls_[kFoo], 0);
  Reject(p, {kFoo});
  EXPECT_EQ(hint_calls_[kFoo], 1);
  // Still serving its 1s backoff.
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
}

TEST_F(SchedulingQueueTest, EventDuringTheCycleThatTheHintSkipsIsIgnored) {
  q_->Add(PodBuilder("p").Info());
  QueuedPodInfoPtr p = PopExpect("p");
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  Reject(p, {kSkipper});
  EXPECT_EQ(hint_calls_[kSkipper], 1);
  EXPECT_EQ(Where(PodBuilder("p")), "unschedulable");
}

TEST_F(SchedulingQueueTest, EventDuringTheCycleOfNoInterestToTheRejector) {
  q_->Add(PodBuilder("p").Info());
  QueuedPodInfoPtr p = PopExpect("p");
  api::Pod other = PodBuilder("other").Obj();
  api::Pod other_new = PodBuilder("other").Label("a", "b").Obj();
  q_->MoveAllToActiveOrBackoffQueue(
      {EventResource::kUnscheduledPod, framework::kUpdatePodLabel},
      framework::EventObjects{&other, &other_new});
  Reject(p, {kFoo});
  EXPECT_EQ(hint_calls_[kFoo], 0);
  EXPECT_EQ(hint_calls_[kLabelPl], 0);
  EXPECT_EQ(Where(PodBuilder("p")), "unschedulable");
}

TEST_F(SchedulingQueueTest, EventBeforeThePodWasPoppedIsNotReplayed) {
  q_->Add(PodBuilder("first").Priority(10).Info());
  q_->Add(PodBuilder("second").Info());
  QueuedPodInfoPtr first = PopExpect("first");
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  QueuedPodInfoPtr second = PopExpect("second");
  Reject(second, {kFoo});
  EXPECT_EQ(Where(PodBuilder("second")), "unschedulable");
  Reject(first, {kFoo});
  EXPECT_EQ(Where(PodBuilder("first")), "backoff");
}

TEST_F(SchedulingQueueTest, PendingPluginQueueSkipsTheBackoff) {
  q_->Add(PodBuilder("p").Info());
  QueuedPodInfoPtr p = PopExpect("p");
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  Reject(p, {kSkipper}, {kPendingPl});
  EXPECT_EQ(Where(PodBuilder("p")), "active");
}

TEST_F(SchedulingQueueTest, InFlightRecordIsPrunedAsCyclesEnd) {
  // No pod in flight: the event is not recorded.
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(q_->InFlightEntryCount(), 0u);
  q_->Add(PodBuilder("p1").Priority(10).Info());
  q_->Add(PodBuilder("p2").Info());
  QueuedPodInfoPtr p1 = PopExpect("p1");
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  QueuedPodInfoPtr p2 = PopExpect("p2");
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(q_->InFlightEntryCount(), 4u);  // p1 e1 p2 e2
  // An event no plugin registered is not recorded.
  q_->MoveAllToActiveOrBackoffQueue(kNodeTaint, framework::EventObjects{});
  EXPECT_EQ(q_->InFlightEntryCount(), 4u);
  q_->Done(p2->pod().metadata.uid);
  EXPECT_EQ(q_->InFlightEntryCount(), 3u);  // p1 e1 e2: p1 may need both
  q_->Done("unknown-uid");
  EXPECT_EQ(q_->InFlightEntryCount(), 3u);
  q_->Done(p1->pod().metadata.uid);
  EXPECT_EQ(q_->InFlightEntryCount(), 0u);
  EXPECT_EQ(q_->InFlightPodCount(), 0u);
}

TEST_F(SchedulingQueueTest, InFlightEventKeepsItsObjectsAlive) {
  q_->Add(PodBuilder("p").Info());
  QueuedPodInfoPtr p = PopExpect("p");
  {
    // The informer's object is gone by the time the pod comes back.
    auto old_node =
        std::make_unique<api::Node>(testing::NodeBuilder("n1").Obj());
    auto new_node = std::make_unique<api::Node>(
        testing::NodeBuilder("n1").Label("ready", "yes").Obj());
    q_->MoveAllToActiveOrBackoffQueue(
        kNodeLabel, framework::EventObjects{nullptr, nullptr, old_node.get(),
                                            new_node.get()});
  }
  Reject(p, {kNodeReader});
  EXPECT_EQ(seen_nodes_, (std::vector<std::string>{"n1:yes"}));
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
}

// ---- MoveAllToActiveOrBackoffQueue ----

TEST_F(SchedulingQueueTest, MoveAllQueuesToBackoffWhileBackingOff) {
  AddAndReject(PodBuilder("p"), {kFoo});
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
  EXPECT_EQ(hint_calls_[kFoo], 1);
}

TEST_F(SchedulingQueueTest, MoveAllQueuesToActiveOnceBackoffExpired) {
  AddAndReject(PodBuilder("p"), {kFoo});
  clock_.Advance(seconds(2));
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(Where(PodBuilder("p")), "active");
}

TEST_F(SchedulingQueueTest, MoveAllKeepsPodsTheHintSkips) {
  AddAndReject(PodBuilder("p"), {kSkipper});
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(hint_calls_[kSkipper], 1);
  EXPECT_EQ(Where(PodBuilder("p")), "unschedulable");
}

TEST_F(SchedulingQueueTest, MoveAllAsksOnlyThePodsRejectors) {
  AddAndReject(PodBuilder("p"), {kFoo});
  AddAndReject(PodBuilder("q"), {kSkipper, kFoo});
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  // kPendingPl registered Node/Add too but rejected nobody.
  EXPECT_EQ(hint_calls_[kPendingPl], 0);
  EXPECT_EQ(hint_calls_[kFoo], 2);
  // One Queue is enough.
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
  EXPECT_EQ(Where(PodBuilder("q")), "backoff");
}

TEST_F(SchedulingQueueTest, MoveAllWithPreCheckMovesOnlyThePodsItAccepts) {
  AddAndReject(PodBuilder("p"), {kFoo});
  AddAndReject(PodBuilder("q"), {kFoo});
  q_->MoveAllToActiveOrBackoffQueue(
      kNodeAdd, framework::EventObjects{},
      [](const api::Pod& pod) { return pod.metadata.name != "p"; });
  EXPECT_EQ(Where(PodBuilder("p")), "unschedulable");
  EXPECT_EQ(Where(PodBuilder("q")), "backoff");
  // The excluded pod was not even asked about.
  EXPECT_EQ(hint_calls_[kFoo], 1);
}

TEST_F(SchedulingQueueTest, MoveAllIgnoresEventsNoPluginRegistered) {
  AddAndReject(PodBuilder("p"), {kFoo});
  q_->MoveAllToActiveOrBackoffQueue(kNodeTaint, framework::EventObjects{});
  EXPECT_EQ(Where(PodBuilder("p")), "unschedulable");
  EXPECT_EQ(hint_calls_[kFoo], 0);
}

TEST_F(SchedulingQueueTest, WildcardMovesEveryRejectedPod) {
  AddAndReject(PodBuilder("p"), {kSkipper});
  AddAndReject(PodBuilder("q"), {"pluginWithoutEvents"});
  q_->MoveAllToActiveOrBackoffQueue(kEventWildCard, framework::EventObjects{});
  EXPECT_EQ(hint_calls_[kSkipper], 0);
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
  EXPECT_EQ(Where(PodBuilder("q")), "backoff");
}

TEST_F(SchedulingQueueTest, PodOfUnknownProfileIsMovedByAnyEventOfInterest) {
  AddAndReject(PodBuilder("p").SchedulerName("other-scheduler"), {kSkipper});
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
}

TEST_F(SchedulingQueueTest, StrongestAnswerOfTheRejectorsWins) {
  // The Pending plugin skips, the other queues: after backoff.
  q_->Add(PodBuilder("p").Info());
  QueuedPodInfoPtr p = PopExpect("p");
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  Reject(p, {kFoo}, {kSkipper});
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
  // Both skip: stays.
  q_->Add(PodBuilder("q").Info());
  QueuedPodInfoPtr q = PopExpect("q");
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  Reject(q, {kSkipper}, {kSkipper});
  EXPECT_EQ(Where(PodBuilder("q")), "unschedulable");
}

// ---- Activate ----

TEST_F(SchedulingQueueTest, ActivateMovesPooledAndBackingOffPods) {
  AddAndReject(PodBuilder("pooled"), {kFoo});
  AddAndReject(PodBuilder("backing-off"), {});
  ASSERT_EQ(Where(PodBuilder("backing-off")), "backoff");
  q_->Activate({PodBuilder("pooled").Ptr(), PodBuilder("backing-off").Ptr(),
                PodBuilder("unknown").Ptr()});
  EXPECT_EQ(Where(PodBuilder("pooled")), "active");
  EXPECT_EQ(Where(PodBuilder("backing-off")), "active");
  EXPECT_EQ(Where(PodBuilder("unknown")), "");
  EXPECT_EQ(q_->PendingCounts().active, 2u);
}

TEST_F(SchedulingQueueTest, ActivateOfAPodInFlightRequeuesItWhenItReturns) {
  q_->Add(PodBuilder("target").Priority(10).Info());
  q_->Add(PodBuilder("bystander").Info());
  QueuedPodInfoPtr target = PopExpect("target");
  QueuedPodInfoPtr bystander = PopExpect("bystander");
  q_->Activate({PodBuilder("target").Ptr()});
  Reject(target, {kSkipper});
  Reject(bystander, {kSkipper});
  EXPECT_EQ(Where(PodBuilder("target")), "backoff");
  // The wildcard was aimed at the target only.
  EXPECT_EQ(Where(PodBuilder("bystander")), "unschedulable");
}

// ---- Update ----

TEST_F(SchedulingQueueTest, UpdateInActiveQReplacesThePodInPlace) {
  const auto t0 = clock_.Now();
  q_->Add(PodBuilder("p").Priority(1).Info());
  clock_.Advance(seconds(1));
  q_->Add(PodBuilder("q").Priority(5).Info());
  framework::PodInfoPtr updated = PodBuilder("p").Priority(10).Info();
  q_->Update(PodBuilder("p").Priority(1).Obj(), updated);
  EXPECT_EQ(q_->PendingCounts().active, 2u);
  QueuedPodInfoPtr p = PopExpect("p");
  EXPECT_EQ(p->pod_info, updated);
  EXPECT_EQ(p->timestamp, t0);
}

TEST_F(SchedulingQueueTest, UpdateInBackoffQStaysThere) {
  AddAndReject(PodBuilder("p"), {});
  framework::PodInfoPtr updated = PodBuilder("p").Label("a", "b").Info();
  q_->Update(PodBuilder("p").Obj(), updated);
  auto [where, info] = q_->Find(PodBuilder("p").Obj());
  EXPECT_EQ(where, "backoff");
  EXPECT_EQ(info->pod_info, updated);
}

TEST_F(SchedulingQueueTest, UpdateInThePoolThatMayHelpMovesThePod) {
  AddAndReject(PodBuilder("p"), {kLabelPl});
  clock_.Advance(seconds(2));
  q_->Update(PodBuilder("p").Obj(), PodBuilder("p").Label("a", "b").Info());
  EXPECT_EQ(hint_calls_[kLabelPl], 1);
  EXPECT_EQ(Where(PodBuilder("p")), "active");
}

TEST_F(SchedulingQueueTest, UpdateInThePoolThatCannotHelpKeepsThePod) {
  AddAndReject(PodBuilder("p"), {kLabelPl});
  api::Pod annotated = PodBuilder("p").Obj();
  annotated.metadata.annotations.Set("note", "x");
  auto updated =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(annotated));
  q_->Update(PodBuilder("p").Obj(), updated);
  auto [where, info] = q_->Find(PodBuilder("p").Obj());
  EXPECT_EQ(where, "unschedulable");
  EXPECT_EQ(info->pod_info, updated);
  EXPECT_EQ(hint_calls_[kLabelPl], 0);
}

TEST_F(SchedulingQueueTest, UpdateOfAPodNotQueuedAddsIt) {
  q_->Update(PodBuilder("p").Obj(), PodBuilder("p").Label("a", "b").Info());
  EXPECT_EQ(Where(PodBuilder("p")), "active");
}

TEST_F(SchedulingQueueTest, UpdateOfAPodInFlightIsReplayedWhenItReturns) {
  q_->Add(PodBuilder("p").Info());
  QueuedPodInfoPtr p = PopExpect("p");
  q_->Update(PodBuilder("p").Obj(), PodBuilder("p").Label("a", "b").Info());
  // Not queued twice.
  EXPECT_EQ(Where(PodBuilder("p")), "");
  Reject(p, {kLabelPl});
  EXPECT_EQ(hint_calls_[kLabelPl], 1);
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
}

// ---- Delete ----

TEST_F(SchedulingQueueTest, DeleteRemovesFromEveryQueueAndTheNominator) {
  AddAndReject(PodBuilder("pooled"), {kFoo});
  AddAndReject(PodBuilder("backing-off"), {});
  q_->Add(PodBuilder("gated").SchedulingGate("g").Info());
  q_->Add(PodBuilder("active").NominatedNode("n1").Info());
  EXPECT_EQ(q_->NumNominatedPods(), 1u);
  for (const char* name : {"pooled", "backing-off", "gated", "active"}) {
    q_->Delete(PodBuilder(name).Obj());
    EXPECT_EQ(Where(PodBuilder(name)), "") << name;
  }
  SchedulingQueue::Counts c = q_->PendingCounts();
  EXPECT_EQ(c.active + c.backoff + c.unschedulable + c.gated, 0u);
  EXPECT_EQ(q_->NumNominatedPods(), 0u);
}

// ---- flushing ----

TEST_F(SchedulingQueueTest, FlushBackoffQMovesPodsAsTheirBackoffsExpire) {
  UseV132();
  q_->Add(PodBuilder("once").Priority(10).Info());
  q_->Add(PodBuilder("thrice").Info());
  QueuedPodInfoPtr once = PopExpect("once");
  QueuedPodInfoPtr thrice = PopExpect("thrice");
  thrice->consecutive_errors_count = 2;  // the third error in a row: 4s
  Reject(once, {});
  Reject(thrice, {});
  clock_.Advance(milliseconds(500));
  q_->FlushBackoffQCompleted();
  EXPECT_EQ(q_->PendingCounts().backoff, 2u);
  clock_.Advance(milliseconds(501));
  q_->FlushBackoffQCompleted();
  EXPECT_EQ(Where(PodBuilder("once")), "active");
  EXPECT_EQ(Where(PodBuilder("thrice")), "backoff");
  clock_.Advance(seconds(3));
  q_->FlushBackoffQCompleted();
  EXPECT_EQ(Where(PodBuilder("thrice")), "active");
}

TEST_F(SchedulingQueueTest, BackoffGrowsWithEachFailedAttemptUpToTheMax) {
  UseV132();
  q_->Add(PodBuilder("p").Info());
  const std::vector<int> expected_seconds = {1, 2, 4, 8, 10, 10};
  for (size_t i = 0; i < expected_seconds.size(); ++i) {
    QueuedPodInfoPtr p = PopExpect("p");
    ASSERT_EQ(p->attempts, static_cast<int>(i + 1));
    Reject(p, {});
    ASSERT_EQ(p->consecutive_errors_count, static_cast<int>(i + 1));
    clock_.Advance(seconds(expected_seconds[i]));
    q_->FlushBackoffQCompleted();
    ASSERT_EQ(Where(PodBuilder("p")), "backoff") << "attempt " << i + 1;
    clock_.Advance(nanoseconds(1));
    q_->FlushBackoffQCompleted();
    ASSERT_EQ(Where(PodBuilder("p")), "active") << "attempt " << i + 1;
  }
}

TEST_F(SchedulingQueueTest, CustomBackoffDurationsApply) {
  SchedulingQueue::Options options;
  options.pod_initial_backoff = milliseconds(100);
  options.pod_max_backoff = milliseconds(150);
  features_ = config::FeatureGates(config::KubeVersion{1, 32});
  Build(options);
  q_->Add(PodBuilder("p").Info());
  QueuedPodInfoPtr p = PopExpect("p");
  p->consecutive_errors_count = 4;
  Reject(p, {});
  clock_.Advance(milliseconds(150));
  q_->FlushBackoffQCompleted();
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
  clock_.Advance(nanoseconds(1));
  q_->FlushBackoffQCompleted();
  EXPECT_EQ(Where(PodBuilder("p")), "active");
}

TEST_F(SchedulingQueueTest, FlushUnschedulableMovesPodsPooledTooLong) {
  AddAndReject(PodBuilder("old"), {kSkipper});
  clock_.Advance(minutes(1));
  AddAndReject(PodBuilder("young"), {kSkipper});
  clock_.Advance(minutes(4));
  // Exactly 5 minutes: not longer than the limit yet.
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Where(PodBuilder("old")), "unschedulable");
  clock_.Advance(nanoseconds(1));
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Where(PodBuilder("old")), "active");
  EXPECT_EQ(Where(PodBuilder("young")), "unschedulable");
  // Timeouts do not go through the hints.
  EXPECT_EQ(hint_calls_[kSkipper], 0);
}

// v1.36 marks a pod the flush moved, until its next attempt puts it back
// (scheduler_pod_scheduled_after_flush_total counts marked pods that bind).
TEST_F(SchedulingQueueTest, FlushedPodsAreMarkedUntilTheirNextAttempt) {
  QueuedPodInfoPtr rejected = AddAndReject(PodBuilder("old"), {kSkipper});
  EXPECT_FALSE(rejected->was_flushed_from_unschedulable);
  clock_.Advance(minutes(5) + nanoseconds(1));
  q_->FlushUnschedulablePodsLeftover();
  QueuedPodInfoPtr flushed = PopExpect("old");
  EXPECT_TRUE(flushed->was_flushed_from_unschedulable);
  Reject(flushed, {kSkipper});
  EXPECT_FALSE(flushed->was_flushed_from_unschedulable);
  // An event, not the flush, moves it this time: not marked.
  clock_.Advance(minutes(1));
  q_->MoveAllToActiveOrBackoffQueue(kEventWildCard, framework::EventObjects{});
  clock_.Advance(minutes(1));
  q_->FlushBackoffQCompleted();
  QueuedPodInfoPtr moved = PopExpect("old");
  EXPECT_FALSE(moved->was_flushed_from_unschedulable);
}

TEST_F(SchedulingQueueTest, FlushUnschedulableHonoursTheConfiguredLimit) {
  SchedulingQueue::Options options;
  options.pod_max_in_unschedulable = seconds(30);
  Build(options);
  AddAndReject(PodBuilder("p"), {kSkipper});
  clock_.Advance(seconds(31));
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Where(PodBuilder("p")), "active");
}

// The flush skips its walk while no pooled pod can be stale, and never
// skips one that is: pods pooled at different times each leave once they
// pass the limit, across flushes that find nothing to move.
TEST_F(SchedulingQueueTest, FlushUnschedulableMissesNoPodItSkipsAWalkFor) {
  AddAndReject(PodBuilder("a"), {kSkipper});
  clock_.Advance(minutes(3));
  AddAndReject(PodBuilder("b"), {kSkipper});
  q_->FlushUnschedulablePodsLeftover();  // nothing stale yet
  clock_.Advance(minutes(2) + nanoseconds(1));
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Where(PodBuilder("a")), "active");
  EXPECT_EQ(Where(PodBuilder("b")), "unschedulable");
  q_->Delete(PodBuilder("a").Obj());
  clock_.Advance(minutes(1));
  AddAndReject(PodBuilder("c"), {kSkipper});
  q_->FlushUnschedulablePodsLeftover();  // b is 3 minutes old
  EXPECT_EQ(Where(PodBuilder("b")), "unschedulable");
  clock_.Advance(minutes(2));
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Where(PodBuilder("b")), "active");
  EXPECT_EQ(Where(PodBuilder("c")), "unschedulable");
  q_->Delete(PodBuilder("b").Obj());
  clock_.Advance(minutes(3) + nanoseconds(1));
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Where(PodBuilder("c")), "active");
  EXPECT_EQ(q_->PendingCounts().unschedulable, 0u);
}

// ---- gated pods ----

TEST_F(SchedulingQueueTest, GatedPodWaitsForItsGatesToBeRemoved) {
  q_->Add(PodBuilder("p").SchedulingGate("g").Info());
  auto [where, info] = q_->Find(PodBuilder("p").Obj());
  EXPECT_EQ(where, "gated");
  EXPECT_TRUE(info->unschedulable_plugins.count(kGates));
  SchedulingQueue::Counts c = q_->PendingCounts();
  EXPECT_EQ(c.gated, 1u);
  EXPECT_EQ(c.unschedulable, 0u);
  EXPECT_EQ(c.active, 0u);

  // Cluster events and timeouts leave it alone.
  q_->MoveAllToActiveOrBackoffQueue(kEventWildCard, framework::EventObjects{});
  clock_.Advance(minutes(6));
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Where(PodBuilder("p")), "gated");

  // An update that keeps the gate.
  q_->Update(PodBuilder("p").SchedulingGate("g").Obj(),
             PodBuilder("p").SchedulingGate("g").Label("a", "b").Info());
  EXPECT_EQ(Where(PodBuilder("p")), "gated");

  // The last gate removed.
  q_->Update(PodBuilder("p").SchedulingGate("g").Label("a", "b").Obj(),
             PodBuilder("p").Label("a", "b").Info());
  EXPECT_EQ(Where(PodBuilder("p")), "active");
  EXPECT_EQ(q_->PendingCounts().gated, 0u);
  QueuedPodInfoPtr p = PopExpect("p");
  EXPECT_EQ(p->attempts, 1);
  EXPECT_FALSE(p->gated);
  EXPECT_TRUE(p->unschedulable_plugins.empty());
}

TEST_F(SchedulingQueueTest, PodGatedByAnotherPluginIsRecheckedOnItsEvents) {
  q_->Add(PodBuilder("p").Label("hold", "1").Info());
  EXPECT_EQ(Where(PodBuilder("p")), "gated");
  // Its gate registered Node/Add: PreEnqueue runs again, still refuses.
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(Where(PodBuilder("p")), "gated");
  EXPECT_EQ(q_->PendingCounts().gated, 1u);
  release_hold_ = true;
  // An event its gate did not register does not re-check it.
  q_->MoveAllToActiveOrBackoffQueue(
      {EventResource::kUnscheduledPod, framework::kUpdatePodLabel},
      framework::EventObjects{});
  EXPECT_EQ(Where(PodBuilder("p")), "gated");
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(Where(PodBuilder("p")), "active");
  EXPECT_EQ(q_->PendingCounts().gated, 0u);
}

TEST_F(SchedulingQueueTest,
       PodGatedAfterFailingWaitsOutItsBackoffWhenReleased) {
  q_->Add(PodBuilder("p").Info());
  QueuedPodInfoPtr p = PopExpect("p");
  Reject(p, {kFoo});
  // The pod now carries the custom gate's label.
  q_->Update(PodBuilder("p").Obj(), PodBuilder("p").Label("hold", "1").Info());
  // Its rejector does not care about label updates: still pooled.
  EXPECT_EQ(Where(PodBuilder("p")), "unschedulable");
  release_hold_ = true;
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
}

// ---- assigned pods ----

TEST_F(SchedulingQueueTest, AssignedPodAddedMovesPodsWithCrossTopologyTerms) {
  AddAndReject(PodBuilder("wants-web").PodAffinity("zone", "app", "web"),
               {kAffinity});
  AddAndReject(PodBuilder("wants-db").PodAffinity("zone", "app", "db"),
               {kAffinity});
  AddAndReject(PodBuilder("spread"), {kSpread});
  AddAndReject(PodBuilder("spread-elsewhere").Namespace("other"), {kSpread});
  AddAndReject(PodBuilder("fit"), {kFit});
  clock_.Advance(seconds(2));
  q_->AssignedPodAdded(PodBuilder("web").Label("app", "web").Node("n1").Obj());
  EXPECT_EQ(Where(PodBuilder("wants-web")), "active");
  EXPECT_EQ(Where(PodBuilder("spread")), "active");
  EXPECT_EQ(Where(PodBuilder("wants-db")), "unschedulable");
  EXPECT_EQ(Where(PodBuilder("spread-elsewhere").Namespace("other")),
            "unschedulable");
  EXPECT_EQ(Where(PodBuilder("fit")), "unschedulable");
}

TEST_F(SchedulingQueueTest, AssignedPodAddedUsesNamespaceLabels) {
  SchedulingQueue::Options options;
  options.namespace_labels = [](std::string_view ns) {
    api::StringMap labels;
    if (ns == "team-a") labels.Set("team", "a");
    return labels;
  };
  Build(options);
  api::Pod wants = PodBuilder("wants").Obj();
  api::PodAffinityTerm term;
  term.label_selector.emplace();
  term.label_selector->match_labels.Set("app", "web");
  term.namespace_selector.emplace();
  term.namespace_selector->match_labels.Set("team", "a");
  term.topology_key = "zone";
  wants.spec.affinity.emplace().pod_affinity.emplace().required.push_back(term);
  q_->Add(framework::PodInfo::Create(std::make_shared<const api::Pod>(wants)));
  Reject(PopExpect("wants"), {kAffinity});
  q_->AssignedPodAdded(
      PodBuilder("web").Namespace("team-b").Label("app", "web").Obj());
  EXPECT_EQ(Where(PodBuilder("wants")), "unschedulable");
  q_->AssignedPodAdded(
      PodBuilder("web").Namespace("team-a").Label("app", "web").Obj());
  EXPECT_EQ(Where(PodBuilder("wants")), "backoff");
}

TEST_F(SchedulingQueueTest, AssignedPodScaleDownConsidersEveryPod) {
  AddAndReject(PodBuilder("fit"), {kFit});
  api::Pod old_pod = PodBuilder("bound").Node("n1").Req({{"cpu", "2"}}).Obj();
  api::Pod new_pod = PodBuilder("bound").Node("n1").Req({{"cpu", "1"}}).Obj();
  q_->AssignedPodUpdated(old_pod, new_pod, framework::kUpdatePodLabel);
  EXPECT_EQ(Where(PodBuilder("fit")), "unschedulable");
  q_->AssignedPodUpdated(old_pod, new_pod, framework::kUpdatePodScaleDown);
  EXPECT_EQ(Where(PodBuilder("fit")), "backoff");
}

// ---- nominator and bookkeeping ----

TEST_F(SchedulingQueueTest, NominationsFollowUpdatesAndDeletes) {
  q_->Add(PodBuilder("p").NominatedNode("n1").Info());
  framework::PodInfoPtr preemptor = PodBuilder("preemptor").Info();
  q_->AddNominatedPod(preemptor, "n1");
  EXPECT_EQ(q_->NumNominatedPods(), 2u);
  framework::PodInfoPtr updated =
      PodBuilder("p").NominatedNode("n1").Label("a", "b").Info();
  q_->Update(PodBuilder("p").NominatedNode("n1").Obj(), updated);
  std::vector<framework::PodInfoPtr> on_n1 = q_->NominatedPodsForNode("n1");
  ASSERT_EQ(on_n1.size(), 2u);
  EXPECT_EQ(on_n1[0], preemptor);
  EXPECT_EQ(on_n1[1], updated);
  q_->Delete(updated->pod());
  EXPECT_EQ(q_->NumNominatedPods(), 1u);
  q_->DeleteNominatedPodIfExists(preemptor->pod());
  EXPECT_EQ(q_->NumNominatedPods(), 0u);
  EXPECT_TRUE(q_->NominatedPodsForNode("n1").empty());
}

TEST_F(SchedulingQueueTest, UpdateNominatedPodKeepsTheReservedNode) {
  framework::PodInfoPtr p = PodBuilder("p").Info();
  q_->AddNominatedPod(p, "n1");
  q_->UpdateNominatedPod(p->pod(), PodBuilder("p").Label("x", "y").Info());
  ASSERT_EQ(q_->NominatedPodsForNode("n1").size(), 1u);
  EXPECT_TRUE(
      q_->NominatedPodsForNode("n1")[0]->pod().metadata.labels.Contains("x"));
}

TEST_F(SchedulingQueueTest, PendingCountsAndIncomingObserver) {
  std::vector<std::string> incoming;
  SchedulingQueue::Options options;
  options.on_incoming_pod = [&](std::string_view queue,
                                std::string_view event) {
    incoming.push_back(std::string(queue) + ":" + std::string(event));
  };
  Build(options);
  AddAndReject(PodBuilder("pooled"), {kFoo});
  AddAndReject(PodBuilder("pooled2"), {kSkipper});
  AddAndReject(PodBuilder("backing-off"), {});
  q_->Add(PodBuilder("gated").SchedulingGate("g").Info());
  q_->Add(PodBuilder("active").Info());
  SchedulingQueue::Counts c = q_->PendingCounts();
  EXPECT_EQ(c.active, 1u);
  EXPECT_EQ(c.backoff, 1u);
  EXPECT_EQ(c.unschedulable, 2u);
  EXPECT_EQ(c.gated, 1u);
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(incoming, (std::vector<std::string>{
                          "active:UnscheduledPodAdd",
                          "unschedulable:ScheduleAttemptFailure",
                          "active:UnscheduledPodAdd",
                          "unschedulable:ScheduleAttemptFailure",
                          "active:UnscheduledPodAdd",
                          "backoff:ScheduleAttemptFailure",
                          "active:UnscheduledPodAdd",
                          "backoff:Node/Add",
                      }));
}

TEST_F(SchedulingQueueTest, UnschedulableReasonsCountQueuedRejectedPods) {
  using Reasons = std::map<SchedulingQueue::ReasonKey, int64_t>;
  using Key = SchedulingQueue::ReasonKey;
  const std::string profile(api::kDefaultSchedulerName);
  AddAndReject(PodBuilder("a"), {kFoo, kSkipper});
  AddAndReject(PodBuilder("b"), {kFoo});
  q_->Add(PodBuilder("gated").SchedulingGate("g").Info());
  EXPECT_EQ(q_->UnschedulableReasons(), (Reasons{{{profile, kFoo}, 2},
                                                 {{profile, kSkipper}, 1},
                                                 {{profile, kGates}, 1}}));
  // Node/Add moves both to backoffQ (fooPlugin queues): still counted.
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(q_->UnschedulableReasons().at(Key(profile, kFoo)), 2);
  // Once popped for a new attempt, a pod no longer counts.
  clock_.Advance(seconds(20));
  q_->FlushBackoffQCompleted();
  QueuedPodInfoPtr popped = q_->Pop();
  ASSERT_NE(popped, nullptr);
  const Reasons after_pop = q_->UnschedulableReasons();
  EXPECT_EQ(after_pop.at(Key(profile, kFoo)), 1);
  // Deleted pods do not count either.
  q_->Delete(popped->pod().metadata.name == "a" ? PodBuilder("b").Obj()
                                                : PodBuilder("a").Obj());
  q_->Delete(PodBuilder("gated").Obj());
  EXPECT_EQ(q_->UnschedulableReasons(), Reasons{});
  // A pod rejected as Pending by the same plugin counts once.
  Reject(popped, {kPendingPl}, {kPendingPl});
  EXPECT_EQ(q_->UnschedulableReasons(), (Reasons{{{profile, kPendingPl}, 1}}));
}

// Many threads at once; meant for the sanitizers (TSan in particular).
TEST_F(SchedulingQueueTest, ConcurrentProducersConsumerAndEvents) {
  // Every pod is popped once: a rejected pod the event thread moves to
  // backoffQ must not be handed out again (v1.32's backoffQ, never popped).
  UseV132();
  constexpr int kPerProducer = 200;
  constexpr int kProducers = 2;
  std::vector<std::thread> threads;
  for (int t = 0; t < kProducers; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kPerProducer; ++i) {
        q_->Add(PodBuilder("p-" + std::to_string(t) + "-" + std::to_string(i))
                    .Priority(i % 7)
                    .Info());
      }
    });
  }
  std::atomic<bool> stop{false};
  threads.emplace_back([this, &stop] {
    while (!stop.load()) {
      q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
      (void)q_->NumNominatedPods();
      (void)q_->NominatedPodsForNode("n1");
      (void)q_->PendingCounts();
    }
  });
  int rejected = 0;
  for (int popped = 0; popped < kProducers * kPerProducer; ++popped) {
    QueuedPodInfoPtr p = q_->Pop();
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(p->attempts, 1);
    if (popped % 2 == 0) {
      Reject(p, {kFoo});
      ++rejected;
    } else {
      q_->AddNominatedPod(p->pod_info, "n1");
      q_->Done(p->pod().metadata.uid);
    }
  }
  stop.store(true);
  for (std::thread& t : threads) t.join();
  SchedulingQueue::Counts c = q_->PendingCounts();
  EXPECT_EQ(c.active, 0u);
  EXPECT_EQ(c.backoff + c.unschedulable, static_cast<size_t>(rejected));
  EXPECT_EQ(q_->InFlightPodCount(), 0u);
  EXPECT_EQ(q_->InFlightEntryCount(), 0u);
  EXPECT_EQ(q_->NumNominatedPods(),
            static_cast<size_t>(kProducers * kPerProducer - rejected));
  clock_.Advance(seconds(2));
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  q_->FlushBackoffQCompleted();
  EXPECT_EQ(q_->PendingCounts().active, static_cast<size_t>(rejected));
}

// ---- SchedulerPopFromBackoffQ (v1.33+) ----

// kube's TestPriorityQueue_Pop: with the gate, an empty activeQ hands out
// the rejected pod of backoffQ at once; a pod that failed with an error and
// the pooled pods are never taken early. Without it, only activeQ's pods.
TEST_F(SchedulingQueueTest, PopTakesRejectedPodsFromBackoffQWhenActiveIsEmpty) {
  for (bool v132 : {false, true}) {
    SCOPED_TRACE(v132 ? "v1.32" : "v1.35");
    features_ = v132 ? config::FeatureGates(config::KubeVersion{1, 32})
                     : config::FeatureGates();
    Build();
    AddAndReject(PodBuilder("high").Priority(1000), {kFoo});
    // Node/Add: fooPlugin says Queue; the pod is still backing off.
    q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
    ASSERT_EQ(Where(PodBuilder("high")), "backoff");
    AddAndReject(PodBuilder("high-error").Priority(1000), {});
    ASSERT_EQ(Where(PodBuilder("high-error")), "backoff");
    AddAndReject(PodBuilder("pooled").Priority(1000), {kSkipper});
    q_->Add(PodBuilder("medium").Priority(100).Info());

    PopExpect("medium");
    if (v132) {
      EXPECT_FALSE(q_->CanPop());
      continue;
    }
    ASSERT_TRUE(q_->CanPop());
    QueuedPodInfoPtr high = PopExpect("high");
    EXPECT_EQ(high->attempts, 2);
    EXPECT_FALSE(q_->CanPop());
    EXPECT_EQ(Where(PodBuilder("high-error")), "backoff");
    EXPECT_EQ(Where(PodBuilder("pooled")), "unschedulable");
  }
}

TEST_F(SchedulingQueueTest, BackoffQPopsInActiveOrderWithinAWindow) {
  // Three pods rejected within the same second: their expiries share a
  // window, so the higher priority comes out first whatever its expiry.
  for (const auto& [name, priority] :
       std::vector<std::pair<std::string, int32_t>>{
           {"low", 1}, {"high", 100}, {"mid", 10}}) {
    AddAndReject(PodBuilder(name).Priority(priority), {kFoo});
    clock_.Advance(milliseconds(100));
  }
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(q_->PendingCounts().backoff, 3u);
  PopExpect("high");
  PopExpect("mid");
  PopExpect("low");
}

TEST_F(SchedulingQueueTest, PopWaitingOnAnEmptyQueueWakesForABackoffPod) {
  AddAndReject(PodBuilder("p"), {kFoo});
  std::promise<QueuedPodInfoPtr> popped;
  std::future<QueuedPodInfoPtr> result = popped.get_future();
  std::thread t([&] { popped.set_value(q_->Pop()); });
  // The pod enters backoffQ, not activeQ: the waiting Pop takes it.
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  ASSERT_EQ(result.wait_for(seconds(10)), std::future_status::ready);
  t.join();
  QueuedPodInfoPtr p = result.get();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->pod().metadata.name, "p");
}

// kube's TestPriorityQueue_moveToBackoffQ: with the gate PreEnqueue runs as
// a pod enters backoffQ (a gated pod waits in the pool instead); without
// it, as the pod leaves.
TEST_F(SchedulingQueueTest, PreEnqueueRunsOnEnteringBackoffQWithTheGate) {
  for (bool v132 : {false, true}) {
    SCOPED_TRACE(v132 ? "v1.32" : "v1.35");
    features_ = v132 ? config::FeatureGates(config::KubeVersion{1, 32})
                     : config::FeatureGates();
    Build();
    release_hold_ = true;
    AddAndReject(PodBuilder("h").Label("hold", ""), {kFoo});
    release_hold_ = false;
    q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
    if (!v132) {
      EXPECT_EQ(Where(PodBuilder("h")), "gated");
      EXPECT_FALSE(q_->CanPop());
      continue;
    }
    EXPECT_EQ(Where(PodBuilder("h")), "backoff");
    clock_.Advance(seconds(2));
    q_->FlushBackoffQCompleted();
    EXPECT_EQ(Where(PodBuilder("h")), "gated");
  }
}

TEST_F(SchedulingQueueTest, PodLeavingBackoffQIsNotCheckedAgainWithTheGate) {
  release_hold_ = true;
  // Fails with an error: PreEnqueue passes it into backoffQ.
  AddAndReject(PodBuilder("h").Label("hold", ""), {});
  ASSERT_EQ(Where(PodBuilder("h")), "backoff");
  // PreEnqueue passed it on the way in; the flush does not ask again.
  release_hold_ = false;
  clock_.Advance(seconds(2));
  q_->FlushBackoffQCompleted();
  EXPECT_EQ(Where(PodBuilder("h")), "active");
}

TEST_F(SchedulingQueueTest, PopFromBackoffQIsCountedAsItsOwnEvent) {
  std::vector<std::string> incoming;
  SchedulingQueue::Options options;
  options.on_incoming_pod = [&](std::string_view queue,
                                std::string_view event) {
    incoming.push_back(std::string(queue) + ":" + std::string(event));
  };
  Build(options);
  AddAndReject(PodBuilder("p"), {kFoo});
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  PopExpect("p");
  EXPECT_EQ(incoming.back(), "active:PopFromBackoffQ");
}

// Since v1.33 the backoff grows with the rejections, not with every
// attempt, and errors in a row have their own count.
TEST_F(SchedulingQueueTest, BackoffCountsRejectionsAndErrorsSeparately) {
  UseV132();  // exact expiries, whatever the window
  q_->Add(PodBuilder("p").Info());
  QueuedPodInfoPtr p = PopExpect("p");
  Reject(p, {});  // error 1: 1s
  EXPECT_EQ(p->consecutive_errors_count, 1);
  clock_.Advance(seconds(1) + nanoseconds(1));
  q_->FlushBackoffQCompleted();
  p = PopExpect("p");
  Reject(p, {});  // error 2: 2s
  EXPECT_EQ(p->consecutive_errors_count, 2);
  clock_.Advance(seconds(2) + nanoseconds(1));
  q_->FlushBackoffQCompleted();
  p = PopExpect("p");
  EXPECT_EQ(p->attempts, 3);
  // A rejection resets the errors; it is the first: 1s, not 4s.
  Reject(p, {kFoo});
  EXPECT_EQ(p->consecutive_errors_count, 0);
  EXPECT_EQ(p->unschedulable_count, 1);
  q_->MoveAllToActiveOrBackoffQueue(kNodeAdd, framework::EventObjects{});
  EXPECT_EQ(Where(PodBuilder("p")), "backoff");
  clock_.Advance(seconds(1) + nanoseconds(1));
  q_->FlushBackoffQCompleted();
  EXPECT_EQ(Where(PodBuilder("p")), "active");
}

}  // namespace
}  // namespace ksched::queue

// The scheduler's resource accounting for pods resized in place
// (InPlacePodVerticalScaling): a running pod holds what its status reports
// when that exceeds its spec, a status-only update is counted again, and a
// scale-down wakes the pods it may help. At v1.32's gates only the spec
// counts.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/config/config.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/fake_api_server.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/util/fake_clock.h"

namespace ksched::scheduler {
namespace resize_test_detail {
namespace {

using test::FakeApiServer;
using testing::NodeBuilder;
using testing::PodBuilder;

constexpr char kProfile[] = "ksched";

class ResizeTest : public ::testing::Test {
 protected:
  void Start(const config::FeatureGates& gates) {
    registry_ = plugins::NewInTreeRegistry();
    config::KubeSchedulerConfiguration cfg = config::DefaultConfig();
    ASSERT_EQ(cfg.profiles.front().scheduler_name, kProfile);
    // Nothing to evict here; preemption would only add writes.
    cfg.profiles.front().plugins.post_filter.disabled.push_back(
        {"DefaultPreemption", std::nullopt});
    Scheduler::Dependencies deps;
    deps.clock = &clock_;
    deps.random = &random_;
    deps.binder = &api_;
    deps.writer = &api_;
    deps.pod_lookup = [this](const std::string& ns, const std::string& name) {
      return api_.Get(ns, name);
    };
    deps.binding_workers = 0;
    deps.features = gates;
    deps.on_attempt = [this](const AttemptOutcome& o) {
      outcomes_.push_back(o);
    };
    auto created = Scheduler::Create(cfg, registry_, std::move(deps));
    ASSERT_TRUE(created.ok()) << created.error().message();
    sched_ = std::move(*created);
    sched_->OnNodeAdd(
        NodeBuilder("n1")
            .Label("kubernetes.io/hostname", "n1")
            .Capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}})
            .Ptr());
  }

  // A pod running on n1 that asks for 1 cpu; with `applied`, the kubelet
  // reports it resized in place to that much (allocated and applied).
  static std::shared_ptr<const api::Pod> Running(
      const std::string& applied = "", const std::string& rv = "1") {
    PodBuilder b = PodBuilder("running").Uid("running").Node("n1").Req(
        {{"cpu", "1"}, {"memory", "1Gi"}});
    if (!applied.empty()) {
      b.StatusResources("c0", {{"cpu", applied}, {"memory", "1Gi"}},
                        {{"cpu", applied}, {"memory", "1Gi"}});
    }
    api::Pod pod = b.Obj();
    pod.status.phase = "Running";
    pod.metadata.resource_version = rv;
    return std::make_shared<const api::Pod>(std::move(pod));
  }

  std::shared_ptr<const api::Pod> AddPending(const std::string& name) {
    auto pod = PodBuilder(name)
                   .Uid(name)
                   .SchedulerName(kProfile)
                   .Req({{"cpu", "1"}, {"memory", "1Gi"}})
                   .Ptr();
    api_.Store(pod);
    sched_->OnPodAdd(pod);
    return pod;
  }

  int64_t RequestedMilliCpu() const {
    framework::NodeInfoPtr info = sched_->cache().GetNodeInfo("n1");
    return info == nullptr ? -1 : info->requested().milli_cpu;
  }

  AttemptOutcome::Result LastResult() const {
    return outcomes_.empty() ? AttemptOutcome::Result::kError
                             : outcomes_.back().result;
  }

  util::FakeClock clock_;
  util::DefaultRandom random_{1};
  FakeApiServer api_;
  framework::Registry registry_;
  std::vector<AttemptOutcome> outcomes_;
  std::unique_ptr<Scheduler> sched_;
};

// A running pod resized in place to 3.5 cpu fills the 4-cpu node at v1.35;
// at v1.32 its spec's 1 cpu leaves room for one more.
TEST_F(ResizeTest, ResizedRunningPodFillsTheNodeAtV135) {
  Start(config::FeatureGates());
  sched_->OnPodAdd(Running("3500m"));
  EXPECT_EQ(RequestedMilliCpu(), 3500);
  AddPending("pending");
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_EQ(LastResult(), AttemptOutcome::Result::kUnschedulable);
  EXPECT_NE(outcomes_.back().message.find("Insufficient cpu"),
            std::string::npos)
      << outcomes_.back().message;
}

TEST_F(ResizeTest, ResizedRunningPodLeavesRoomAtV132) {
  Start(config::FeatureGates(config::KubeVersion{1, 32}));
  sched_->OnPodAdd(Running("3500m"));
  EXPECT_EQ(RequestedMilliCpu(), 1000);
  AddPending("pending");
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_EQ(LastResult(), AttemptOutcome::Result::kScheduled);
  EXPECT_EQ(api_.Binds().size(), 1u);
}

// The kubelet reports a resize with a status update alone: the cache counts
// the pod again, and a later scale-down brings back the pod it kept out.
TEST_F(ResizeTest, StatusOnlyUpdatesAreCountedAgain) {
  Start(config::FeatureGates());
  auto before = Running("", "1");
  sched_->OnPodAdd(before);
  EXPECT_EQ(RequestedMilliCpu(), 1000);

  auto resized = Running("3500m", "2");
  sched_->OnPodUpdate(before, resized);
  EXPECT_EQ(RequestedMilliCpu(), 3500);

  auto pending = AddPending("pending");
  ASSERT_TRUE(sched_->ScheduleOne());
  ASSERT_EQ(LastResult(), AttemptOutcome::Result::kUnschedulable);
  EXPECT_EQ(sched_->queue().Find(*pending).first, "unschedulable");

  // Scaled down to 2 cpu: room for the pending pod, which the event moves
  // out of the unschedulable pool.
  auto scaled_down = Running("2", "3");
  sched_->OnPodUpdate(resized, scaled_down);
  EXPECT_EQ(RequestedMilliCpu(), 2000);
  EXPECT_NE(sched_->queue().Find(*pending).first, "unschedulable");
  clock_.Advance(std::chrono::seconds(10));
  sched_->Tick();
  ASSERT_TRUE(sched_->ScheduleOne());
  EXPECT_EQ(LastResult(), AttemptOutcome::Result::kScheduled);
  EXPECT_EQ(RequestedMilliCpu(), 3000);
}

// At v1.32 a status update changes nothing the scheduler counts, and no
// scale-down is seen in it.
TEST_F(ResizeTest, StatusIsNotReadAtV132) {
  Start(config::FeatureGates(config::KubeVersion{1, 32}));
  auto before = Running("", "1");
  sched_->OnPodAdd(before);
  auto resized = Running("3500m", "2");
  sched_->OnPodUpdate(before, resized);
  EXPECT_EQ(RequestedMilliCpu(), 1000);
}

}  // namespace
}  // namespace resize_test_detail
}  // namespace ksched::scheduler

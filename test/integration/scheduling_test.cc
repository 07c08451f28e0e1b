// The real ksched binary against the test API server: pods are bound once
// and validly, pods of other schedulers are left alone, an unschedulable
// pod is told why and waits for a node, and dropped or expired watches
// lose nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>

#include "pkg/api/codec.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using std::chrono::seconds;

class SchedulingTest : public ClusterTestBase {};

TEST_F(SchedulingTest, BindsOurPodsOnceAndValidlyAndLeavesOthersAlone) {
  for (int i = 0; i < 3; ++i) CreateNode("node-" + std::to_string(i), "2");
  for (int i = 0; i < 10; ++i) CreatePod("p-" + std::to_string(i), "500m");
  CreatePod("theirs", "100m", "default-scheduler");
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  // Pods created after the start are scheduled from the watch.
  CreatePod("late", "500m");
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();

  ExpectBoundOnceAndFitting(
      {{"node-0", 2000}, {"node-1", 2000}, {"node-2", 2000}});
  EXPECT_EQ(server_->Bindings().size(), 11u);
  const api::Pod theirs = GetPod("theirs");
  EXPECT_TRUE(theirs.spec.node_name.empty());
  EXPECT_TRUE(theirs.status.conditions.empty());

  // The Scheduled event, as kube-scheduler words it.
  const api::Pod late = GetPod("late");
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const api::Event& e : Events()) {
          if (e.regarding.name == "late" && e.reason == "Scheduled")
            return true;
        }
        return false;
      },
      seconds(10)));
  for (const api::Event& e : Events()) {
    if (e.regarding.name != "late" || e.reason != "Scheduled") continue;
    EXPECT_EQ(e.note,
              "Successfully assigned default/late to " + late.spec.node_name);
    EXPECT_EQ(e.type, "Normal");
    EXPECT_EQ(e.action, "Binding");
    EXPECT_EQ(e.reporting_controller, "ksched");
  }
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

TEST_F(SchedulingTest, UnschedulablePodIsToldWhyAndWaitsForANode) {
  for (int i = 0; i < 2; ++i) CreateNode("small-" + std::to_string(i), "1");
  CreatePod("big", "3");
  StartKsched();
  const std::string why = "0/2 nodes are available: 2 Insufficient cpu.";
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const auto& c : GetPod("big").status.conditions) {
          if (c.type == "PodScheduled" && c.status == "False" &&
              c.reason == "Unschedulable") {
            return true;
          }
        }
        return false;
      },
      seconds(30)))
      << ksched_->Tail();
  for (const auto& c : GetPod("big").status.conditions) {
    if (c.type == "PodScheduled") {
      EXPECT_EQ(c.message.substr(0, why.size()), why);
    }
  }
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const api::Event& e : Events()) {
          if (e.regarding.name == "big" && e.reason == "FailedScheduling" &&
              e.type == "Warning" && e.note.starts_with(why)) {
            return true;
          }
        }
        return false;
      },
      seconds(10)));

  CreateNode("large", "4");
  ASSERT_TRUE(WaitUntil([&] { return !GetPod("big").spec.node_name.empty(); },
                        seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(GetPod("big").spec.node_name, "large");
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

TEST_F(SchedulingTest, DroppedAndExpiredWatchesLoseNothing) {
  for (int i = 0; i < 4; ++i) CreateNode("node-" + std::to_string(i), "8");
  StartKsched();
  int next = 0;
  auto create_batch = [&](int n) {
    for (int i = 0; i < n; ++i)
      CreatePod("w-" + std::to_string(next++), "100m");
  };
  create_batch(10);
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  server_->DropWatches();
  create_batch(10);
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  // History gone and watches cut: the informers relist.
  server_->CompactHistory();
  server_->DropWatches();
  create_batch(10);
  // A node added while relisting is seen too.
  CreateNode("node-late", "8");
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();

  ExpectBoundOnceAndFitting({{"node-0", 8000},
                             {"node-1", 8000},
                             {"node-2", 8000},
                             {"node-3", 8000},
                             {"node-late", 8000}});
  EXPECT_EQ(server_->Bindings().size(), 30u);
  EXPECT_TRUE(ksched_->Running());
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// --logging-format=json: every line an object, and the outcome line of a
// bound pod carries the pod and node as fields.
TEST_F(SchedulingTest, JsonLogs) {
  CreateNode("node-0", "2");
  CreatePod("web", "500m");
  StartKsched({"--logging-format=json"});
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
  std::istringstream lines(ksched_->Log());
  int objects = 0;
  bool bound_line = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    auto doc = api::ParseJson(line);
    ASSERT_TRUE(doc.ok() && doc->IsObject()) << line;
    ASSERT_TRUE(doc->HasMember("ts") && doc->HasMember("msg")) << line;
    ++objects;
    if (std::string((*doc)["msg"].GetString()) ==
        "Successfully bound pod to node") {
      bound_line = true;
      EXPECT_STREQ((*doc)["pod"].GetString(), "default/web");
      EXPECT_STREQ((*doc)["node"].GetString(), "node-0");
      EXPECT_EQ((*doc)["v"].GetInt(), 2);
    }
  }
  EXPECT_GT(objects, 5);
  EXPECT_TRUE(bound_line) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing

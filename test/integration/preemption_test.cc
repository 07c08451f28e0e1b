// Preemption by the real ksched binary against the test API server, as
// kube-scheduler v1.35 does it (victims evicted in the background while the
// preemptor waits, SchedulerAsyncPreemption) and as v1.32 did it
// (--emulated-version=1.32: evicted within the preemptor's cycle). Either
// way the victims carry the DisruptionTarget condition and a Preempted
// event, the preemptor is nominated, then bound on the node they left, and
// a pod that outranks nobody is left alone.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using std::chrono::seconds;

class PreemptionTest : public ClusterTestBase,
                       public ::testing::WithParamInterface<const char*> {
 protected:
  // The flags selecting the version: none for v1.35.
  std::vector<std::string> VersionArgs() const {
    const std::string version = GetParam();
    if (version.empty()) return {};
    return {"--emulated-version=" + version};
  }

  void CreatePriorityClass(const std::string& name, int value) {
    Create("/apis/scheduling.k8s.io/v1/priorityclasses",
           R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",
               "metadata":{"name":")" +
               name + R"("},"value":)" + std::to_string(value) + "}");
  }
  void CreatePrioritizedPod(const std::string& name, const std::string& cpu,
                            const std::string& priority_class) {
    Create("/api/v1/namespaces/default/pods",
           PodJson({.name = name,
                    .cpu = cpu,
                    .memory = "64Mi",
                    .scheduler = "ksched",
                    .extra_spec =
                        R"("priorityClassName":")" + priority_class + "\""}));
  }
  bool Gone(const std::string& pod) {
    return server_->Get("/api/v1/namespaces/default/pods/" + pod).code == 404;
  }
};

TEST_P(PreemptionTest, VictimsMakeRoomAndThePreemptorTakesTheirNode) {
  CreatePriorityClass("high", 1000);
  CreateNode("node-0", "1");
  CreateNode("node-1", "1");
  // Two low-priority pods on each node fill both.
  for (int i = 0; i < 4; ++i) CreatePod("low-" + std::to_string(i), "450m");
  StartKsched(VersionArgs());
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();

  // Needs 900m: both pods of one node must go.
  CreatePrioritizedPod("urgent", "900m", "high");
  ASSERT_TRUE(WaitUntil(
      [&] { return !GetPod("urgent").spec.node_name.empty(); }, seconds(60)))
      << ksched_->Tail();
  const std::string node = GetPod("urgent").spec.node_name;

  // Exactly the two pods of that node were preempted, each with its event.
  int gone = 0;
  for (int i = 0; i < 4; ++i) {
    const std::string name = "low-" + std::to_string(i);
    if (!Gone(name)) {
      EXPECT_NE(GetPod(name).spec.node_name, node) << name;
      continue;
    }
    ++gone;
    // Events are sent in the background: the binding may come first.
    EXPECT_TRUE(
        WaitUntil([&] { return HasEvent(name, "Preempted"); }, seconds(10)))
        << name;
  }
  EXPECT_EQ(gone, 2);
  // The preemptor was told why, its status patched (the condition with the
  // nomination) before it was bound.
  EXPECT_TRUE(WaitUntil([&] { return HasEvent("urgent", "FailedScheduling"); },
                        seconds(10)));
  EXPECT_GE(server_->RequestCount("PATCH", "/pods/urgent/status"), 1);
  ExpectBoundOnceAndFitting({{"node-0", 1000}, {"node-1", 1000}});

  // A pod outranking nobody waits without preempting.
  CreatePod("patient", "900m");
  ASSERT_TRUE(WaitUntil([&] { return HasEvent("patient", "FailedScheduling"); },
                        seconds(30)))
      << ksched_->Tail();
  EXPECT_TRUE(GetPod("patient").spec.node_name.empty());
  int remaining = 0;
  for (int i = 0; i < 4; ++i) {
    if (!Gone("low-" + std::to_string(i))) ++remaining;
  }
  EXPECT_EQ(remaining, 2);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

INSTANTIATE_TEST_SUITE_P(Versions, PreemptionTest,
                         ::testing::Values("", "1.32"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           return std::string(p.param).empty()
                                      ? std::string("v135")
                                      : std::string("v132");
                         });

}  // namespace
}  // namespace ksched::testing

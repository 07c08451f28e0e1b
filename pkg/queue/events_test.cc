#include "pkg/queue/events.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/framework/testing/wrappers.h"

namespace ksched::queue {
namespace {

using testing::PodBuilder;

std::vector<std::string> Labels(
    const std::vector<framework::ClusterEvent>& es) {
  std::vector<std::string> out;
  for (const auto& e : es) out.push_back(e.Label());
  return out;
}

TEST(PodSchedulingPropertiesChangeTest, NoRelevantChangeIsUpdateOther) {
  api::Pod old_pod = PodBuilder("p").Obj();
  api::Pod new_pod = old_pod;
  new_pod.metadata.annotations.Set("a", "b");
  EXPECT_EQ(Labels(PodSchedulingPropertiesChange(new_pod, old_pod)),
            (std::vector<std::string>{"UnschedulablePod/Update"}));
}

TEST(PodSchedulingPropertiesChangeTest, LabelsGatesAndTolerations) {
  api::Pod old_pod = PodBuilder("p").SchedulingGate("g").Obj();
  api::Pod new_pod = PodBuilder("p")
                         .Label("app", "x")
                         .Toleration("k", "v", api::TaintEffect::kNoSchedule)
                         .Obj();
  EXPECT_EQ(Labels(PodSchedulingPropertiesChange(new_pod, old_pod)),
            (std::vector<std::string>{
                "UnschedulablePod/UpdatePodLabel",
                "UnschedulablePod/UpdatePodSchedulingGatesEliminated",
                "UnschedulablePod/UpdatePodToleration"}));
}

TEST(PodSchedulingPropertiesChangeTest, ScaleDownOnAssignedPod) {
  api::Pod old_pod =
      PodBuilder("p").Node("n").Req({{"cpu", "2"}, {"memory", "1Gi"}}).Obj();
  api::Pod lower =
      PodBuilder("p").Node("n").Req({{"cpu", "1"}, {"memory", "1Gi"}}).Obj();
  EXPECT_EQ(Labels(PodSchedulingPropertiesChange(lower, old_pod)),
            (std::vector<std::string>{"AssignedPod/UpdatePodScaleDown"}));
  // A request removed is a scale-down too.
  api::Pod removed = PodBuilder("p").Node("n").Req({{"cpu", "2"}}).Obj();
  EXPECT_EQ(Labels(PodSchedulingPropertiesChange(removed, old_pod)),
            (std::vector<std::string>{"AssignedPod/UpdatePodScaleDown"}));
  // Scaling up is not.
  EXPECT_EQ(Labels(PodSchedulingPropertiesChange(old_pod, lower)),
            (std::vector<std::string>{"AssignedPod/Update"}));
}

// A resize the kubelet reports in the status alone is a scale-down when it
// lowers what the pod holds, with InPlacePodVerticalScaling on.
TEST(PodSchedulingPropertiesChangeTest, ScaleDownInTheStatus) {
  auto running = [](const char* applied) {
    return PodBuilder("p")
        .Node("n")
        .Req({{"cpu", "1"}})
        .StatusResources("c0", {{"cpu", applied}})
        .Obj();
  };
  const api::Pod before = running("3");
  const api::Pod after = running("2");
  EXPECT_EQ(Labels(PodSchedulingPropertiesChange(after, before)),
            (std::vector<std::string>{"AssignedPod/UpdatePodScaleDown"}));
  EXPECT_EQ(Labels(PodSchedulingPropertiesChange(before, after)),
            (std::vector<std::string>{"AssignedPod/Update"}));
  EXPECT_EQ(Labels(PodSchedulingPropertiesChange(
                after, before, {.in_place_pod_vertical_scaling = false})),
            (std::vector<std::string>{"AssignedPod/Update"}));
}

TEST(OwnedEventObjectsTest, CopyOfKeepsWhatWasSet) {
  api::Pod pod = PodBuilder("p").Obj();
  OwnedEventObjects owned = OwnedEventObjects::CopyOf({nullptr, &pod});
  EXPECT_EQ(owned.old_pod, nullptr);
  ASSERT_NE(owned.new_pod, nullptr);
  EXPECT_NE(owned.new_pod.get(), &pod);
  EXPECT_EQ(*owned.new_pod, pod);
  framework::EventObjects view = owned.View();
  EXPECT_EQ(view.new_pod, owned.new_pod.get());
  EXPECT_EQ(view.old_node, nullptr);
}

}  // namespace
}  // namespace ksched::queue

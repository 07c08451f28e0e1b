#include "pkg/framework/types.h"

#include <gtest/gtest.h>

#include "pkg/framework/cluster_event.h"

namespace ksched::framework {
namespace {

TEST(FitErrorMessageTest, CountsAndSortsReasonsAsKubeScheduler) {
  Diagnosis d;
  for (int i = 0; i < 3; ++i) {
    d.node_to_status.Set("cpu-" + std::to_string(i),
                         Status::Unschedulable("Insufficient cpu"));
  }
  d.node_to_status.Set(
      "gpu-0",
      Status::Unresolvable("node(s) had untolerated taint {dedicated: gpu}"));
  d.node_to_status.Set(
      "gpu-1",
      Status::Unresolvable("node(s) had untolerated taint {dedicated: gpu}"));
  d.node_to_status.Set(
      "x", Status::Unresolvable(
               "node(s) didn't match Pod's node affinity/selector"));
  EXPECT_EQ(FitErrorMessage(6, d),
            "0/6 nodes are available: 1 node(s) didn't match Pod's node "
            "affinity/selector, 2 node(s) had untolerated taint {dedicated: "
            "gpu}, 3 Insufficient cpu.");
}

TEST(FitErrorMessageTest, AbsentNodesShareTheAbsentStatus) {
  Diagnosis d;
  d.node_to_status.Set("a", Status::Unschedulable("Too many pods"));
  d.node_to_status.SetAbsent(
      Status::Unresolvable("node(s) didn't satisfy plugin(s) [NodeAffinity]"));
  // Counts sort as strings, as in Go: "10 ..." before "2 ...".
  EXPECT_EQ(FitErrorMessage(11, d),
            "0/11 nodes are available: 1 Too many pods, 10 node(s) didn't "
            "satisfy plugin(s) [NodeAffinity].");
}

TEST(FitErrorMessageTest, PreFilterAndPostFilterMessages) {
  Diagnosis d;
  d.pre_filter_msg = "node(s) didn't match pod topology spread constraints";
  d.node_to_status.SetAbsent(Status::Unresolvable(d.pre_filter_msg));
  d.post_filter_msg =
      "preemption: 0/3 nodes are available: 3 Preemption is not helpful for "
      "scheduling.";
  EXPECT_EQ(FitErrorMessage(3, d),
            "0/3 nodes are available: node(s) didn't match pod topology spread "
            "constraints. preemption: 0/3 nodes are available: 3 Preemption is "
            "not helpful for scheduling.");
}

TEST(PreFilterResultTest, MergeIntersects) {
  PreFilterResult all;
  PreFilterResult ab{std::set<std::string>{"a", "b"}};
  PreFilterResult bc{std::set<std::string>{"b", "c"}};
  EXPECT_TRUE(all.Merge(all).AllNodes());
  EXPECT_EQ(*all.Merge(ab).node_names, (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(*ab.Merge(all).node_names, (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(*ab.Merge(bc).node_names, std::set<std::string>{"b"});
}

TEST(ClusterEventTest, MatchesSpecificEventsAgainstRegisteredOnes) {
  ClusterEvent node_all{EventResource::kNode, kAll};
  ClusterEvent node_label{EventResource::kNode, kUpdateNodeLabel};
  ClusterEvent node_taint{EventResource::kNode, kUpdateNodeTaint};
  ClusterEvent pod_delete{EventResource::kPod, kDelete};
  ClusterEvent assigned_delete{EventResource::kAssignedPod, kDelete};
  ClusterEvent wildcard{EventResource::kWildCard, kAll};
  EXPECT_TRUE(MatchClusterEvents(node_all, node_label));
  EXPECT_TRUE(MatchClusterEvents(node_label, node_label));
  EXPECT_FALSE(MatchClusterEvents(node_label, node_taint));
  EXPECT_TRUE(MatchClusterEvents(pod_delete, assigned_delete));
  EXPECT_FALSE(MatchClusterEvents(assigned_delete, node_all));
  EXPECT_TRUE(MatchClusterEvents(wildcard, node_taint));
  EXPECT_EQ(node_label.Label(), "Node/UpdateNodeLabel");
  EXPECT_EQ(node_all.Label(), "Node/*");
}

}  // namespace
}  // namespace ksched::framework

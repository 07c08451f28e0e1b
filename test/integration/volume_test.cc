// The volume plugins against the test API server, as a user meets them: a
// zonal disk keeps its pod in its zone, a ReadWriteOncePod claim admits one
// pod at a time, and a node at its CSI attach limit is passed over, each
// where the node's free CPU alone would have chosen otherwise.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "test/apiserver/test_objects.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using std::chrono::seconds;

class VolumeTest : public ClusterTestBase {
 protected:
  void CreateZonalNode(const std::string& name, const std::string& cpu,
                       const std::string& zone) {
    Create("/api/v1/nodes",
           NodeJson({.name = name,
                     .cpu = cpu,
                     .labels = R"("kubernetes.io/hostname":")" + name +
                               R"(","topology.kubernetes.io/zone":")" + zone +
                               "\""}));
  }
  // A CSI volume of ebs.csi.aws.com and a claim bound to it.
  void CreateBoundClaim(const std::string& claim, const std::string& volume,
                        const std::string& access_mode,
                        const std::string& volume_labels = "") {
    Create("/api/v1/persistentvolumes",
           R"({"apiVersion":"v1","kind":"PersistentVolume",
               "metadata":{"name":")" +
               volume + R"(","labels":{)" + volume_labels + R"(}},
               "spec":{"capacity":{"storage":"1Gi"},
                       "accessModes":[")" +
               access_mode + R"("],
                       "csi":{"driver":"ebs.csi.aws.com","volumeHandle":")" +
               volume + R"("},
                       "claimRef":{"namespace":"default","name":")" +
               claim + R"("}}})");
    Create("/api/v1/namespaces/default/persistentvolumeclaims",
           R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
               "metadata":{"name":")" +
               claim +
               R"(","annotations":{"pv.kubernetes.io/bind-completed":"yes"}},
               "spec":{"accessModes":[")" +
               access_mode + R"("],"volumeName":")" + volume + R"(",
                       "resources":{"requests":{"storage":"1Gi"}}}})");
  }
  void CreatePodWithClaim(const std::string& name, const std::string& claim) {
    Create("/api/v1/namespaces/default/pods",
           PodJson({.name = name,
                    .cpu = "100m",
                    .scheduler = "ksched",
                    .extra_spec = R"("volumes":[{"name":"data",
                        "persistentVolumeClaim":{"claimName":")" +
                                  claim + R"("}}])"}));
  }
  void CreateCsiNode(const std::string& node, int limit) {
    Create("/apis/storage.k8s.io/v1/csinodes",
           R"({"apiVersion":"storage.k8s.io/v1","kind":"CSINode",
               "metadata":{"name":")" +
               node + R"("},
               "spec":{"drivers":[{"name":"ebs.csi.aws.com","nodeID":")" +
               node + R"(","topologyKeys":null,
                                   "allocatable":{"count":)" +
               std::to_string(limit) + "}}]}}");
  }
  std::string ScheduledMessage(const std::string& pod) {
    for (const auto& c : GetPod(pod).status.conditions) {
      if (c.type == "PodScheduled" && c.status == "False") return c.message;
    }
    return "";
  }
};

TEST_F(VolumeTest, ZonalVolumeKeepsItsPodsInItsZone) {
  // zone-a has the room LeastAllocated would pick.
  CreateZonalNode("big-a", "16", "zone-a");
  CreateZonalNode("small-b", "2", "zone-b");
  CreateBoundClaim("data", "disk-b", "ReadWriteOnce",
                   R"("topology.kubernetes.io/zone":"zone-b")");
  for (int i = 0; i < 3; ++i)
    CreatePodWithClaim("db-" + std::to_string(i), "data");
  CreatePod("free", "100m");
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(GetPod("db-" + std::to_string(i)).spec.node_name, "small-b");
  }
  EXPECT_EQ(GetPod("free").spec.node_name, "big-a");
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

TEST_F(VolumeTest, ReadWriteOncePodClaimHasOneUserAtATime) {
  CreateNode("node-0", "4");
  CreateNode("node-1", "4");
  CreateBoundClaim("solo", "solo-disk", "ReadWriteOncePod");
  CreatePodWithClaim("first", "solo");
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  CreatePodWithClaim("second", "solo");
  const std::string why =
      "0/2 nodes are available: 2 node(s) unavailable due to "
      "PersistentVolumeClaim with ReadWriteOncePod access mode already in-use "
      "by another pod.";
  ASSERT_TRUE(WaitUntil([&] { return !ScheduledMessage("second").empty(); },
                        seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(ScheduledMessage("second").substr(0, why.size()), why)
      << ScheduledMessage("second");
  EXPECT_EQ(GetPod("second").spec.node_name, "");
  // The claim's user goes: the waiting pod is moved (the plugin's hint for
  // a deleted pod sharing the claim) and scheduled.
  ASSERT_EQ(server_->Delete("/api/v1/namespaces/default/pods/first").code, 200);
  ASSERT_TRUE(WaitUntil(
      [&] { return !GetPod("second").spec.node_name.empty(); }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

TEST_F(VolumeTest, NodeAtItsAttachLimitIsPassedOver) {
  CreateNode("full", "16");
  CreateNode("spare", "2");
  CreateCsiNode("full", 1);
  CreateCsiNode("spare", 1);
  // One volume already attached to "full".
  CreateBoundClaim("attached", "attached-disk", "ReadWriteOnce");
  Create("/apis/storage.k8s.io/v1/volumeattachments",
         R"({"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment",
             "metadata":{"name":"csi-attached"},
             "spec":{"attacher":"ebs.csi.aws.com","nodeName":"full",
                     "source":{"persistentVolumeName":"attached-disk"}}})");
  CreateBoundClaim("data", "new-disk", "ReadWriteOnce");
  CreatePodWithClaim("app", "data");
  CreatePod("free", "100m");
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(GetPod("app").spec.node_name, "spare");
  EXPECT_EQ(GetPod("free").spec.node_name, "full");
  // A second volume finds no node with a free slot.
  CreateBoundClaim("more", "more-disk", "ReadWriteOnce");
  CreatePodWithClaim("app-2", "more");
  // The pod may reach ksched before its claim does (two watches): the
  // first attempt then says the claim is missing, and the claim's arrival
  // moves the pod for another.
  const std::string why =
      "0/2 nodes are available: 2 node(s) exceed max volume count.";
  EXPECT_TRUE(WaitUntil(
      [&] { return ScheduledMessage("app-2").starts_with(why); }, seconds(30)))
      << ScheduledMessage("app-2") << ksched_->Tail();
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing

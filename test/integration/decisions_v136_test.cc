// kube-scheduler v1.36's decisions in the v1.36 recordings
// (shared/apiserver/v1.36/<scenario>.scheduler-writes.json), replayed
// with the real ksched against the test API server playing v1.36: the same
// pods bound to the same nodes, and the same words for those it could not
// bind.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "pkg/client/testing/recorded.h"
#include "pkg/util/json.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using client::testing::Recorded;
using std::chrono::seconds;

// A recorded request body, moved to the default namespace and to ksched.
std::string AsOurs(std::string json) {
  for (size_t at = json.find("pods136"); at != std::string::npos;
       at = json.find("pods136", at)) {
    json.replace(at, 7, "default");
  }
  const std::string spec = "\"spec\":{";
  const size_t at = json.find(spec);
  if (at != std::string::npos) {
    json.insert(at + spec.size(), "\"schedulerName\":\"ksched\",");
  }
  return json;
}

class DecisionsV136Test : public ClusterTestBase {
 protected:
  const api::PodCondition* Scheduled(const api::Pod& pod) {
    for (const api::PodCondition& c : pod.status.conditions) {
      if (c.type == "PodScheduled") {
        held_ = c;
        return &held_;
      }
    }
    return nullptr;
  }
  std::string EventNote(const std::string& pod, const std::string& reason) {
    for (const api::Event& e : Events()) {
      if (e.regarding.name == pod && e.reason == reason) return e.note;
    }
    return "";
  }

 private:
  api::PodCondition held_;
};

// Scenario 3: a pod that restarts all its containers waits for a node
// declaring that feature (NodeDeclaredFeatures) and is bound to it once one
// appears; a pod mounting an image volume is bound.
TEST_F(DecisionsV136Test, PodsWithV136Fields) {
  rapidjson::Document writes;
  writes.Parse(Recorded("v1.36/s3-pods.scheduler-writes.json").c_str());
  ASSERT_TRUE(!writes.HasParseError() && writes.IsArray() &&
              writes.Size() == 6);
  const std::string failed_note =
      writes[0]["requestObject"]["note"].GetString();
  const std::string failed_message =
      writes[1]["requestObject"]["status"]["conditions"][0]["message"]
          .GetString();
  const std::string bound_to =
      writes[2]["requestObject"]["target"]["name"].GetString();

  // node-2 and node-3 as manifests/nodes.yaml makes them.
  Create("/api/v1/nodes", R"({"apiVersion":"v1","kind":"Node",
    "metadata":{"name":"node-2","labels":{"kubernetes.io/hostname":"node-2"}},
    "status":{"capacity":{"cpu":"8","memory":"16Gi","pods":"110"},
      "allocatable":{"cpu":"8","memory":"16Gi","pods":"110"},
      "declaredFeatures":["InPlacePodLevelResourcesVerticalScaling"],
      "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady",
        "message":"fake node, no kubelet"}]}})");
  Create("/api/v1/nodes", R"({"apiVersion":"v1","kind":"Node",
    "metadata":{"name":"node-3","labels":{"kubernetes.io/hostname":"node-3"}},
    "status":{"capacity":{"cpu":"8","memory":"16Gi","pods":"110"},
      "allocatable":{"cpu":"8","memory":"16Gi","pods":"110"},
      "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady",
        "message":"fake node, no kubelet"}]}})");
  Create("/api/v1/namespaces/default/pods",
         AsOurs(Recorded("v1.36/post-pod-restartallcontainers.request.json")));
  StartKsched();

  ASSERT_TRUE(WaitUntil(
      [&] {
        const api::PodCondition* c = Scheduled(GetPod("restart-all"));
        return c != nullptr && c->status == "False";
      },
      seconds(30)))
      << ksched_->Tail();
  const api::PodCondition* failed = Scheduled(GetPod("restart-all"));
  EXPECT_EQ(failed->reason, "Unschedulable");
  EXPECT_EQ(failed->message, failed_message);
  EXPECT_EQ(failed->observed_generation, 1);
  ASSERT_TRUE(WaitUntil(
      [&] { return !EventNote("restart-all", "FailedScheduling").empty(); },
      seconds(10)));
  EXPECT_EQ(EventNote("restart-all", "FailedScheduling"), failed_note);

  // The node declaring RestartAllContainersOnContainerExits, as recorded.
  Create("/api/v1/nodes",
         Recorded("v1.36/post-node-declaredfeatures.request.json"));
  ASSERT_TRUE(
      WaitUntil([&] { return !GetPod("restart-all").spec.node_name.empty(); },
                seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(GetPod("restart-all").spec.node_name, bound_to);
  // As kube-scheduler: one status patch, for the failure; none on binding.
  EXPECT_EQ(server_->RequestCount(
                "PATCH", "/namespaces/default/pods/restart-all/status"),
            1);

  Create("/api/v1/namespaces/default/pods",
         AsOurs(Recorded("v1.36/post-pod-imagevolume.request.json")));
  ASSERT_TRUE(
      WaitUntil([&] { return !GetPod("image-volume").spec.node_name.empty(); },
                seconds(30)))
      << ksched_->Tail();
  // kube bound it to node-2. node-2 and node-3 score the same (no node has
  // the image; both are empty) and kube picks among equals at random;
  // node-1 scores lower with restart-all's default requests on it.
  const std::string node = GetPod("image-volume").spec.node_name;
  EXPECT_TRUE(node == "node-2" || node == "node-3") << node;
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing

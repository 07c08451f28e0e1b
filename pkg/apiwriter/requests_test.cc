#include "pkg/apiwriter/requests.h"

#include <gtest/gtest.h>

#include "pkg/client/testing/recorded.h"
#include "pkg/util/json.h"

namespace ksched::apiwriter {
namespace {

using client::testing::Recorded;

rapidjson::Document Parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

// The binding a real client sent (recorded), plus the pod's UID as the
// precondition kube-scheduler adds.
TEST(RequestsTest, BindingIsTheRecordedOneWithTheUid) {
  api::Pod pod;
  pod.metadata.name = "bind-me";
  pod.metadata.ns = "default";
  pod.metadata.uid = "3f1c";
  rapidjson::Document got = Parse(BindingBody(pod, "node-1"));
  rapidjson::Document want =
      Parse(Recorded("binding_success_201.request.json"));
  want["metadata"].AddMember("uid", "3f1c", want.GetAllocator());
  EXPECT_TRUE(got == want) << BindingBody(pod, "node-1");
}

TEST(RequestsTest, UnschedulableConditionPatchIsTheRecordedOne) {
  api::PodCondition condition;
  condition.type = "PodScheduled";
  condition.status = "False";
  condition.reason = "Unschedulable";
  condition.message = "0/1 nodes are available: 1 Insufficient cpu.";
  condition.last_transition_time =
      api::Time{*api::ParseRfc3339("2026-11-21T19:38:49Z")};
  const std::string patch = PodStatusPatch({.condition = condition});
  EXPECT_TRUE(Parse(patch) ==
              Parse(Recorded("pod_status_patch_strategic_200.request.json")))
      << patch;
}

// kube-scheduler v1.36's own patch for an unschedulable pod (s3-pods of the
// v1.36 recordings): observedGeneration joins the condition.
TEST(RequestsTest, UnschedulableConditionPatchIsKubeSchedulerV136s) {
  rapidjson::Document writes =
      Parse(Recorded("v1.36/s3-pods.scheduler-writes.json"));
  ASSERT_TRUE(writes.IsArray() && writes.Size() > 1);
  const rapidjson::Value& write = writes[1];
  ASSERT_STREQ(write["verb"].GetString(), "patch");
  ASSERT_STREQ(write["requestURI"].GetString(),
               "/api/v1/namespaces/pods136/pods/restart-all/status");
  api::PodCondition condition;
  condition.type = "PodScheduled";
  condition.status = "False";
  condition.reason = "Unschedulable";
  condition.observed_generation = 1;
  condition.message =
      "0/2 nodes are available: 2 node(s) didn't match Pod's required "
      "features. no new claims to deallocate, preemption: 0/2 nodes are "
      "available: 2 Preemption is not helpful for scheduling.";
  condition.last_transition_time =
      api::Time{*api::ParseRfc3339("2026-11-29T01:29:19Z")};
  const std::string patch = PodStatusPatch({.condition = condition});
  EXPECT_TRUE(Parse(patch) == write["requestObject"]) << patch;
}

TEST(RequestsTest, NominationIsSetOrClearedAlone) {
  EXPECT_EQ(PodStatusPatch({.nominated_node_name = "node-2"}),
            R"({"status":{"nominatedNodeName":"node-2"}})");
  EXPECT_EQ(PodStatusPatch({.nominated_node_name = ""}),
            R"({"status":{"nominatedNodeName":null}})");
  EXPECT_EQ(PodStatusPatch({}), R"({"status":{}})");
}

TEST(RequestsTest, DeleteCarriesTheUidPrecondition) {
  EXPECT_EQ(DeleteWithUidBody("u-1"),
            R"({"apiVersion":"v1","kind":"DeleteOptions",)"
            R"("preconditions":{"uid":"u-1"}})");
}

TEST(RequestsTest, AnnotationPatchEscapes) {
  EXPECT_EQ(AnnotationPatch("volume.kubernetes.io/selected-node", "n\"1"),
            R"({"metadata":{"annotations":)"
            R"({"volume.kubernetes.io/selected-node":"n\"1"}}})");
}

}  // namespace
}  // namespace ksched::apiwriter

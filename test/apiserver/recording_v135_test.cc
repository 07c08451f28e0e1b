// The test API server playing v1.35 against the exchanges
// recorded from a real kube-apiserver v1.35.6 (apiserver/v1.35): /version,
// resource.k8s.io's discovery, and pods with pod-level resources and
// resized containers, created, patched and read back; and playing v1.32
// (/version as recorded from it, no resource.k8s.io) against the real
// server's 404 for what it does not serve.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "test/apiserver/apiserver_test_util.h"
#include "test/apiserver/recording.h"

namespace ksched::testing {
namespace {

// The recordings' client: a User-Agent the server writes compact JSON for.
constexpr char kRecorder[] = "cpp-client-recorder/1.0";

class RecordingV135Test : public ApiServerTest {
 protected:
  // Playing v1.35, whatever the default is.
  void SetUp() override { StartServer({.kube_version = "1.35"}); }

  HttpResult Replay(const Recording& recording) {
    RequestOptions request =
        Request(recording.method, recording.target, recording.request_body);
    request.user_agent = kRecorder;
    if (!recording.request_content_type.empty()) {
      request.content_type = recording.request_content_type;
    }
    return Call(request);
  }

  // Replays the recording and holds the answer against it, byte for byte.
  void CheckExactly(const std::string& name) {
    SCOPED_TRACE(name);
    const Recording recording = LoadRecording(name);
    const HttpResult got = Replay(recording);
    ExpectSameHead(recording, got);
    EXPECT_EQ(got.body, recording.body);
  }

  // Replays a pod write and holds the pod answered against the recorded
  // one (ExpectSamePod).
  void CheckPod(const std::string& name) {
    SCOPED_TRACE(name);
    const Recording recording = LoadRecording(name);
    ExpectSamePod(recording, Replay(recording));
  }

  void CreateNamespace(const std::string& name) {
    ASSERT_EQ(server_
                  ->Create("/api/v1/namespaces",
                           R"({"metadata":{"name":")" + name + R"("}})")
                  .code,
              201);
  }
};

TEST_F(RecordingV135Test, VersionAsTheRealV135AnswersIt) {
  CheckExactly("v1.35/get-version");
}

TEST_F(RecordingV135Test, ResourceGroupDiscoveryAsRecorded) {
  CheckExactly("v1.35/get-discovery-resource.k8s.io");
  CheckExactly("v1.35/get-discovery-resource.k8s.io-v1");
}

TEST_F(RecordingV135Test, PodLevelResourcesRoundTrip) {
  CreateNamespace("rec135");
  CheckPod("v1.35/post-pod-podlevel-resources");
  // Read back as written.
  HttpResult get = Call("GET", "/api/v1/namespaces/rec135/pods/pod-level", "");
  ASSERT_EQ(get.code, 200);
  rapidjson::Document pod = ParseJsonOrDie(get.body);
  EXPECT_TRUE(pod["spec"]["resources"] ==
              ParseJsonOrDie(R"({"limits":{"cpu":"4","memory":"4Gi"},)"
                             R"("requests":{"cpu":"2","memory":"2Gi"}})"))
      << get.body;
  EXPECT_EQ(pod["metadata"]["generation"].GetInt(), 1);
  EXPECT_EQ(std::string(pod["status"]["qosClass"].GetString()), "Burstable");
}

TEST_F(RecordingV135Test, ResizedContainerStatusRoundTrips) {
  CreateNamespace("rec135");
  CheckPod("v1.35/post-pod-resized");
  CheckPod("v1.35/patch-pod-status-resized");
  CheckPod("v1.35/get-pod-resized");
}

// Pods as v1.35 keeps them: generation counts spec changes (not status
// ones), pod-level resources decide the QoS class, and are checked.
TEST_F(RecordingV135Test, PodGenerationQosAndPodLevelValidation) {
  const std::string pods = "/api/v1/namespaces/default/pods";
  // No container requests anything.
  HttpResult created = Call(
      "POST", pods,
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gen"},)"
      R"("spec":{"containers":[{"name":"c","image":"registry.example/c:1"}],)"
      R"("resources":{"limits":{"cpu":"1","memory":"1Gi"}}}})");
  ASSERT_EQ(created.code, 201) << created.body;
  rapidjson::Document pod = ParseJsonOrDie(created.body);
  EXPECT_EQ(pod["metadata"]["generation"].GetInt(), 1);
  // Requested at the limits no container asks for: Guaranteed.
  EXPECT_TRUE(pod["spec"]["resources"]["requests"] ==
              ParseJsonOrDie(R"({"cpu":"1","memory":"1Gi"})"))
      << created.body;
  EXPECT_EQ(std::string(pod["status"]["qosClass"].GetString()), "Guaranteed");

  HttpResult status =
      Call("PATCH", pods + "/gen/status", R"({"status":{"phase":"Running"}})",
           "application/merge-patch+json");
  ASSERT_EQ(status.code, 200) << status.body;
  EXPECT_EQ(ParseJsonOrDie(status.body)["metadata"]["generation"].GetInt(), 1);
  HttpResult spec =
      Call("PATCH", pods + "/gen", R"({"spec":{"activeDeadlineSeconds":600}})",
           "application/merge-patch+json");
  ASSERT_EQ(spec.code, 200) << spec.body;
  EXPECT_EQ(ParseJsonOrDie(spec.body)["metadata"]["generation"].GetInt(), 2);

  HttpResult bad = Call(
      "POST", pods,
      PodJson("bad", "default",
              R"("resources":{"requests":{"cpu":"2","nvidia.com/gpu":"1"},)"
              R"("limits":{"cpu":"1"}})"));
  ASSERT_EQ(bad.code, 422) << bad.body;
  const std::string message = ParseJsonOrDie(bad.body)["message"].GetString();
  EXPECT_NE(message.find("spec.resources.requests[nvidia.com/gpu]: "
                         "Unsupported value: \"nvidia.com/gpu\": supported "
                         "values: \"cpu\", \"hugepages-\", \"memory\""),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("spec.resources.requests: Invalid value: \"2\": "
                         "must be less than or equal to cpu limit of 1"),
            std::string::npos)
      << message;
  HttpResult not_quantity = Call(
      "POST", pods,
      PodJson("nq", "default", R"("resources":{"limits":{"cpu":"lots"}})"));
  EXPECT_EQ(not_quantity.code, 400) << not_quantity.body;
}

TEST_F(RecordingV135Test, DiscoveryListsWhatIsServed) {
  HttpResult api = Call("GET", "/api");
  ASSERT_EQ(api.code, 200);
  EXPECT_EQ(api.body,
            R"({"kind":"APIVersions","versions":["v1"],)"
            R"("serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0",)"
            R"("serverAddress":"127.0.0.1:)" +
                std::to_string(server_->port()) + "\"}]}\n");

  rapidjson::Document groups = ParseJsonOrDie(Call("GET", "/apis").body);
  EXPECT_EQ(std::string(groups["kind"].GetString()), "APIGroupList");
  std::set<std::string> names;
  for (const auto& g : groups["groups"].GetArray()) {
    names.insert(g["name"].GetString());
    if (std::string(g["name"].GetString()) == "resource.k8s.io") {
      // As the recorded APIGroup has it.
      rapidjson::Document recorded = ParseJsonOrDie(
          LoadRecording("v1.35/get-discovery-resource.k8s.io").body);
      EXPECT_EQ(JsonText(g["versions"]), JsonText(recorded["versions"]));
      EXPECT_EQ(JsonText(g["preferredVersion"]),
                JsonText(recorded["preferredVersion"]));
    }
  }
  for (const char* group :
       {"events.k8s.io", "policy", "storage.k8s.io", "coordination.k8s.io",
        "scheduling.k8s.io", "resource.k8s.io", "scheduling.x-k8s.io"}) {
    EXPECT_TRUE(names.contains(group)) << group;
  }

  rapidjson::Document core = ParseJsonOrDie(Call("GET", "/api/v1").body);
  EXPECT_EQ(std::string(core["groupVersion"].GetString()), "v1");
  std::set<std::string> resources;
  for (const auto& r : core["resources"].GetArray()) {
    resources.insert(r["name"].GetString());
    if (std::string(r["name"].GetString()) == "pods") {
      EXPECT_EQ(JsonText(r),
                R"({"name":"pods","singularName":"pod","namespaced":true,)"
                R"("kind":"Pod","verbs":["create","delete",)"
                R"("deletecollection","get","list","patch","update",)"
                R"("watch"],"shortNames":["po"],"categories":["all"],)"
                R"("storageVersionHash":"xPOwRZ+Yhw8="})");
    }
  }
  for (const char* name :
       {"pods", "pods/binding", "pods/status", "nodes", "nodes/status",
        "namespaces", "persistentvolumeclaims", "persistentvolumes"}) {
    EXPECT_TRUE(resources.contains(name)) << name;
  }
  rapidjson::Document crd =
      ParseJsonOrDie(Call("GET", "/apis/scheduling.x-k8s.io/v1alpha1").body);
  EXPECT_EQ(JsonText(crd["resources"][0]["verbs"]),
            R"(["delete","deletecollection","get","list","patch","create",)"
            R"("update","watch"])");

  // Groups and versions not served: the real server's plain 404.
  for (const char* path :
       {"/apis/resource.k8s.io/v1beta1", "/apis/nothing.example.com",
        "/apis/nothing.example.com/v1"}) {
    HttpResult missing = Call("GET", path);
    EXPECT_EQ(missing.code, 404) << path;
    EXPECT_EQ(missing.body, "404 page not found\n") << path;
    EXPECT_EQ(missing.Header("content-type"), "text/plain; charset=utf-8");
    EXPECT_EQ(missing.Header("x-content-type-options"), "nosniff");
  }
}

TEST_F(RecordingV135Test, WithoutThePodGroupCrdItsGroupIsNotServed) {
  StartServer({.kube_version = "1.35", .pod_group_crd = false});
  EXPECT_EQ(Call("GET", "/apis/scheduling.x-k8s.io/v1alpha1").code, 404);
  HttpResult list = Call("GET", "/apis/scheduling.x-k8s.io/v1alpha1/podgroups");
  EXPECT_EQ(list.code, 404);
  EXPECT_EQ(list.body, "404 page not found\n");
}

// Playing v1.32: its /version as recorded, and no resource.k8s.io.
TEST_F(RecordingV135Test, PlayingV132) {
  StartServer({.kube_version = "1.32"});
  const Recording version = LoadRecording("version");
  RequestOptions request = Request("GET", "/version");
  request.user_agent = kRecorder;
  HttpResult got = Call(request);
  EXPECT_EQ(got.code, 200);
  EXPECT_EQ(got.body, version.body);

  for (const char* path :
       {"/apis/resource.k8s.io", "/apis/resource.k8s.io/v1",
        "/apis/resource.k8s.io/v1/resourceslices",
        "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"}) {
    HttpResult missing = Call("GET", path);
    EXPECT_EQ(missing.code, 404) << path;
    EXPECT_EQ(missing.body, "404 page not found\n") << path;
  }
  rapidjson::Document groups = ParseJsonOrDie(Call("GET", "/apis").body);
  for (const auto& g : groups["groups"].GetArray()) {
    EXPECT_NE(std::string(g["name"].GetString()), "resource.k8s.io");
  }
  // v1.32 (PodLevelResources off) drops pod-level resources, and keeps no
  // generation.
  HttpResult created =
      Call("POST", "/api/v1/namespaces/default/pods",
           PodJson("p", "default",
                   R"("resources":{"limits":{"cpu":"1","memory":"1Gi"}})"));
  ASSERT_EQ(created.code, 201) << created.body;
  rapidjson::Document pod = ParseJsonOrDie(created.body);
  EXPECT_FALSE(pod["spec"].HasMember("resources")) << created.body;
  EXPECT_FALSE(pod["metadata"].HasMember("generation")) << created.body;
  // ... and defaults the resize policy of what a container requests, as
  // the recorded v1.32 did.
  EXPECT_TRUE(pod["spec"]["containers"][0].HasMember("resizePolicy"))
      << created.body;
}

TEST_F(RecordingV135Test, OnlyTheThreeVersionsArePlayed) {
  for (const char* version : {"1.33", "1.34", "1.37", "1.36.3", ""}) {
    EXPECT_EQ(TestApiServer::Start({.kube_version = version}), nullptr)
        << version;
  }
  // v1.36 is the default.
  EXPECT_EQ(TestApiServerOptions{}.kube_version, "1.36");
}

}  // namespace
}  // namespace ksched::testing

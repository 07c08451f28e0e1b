// The test API server playing v1.36 (its default) against the exchanges
// recorded from a real kube-apiserver v1.36.3 (apiserver/v1.36): /version
// and the resource.k8s.io and scheduling.k8s.io discovery, nodes with
// status.declaredFeatures and the 422s their validation gives, pods with
// container restart rules, an image volume and pod-level resources, device
// taints stamped with timeAdded, a ResourceSlice with both shared counters
// and devices refused, and the authorization a ResourceClaim status write
// meets on the synthetic resourceclaims/binding and resourceclaims/driver
// subresources (422, not 403), which v1.35 does not make.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "test/apiserver/apiserver_test_util.h"
#include "test/apiserver/recording.h"

namespace ksched::testing {
namespace recording_v136_test {
namespace {

// The recordings' client: a User-Agent the server writes compact JSON for.
constexpr char kRecorder[] = "cpp-client-recorder/1.0";
constexpr char kClaimWriter[] = "system:serviceaccount:rbac:claim-writer";
constexpr char kRbacClaims[] =
    "/apis/resource.k8s.io/v1/namespaces/rbac/resourceclaims";
constexpr char kSlices[] = "/apis/resource.k8s.io/v1/resourceslices";

std::string ReplaceAll(std::string s, const std::string& from,
                       const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos;
       at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

Recording Load(const std::string& name) {
  return LoadRecording("v1.36/" + name);
}

class RecordingV136Test : public ApiServerTest {
 protected:
  HttpResult Replay(const Recording& recording,
                    const std::string& body_override = "") {
    RequestOptions request =
        Request(recording.method, recording.target,
                body_override.empty() ? recording.request_body : body_override);
    request.user_agent = kRecorder;
    if (!recording.request_content_type.empty()) {
      request.content_type = recording.request_content_type;
    }
    return Call(request);
  }

  // Replays the recording and holds the answer against it, byte for byte.
  void CheckExactly(const std::string& name,
                    const std::string& body_override = "") {
    SCOPED_TRACE(name);
    const Recording recording = Load(name);
    const HttpResult got = Replay(recording, body_override);
    ExpectSameHead(recording, got);
    EXPECT_EQ(got.body, recording.body);
  }

  // Replays the recording and holds the answer against it field by field
  // (recording.h says what may differ).
  void CheckJson(const std::string& name,
                 const std::string& body_override = "") {
    SCOPED_TRACE(name);
    const Recording recording = Load(name);
    const HttpResult got = Replay(recording, body_override);
    ExpectSameHead(recording, got);
    ExpectSameBody(recording, got);
  }

  // Replays a pod write or read and holds the pod answered against the
  // recorded one (ExpectSamePod).
  void CheckPod(const std::string& name) {
    SCOPED_TRACE(name);
    const Recording recording = Load(name);
    ExpectSamePod(recording, Replay(recording));
  }

  void CreateNamespace(const std::string& name) {
    ASSERT_EQ(server_
                  ->Create("/api/v1/namespaces",
                           R"({"metadata":{"name":")" + name + R"("}})")
                  .code,
              201);
  }

  // Scenario 9's cluster as `user` meets it: namespace rbac, the class and
  // the two claims (created by kubectl), claim-rbac-allocated allocated by
  // the admin, and RBAC enforcing `policy` (claim-status-writer's rules,
  // and resourceclaims/binding too if `with_binding`).
  void SeedRbacScenario(const std::string& kube_version, bool with_binding) {
    StartServer({.user = kClaimWriter, .kube_version = kube_version});
    CreateNamespace("rbac");
    ASSERT_EQ(server_
                  ->Create("/apis/resource.k8s.io/v1/deviceclasses",
                           R"({"metadata":{"name":"rbac.example.com"},)"
                           R"("spec":{"selectors":[{"cel":{"expression":)"
                           R"("device.driver == \"rbac.example.com\""}}]}})")
                  .code,
              201);
    for (const char* name : {"claim-rbac", "claim-rbac-allocated"}) {
      const TestApiServer::Reply created = server_->Create(
          std::string(kRbacClaims) + "?fieldManager=kubectl-create",
          R"({"metadata":{"name":")" + std::string(name) +
              R"("},"spec":{"devices":{"requests":[{"name":"dev",)"
              R"("exactly":{"deviceClassName":"rbac.example.com"}}]}}})");
      ASSERT_EQ(created.code, 201) << created.body;
    }
    // The admin allocates claim-rbac-allocated (in-process: no check).
    const std::string allocated =
        std::string(kRbacClaims) + "/claim-rbac-allocated";
    rapidjson::Document claim = ParseJsonOrDie(server_->Get(allocated).body);
    claim["status"].CopyFrom(ParseJsonOrDie(AllocationStatus()),
                             claim.GetAllocator());
    ASSERT_EQ(server_->Update(allocated + "/status", JsonText(claim)).code,
              200);
    RbacPolicy policy;
    policy.cluster.push_back(
        {.api_groups = {"resource.k8s.io"},
         .resources = {"resourceclaims", "resourceclaims/status"},
         .verbs = {"get", "list", "watch", "update", "patch"}});
    if (with_binding) {
      policy.cluster.push_back({.api_groups = {"resource.k8s.io"},
                                .resources = {"resourceclaims/binding"},
                                .verbs = {"update", "patch"}});
    }
    server_->SetRbac(policy);
  }

  // The allocation the recorded PUT writes.
  static std::string AllocationStatus() {
    rapidjson::Document put = ParseJsonOrDie(
        Load("put-resourceclaim-status-allocation-no-binding-permission")
            .request_body);
    return JsonText(put["status"]);
  }

  // The recorded PUT of claim-rbac's status, made to name our claim.
  std::string ClaimRbacPut() {
    const Recording recording =
        Load("put-resourceclaim-status-allocation-no-binding-permission");
    rapidjson::Document recorded = ParseJsonOrDie(recording.request_body);
    rapidjson::Document ours = ParseJsonOrDie(
        server_->Get(std::string(kRbacClaims) + "/claim-rbac").body);
    std::string body = recording.request_body;
    // Key and value together: a bare "447" could also be found inside our
    // random uid once the uid is replaced.
    for (const std::string field : {"uid", "resourceVersion"}) {
      body = ReplaceAll(
          body,
          "\"" + field + "\":\"" + recorded["metadata"][field].GetString() +
              "\"",
          "\"" + field + "\":\"" + ours["metadata"][field].GetString() + "\"");
    }
    return body;
  }

  bool Accessed(const TestApiServer::Access& want) {
    const std::vector<TestApiServer::Access> all = server_->Accesses();
    return std::find(all.begin(), all.end(), want) != all.end();
  }
};

TEST_F(RecordingV136Test, VersionAsTheRealV136AnswersIt) {
  CheckExactly("get-version");
}

TEST_F(RecordingV136Test, DiscoveryAsRecorded) {
  CheckExactly("get-discovery-resource.k8s.io");
  CheckExactly("get-discovery-resource.k8s.io-v1");
  CheckExactly("get-discovery-scheduling.k8s.io");
  CheckExactly("get-discovery-scheduling.k8s.io-v1");
  // The gang API (scheduling.k8s.io/v1alpha2) needs flags a default
  // server does not have.
  EXPECT_EQ(Call("GET", "/apis/scheduling.k8s.io/v1alpha2").code, 404);
}

TEST_F(RecordingV136Test, NodeDeclaredFeaturesKeptAndValidated) {
  CheckJson("post-node-declaredfeatures");
  CheckJson("get-node-declaredfeatures");
  // Kept as written (the real server writes them last in status; here
  // fields keep the client's order, which the comparisons above ignore).
  rapidjson::Document node =
      ParseJsonOrDie(server_->Get("/api/v1/nodes/node-1").body);
  EXPECT_EQ(JsonText(node["status"]["declaredFeatures"]),
            R"(["InPlacePodLevelResourcesVerticalScaling",)"
            R"("RestartAllContainersOnContainerExits"])");
  CheckExactly("post-node-declaredfeatures-unsorted-422");
  CheckExactly("post-node-declaredfeatures-invalid-422");
  // The status subresource validates them too.
  HttpResult status = Call("PATCH", "/api/v1/nodes/node-1/status",
                           R"({"status":{"declaredFeatures":["B","A"]}})",
                           "application/merge-patch+json");
  EXPECT_EQ(status.code, 422) << status.body;
  EXPECT_NE(status.body.find("status.declaredFeatures[1]: Invalid value: "
                             "\\\"A\\\": list must be sorted alphabetically"),
            std::string::npos)
      << status.body;
}

TEST_F(RecordingV136Test, PodRestartPolicyRulesKeptAndValidated) {
  CreateNamespace("pods136");
  CheckPod("post-pod-restartallcontainers");
  CheckExactly("post-pod-restartpolicyrules-invalid-422");
  // An init container's rules are checked as a container's.
  HttpResult init = Call(
      "POST", "/api/v1/namespaces/pods136/pods",
      PodJson("init-rules", "pods136",
              R"("initContainers":[{"name":"i","image":"registry.example/i:1",)"
              R"("restartPolicy":"Sometimes","restartPolicyRules":[)"
              R"({"action":"Kill"}]}])"));
  ASSERT_EQ(init.code, 422) << init.body;
  rapidjson::Document status = ParseJsonOrDie(init.body);
  EXPECT_EQ(std::string(status["message"].GetString()),
            "Pod \"init-rules\" is invalid: ["
            "spec.initContainers[0].restartPolicy: Unsupported value: "
            "\"Sometimes\": supported values: \"Always\", \"Never\", "
            "\"OnFailure\", "
            "spec.initContainers[0].restartPolicyRules[0].action: Unsupported "
            "value: \"Kill\": supported values: \"Restart\", "
            "\"RestartAllContainers\", "
            "spec.initContainers[0].restartPolicyRules[0].exitCodes: "
            "Required value: must be specified]");
}

TEST_F(RecordingV136Test, ImageVolumeKept) {
  CreateNamespace("pods136");
  CheckPod("post-pod-imagevolume");
}

TEST_F(RecordingV136Test, PodLevelResourcesRoundTrip) {
  CreateNamespace("pods136");
  CheckPod("post-pod-podlevel-resources");
  CheckPod("patch-pod-status-podlevel-resources");
  CheckPod("get-pod-podlevel-resources");
}

TEST_F(RecordingV136Test, DeviceTaintsGetTimeAdded) {
  CheckJson("post-resourceslice-device-taint");
  CheckJson("get-resourceslice-device-taint");
  rapidjson::Document slice = ParseJsonOrDie(
      server_->Get(std::string(kSlices) + "/node-2-accel.example.com").body);
  const std::string added =
      slice["spec"]["devices"][0]["taints"][0]["timeAdded"].GetString();
  EXPECT_EQ(added.size(), 20u) << added;  // 2026-11-29T01:31:59Z
  EXPECT_TRUE(added.ends_with("Z")) << added;
  // One given is kept.
  HttpResult given = Call(
      "POST", kSlices,
      R"({"metadata":{"name":"given"},"spec":{"driver":"accel.example.com",)"
      R"("nodeName":"node-2","pool":{"name":"p","generation":1,)"
      R"("resourceSliceCount":1},"devices":[{"name":"d","taints":[{"key":)"
      R"("k","effect":"NoSchedule","timeAdded":"2026-01-02T03:04:05Z"}]}]}})");
  ASSERT_EQ(given.code, 201) << given.body;
  EXPECT_EQ(std::string(
                ParseJsonOrDie(
                    given.body)["spec"]["devices"][0]["taints"][0]["timeAdded"]
                    .GetString()),
            "2026-01-02T03:04:05Z");
}

TEST_F(RecordingV136Test, PartitionableSlices) {
  CheckJson("post-resourceslice-sharedcounters");
  CheckJson("post-resourceslice-partitions");
  CheckJson("list-resourceslices-node-1-pool");
  CheckExactly("post-resourceslice-counters-and-devices-422");
}

TEST_F(RecordingV136Test, ClaimStatusAllocationNeedsResourceClaimsBinding) {
  SeedRbacScenario("1.36", /*with_binding=*/false);
  CheckJson("get-resourceclaim-rbac-as-sa");
  CheckExactly("put-resourceclaim-status-allocation-no-binding-permission",
               ClaimRbacPut());
  // Asked as the RBAC authorizer is asked: the request's verb on the
  // synthetic subresource, cluster-wide, for no name.
  EXPECT_TRUE(Accessed({.verb = "update",
                        .group = "resource.k8s.io",
                        .resource = "resourceclaims/binding",
                        .allowed = false}));
  EXPECT_TRUE(Accessed({.verb = "update",
                        .group = "resource.k8s.io",
                        .resource = "resourceclaims/status",
                        .ns = "rbac",
                        .name = "claim-rbac",
                        .allowed = true}));
  // Nothing was written.
  rapidjson::Document claim = ParseJsonOrDie(
      server_->Get(std::string(kRbacClaims) + "/claim-rbac").body);
  EXPECT_FALSE(claim["status"].HasMember("allocation"));

  // A patch asks for patch: the same answer with its verb.
  const std::string recorded_message =
      ParseJsonOrDie(
          Load("put-resourceclaim-status-allocation-no-binding-permission")
              .body)["message"]
          .GetString();
  const std::string patch_message = ReplaceAll(
      ReplaceAll(recorded_message, "verb=\"update\"", "verb=\"patch\""),
      "cannot update", "cannot patch");
  HttpResult patched =
      Call("PATCH", std::string(kRbacClaims) + "/claim-rbac/status",
           R"({"status":)" + AllocationStatus() + "}",
           "application/merge-patch+json");
  ASSERT_EQ(patched.code, 422) << patched.body;
  EXPECT_EQ(std::string(ParseJsonOrDie(patched.body)["message"].GetString()),
            patch_message);
  EXPECT_TRUE(Accessed({.verb = "patch",
                        .group = "resource.k8s.io",
                        .resource = "resourceclaims/binding",
                        .allowed = false}));

  // A status write that leaves allocation and reservedFor alone needs
  // nothing more.
  HttpResult metadata_only = Call(
      "PATCH", std::string(kRbacClaims) + "/claim-rbac/status",
      R"({"metadata":{"labels":{"a":"b"}}})", "application/merge-patch+json");
  EXPECT_EQ(metadata_only.code, 200) << metadata_only.body;

  // Taking a reservation out changes reservedFor: checked as well.
  const std::string allocated =
      std::string(kRbacClaims) + "/claim-rbac-allocated";
  rapidjson::Document reserved = ParseJsonOrDie(server_->Get(allocated).body);
  // Copied into `reserved`'s allocator: the parsed list's own memory goes
  // with its document.
  const rapidjson::Document reserved_for =
      ParseJsonOrDie(R"([{"resource":"pods","name":"p","uid":"pod-uid"}])");
  reserved["status"].AddMember(
      "reservedFor", rapidjson::Value(reserved_for, reserved.GetAllocator()),
      reserved.GetAllocator());
  ASSERT_EQ(server_->Update(allocated + "/status", JsonText(reserved)).code,
            200);
  HttpResult unreserve = Call(
      "PATCH", allocated + "/status",
      R"({"status":{"reservedFor":[{"$patch":"delete","uid":"pod-uid"}]}})",
      "application/strategic-merge-patch+json");
  EXPECT_EQ(unreserve.code, 422) << unreserve.body;
}

TEST_F(RecordingV136Test, ClaimStatusAllocationWithResourceClaimsBinding) {
  SeedRbacScenario("1.36", /*with_binding=*/true);
  CheckJson("put-resourceclaim-status-allocation-with-binding-permission",
            ClaimRbacPut());
  EXPECT_TRUE(Accessed({.verb = "update",
                        .group = "resource.k8s.io",
                        .resource = "resourceclaims/binding",
                        .allowed = true}));
}

TEST_F(RecordingV136Test, ClaimStatusDevicesNeedResourceClaimsDriver) {
  SeedRbacScenario("1.36", /*with_binding=*/false);
  CheckExactly("patch-resourceclaim-status-devices-no-driver-permission");
  EXPECT_TRUE(Accessed({.verb = "arbitrary-node:patch",
                        .group = "resource.k8s.io",
                        .resource = "resourceclaims/driver",
                        .ns = "rbac",
                        .name = "rbac.example.com",
                        .allowed = false}));
  // Granted, the same patch goes through.
  RbacPolicy policy;
  policy.cluster.push_back({.api_groups = {"resource.k8s.io"},
                            .resources = {"resourceclaims/status"},
                            .verbs = {"patch"}});
  policy.cluster.push_back({.api_groups = {"resource.k8s.io"},
                            .resources = {"resourceclaims/driver"},
                            .verbs = {"arbitrary-node:patch"},
                            .resource_names = {"rbac.example.com"}});
  server_->SetRbac(policy);
  const Recording recording =
      Load("patch-resourceclaim-status-devices-no-driver-permission");
  EXPECT_EQ(Replay(recording).code, 200);
}

// Without RBAC (everything allowed) nothing is refused, and a Forbid() of
// the synthetic subresource denies it as RBAC would.
TEST_F(RecordingV136Test, ForbidDeniesTheBindingCheckToo) {
  StartServer({.user = kClaimWriter});
  CreateNamespace("rbac");
  ASSERT_EQ(server_
                ->Create(kRbacClaims,
                         R"({"metadata":{"name":"claim-rbac"},"spec":{)"
                         R"("devices":{"requests":[{"name":"dev","exactly":)"
                         R"({"deviceClassName":"rbac.example.com"}}]}}})")
                .code,
            201);
  server_->Forbid("update", "resourceclaims/binding");
  CheckExactly("put-resourceclaim-status-allocation-no-binding-permission",
               ClaimRbacPut());
  server_->ClearFaults();
  const Recording recording =
      Load("put-resourceclaim-status-allocation-no-binding-permission");
  EXPECT_EQ(Replay(recording, ClaimRbacPut()).code, 200);
}

TEST_F(RecordingV136Test, ClaimStatusWithoutStatusPermissionIs403) {
  StartServer({.user = "system:serviceaccount:rbac:default"});
  CreateNamespace("rbac");
  ASSERT_EQ(server_
                ->Create(kRbacClaims,
                         R"({"metadata":{"name":"claim-rbac"},"spec":{)"
                         R"("devices":{"requests":[{"name":"dev","exactly":)"
                         R"({"deviceClassName":"rbac.example.com"}}]}}})")
                .code,
            201);
  server_->SetRbac({});
  CheckExactly("put-resourceclaim-status-no-status-permission-403",
               ClaimRbacPut());
}

// v1.35 makes no such check: the same write goes through.
TEST_F(RecordingV136Test, V135DoesNotCheckResourceClaimsBinding) {
  SeedRbacScenario("1.35", /*with_binding=*/false);
  const Recording recording =
      Load("put-resourceclaim-status-allocation-no-binding-permission");
  EXPECT_EQ(Replay(recording, ClaimRbacPut()).code, 200);
  for (const TestApiServer::Access& a : server_->Accesses()) {
    EXPECT_NE(a.resource, "resourceclaims/binding");
  }
}

// v1.35 keeps what it was given as today: neither declared features nor
// restart rules are validated there.
TEST_F(RecordingV136Test, V135DoesNotValidateTheV136Fields) {
  StartServer({.kube_version = "1.35"});
  EXPECT_EQ(Replay(Load("post-node-declaredfeatures-unsorted-422")).code, 201);
  CreateNamespace("pods136");
  EXPECT_EQ(Replay(Load("post-pod-restartpolicyrules-invalid-422")).code, 201);
  const HttpResult version = Call("GET", "/version");
  EXPECT_NE(version.body.find("\"gitVersion\": \"v1.35.6\""),
            std::string::npos);
}

}  // namespace
}  // namespace recording_v136_test
}  // namespace ksched::testing

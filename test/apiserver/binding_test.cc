// pods/binding: what succeeds, what conflicts, and what is recorded.
#include <gtest/gtest.h>

#include <string>

#include "test/apiserver/apiserver_test_util.h"

namespace ksched::testing {
namespace {

class BindingTest : public ApiServerTest {
 protected:
  std::string CreatePod(const std::string& name,
                        const std::string& extra_spec = "") {
    TestApiServer::Reply r =
        server_->Create("/api/v1/namespaces/default/pods",
                        PodJson(name, "default", extra_spec));
    EXPECT_EQ(r.code, 201) << r.body;
    return ParseJsonOrDie(r.body)["metadata"]["uid"].GetString();
  }
  HttpResult Bind(const std::string& pod, const std::string& node,
                  const std::string& uid = "") {
    return Call("POST", "/api/v1/namespaces/default/pods/" + pod + "/binding",
                BindingJson(pod, node, uid));
  }
  static std::string Message(const HttpResult& r) {
    return ParseJsonOrDie(r.body)["message"].GetString();
  }
};

TEST_F(BindingTest, SuccessSetsTheNodeAndPodScheduled) {
  const std::string uid = CreatePod("p");
  // An earlier Unschedulable condition is replaced.
  ASSERT_EQ(server_
                ->Patch("/api/v1/namespaces/default/pods/p/status",
                        R"({"status":{"conditions":[{"type":"PodScheduled",)"
                        R"("status":"False","reason":"Unschedulable",)"
                        R"("message":"no"}]}})")
                .code,
            200);
  const int64_t before = server_->ResourceVersion();
  HttpResult bound = Bind("p", "node-1", uid);
  ASSERT_EQ(bound.code, 201) << bound.body;
  EXPECT_EQ(bound.reason, "Created");
  rapidjson::Document status = ParseJsonOrDie(bound.body);
  EXPECT_EQ(std::string(status["status"].GetString()), "Success");
  EXPECT_EQ(status["code"].GetInt(), 201);
  rapidjson::Document pod =
      ParseJsonOrDie(server_->Get("/api/v1/namespaces/default/pods/p").body);
  EXPECT_EQ(std::string(pod["spec"]["nodeName"].GetString()), "node-1");
  EXPECT_EQ(std::string(pod["metadata"]["resourceVersion"].GetString()),
            std::to_string(before + 1));
  const auto& conditions = pod["status"]["conditions"];
  ASSERT_EQ(conditions.Size(), 1u);
  EXPECT_EQ(std::string(conditions[0]["type"].GetString()), "PodScheduled");
  EXPECT_EQ(std::string(conditions[0]["status"].GetString()), "True");
  EXPECT_FALSE(conditions[0].HasMember("reason"));
  EXPECT_TRUE(conditions[0]["lastProbeTime"].IsNull());
}

TEST_F(BindingTest, RefusalsAreWordedAsTheRealServerWordsThem) {
  HttpResult missing = Bind("ghost", "node-1");
  EXPECT_EQ(missing.code, 404);
  EXPECT_EQ(Message(missing), "pods \"ghost\" not found");

  const std::string uid = CreatePod("p");
  HttpResult wrong_uid =
      Bind("p", "node-1", "11111111-1111-4111-8111-111111111111");
  EXPECT_EQ(wrong_uid.code, 409);
  EXPECT_EQ(
      Message(wrong_uid),
      "Operation cannot be fulfilled on pods \"p\": StorageError: invalid "
      "object, Code: 4, Key: /registry/pods/default/p, ResourceVersion: "
      "0, AdditionalErrorMsg: Precondition failed: UID in precondition: "
      "11111111-1111-4111-8111-111111111111, UID in object meta: " +
          uid);
  ASSERT_EQ(Bind("p", "node-1").code, 201);
  HttpResult twice = Bind("p", "node-2");
  EXPECT_EQ(twice.code, 409);
  EXPECT_EQ(Message(twice),
            "Operation cannot be fulfilled on pods/binding \"p\": pod p is "
            "already assigned to node \"node-1\"");

  TestApiServerOptions options;
  options.finalize_deleted_pods = false;
  StartServer(options);
  CreatePod("gated", R"("schedulingGates":[{"name":"example.com/wait"}])");
  HttpResult gated = Bind("gated", "node-1");
  EXPECT_EQ(gated.code, 409);
  EXPECT_EQ(
      Message(gated),
      "Operation cannot be fulfilled on pods/binding \"gated\": pod gated "
      "has non-empty .spec.schedulingGates");
  // A pod with a finalizer stays while being deleted.
  ASSERT_EQ(server_
                ->Create("/api/v1/namespaces/default/pods",
                         R"({"metadata":{"name":"going","finalizers":["x/y"]},)"
                         R"("spec":{"containers":[{"name":"c","image":"i"}]}})")
                .code,
            201);
  ASSERT_EQ(Call("DELETE", "/api/v1/namespaces/default/pods/going").code, 200);
  HttpResult deleting = Bind("going", "node-1");
  EXPECT_EQ(deleting.code, 409);
  EXPECT_EQ(
      Message(deleting),
      "Operation cannot be fulfilled on pods/binding \"going\": pod going "
      "is being deleted, cannot be assigned to a host");

  HttpResult no_target =
      Call("POST", "/api/v1/namespaces/default/pods/gated/binding",
           R"({"metadata":{"name":"gated"},"target":{}})");
  EXPECT_EQ(no_target.code, 500);
  EXPECT_EQ(Message(no_target), "target.name: Required value");
  HttpResult other_name =
      Call("POST", "/api/v1/namespaces/default/pods/gated/binding",
           BindingJson("someone-else", "node-1"));
  EXPECT_EQ(other_name.code, 400);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/gated/binding").code,
            405);
}

TEST_F(BindingTest, EveryAnswerIsRecorded) {
  const std::string uid = CreatePod("p");
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(Bind("p", "node-1").code, 201);
  ASSERT_EQ(Bind("p", "node-2").code, 409);
  ASSERT_EQ(Bind("nope", "node-3").code, 404);
  std::vector<TestApiServer::BindingRecord> records = server_->Bindings();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].ns, "default");
  EXPECT_EQ(records[0].name, "p");
  EXPECT_EQ(records[0].uid, uid);
  EXPECT_EQ(records[0].node, "node-1");
  EXPECT_EQ(records[0].code, 201);
  EXPECT_GE(records[0].at, start);
  EXPECT_EQ(records[1].code, 409);
  EXPECT_EQ(records[1].node, "node-2");
  EXPECT_EQ(records[2].name, "nope");
  EXPECT_EQ(records[2].code, 404);
  EXPECT_LE(records[1].at, records[2].at);
}

}  // namespace
}  // namespace ksched::testing

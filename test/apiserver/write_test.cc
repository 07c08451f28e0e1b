// Create, update, patch and delete: what is stored, what is refused.
#include <gtest/gtest.h>

#include <string>

#include "test/apiserver/apiserver_test_util.h"

namespace ksched::testing {
namespace {

class WriteTest : public ApiServerTest {
 protected:
  rapidjson::Document GetObject(const std::string& path) {
    TestApiServer::Reply r = server_->Get(path);
    EXPECT_EQ(r.code, 200) << path;
    return ParseJsonOrDie(r.body);
  }
  static std::string Message(const HttpResult& r) {
    rapidjson::Document status = ParseJsonOrDie(r.body);
    return status.HasMember("message") ? status["message"].GetString() : "";
  }
  static std::string Reason(const HttpResult& r) {
    rapidjson::Document status = ParseJsonOrDie(r.body);
    return status.HasMember("reason") ? status["reason"].GetString() : "";
  }
};

TEST_F(WriteTest, CreateStampsDefaultsAndAdmits) {
  HttpResult created =
      Call("POST", "/api/v1/namespaces/default/pods",
           R"({"apiVersion":"v1","kind":"Pod","metadata":{)"
           R"("generateName":"web-","labels":{"a":"b"}},)"
           R"("spec":{"containers":[{"name":"c","image":"nginx",)"
           R"("resources":{"limits":{"cpu":"1","memory":"1Gi"}}}],)"
           R"("custom":{"kept":true}},"status":{"phase":"Running"}})");
  ASSERT_EQ(created.code, 201) << created.body;
  EXPECT_EQ(created.reason, "Created");
  rapidjson::Document pod = ParseJsonOrDie(created.body);
  const auto& meta = pod["metadata"];
  const std::string name = meta["name"].GetString();
  EXPECT_EQ(name.rfind("web-", 0), 0u);
  EXPECT_EQ(name.size(), 9u);
  EXPECT_EQ(std::string(meta["namespace"].GetString()), "default");
  EXPECT_EQ(std::string(meta["uid"].GetString()).size(), 36u);
  EXPECT_EQ(std::string(meta["resourceVersion"].GetString()),
            std::to_string(server_->ResourceVersion()));
  EXPECT_TRUE(meta["creationTimestamp"].IsString());
  EXPECT_EQ(std::string(meta["managedFields"][0]["manager"].GetString()),
            "apiserver-test");
  const auto& spec = pod["spec"];
  EXPECT_TRUE(spec["custom"]["kept"].GetBool());  // unknown fields are kept
  EXPECT_EQ(std::string(spec["schedulerName"].GetString()),
            "default-scheduler");
  EXPECT_EQ(spec["priority"].GetInt(), 0);
  EXPECT_EQ(std::string(spec["containers"][0]["imagePullPolicy"].GetString()),
            "Always");
  EXPECT_EQ(
      std::string(
          spec["containers"][0]["resources"]["requests"]["cpu"].GetString()),
      "1");
  EXPECT_EQ(spec["tolerations"].Size(), 2u);
  // The client's status is replaced on create.
  EXPECT_EQ(std::string(pod["status"]["phase"].GetString()), "Pending");
  EXPECT_EQ(std::string(pod["status"]["qosClass"].GetString()), "Guaranteed");
  EXPECT_TRUE(server_->CreationTime("/api/v1/namespaces/default/pods/" + name)
                  .has_value());

  HttpResult again =
      Call("POST", "/api/v1/namespaces/default/pods", PodJson(name));
  EXPECT_EQ(again.code, 409);
  EXPECT_EQ(Message(again), "pods \"" + name + "\" already exists");
  EXPECT_EQ(Reason(again), "AlreadyExists");
}

TEST_F(WriteTest, PriorityComesFromThePriorityClass) {
  ASSERT_EQ(server_
                ->Create("/apis/scheduling.k8s.io/v1/priorityclasses",
                         R"({"metadata":{"name":"high"},"value":1000,)"
                         R"("preemptionPolicy":"Never"})")
                .code,
            201);
  HttpResult high =
      Call("POST", "/api/v1/namespaces/default/pods",
           PodJson("h", "default", R"("priorityClassName":"high")"));
  ASSERT_EQ(high.code, 201) << high.body;
  rapidjson::Document pod = ParseJsonOrDie(high.body);
  EXPECT_EQ(pod["spec"]["priority"].GetInt(), 1000);
  EXPECT_EQ(std::string(pod["spec"]["preemptionPolicy"].GetString()), "Never");
  HttpResult missing =
      Call("POST", "/api/v1/namespaces/default/pods",
           PodJson("m", "default", R"("priorityClassName":"nope")"));
  EXPECT_EQ(missing.code, 403);
  EXPECT_EQ(Message(missing),
            "pods \"m\" is forbidden: no PriorityClass with name nope was "
            "found");
  // The system classes exist from the start.
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods",
                 PodJson("s", "default",
                         R"("priorityClassName":"system-node-critical")"))
                .code,
            201);
}

// ServiceAccount admission: each container mounts the account's token from
// one kube-api-access-* volume, unless the pod opts out, a container
// already mounts something at the path, or the pod is a mirror pod (which
// gets no account either).
TEST_F(WriteTest, PodsMountTheServiceAccountToken) {
  auto create = [this](const std::string& name, const std::string& spec) {
    HttpResult r =
        Call("POST", "/api/v1/namespaces/default/pods",
             R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                 R"("},"spec":)" + spec + "}");
    EXPECT_EQ(r.code, 201) << r.body;
    return ParseJsonOrDie(r.body);
  };
  const std::string path = "/var/run/secrets/kubernetes.io/serviceaccount";
  rapidjson::Document plain = create(
      "plain", R"({"initContainers":[{"name":"i","image":"busybox"}],)"
               R"("containers":[{"name":"a","image":"nginx"},)"
               R"({"name":"b","image":"nginx","volumeMounts":[{"name":"own",)"
               R"("mountPath":")" +
                   path +
                   R"("}]}],)"
                   R"("volumes":[{"name":"own","emptyDir":{}}]})");
  const auto& spec = plain["spec"];
  ASSERT_EQ(spec["volumes"].Size(), 2u);
  const std::string volume = spec["volumes"][1]["name"].GetString();
  EXPECT_EQ(volume.rfind("kube-api-access-", 0), 0u);
  EXPECT_EQ(volume.size(), std::string("kube-api-access-abcde").size());
  const auto& sources = spec["volumes"][1]["projected"]["sources"];
  ASSERT_EQ(sources.Size(), 4u);
  EXPECT_EQ(sources[0]["serviceAccountToken"]["expirationSeconds"].GetInt(),
            3607);
  EXPECT_EQ(spec["volumes"][1]["projected"]["defaultMode"].GetInt(), 420);
  for (const auto* c : {&spec["initContainers"][0], &spec["containers"][0]}) {
    ASSERT_EQ((*c)["volumeMounts"].Size(), 1u);
    EXPECT_EQ(std::string((*c)["volumeMounts"][0]["name"].GetString()), volume);
    EXPECT_EQ(std::string((*c)["volumeMounts"][0]["mountPath"].GetString()),
              path);
    EXPECT_TRUE((*c)["volumeMounts"][0]["readOnly"].GetBool());
  }
  // b's own mount at the path stays the only one.
  ASSERT_EQ(spec["containers"][1]["volumeMounts"].Size(), 1u);
  EXPECT_EQ(
      std::string(spec["containers"][1]["volumeMounts"][0]["name"].GetString()),
      "own");

  // A kube-api-access-* volume the pod has is the one mounted.
  rapidjson::Document named = create(
      "named", R"({"containers":[{"name":"a","image":"nginx"}],)"
               R"("volumes":[{"name":"kube-api-access-mine","emptyDir":{}}]})");
  EXPECT_EQ(named["spec"]["volumes"].Size(), 1u);
  EXPECT_EQ(
      std::string(named["spec"]["containers"][0]["volumeMounts"][0]["name"]
                      .GetString()),
      "kube-api-access-mine");

  rapidjson::Document opted_out =
      create("out", R"({"automountServiceAccountToken":false,)"
                    R"("containers":[{"name":"a","image":"nginx"}]})");
  EXPECT_FALSE(opted_out["spec"].HasMember("volumes"));
  EXPECT_FALSE(opted_out["spec"]["containers"][0].HasMember("volumeMounts"));

  HttpResult mirror = Call(
      "POST", "/api/v1/namespaces/default/pods",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"mirror",)"
      R"("annotations":{"kubernetes.io/config.mirror":"x"}},)"
      R"("spec":{"nodeName":"n","containers":[{"name":"a","image":"nginx"}]}})");
  ASSERT_EQ(mirror.code, 201) << mirror.body;
  rapidjson::Document mirror_pod = ParseJsonOrDie(mirror.body);
  EXPECT_FALSE(mirror_pod["spec"].HasMember("volumes"));
  // Nor an account: a mirror pod may not name one.
  EXPECT_FALSE(mirror_pod["spec"].HasMember("serviceAccountName"));
  HttpResult named_mirror =
      Call("POST", "/api/v1/namespaces/default/pods",
           R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"mirror-sa",)"
           R"("annotations":{"kubernetes.io/config.mirror":"x"}},)"
           R"("spec":{"nodeName":"n","serviceAccountName":"builder",)"
           R"("containers":[{"name":"a","image":"nginx"}]}})");
  EXPECT_EQ(named_mirror.code, 403);
  EXPECT_EQ(Message(named_mirror),
            "pods \"mirror-sa\" is forbidden: a mirror pod may not reference "
            "service accounts");
}

TEST_F(WriteTest, BadInputIsRefusedClearly) {
  const std::string pods = "/api/v1/namespaces/default/pods";
  HttpResult malformed = Call("POST", pods, "{\"metadata\": ");
  EXPECT_EQ(malformed.code, 400);
  EXPECT_EQ(Reason(malformed), "BadRequest");
  EXPECT_EQ(Message(malformed).rfind("couldn't get version/kind; json parse "
                                     "error: ",
                                     0),
            0u);
  HttpResult array = Call("POST", pods, "[1,2]");
  EXPECT_EQ(array.code, 400);
  HttpResult wrong_type = Call(
      "POST", pods,
      R"({"metadata":{"name":"x","labels":"oops"},"spec":{"containers":[]}})");
  EXPECT_EQ(wrong_type.code, 400);
  EXPECT_NE(Message(wrong_type)
                .find("cannot unmarshal string into Go struct "
                      "field Pod.metadata.labels of type "
                      "map[string]string"),
            std::string::npos)
      << Message(wrong_type);
  HttpResult bad_quantity = Call(
      "POST", pods,
      R"({"metadata":{"name":"q"},"spec":{"containers":[{"name":"c","image":"i",)"
      R"("resources":{"requests":{"cpu":"lots"}}}]}})");
  EXPECT_EQ(bad_quantity.code, 400);
  EXPECT_NE(Message(bad_quantity).find("quantities must match"),
            std::string::npos);
  HttpResult wrong_kind =
      Call("POST", pods,
           R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n"}})");
  EXPECT_EQ(wrong_kind.code, 400);
  HttpResult wrong_ns = Call("POST", pods, PodJson("p", "kube-system"));
  EXPECT_EQ(wrong_ns.code, 400);
  EXPECT_EQ(Message(wrong_ns),
            "the namespace of the provided object does not match the "
            "namespace sent on the request");
  HttpResult invalid =
      Call("POST", pods, R"({"metadata":{"name":"Bad_Name"},"spec":{}})");
  EXPECT_EQ(invalid.code, 422);
  EXPECT_EQ(invalid.reason, "Unprocessable Entity");
  EXPECT_NE(
      Message(invalid).find("Pod \"Bad_Name\" is invalid: [metadata.name: "
                            "Invalid value: \"Bad_Name\""),
      std::string::npos)
      << Message(invalid);
  EXPECT_NE(Message(invalid).find("spec.containers: Required value"),
            std::string::npos);
  HttpResult no_name = Call(
      "POST", pods, R"({"spec":{"containers":[{"name":"c","image":"i"}]}})");
  EXPECT_EQ(no_name.code, 422);
  EXPECT_EQ(Message(no_name),
            "Pod \"\" is invalid: metadata.name: Required value: name or "
            "generateName is required");
  HttpResult no_namespace =
      Call("POST", "/api/v1/namespaces/ghost/pods", PodJson("p", "ghost"));
  EXPECT_EQ(no_namespace.code, 404);
  EXPECT_EQ(Message(no_namespace), "namespaces \"ghost\" not found");
  HttpResult huge = Call("POST", pods,
                         R"({"metadata":{"name":"h","annotations":{"a":")" +
                             std::string(4 << 20, 'x') + "\"}}}");
  EXPECT_EQ(huge.code, 413);
  HttpResult deep =
      Call("POST", pods, std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_EQ(deep.code, 400);
  // None of that stored anything, and the server still answers.
  EXPECT_EQ(ParseJsonOrDie(Call("GET", pods).body)["items"].Size(), 0u);
}

TEST_F(WriteTest, UnknownPathsAndMethods) {
  HttpResult unknown = Call("GET", "/api/v1/widgets");
  EXPECT_EQ(unknown.code, 404);
  EXPECT_EQ(Message(unknown),
            "the server could not find the requested resource");
  EXPECT_EQ(Call("GET", "/nonsense").code, 404);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/x/exec").code, 404);
  HttpResult not_allowed = Call("PUT", "/api/v1/namespaces/default/pods", "{}");
  EXPECT_EQ(not_allowed.code, 405);
  EXPECT_EQ(not_allowed.reason, "Method Not Allowed");
  HttpResult missing = Call("GET", "/api/v1/namespaces/default/pods/nope");
  EXPECT_EQ(missing.code, 404);
  EXPECT_EQ(Message(missing), "pods \"nope\" not found");
  HttpResult missing_lease = Call(
      "GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/nope");
  EXPECT_EQ(Message(missing_lease),
            "leases.coordination.k8s.io \"nope\" not found");
}

TEST_F(WriteTest, UpdateIsOptimisticallyConcurrent) {
  const std::string path =
      "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l";
  ASSERT_EQ(
      server_
          ->Create("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
                   R"({"metadata":{"name":"l"},"spec":{"holderIdentity":"a"}})")
          .code,
      201);
  rapidjson::Document lease = GetObject(path);
  const std::string rv = lease["metadata"]["resourceVersion"].GetString();
  auto with_holder = [&](const std::string& holder, const std::string& at_rv) {
    return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",)"
           R"("metadata":{"name":"l","namespace":"kube-system",)"
           R"("resourceVersion":")" +
           at_rv + R"("},"spec":{"holderIdentity":")" + holder + R"("}})";
  };
  HttpResult first = Call("PUT", path, with_holder("b", rv));
  ASSERT_EQ(first.code, 200) << first.body;
  HttpResult stale = Call("PUT", path, with_holder("c", rv));
  EXPECT_EQ(stale.code, 409);
  EXPECT_EQ(Message(stale),
            "Operation cannot be fulfilled on leases.coordination.k8s.io "
            "\"l\": the object has been modified; please apply your changes to "
            "the latest version and try again");
  EXPECT_EQ(std::string(GetObject(path)["spec"]["holderIdentity"].GetString()),
            "b");
  // Without a resourceVersion the update is unconditional.
  EXPECT_EQ(Call("PUT", path, with_holder("d", "")).code, 200);
  // The same content again writes nothing.
  const int64_t before = server_->ResourceVersion();
  EXPECT_EQ(Call("PUT", path, with_holder("d", "")).code, 200);
  EXPECT_EQ(server_->ResourceVersion(), before);
  HttpResult renamed =
      Call("PUT", path, R"({"metadata":{"name":"other"},"spec":{}})");
  EXPECT_EQ(renamed.code, 400);
  EXPECT_EQ(
      Call("PUT", path + "x", R"({"metadata":{"name":"lx"},"spec":{}})").code,
      404);
}

TEST_F(WriteTest, PodSpecIsImmutableAndStatusSeparate) {
  ASSERT_EQ(
      server_->Create("/api/v1/namespaces/default/pods", PodJson("p")).code,
      201);
  const std::string path = "/api/v1/namespaces/default/pods/p";
  HttpResult node = Call("PATCH", path, R"({"spec":{"nodeName":"n1"}})",
                         "application/merge-patch+json");
  EXPECT_EQ(node.code, 422);
  EXPECT_NE(Message(node).find("pod updates may not change fields"),
            std::string::npos);
  // Images may change.
  EXPECT_EQ(Call("PATCH", path,
                 R"({"spec":{"containers":[{"name":"c","image":"other"}]}})",
                 "application/strategic-merge-patch+json")
                .code,
            200);
  // Status through the main resource is ignored; spec through /status too.
  EXPECT_EQ(Call("PATCH", path, R"({"status":{"phase":"Running"}})",
                 "application/merge-patch+json")
                .code,
            200);
  EXPECT_EQ(std::string(GetObject(path)["status"]["phase"].GetString()),
            "Pending");
  EXPECT_EQ(Call("PATCH", path + "/status",
                 R"({"spec":{"nodeName":"n9"},"status":{"phase":"Running"}})",
                 "application/merge-patch+json")
                .code,
            200);
  rapidjson::Document pod = GetObject(path);
  EXPECT_EQ(std::string(pod["status"]["phase"].GetString()), "Running");
  EXPECT_FALSE(pod["spec"].HasMember("nodeName"));
}

TEST_F(WriteTest, StatusPatchesMergeConditionsByType) {
  ASSERT_EQ(
      server_->Create("/api/v1/namespaces/default/pods", PodJson("p")).code,
      201);
  const std::string status = "/api/v1/namespaces/default/pods/p/status";
  ASSERT_EQ(
      Call("PATCH", status,
           R"({"status":{"conditions":[{"type":"Ready","status":"False"}]}})",
           "application/merge-patch+json")
          .code,
      200);
  // Strategic: PodScheduled joins Ready.
  HttpResult strategic = Call(
      "PATCH", status,
      R"({"status":{"conditions":[{"type":"PodScheduled","status":"False",)"
      R"("reason":"Unschedulable","message":"0/1 nodes are available"}]}})",
      "application/strategic-merge-patch+json");
  ASSERT_EQ(strategic.code, 200) << strategic.body;
  rapidjson::Document pod = ParseJsonOrDie(strategic.body);
  ASSERT_EQ(pod["status"]["conditions"].Size(), 2u);
  EXPECT_EQ(std::string(pod["status"]["conditions"][0]["type"].GetString()),
            "Ready");
  EXPECT_TRUE(pod["status"]["conditions"][1]["lastProbeTime"].IsNull());
  // Strategic on an existing type changes that condition only.
  HttpResult again =
      Call("PATCH", status,
           R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})",
           "application/strategic-merge-patch+json");
  pod = ParseJsonOrDie(again.body);
  ASSERT_EQ(pod["status"]["conditions"].Size(), 2u);
  EXPECT_EQ(std::string(pod["status"]["conditions"][0]["status"].GetString()),
            "True");
  // A merge patch replaces the whole list.
  HttpResult merge = Call(
      "PATCH", status,
      R"({"status":{"conditions":[{"type":"PodScheduled","status":"True"}]}})",
      "application/merge-patch+json");
  pod = ParseJsonOrDie(merge.body);
  ASSERT_EQ(pod["status"]["conditions"].Size(), 1u);
  EXPECT_EQ(std::string(pod["status"]["conditions"][0]["type"].GetString()),
            "PodScheduled");
  // $patch: delete removes by key; the list left empty is omitted.
  HttpResult removed = Call(
      "PATCH", status,
      R"({"status":{"conditions":[{"type":"PodScheduled","$patch":"delete"}]}})",
      "application/strategic-merge-patch+json");
  EXPECT_FALSE(ParseJsonOrDie(removed.body)["status"].HasMember("conditions"))
      << removed.body;
  // JSON patch.
  HttpResult json_patch =
      Call("PATCH", "/api/v1/namespaces/default/pods/p",
           R"([{"op":"add","path":"/metadata/labels","value":{"k":"v"}},)"
           R"({"op":"test","path":"/metadata/labels/k","value":"v"}])",
           "application/json-patch+json");
  ASSERT_EQ(json_patch.code, 200) << json_patch.body;
  EXPECT_EQ(
      std::string(ParseJsonOrDie(json_patch.body)["metadata"]["labels"]["k"]
                      .GetString()),
      "v");
  EXPECT_EQ(Call("PATCH", "/api/v1/namespaces/default/pods/p",
                 R"([{"op":"test","path":"/metadata/name","value":"q"}])",
                 "application/json-patch+json")
                .code,
            422);
  // Server-side apply names its manager; an unknown patch type is 415.
  EXPECT_EQ(Call("PATCH", status, "{}", "application/apply-patch+yaml").code,
            422);
  EXPECT_EQ(Call("PATCH", status, "{}", "application/xml-patch").code, 415);
  EXPECT_EQ(Call("PATCH", status, "{bad", "application/merge-patch+json").code,
            400);
  EXPECT_EQ(Call("PATCH", "/api/v1/namespaces/default/pods/none/status", "{}",
                 "application/merge-patch+json")
                .code,
            404);
  // A patch naming a stale resourceVersion conflicts.
  EXPECT_EQ(Call("PATCH", status, R"({"metadata":{"resourceVersion":"1"}})",
                 "application/merge-patch+json")
                .code,
            409);
}

TEST_F(WriteTest, DeleteWithPreconditionsAndGrace) {
  TestApiServerOptions options;
  options.finalize_deleted_pods = false;
  StartServer(options);
  ASSERT_EQ(
      server_->Create("/api/v1/namespaces/default/pods", PodJson("p")).code,
      201);
  ASSERT_EQ(server_
                ->Create("/api/v1/namespaces/default/pods/p/binding",
                         BindingJson("p", "n1"))
                .code,
            201);
  const std::string path = "/api/v1/namespaces/default/pods/p";
  HttpResult wrong_uid =
      Call("DELETE", path,
           R"({"kind":"DeleteOptions","apiVersion":"v1","preconditions":)"
           R"({"uid":"00000000-0000-4000-8000-000000000000"}})");
  EXPECT_EQ(wrong_uid.code, 409);
  const std::string uid =
      ParseJsonOrDie(server_->Get(path).body)["metadata"]["uid"].GetString();
  EXPECT_EQ(Message(wrong_uid),
            "Operation cannot be fulfilled on Pod \"p\": the UID in the "
            "precondition (00000000-0000-4000-8000-000000000000) does not "
            "match the UID in record (" +
                uid +
                "). The object might have been deleted and then "
                "recreated");
  // A bound pod is only marked: deletionTimestamp and its grace period.
  HttpResult marked =
      Call("DELETE", path, R"({"preconditions":{"uid":")" + uid + R"("}})");
  ASSERT_EQ(marked.code, 200) << marked.body;
  rapidjson::Document pod = ParseJsonOrDie(marked.body);
  EXPECT_TRUE(pod["metadata"].HasMember("deletionTimestamp"));
  EXPECT_EQ(pod["metadata"]["deletionGracePeriodSeconds"].GetInt(), 30);
  EXPECT_EQ(server_->Get(path).code, 200);
  // Deleting again changes nothing; with gracePeriodSeconds=0 it goes.
  const int64_t rv = server_->ResourceVersion();
  EXPECT_EQ(Call("DELETE", path).code, 200);
  EXPECT_EQ(server_->ResourceVersion(), rv);
  EXPECT_EQ(Call("DELETE", path + "?gracePeriodSeconds=0").code, 200);
  EXPECT_EQ(server_->Get(path).code, 404);
  EXPECT_EQ(Call("DELETE", path).code, 404);
  // Creation time is still known after deletion.
  EXPECT_TRUE(server_->CreationTime(path).has_value());
}

TEST_F(WriteTest, DeleteAnswersAndFinalizers) {
  const std::string leases =
      "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  ASSERT_EQ(server_->Create(leases, R"({"metadata":{"name":"l"}})").code, 201);
  HttpResult gone = Call("DELETE", leases + "/l");
  ASSERT_EQ(gone.code, 200);
  rapidjson::Document status = ParseJsonOrDie(gone.body);
  EXPECT_EQ(std::string(status["kind"].GetString()), "Status");
  EXPECT_EQ(std::string(status["status"].GetString()), "Success");
  EXPECT_EQ(std::string(status["details"]["kind"].GetString()), "leases");
  EXPECT_EQ(std::string(status["details"]["group"].GetString()),
            "coordination.k8s.io");
  // With a finalizer the object waits for it.
  ASSERT_EQ(server_
                ->Create(leases, R"({"metadata":{"name":"f","finalizers":)"
                                 R"(["example.com/hold"]}})")
                .code,
            201);
  EXPECT_EQ(Call("DELETE", leases + "/f").code, 200);
  EXPECT_EQ(server_->Get(leases + "/f").code, 200);
  EXPECT_EQ(Call("PATCH", leases + "/f", R"({"metadata":{"finalizers":null}})",
                 "application/merge-patch+json")
                .code,
            200);
  EXPECT_EQ(server_->Get(leases + "/f").code, 404);
}

TEST_F(WriteTest, NamespaceDeletionTakesItsContent) {
  ASSERT_EQ(
      server_->Create("/api/v1/namespaces", R"({"metadata":{"name":"tmp"}})")
          .code,
      201);
  ASSERT_EQ(
      server_->Create("/api/v1/namespaces/tmp/pods", PodJson("p", "tmp")).code,
      201);
  HttpResult deleted = Call("DELETE", "/api/v1/namespaces/tmp");
  ASSERT_EQ(deleted.code, 200);
  EXPECT_EQ(
      std::string(ParseJsonOrDie(deleted.body)["status"]["phase"].GetString()),
      "Terminating");
  EXPECT_EQ(server_->Get("/api/v1/namespaces/tmp/pods/p").code, 404);
  EXPECT_EQ(server_->Get("/api/v1/namespaces/tmp").code, 404);
}

TEST_F(WriteTest, DeleteCollectionBySelector) {
  for (const char* name : {"a", "b", "c"}) {
    server_->Create("/api/v1/namespaces/default/pods",
                    PodJson(name, "default", "",
                            std::string(name) == "c" ? R"("keep":"yes")" : ""));
  }
  HttpResult deleted =
      Call("DELETE", "/api/v1/namespaces/default/pods?labelSelector=!keep");
  ASSERT_EQ(deleted.code, 200);
  EXPECT_EQ(ParseJsonOrDie(deleted.body)["items"].Size(), 2u);
  rapidjson::Document left =
      ParseJsonOrDie(Call("GET", "/api/v1/namespaces/default/pods").body);
  ASSERT_EQ(left["items"].Size(), 1u);
  EXPECT_EQ(std::string(left["items"][0]["metadata"]["name"].GetString()), "c");
}

TEST_F(WriteTest, InProcessApiMatchesHttp) {
  TestApiServer::Reply created =
      server_->Create("/api/v1/nodes", NodeJson("n1"));
  ASSERT_EQ(created.code, 201);
  // Compact JSON with Go's trailing newline, as non-curl clients get.
  EXPECT_EQ(created.body.back(), '\n');
  EXPECT_EQ(created.body.find("\n "), std::string::npos);
  rapidjson::Document node = ParseJsonOrDie(created.body);
  EXPECT_EQ(std::string(node["status"]["allocatable"]["cpu"].GetString()), "4");
  HttpResult pretty = Call("GET", "/api/v1/nodes/n1?pretty=true");
  EXPECT_NE(pretty.body.find("\n  \"kind\": \"Node\""), std::string::npos);
  RequestOptions as_curl = Request("GET", "/api/v1/nodes/n1");
  as_curl.user_agent = "curl/8.5.0";
  EXPECT_NE(Call(as_curl).body.find("\n  "), std::string::npos);
  as_curl.target += "?pretty=false";
  EXPECT_EQ(Call(as_curl).body.find("\n  "), std::string::npos);
  EXPECT_EQ(server_
                ->Update("/api/v1/nodes/n1",
                         R"({"metadata":{"name":"n1","labels":{"l":"1"}},)"
                         R"("spec":{"unschedulable":true}})")
                .code,
            200);
  rapidjson::Document updated =
      ParseJsonOrDie(server_->Get("/api/v1/nodes/n1").body);
  EXPECT_TRUE(updated["spec"]["unschedulable"].GetBool());
  // Node status survives a main-resource update.
  EXPECT_EQ(std::string(updated["status"]["capacity"]["cpu"].GetString()), "4");
  EXPECT_EQ(
      server_->List("/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue")
          .code,
      200);
  EXPECT_EQ(server_->Delete("/api/v1/nodes/n1").code, 200);
  EXPECT_EQ(server_->Get("/api/v1/nodes/n1").code, 404);
}

}  // namespace
}  // namespace ksched::testing

namespace ksched::testing {
namespace {

TEST_F(WriteTest, DryRunWritesNothing) {
  const std::string pods = "/api/v1/namespaces/default/pods";
  const int64_t before = server_->ResourceVersion();
  HttpResult created = Call("POST", pods + "?dryRun=All", PodJson("p"));
  ASSERT_EQ(created.code, 201) << created.body;
  EXPECT_EQ(
      std::string(
          ParseJsonOrDie(created.body)["spec"]["schedulerName"].GetString()),
      "default-scheduler");
  EXPECT_EQ(server_->Get(pods + "/p").code, 404);
  ASSERT_EQ(server_->Create(pods, PodJson("p")).code, 201);
  const int64_t after_create = server_->ResourceVersion();
  EXPECT_GT(after_create, before);
  EXPECT_EQ(Call("PATCH", pods + "/p?dryRun=All",
                 R"({"metadata":{"labels":{"a":"b"}}})",
                 "application/merge-patch+json")
                .code,
            200);
  EXPECT_EQ(Call("DELETE", pods + "/p?dryRun=All").code, 200);
  EXPECT_EQ(
      Call("POST", pods + "/p/binding?dryRun=All", BindingJson("p", "n1")).code,
      201);
  EXPECT_EQ(server_->ResourceVersion(), after_create);
  EXPECT_EQ(server_->Get(pods + "/p").code, 200);
  EXPECT_EQ(Call("POST", pods + "?dryRun=Some", PodJson("q")).code, 400);
}

TEST_F(WriteTest, BodiesMustBeJson) {
  HttpResult yaml = Call("POST", "/api/v1/namespaces/default/pods",
                         "metadata:\n  name: p\n", "application/yaml");
  EXPECT_EQ(yaml.code, 415);
  EXPECT_EQ(yaml.reason, "Unsupported Media Type");
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods", PodJson("p"),
                 "application/json; charset=utf-8")
                .code,
            201);
}

}  // namespace
}  // namespace ksched::testing

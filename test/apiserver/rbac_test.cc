// RBAC: request attributes as kube-apiserver derives them, rule matching as
// its RBAC authorizer does it, the 403 it answers, and the access record.
#include "test/apiserver/rbac.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "test/apiserver/apiserver_test_util.h"

namespace ksched::testing {

// For readable failures; found by argument-dependent lookup.
void PrintTo(const TestApiServer::Access& a, std::ostream* os) {
  *os << "{" << a.verb << " " << a.group << " " << a.resource << " ns=" << a.ns
      << " name=" << a.name << (a.allowed ? " allowed}" : " denied}");
}

namespace {

using apiserver::AttributesOf;
using apiserver::ExactMetadataName;
using apiserver::QueryParams;
using apiserver::RequestAttributes;
using apiserver::WantsWatch;
using Access = TestApiServer::Access;

constexpr char kUser[] = "system:serviceaccount:kube-system:ksched";
constexpr char kLeases[] =
    "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";

RequestAttributes Attributes(const std::string& method,
                             const std::string& target) {
  const size_t q = target.find('?');
  return AttributesOf(
      method, target.substr(0, q),
      QueryParams(q == std::string::npos ? "" : target.substr(q + 1)));
}

// verb group resource ns name, or "non-resource <verb>".
std::string Describe(const RequestAttributes& a) {
  if (!a.resource_request) return "non-resource " + a.verb;
  return a.verb + " " + a.group + " " + a.CombinedResource() + " " + a.ns +
         " " + a.name;
}

TEST(RequestAttributesTest, AsTheRequestInfoFactoryDerivesThem) {
  EXPECT_EQ(Describe(Attributes("GET", "/api/v1/nodes")), "list  nodes  ");
  EXPECT_EQ(Describe(Attributes("GET", "/api/v1/nodes/n1")), "get  nodes  n1");
  EXPECT_EQ(Describe(Attributes("HEAD", "/api/v1/nodes/n1")), "get  nodes  n1");
  EXPECT_EQ(Describe(Attributes("GET", "/api/v1/pods?watch=true")),
            "watch  pods  ");
  EXPECT_EQ(Describe(Attributes("GET", "/api/v1/namespaces/a/pods?watch=1")),
            "watch  pods a ");
  EXPECT_EQ(Describe(Attributes("GET", "/api/v1/pods?watch=false")),
            "list  pods  ");
  // A named GET is a get, whatever ?watch says.
  EXPECT_EQ(Describe(Attributes("GET", "/api/v1/namespaces/a/pods/p?watch=1")),
            "get  pods a p");
  // The deprecated watch paths.
  EXPECT_EQ(Describe(Attributes("GET", "/api/v1/watch/nodes")),
            "watch  nodes  ");
  EXPECT_EQ(Describe(Attributes("GET", "/api/v1/watch/namespaces/a/pods/p")),
            "watch  pods a p");
  EXPECT_EQ(Describe(Attributes("POST", "/api/v1/namespaces/a/pods/p/binding")),
            "create  pods/binding a p");
  EXPECT_EQ(Describe(Attributes("PATCH", "/api/v1/namespaces/a/pods/p/status")),
            "patch  pods/status a p");
  EXPECT_EQ(Describe(Attributes("PUT", std::string(kLeases) + "/l")),
            "update coordination.k8s.io leases kube-system l");
  EXPECT_EQ(Describe(Attributes("POST", kLeases)),
            "create coordination.k8s.io leases kube-system ");
  EXPECT_EQ(Describe(Attributes("DELETE", "/api/v1/namespaces/a/pods/p")),
            "delete  pods a p");
  EXPECT_EQ(Describe(Attributes("DELETE", "/api/v1/namespaces/a/pods")),
            "deletecollection  pods a ");
  EXPECT_EQ(Describe(Attributes("GET", "/apis/coordination.k8s.io/v1/leases")),
            "list coordination.k8s.io leases  ");
  // A namespace is in its own namespace, subresources included.
  EXPECT_EQ(Describe(Attributes("GET", "/api/v1/namespaces/a")),
            "get  namespaces a a");
  EXPECT_EQ(Describe(Attributes("PUT", "/api/v1/namespaces/a/finalize")),
            "update  namespaces/finalize a a");
  EXPECT_EQ(Describe(Attributes("GET", "/api/v1/namespaces")),
            "list  namespaces  ");
  // Resources this server does not serve are still resource requests.
  EXPECT_EQ(Describe(Attributes("GET", "/apis/storage.k8s.io/v1/csinodes")),
            "list storage.k8s.io csinodes  ");
  // Discovery, health and version are not.
  for (const char* path :
       {"/api", "/api/v1", "/apis", "/apis/coordination.k8s.io",
        "/apis/coordination.k8s.io/v1", "/healthz", "/version", "/openapi/v2",
        "/api/v1/watch"}) {
    EXPECT_FALSE(Attributes("GET", path).resource_request) << path;
  }
  EXPECT_EQ(Describe(Attributes("GET", "/version")), "non-resource get");
}

TEST(RequestAttributesTest, WatchParameterDecodesAsApimachineryBools) {
  for (const char* q : {"watch=true", "watch=1", "watch=True", "watch=yes",
                        "watch=", "watch", "watch=true&watch=false"}) {
    EXPECT_TRUE(WantsWatch(QueryParams(q))) << q;
  }
  for (const char* q : {"", "watch=false", "watch=FALSE", "watch=0",
                        "watch=0&watch=1", "watchx=1"}) {
    EXPECT_FALSE(WantsWatch(QueryParams(q))) << q;
  }
}

TEST(RequestAttributesTest, FieldSelectorOnNameNamesTheRequest) {
  EXPECT_EQ(ExactMetadataName("metadata.name=l"), "l");
  EXPECT_EQ(ExactMetadataName("metadata.name==l"), "l");
  EXPECT_EQ(ExactMetadataName("spec.nodeName=n,metadata.name=l"), "l");
  EXPECT_EQ(ExactMetadataName("metadata.name=b,metadata.name=a"), "a");
  EXPECT_EQ(ExactMetadataName("metadata.name="), "");
  EXPECT_EQ(ExactMetadataName("metadata.name!=l"), std::nullopt);
  EXPECT_EQ(ExactMetadataName("spec.nodeName=n"), std::nullopt);
  EXPECT_EQ(ExactMetadataName(""), std::nullopt);
  // A selector that does not parse names nothing.
  EXPECT_EQ(ExactMetadataName("metadata.name=l,bogus"), std::nullopt);
  EXPECT_EQ(ExactMetadataName("metadata.name=a=b"), std::nullopt);

  EXPECT_EQ(Describe(Attributes(
                "GET", std::string(kLeases) +
                           "?fieldSelector=metadata.name%3Dl&watch=true")),
            "watch coordination.k8s.io leases kube-system l");
  EXPECT_EQ(Describe(Attributes("GET", std::string(kLeases) +
                                           "?fieldSelector=metadata.name%3Dl")),
            "list coordination.k8s.io leases kube-system l");
  // Not a name that fits a path; list options that do not decode.
  EXPECT_EQ(Describe(Attributes("GET", std::string(kLeases) +
                                           "?fieldSelector=metadata.name%3D"
                                           "a%252Fb")),
            "list coordination.k8s.io leases kube-system ");
  EXPECT_EQ(
      Describe(Attributes(
          "GET", std::string(kLeases) +
                     "?fieldSelector=metadata.name%3Dl&labelSelector=%3D")),
      "list coordination.k8s.io leases kube-system ");
  // Only a list or watch takes its name from the selector.
  EXPECT_EQ(
      Describe(Attributes(
          "DELETE", std::string(kLeases) + "?fieldSelector=metadata.name%3Dl")),
      "deletecollection coordination.k8s.io leases kube-system ");
}

class RbacTest : public ApiServerTest {
 protected:
  std::string Message(const HttpResult& r) {
    rapidjson::Document status = ParseJsonOrDie(r.body);
    if (!status.IsObject() || !status.HasMember("message")) return "";
    return status["message"].GetString();
  }
  // The RBAC denial's message, as kube-apiserver words it.
  static std::string Denial(const std::string& object, const std::string& verb,
                            const std::string& resource,
                            const std::string& group, const std::string& ns) {
    return object + " is forbidden: User \"" + kUser + "\" cannot " + verb +
           " resource \"" + resource + "\" in API group \"" + group + "\"" +
           (ns.empty() ? " at the cluster scope"
                       : " in the namespace \"" + ns + "\"");
  }
  void CreateLease(const std::string& name) {
    ASSERT_EQ(server_
                  ->Create(kLeases, R"({"metadata":{"name":")" + name +
                                        R"("},"spec":{"holderIdentity":"a"}})")
                  .code,
              201);
  }
  static std::string LeaseJson(const std::string& name) {
    return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",)"
           R"("metadata":{"name":")" +
           name +
           R"(","namespace":"kube-system"},)"
           R"("spec":{"holderIdentity":"b"}})";
  }
};

TEST_F(RbacTest, ClusterRulesApplyEverywhere) {
  server_->SetRbac(
      {.cluster = {
           {.api_groups = {""},
            .resources = {"nodes"},
            .verbs = {"list", "watch"}},
           {.api_groups = {""}, .resources = {"pods"}, .verbs = {"get"}}}});
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 200);
  // Allowed, then not found: authorization came first and let it through.
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/p").code, 404);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/kube-system/pods/p").code, 404);

  HttpResult create = Call("POST", "/api/v1/nodes", NodeJson("n1"));
  EXPECT_EQ(create.code, 403);
  EXPECT_EQ(create.reason, "Forbidden");
  EXPECT_EQ(create.Header("x-content-type-options"), "nosniff");
  EXPECT_EQ(Message(create), Denial("nodes", "create", "nodes", "", ""));
  rapidjson::Document status = ParseJsonOrDie(create.body);
  EXPECT_EQ(std::string(status["reason"].GetString()), "Forbidden");
  EXPECT_EQ(status["code"].GetInt(), 403);
  EXPECT_EQ(std::string(status["details"]["kind"].GetString()), "nodes");
  EXPECT_FALSE(status["details"].HasMember("name"));
  // Nothing was created.
  EXPECT_EQ(server_->Get("/api/v1/nodes/n1").code, 404);

  HttpResult list_pods = Call("GET", "/api/v1/namespaces/default/pods");
  EXPECT_EQ(list_pods.code, 403);
  EXPECT_EQ(Message(list_pods), Denial("pods", "list", "pods", "", "default"));
}

TEST_F(RbacTest, NamespacedRulesApplyOnlyInTheirNamespace) {
  server_->SetRbac({.by_namespace = {{"kube-system",
                                      {{.api_groups = {"coordination.k8s.io"},
                                        .resources = {"leases"},
                                        .verbs = {"get", "list"}}}}}});
  EXPECT_EQ(Call("GET", std::string(kLeases) + "/l").code, 404);
  EXPECT_EQ(Call("GET", kLeases).code, 200);
  HttpResult other =
      Call("GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/l");
  EXPECT_EQ(other.code, 403);
  EXPECT_EQ(Message(other), Denial("leases.coordination.k8s.io \"l\"", "get",
                                   "leases", "coordination.k8s.io", "default"));
  rapidjson::Document status = ParseJsonOrDie(other.body);
  EXPECT_EQ(std::string(status["details"]["group"].GetString()),
            "coordination.k8s.io");
  EXPECT_EQ(std::string(status["details"]["name"].GetString()), "l");
  // Nor at the cluster scope.
  HttpResult all = Call("GET", "/apis/coordination.k8s.io/v1/leases");
  EXPECT_EQ(all.code, 403);
  EXPECT_EQ(Message(all), Denial("leases.coordination.k8s.io", "list", "leases",
                                 "coordination.k8s.io", ""));
}

TEST_F(RbacTest, ResourceNamesAllowOnlyRequestsNamingThoseObjects) {
  CreateLease("ksched");
  CreateLease("other");
  server_->SetRbac(
      {.by_namespace = {{"kube-system",
                         {{.api_groups = {"coordination.k8s.io"},
                           .resources = {"leases"},
                           .verbs = {"get", "update", "list", "watch"},
                           .resource_names = {"ksched"}}}}}});
  const std::string mine = std::string(kLeases) + "/ksched";
  const std::string theirs = std::string(kLeases) + "/other";
  EXPECT_EQ(Call("GET", mine).code, 200);
  EXPECT_EQ(Call("PUT", mine, LeaseJson("ksched")).code, 200);
  HttpResult get = Call("GET", theirs);
  EXPECT_EQ(get.code, 403);
  EXPECT_EQ(Message(get),
            Denial("leases.coordination.k8s.io \"other\"", "get", "leases",
                   "coordination.k8s.io", "kube-system"));
  HttpResult update = Call("PUT", theirs, LeaseJson("other"));
  EXPECT_EQ(update.code, 403);
  EXPECT_EQ(Message(update),
            Denial("leases.coordination.k8s.io \"other\"", "update", "leases",
                   "coordination.k8s.io", "kube-system"));
  // Creating names no object RBAC can see, and neither does listing all.
  HttpResult create = Call("POST", kLeases, LeaseJson("ksched2"));
  EXPECT_EQ(create.code, 403);
  EXPECT_EQ(Message(create),
            Denial("leases.coordination.k8s.io", "create", "leases",
                   "coordination.k8s.io", "kube-system"));
  EXPECT_EQ(Call("GET", kLeases).code, 403);
  EXPECT_EQ(Call("GET", std::string(kLeases) + "?watch=true").code, 403);
  // A list pinned to the name by a field selector names it.
  EXPECT_EQ(Call("GET",
                 std::string(kLeases) + "?fieldSelector=metadata.name%3Dksched")
                .code,
            200);
  HttpResult pinned_other = Call(
      "GET", std::string(kLeases) + "?fieldSelector=metadata.name%3Dother");
  EXPECT_EQ(pinned_other.code, 403);
  EXPECT_EQ(Message(pinned_other),
            Denial("leases.coordination.k8s.io \"other\"", "list", "leases",
                   "coordination.k8s.io", "kube-system"));
  // Adding the unnamed create rule allows creating any lease.
  server_->SetRbac({.by_namespace = {{"kube-system",
                                      {{.api_groups = {"coordination.k8s.io"},
                                        .resources = {"leases"},
                                        .verbs = {"create"}},
                                       {.api_groups = {"coordination.k8s.io"},
                                        .resources = {"leases"},
                                        .verbs = {"get", "update"},
                                        .resource_names = {"ksched"}}}}}});
  EXPECT_EQ(Call("POST", kLeases, LeaseJson("ksched2")).code, 201);
  EXPECT_EQ(Call("GET", std::string(kLeases) + "/ksched2").code, 403);
}

TEST_F(RbacTest, PodsDoNotGrantTheirSubresources) {
  server_->Create("/api/v1/namespaces/default/pods", PodJson("p"));
  server_->SetRbac({.cluster = {{.api_groups = {""},
                                 .resources = {"pods"},
                                 .verbs = {"get", "create", "patch"}}}});
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/p").code, 200);
  HttpResult bind = Call("POST", "/api/v1/namespaces/default/pods/p/binding",
                         BindingJson("p", "n1"));
  EXPECT_EQ(bind.code, 403);
  // Word for word the recorded denial (sa_no_rbac_binding_403).
  EXPECT_EQ(Message(bind),
            "pods \"p\" is forbidden: User "
            "\"system:serviceaccount:kube-system:ksched\" cannot create "
            "resource \"pods/binding\" in API group \"\" in the namespace "
            "\"default\"");
  rapidjson::Document status = ParseJsonOrDie(bind.body);
  EXPECT_EQ(std::string(status["details"]["kind"].GetString()), "pods");
  EXPECT_EQ(std::string(status["details"]["name"].GetString()), "p");
  EXPECT_EQ(Call("PATCH", "/api/v1/namespaces/default/pods/p/status",
                 R"({"status":{}})", "application/merge-patch+json")
                .code,
            403);
  EXPECT_TRUE(server_->Bindings().empty());

  // The subresource alone, and "*/status" for every resource's status.
  server_->SetRbac({.cluster = {{.api_groups = {""},
                                 .resources = {"pods/binding", "*/status"},
                                 .verbs = {"create", "patch"}}}});
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/p").code, 403);
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods/p/binding",
                 BindingJson("p", "n1"))
                .code,
            201);
  EXPECT_EQ(Call("PATCH", "/api/v1/namespaces/default/pods/p/status",
                 R"({"status":{}})", "application/merge-patch+json")
                .code,
            200);
  EXPECT_EQ(Call("PATCH", "/api/v1/namespaces/default/pods/p", R"({})",
                 "application/merge-patch+json")
                .code,
            403);
}

TEST_F(RbacTest, WatchIsNotList) {
  server_->SetRbac(
      {.cluster = {
           {.api_groups = {""}, .resources = {"nodes"}, .verbs = {"list"}}}});
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 200);
  EXPECT_EQ(Call("GET", "/api/v1/nodes?watch=false").code, 200);
  for (const char* target :
       {"/api/v1/nodes?watch=true", "/api/v1/nodes?watch=1",
        "/api/v1/nodes?watch=True", "/api/v1/watch/nodes"}) {
    HttpResult watch = Call("GET", target);
    EXPECT_EQ(watch.code, 403) << target;
    EXPECT_EQ(Message(watch), Denial("nodes", "watch", "nodes", "", ""))
        << target;
  }
  server_->SetRbac(
      {.cluster = {
           {.api_groups = {""}, .resources = {"nodes"}, .verbs = {"watch"}}}});
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 403);
  server_->Create("/api/v1/nodes", NodeJson("n1"));
  auto watch = OpenWatch("/api/v1/nodes?watch=True");
  EXPECT_EQ(EventType(ReadEvents(*watch, 1).at(0)), "ADDED");
}

TEST_F(RbacTest, Wildcards) {
  server_->SetRbac(
      {.cluster = {
           {.api_groups = {"*"}, .resources = {"leases"}, .verbs = {"*"}}}});
  EXPECT_EQ(Call("POST", kLeases, LeaseJson("l")).code, 201);
  EXPECT_EQ(Call("PUT", std::string(kLeases) + "/l", LeaseJson("l")).code, 200);
  EXPECT_EQ(Call("GET", "/apis/coordination.k8s.io/v1/leases").code, 200);
  EXPECT_EQ(Call("DELETE", std::string(kLeases) + "/l").code, 200);
  EXPECT_EQ(Call("DELETE", kLeases).code, 200);
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 403);

  server_->SetRbac({.cluster = {{.api_groups = {""},
                                 .resources = {"*"},
                                 .verbs = {"get", "create"}}}});
  server_->Create("/api/v1/namespaces/default/pods", PodJson("p"));
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods/p/binding",
                 BindingJson("p", "n1"))
                .code,
            201);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/p").code, 200);
  // The core group only.
  EXPECT_EQ(Call("GET", std::string(kLeases) + "/l").code, 403);
}

TEST_F(RbacTest, UnservedResourcesAreAuthorizedBeforeRouting) {
  server_->SetRbac({});
  HttpResult denied =
      Call("GET", "/apis/storage.k8s.io/v1/csistoragecapacities");
  EXPECT_EQ(denied.code, 403);
  EXPECT_EQ(Message(denied),
            Denial("csistoragecapacities.storage.k8s.io", "list",
                   "csistoragecapacities", "storage.k8s.io", ""));
  server_->SetRbac({.cluster = {{.api_groups = {"storage.k8s.io"},
                                 .resources = {"csistoragecapacities"},
                                 .verbs = {"list"}}}});
  EXPECT_EQ(Call("GET", "/apis/storage.k8s.io/v1/csistoragecapacities").code,
            404);
}

TEST_F(RbacTest, NonResourceRequestsAreNotAuthorized) {
  server_->SetRbac({});
  EXPECT_EQ(Call("GET", "/version").code, 200);
  EXPECT_EQ(Call("GET", "/healthz").code, 200);
  EXPECT_NE(Call("GET", "/api").code, 403);
  EXPECT_NE(Call("GET", "/apis/coordination.k8s.io/v1").code, 403);
  EXPECT_TRUE(server_->Accesses().empty());
}

TEST_F(RbacTest, ANamespaceIsInItsOwnNamespace) {
  server_->SetRbac({.by_namespace = {{"kube-system",
                                      {{.api_groups = {""},
                                        .resources = {"namespaces"},
                                        .verbs = {"get"}}}}}});
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/kube-system").code, 200);
  HttpResult other = Call("GET", "/api/v1/namespaces/default");
  EXPECT_EQ(other.code, 403);
  EXPECT_EQ(Message(other), Denial("namespaces \"default\"", "get",
                                   "namespaces", "", "default"));
}

TEST_F(RbacTest, ForbidStillDeniesOnTop) {
  server_->SetRbac(
      {.cluster = {
           {.api_groups = {""}, .resources = {"nodes"}, .verbs = {"list"}}}});
  server_->Forbid("list", "nodes");
  HttpResult denied = Call("GET", "/api/v1/nodes");
  EXPECT_EQ(denied.code, 403);
  EXPECT_EQ(Message(denied), Denial("nodes", "list", "nodes", "", ""));
  // The policy allowed it; the record says so.
  EXPECT_EQ(server_->Accesses(),
            (std::vector<Access>{{"list", "", "nodes", "", "", true}}));
  // ClearFaults leaves the policy in place.
  server_->ClearFaults();
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 200);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces").code, 403);
}

TEST_F(RbacTest, AccessesListEachDistinctRequestOnce) {
  server_->Create("/api/v1/namespaces/default/pods", PodJson("p"));
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 200);  // before any policy
  server_->SetRbac({.cluster = {{.api_groups = {""},
                                 .resources = {"pods"},
                                 .verbs = {"get", "list"}}}});
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/p").code, 200);
    EXPECT_EQ(Call("GET", "/api/v1/pods").code, 200);
  }
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods/p/binding",
                 BindingJson("p", "n1"))
                .code,
            403);
  EXPECT_EQ(Call("GET", std::string(kLeases) + "/l").code, 403);
  EXPECT_EQ(Call("GET", "/version").code, 200);
  const std::vector<Access> want = {
      {"create", "", "pods/binding", "default", "p", false},
      {"get", "", "pods", "default", "p", true},
      {"get", "coordination.k8s.io", "leases", "kube-system", "l", false},
      {"list", "", "pods", "", "", true},
  };
  EXPECT_EQ(server_->Accesses(), want);

  // Cleared: everything is allowed and nothing more is recorded, but the
  // record stays readable.
  server_->ClearRbac();
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods/p/binding",
                 BindingJson("p", "n1"))
                .code,
            201);
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 200);
  EXPECT_EQ(server_->Accesses(), want);
  // A new policy starts a new record.
  server_->SetRbac({});
  EXPECT_TRUE(server_->Accesses().empty());
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 403);
  EXPECT_EQ(server_->Accesses(),
            (std::vector<Access>{{"list", "", "nodes", "", "", false}}));
}

}  // namespace
}  // namespace ksched::testing

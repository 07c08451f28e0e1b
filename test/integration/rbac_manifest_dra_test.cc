// The plain manifests (the chart's default rendering) grant ksched every
// request its dynamic resource allocation makes: the informers' lists and
// watches of DeviceClasses, ResourceSlices and ResourceClaims
// (pkg/scheduler/cluster_informers.cc), the claim reads and writes of
// DynamicResources' PreBind and Unreserve (pkg/apiwriter/rest_writer.cc),
// and the resourceclaims/binding check a v1.36 API server makes of those
// status writes. Besides, and nothing else: create and delete of claims,
// granted ahead of use. Checked twice: as triples the manifest grants, and
// as those requests sent to the test API server (v1.36) enforcing the
// manifest's policy.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "test/apiserver/https_test_client.h"
#include "test/apiserver/test_api_server.h"
#include "test/integration/rbac_manifest.h"

namespace ksched::testing {
namespace rbac_manifest_dra_test {
namespace {

constexpr char kGroup[] = "resource.k8s.io";

// What ksched calls for DRA.
const std::set<RbacGrant>& DraCalls() {
  static const auto* const kCalls = new std::set<RbacGrant>{
      {kGroup, "deviceclasses", "list"},
      {kGroup, "deviceclasses", "watch"},
      {kGroup, "resourceslices", "list"},
      {kGroup, "resourceslices", "watch"},
      {kGroup, "resourceclaims", "list"},
      {kGroup, "resourceclaims", "watch"},
      {kGroup, "resourceclaims", "get"},
      {kGroup, "resourceclaims", "update"},
      {kGroup, "resourceclaims/status", "update"},
      {kGroup, "resourceclaims/status", "patch"},
      // Asked by a v1.36 API server of the two status writes when they
      // change status.allocation or status.reservedFor.
      {kGroup, "resourceclaims/binding", "update"},
      {kGroup, "resourceclaims/binding", "patch"},
  };
  return *kCalls;
}

RbacPolicy ManifestPolicy() {
  util::Result<RbacPolicy> policy = RbacPolicyFor(
      (std::filesystem::path(KSCHED_SOURCE_DIR) / "manifests/ksched.yaml")
          .string(),
      "kube-system", "ksched");
  EXPECT_TRUE(policy.ok()) << policy.error().message();
  return policy.ok() ? *policy : RbacPolicy{};
}

TEST(RbacManifestDraTest, GrantsEveryDraCall) {
  const std::set<RbacGrant> granted = GrantedTriples(ManifestPolicy());
  for (const RbacGrant& call : DraCalls()) {
    EXPECT_EQ(granted.count(call), 1u)
        << "the chart does not grant " << call.verb << " " << call.group << "/"
        << call.resource;
  }
  for (const RbacGrant& ahead : GrantedAheadOfUse()) {
    EXPECT_EQ(granted.count(ahead), 1u)
        << "the chart no longer grants " << ahead.verb << " " << ahead.group
        << "/" << ahead.resource << ": drop it from GrantedAheadOfUse";
    EXPECT_EQ(DraCalls().count(ahead), 0u);
  }
  // And nothing else of resource.k8s.io: what the chart grants is what
  // ksched uses, or the few grants ahead of use.
  for (const RbacGrant& g : granted) {
    if (g.group != kGroup) continue;
    EXPECT_EQ(DraCalls().count(g) + GrantedAheadOfUse().count(g), 1u)
        << "granted, never called: " << g.verb << " " << g.group << "/"
        << g.resource;
  }
}

// The same requests against the server enforcing the manifest: none is
// denied, the status writes' resourceclaims/binding checks included.
TEST(RbacManifestDraTest, TheServerAllowsEveryDraCall) {
  std::unique_ptr<TestApiServer> server =
      TestApiServer::Start({.kube_version = "1.36"});
  ASSERT_NE(server, nullptr);
  const std::string v1 = "/apis/resource.k8s.io/v1";
  const std::string claims = v1 + "/namespaces/default/resourceclaims";
  ASSERT_EQ(
      server
          ->Create(claims, R"({"metadata":{"name":"c"},"spec":{"devices":{)"
                           R"("requests":[{"name":"gpu","exactly":{)"
                           R"("deviceClassName":"gpu.example.com"}}]}}})")
          .code,
      201);
  const std::string claim = server->Get(claims + "/c").body;
  server->SetRbac(ManifestPolicy());
  auto call = [&](const std::string& method, const std::string& target,
                  const std::string& body = "",
                  const std::string& content_type = "application/json") {
    RequestOptions request;
    request.method = method;
    request.target = target;
    request.body = body;
    request.content_type = content_type;
    request.token = server->token();
    return Fetch(server->port(), server->ca_pem(), request).code;
  };
  for (const std::string& collection :
       {v1 + "/deviceclasses", v1 + "/resourceslices",
        v1 + "/resourceclaims"}) {
    EXPECT_EQ(call("GET", collection + "?limit=500"), 200) << collection;
    EXPECT_EQ(call("GET", collection + "?watch=true&timeoutSeconds=1"), 200)
        << collection;
  }
  EXPECT_EQ(call("GET", claims + "/c"), 200);
  EXPECT_EQ(call("PUT", claims + "/c", claim), 200);
  // PreBind's status write allocates and reserves (resourceclaims/binding
  // update), Unreserve's patch takes the reservation out (patch).
  const std::string allocated =
      claim.substr(0, claim.rfind("\"status\":")) +
      R"("status":{"allocation":{"devices":{"results":[{"request":"gpu",)"
      R"("driver":"gpu.example.com","pool":"node-0","device":"gpu-0"}]}},)"
      R"("reservedFor":[{"resource":"pods","name":"p","uid":"pod-uid"}]}})";
  EXPECT_EQ(call("PUT", claims + "/c/status", allocated), 200);
  EXPECT_EQ(call("PATCH", claims + "/c/status",
                 R"({"status":{"reservedFor":[{"$patch":"delete",)"
                 R"("uid":"pod-uid"}]}})",
                 "application/strategic-merge-patch+json"),
            200);
  const std::vector<TestApiServer::Access> accesses = server->Accesses();
  for (const char* verb : {"update", "patch"}) {
    EXPECT_NE(
        std::find(accesses.begin(), accesses.end(),
                  TestApiServer::Access{.verb = verb,
                                        .group = kGroup,
                                        .resource = "resourceclaims/binding",
                                        .allowed = true}),
        accesses.end())
        << verb;
  }
  // What it does not call stays denied.
  EXPECT_EQ(call("DELETE", claims), 403);
  EXPECT_EQ(call("GET", v1 + "/deviceclasses/gpu.example.com"), 403);
  EXPECT_EQ(call("POST", v1 + "/resourceslices", "{}"), 403);
  for (const TestApiServer::Access& a : server->Accesses()) {
    const RbacGrant grant{a.group, a.resource, a.verb};
    const bool granted =
        DraCalls().count(grant) > 0 || GrantedAheadOfUse().count(grant) > 0;
    EXPECT_EQ(a.allowed, granted)
        << a.verb << " " << a.group << "/" << a.resource << " " << a.name;
  }
}

}  // namespace
}  // namespace rbac_manifest_dra_test
}  // namespace ksched::testing

// The real ksched binary allocating a device claim against the test API
// server playing kube-apiserver v1.36, under the RBAC policy of the chart's
// ClusterRole: v1.36 authorizes a claim status write that changes
// status.allocation or status.reservedFor on the synthetic
// resourceclaims/binding subresource as well, which the chart grants, so
// the claim is allocated and reserved and the pod bound. And without that
// grant (the role as it was before v1.36): every allocation is answered
// 422, the pod is never bound, and ksched keeps running and says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/api/resource.h"
#include "test/apiserver/test_objects.h"
#include "test/integration/cluster_test_base.h"
#include "test/integration/rbac_manifest.h"

namespace ksched::testing {
namespace dra_binding_permission_test {
namespace {

using std::chrono::seconds;

constexpr char kClaims[] =
    "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";

// The check v1.36 makes of a status write of `verb`, as RBAC is asked.
TestApiServer::Access BindingCheck(const std::string& verb, bool allowed) {
  return TestApiServer::Access{.verb = verb,
                               .group = "resource.k8s.io",
                               .resource = "resourceclaims/binding",
                               .allowed = allowed};
}

// `policy` without any grant of resourceclaims/binding (rules that named
// nothing else go).
RbacPolicy WithoutResourceClaimsBinding(RbacPolicy policy) {
  std::vector<RbacRule> kept;
  for (RbacRule rule : policy.cluster) {
    std::erase(rule.resources, "resourceclaims/binding");
    if (!rule.resources.empty() || !rule.non_resource_urls.empty()) {
      kept.push_back(std::move(rule));
    }
  }
  policy.cluster = std::move(kept);
  return policy;
}

class DraBindingPermissionTest : public ClusterTestBase {
 protected:
  // A server playing v1.36 (whatever the default), enforcing `policy`, in
  // place of the one SetUp started.
  void UseV136Server(const RbacPolicy& policy) {
    server_ = TestApiServer::Start(
        {.bookmark_interval = seconds(1), .kube_version = "1.36"});
    ASSERT_NE(server_, nullptr);
    server_->WriteKubeconfig(dir_ / "kubeconfig");
    server_->SetRbac(policy);
  }

  // A node with one GPU of driver gpu.example.com in its own pool, the
  // class, a claim of it and a pod of ours using the claim.
  void CreateClaimAndPod() {
    CreateNode("node-0", "4");
    Create("/apis/resource.k8s.io/v1/deviceclasses",
           R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
               "metadata":{"name":"gpu.example.com"},"spec":{"selectors":[
                 {"cel":{"expression":"device.driver == \"gpu.example.com\""}}]}})");
    Create("/apis/resource.k8s.io/v1/resourceslices",
           R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
               "metadata":{"name":"node-0-gpu"},"spec":{"driver":"gpu.example.com",
               "nodeName":"node-0","pool":{"name":"node-0","generation":1,
               "resourceSliceCount":1},"devices":[{"name":"gpu-0"}]}})");
    Create(kClaims,
           R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
               "metadata":{"name":"gpu"},"spec":{"devices":{"requests":[
                 {"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}})");
    Create("/api/v1/namespaces/default/pods",
           PodJson({.name = "with-claim",
                    .cpu = "100m",
                    .scheduler = "ksched",
                    .extra_spec = R"("resourceClaims":[{"name":"gpu",
                        "resourceClaimName":"gpu"}])"}));
  }

  api::ResourceClaim GetClaim() {
    auto r = server_->Get(std::string(kClaims) + "/gpu");
    EXPECT_EQ(r.code, 200) << r.body;
    auto claim = api::DecodeJson<api::ResourceClaim>(r.body);
    EXPECT_TRUE(claim.ok()) << r.body;
    return claim.ok() ? *claim : api::ResourceClaim{};
  }

  bool Accessed(const TestApiServer::Access& want) const {
    const std::vector<TestApiServer::Access> all = server_->Accesses();
    return std::find(all.begin(), all.end(), want) != all.end();
  }

  // The FailedScheduling event of the pod whose note says `part`, if any.
  bool FailedWith(const std::string& part) {
    for (const api::Event& e : Events()) {
      if (e.regarding.name == "with-claim" && e.reason == "FailedScheduling" &&
          e.note.find(part) != std::string::npos) {
        return true;
      }
    }
    return false;
  }
};

// The chart's role on a v1.36 server: PreBind's status write is asked
// about resourceclaims/binding, allowed, and the claim allocated and
// reserved before the pod is bound.
TEST_F(DraBindingPermissionTest, TheChartsRoleAllocatesAClaimOnAV136Server) {
  auto policy = ChartPolicy();
  ASSERT_TRUE(policy.ok()) << policy.error().message();
  UseV136Server(*policy);
  CreateClaimAndPod();
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(60)))
      << ksched_->Tail();
  const api::Pod pod = GetPod("with-claim");
  EXPECT_EQ(pod.spec.node_name, "node-0");
  const api::ResourceClaim claim = GetClaim();
  ASSERT_TRUE(claim.status.allocation.has_value());
  ASSERT_EQ(claim.status.allocation->devices.results.size(), 1u);
  EXPECT_EQ(claim.status.allocation->devices.results[0].device, "gpu-0");
  EXPECT_EQ(claim.status.allocation->devices.results[0].pool, "node-0");
  ASSERT_EQ(claim.status.reserved_for.size(), 1u);
  EXPECT_EQ(claim.status.reserved_for[0].name, "with-claim");
  EXPECT_EQ(claim.status.reserved_for[0].uid, pod.metadata.uid);
  // The check was made, cluster-wide, and allowed (TearDown holds every
  // access allowed).
  EXPECT_TRUE(Accessed(BindingCheck("update", true)));
  EXPECT_EQ(server_->CountBindings(201), 1);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// The role without resourceclaims/binding, as charts granted it before
// v1.36: the status write is answered 422 on every attempt, the claim is
// never allocated and the pod never bound, and ksched runs on, reporting
// the server's refusal in the pod's FailedScheduling event.
TEST_F(DraBindingPermissionTest, WithoutResourceClaimsBindingNoClaimIsWritten) {
  auto policy = ChartPolicy();
  ASSERT_TRUE(policy.ok()) << policy.error().message();
  UseV136Server(WithoutResourceClaimsBinding(*policy));
  CreateClaimAndPod();
  StartKsched();
  const std::string refusal =
      "ResourceClaim.resource.k8s.io \"gpu\" is invalid: status.allocation: "
      "Forbidden: changing status.allocation or status.reservedFor requires "
      "resource=\"resourceclaims/binding\", verb=\"update\" permission: "
      "resourceclaims.resource.k8s.io is forbidden: User "
      "\"system:serviceaccount:kube-system:ksched\" cannot update resource "
      "\"resourceclaims/binding\" in API group \"resource.k8s.io\" at the "
      "cluster scope";
  ASSERT_TRUE(WaitUntil([&] { return FailedWith(refusal); }, seconds(60)))
      << ksched_->Tail();
  EXPECT_TRUE(Accessed(BindingCheck("update", false)));
  // Tried again (the pod backs off and comes back), refused again.
  const int writes = server_->RequestCount("PUT", "/resourceclaims/gpu/status");
  EXPECT_GE(writes, 1);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return server_->RequestCount("PUT", "/resourceclaims/gpu/status") >
               writes;
      },
      seconds(60)))
      << ksched_->Tail();
  EXPECT_EQ(GetPod("with-claim").spec.node_name, "");
  EXPECT_EQ(server_->CountBindings(201), 0);
  const api::ResourceClaim claim = GetClaim();
  EXPECT_FALSE(claim.status.allocation.has_value());
  EXPECT_TRUE(claim.status.reserved_for.empty());
  // Denied was the resourceclaims/binding check and nothing else.
  for (const TestApiServer::Access& a : server_->Accesses()) {
    if (a.resource == "resourceclaims/binding") continue;
    EXPECT_TRUE(a.allowed) << a.verb << " " << a.group << "/" << a.resource
                           << " " << a.ns << "/" << a.name;
  }
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
  // The refusals were the point: TearDown's check (every access allowed)
  // has been made above for everything else.
  server_->SetRbac(*policy);
}

}  // namespace
}  // namespace dra_binding_permission_test
}  // namespace ksched::testing

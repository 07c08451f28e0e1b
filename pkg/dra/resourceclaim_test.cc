// Kubernetes' resourceclaim package tests (TestName, TestResourceClaimIsForPod,
// TestIsReservedForPod, TestBaseRequestRef), case by case.
#include "pkg/dra/resourceclaim.h"

#include <gtest/gtest.h>

namespace ksched::dra {
namespace {

api::Pod MakePod(std::string ns, std::string name, std::string uid) {
  api::Pod p;
  p.metadata.ns = std::move(ns);
  p.metadata.name = std::move(name);
  p.metadata.uid = std::move(uid);
  return p;
}

api::ResourceClaim MakeClaim(std::string ns, std::string name,
                             std::string owner_uid = "") {
  api::ResourceClaim c;
  c.metadata.ns = std::move(ns);
  c.metadata.name = std::move(name);
  if (!owner_uid.empty()) {
    c.metadata.owner_references.push_back(
        api::OwnerReference{.uid = std::move(owner_uid), .controller = true});
  }
  return c;
}

TEST(ResourceClaimIsForPodTest, Owned) {
  EXPECT_TRUE(IsForPod(MakePod("kube-system", "podOwner", "2"),
                       MakeClaim("kube-system", "claimNoOwner", "2"))
                  .ok());
}

TEST(ResourceClaimIsForPodTest, OtherPod) {
  auto r = IsForPod(MakePod("kube-system", "podNotOwner", "1"),
                    MakeClaim("kube-system", "claimNoOwner", "2"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "ResourceClaim kube-system/claimNoOwner was not created for Pod "
            "kube-system/podNotOwner (Pod is not owner)");
}

TEST(ResourceClaimIsForPodTest, NoOwner) {
  auto r = IsForPod(MakePod("kube-system", "podOwner", "2"),
                    MakeClaim("kube-system", "claimNoOwner"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "ResourceClaim kube-system/claimNoOwner was not created for Pod "
            "kube-system/podOwner (Pod is not owner)");
}

TEST(ResourceClaimIsForPodTest, DifferentNamespace) {
  auto r = IsForPod(MakePod("kube-system", "podOwner", "2"),
                    MakeClaim("user-namespace", "userClaimWithOwner", "2"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "ResourceClaim user-namespace/userClaimWithOwner is not in the "
            "same namespace as Pod kube-system/podOwner");
}

TEST(ResourceClaimIsForPodTest, NonControllerOwnerDoesNotCount) {
  api::ResourceClaim c = MakeClaim("ns", "c");
  c.metadata.owner_references.push_back(api::OwnerReference{.uid = "2"});
  EXPECT_FALSE(IsForPod(MakePod("ns", "p", "2"), c).ok());
}

TEST(IsReservedForPodTest, Cases) {
  api::Pod pod = MakePod("ns", "p", "pod-uid");
  api::ResourceClaim c = MakeClaim("ns", "c");
  EXPECT_FALSE(IsReservedForPod(pod, c)) << "not-reserved";
  c.status.reserved_for = {{.resource = "pods", .name = "p", .uid = "pod-uid"}};
  EXPECT_TRUE(IsReservedForPod(pod, c)) << "reserved-for-pod";
  c.status.reserved_for = {{.resource = "pods", .name = "o", .uid = "other"}};
  EXPECT_FALSE(IsReservedForPod(pod, c)) << "reserved-for-other-pod";
  c.status.reserved_for = {{.resource = "pods", .name = "o", .uid = "other"},
                           {.resource = "pods", .name = "p", .uid = "pod-uid"}};
  EXPECT_TRUE(IsReservedForPod(pod, c))
      << "multiple-reservations-including-pod";
  c.status.reserved_for = {{.resource = "pods", .name = "o", .uid = "other"},
                           {.resource = "pods", .name = "q", .uid = "third"}};
  EXPECT_FALSE(IsReservedForPod(pod, c))
      << "multiple-reservations-excluding-pod";
}

TEST(NameTest, ResourceClaimNameSet) {
  api::Pod pod = MakePod("default", "test-pod", "1");
  auto r = ClaimName(pod, {.name = "claim", .resource_claim_name = "my-claim"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->name, "my-claim");
  EXPECT_FALSE(r->must_check_owner);
}

TEST(NameTest, ResourceClaimTemplateNameSetAndStatusFound) {
  api::Pod pod = MakePod("default", "test-pod", "1");
  pod.status.resource_claim_statuses = {
      {.name = "claim", .resource_claim_name = "generated"}};
  auto r = ClaimName(
      pod, {.name = "claim", .resource_claim_template_name = "template"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->name, "generated");
  EXPECT_TRUE(r->must_check_owner);
}

TEST(NameTest, TemplateStatusWithoutClaimNeedsNoClaim) {
  api::Pod pod = MakePod("default", "test-pod", "1");
  pod.status.resource_claim_statuses = {{.name = "claim"}};
  auto r = ClaimName(
      pod, {.name = "claim", .resource_claim_template_name = "template"});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->name.has_value());
  EXPECT_TRUE(r->must_check_owner);
}

TEST(NameTest, ResourceClaimTemplateNameSetButStatusNotFound) {
  api::Pod pod = MakePod("default", "test-pod", "1");
  pod.status.resource_claim_statuses = {
      {.name = "other", .resource_claim_name = "generated"}};
  auto r = ClaimName(
      pod, {.name = "claim", .resource_claim_template_name = "template"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "pod \"default/test-pod\": ResourceClaim not created yet");
}

TEST(NameTest, NeitherResourceClaimNameNorTemplateNameSet) {
  api::Pod pod = MakePod("default", "test-pod", "1");
  auto r = ClaimName(pod, {.name = "claim"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "pod \"default/test-pod\", spec.resourceClaim \"claim\": none of "
            "the supported fields are set");
}

TEST(BaseRequestRefTest, Cases) {
  EXPECT_EQ(BaseRequestRef("foo"), "foo") << "valid-no-subrequest";
  EXPECT_EQ(BaseRequestRef("foo/bar"), "foo") << "valid-subrequest";
  EXPECT_TRUE(IsSubRequestRef("foo/bar"));
  EXPECT_FALSE(IsSubRequestRef("foo"));
  EXPECT_FALSE(IsSubRequestRef("a/b/c"));
}

}  // namespace
}  // namespace ksched::dra

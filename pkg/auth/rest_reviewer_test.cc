#include "pkg/auth/rest_reviewer.h"

#include <gtest/gtest.h>

#include "pkg/util/json.h"

namespace ksched::auth {
namespace {

TEST(RestReviewerTest, TokenReviewIsAuthenticationV1) {
  EXPECT_EQ(
      EncodeTokenReview("abc"),
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"abc"}})");
}

TEST(RestReviewerTest, AccessReviewNamesTheUserAndWhatIsAsked) {
  const UserInfo user{
      .name = "system:serviceaccount:monitoring:prom",
      .uid = "u-1",
      .groups = {"system:serviceaccounts", "system:authenticated"},
      .extra = {{"authentication.kubernetes.io/pod-name", {"prom-0"}}}};
  EXPECT_EQ(
      EncodeSubjectAccessReview(user, {.verb = "get", .path = "/metrics"}),
      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"nonResourceAttributes":{"path":"/metrics","verb":"get"},"user":"system:serviceaccount:monitoring:prom","uid":"u-1","groups":["system:serviceaccounts","system:authenticated"],"extra":{"authentication.kubernetes.io/pod-name":["prom-0"]}}})");
  EXPECT_EQ(
      EncodeSubjectAccessReview({.name = "k"}, {.verb = "create",
                                                .resource_request = true,
                                                .ns = "shop",
                                                .resource = "pods",
                                                .subresource = "binding",
                                                .name = "web-0"}),
      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"resourceAttributes":{"namespace":"shop","verb":"create","group":"","version":"v1","resource":"pods","subresource":"binding","name":"web-0"},"user":"k","groups":[]}})");
}

TEST(RestReviewerTest, DecodesWhatTheApiServerAnswers) {
  auto ok = DecodeTokenReviewStatus(
      R"({"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"token":"x"},"status":{"authenticated":true,"user":{"username":"system:serviceaccount:monitoring:prom","uid":"u-1","groups":["system:serviceaccounts","system:authenticated"],"extra":{"authentication.kubernetes.io/pod-name":["prom-0"]}},"audiences":["https://kubernetes.default.svc.cluster.local"]}})");
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->authenticated);
  EXPECT_EQ(ok->user.name, "system:serviceaccount:monitoring:prom");
  EXPECT_EQ(ok->user.groups.size(), 2u);
  EXPECT_EQ(ok->user.extra.at("authentication.kubernetes.io/pod-name"),
            std::vector<std::string>{"prom-0"});

  auto refused = DecodeTokenReviewStatus(
      R"({"kind":"TokenReview","status":{"user":{},"error":"[invalid bearer token, token lookup failed]"}})");
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused->authenticated);
  EXPECT_EQ(refused->error, "[invalid bearer token, token lookup failed]");
  // "authenticated" with nobody named authenticates nothing.
  auto nobody =
      DecodeTokenReviewStatus(R"({"status":{"authenticated":true,"user":{}}})");
  ASSERT_TRUE(nobody.ok());
  EXPECT_FALSE(nobody->authenticated);

  auto allowed = DecodeSubjectAccessReviewStatus(
      R"({"status":{"allowed":true,"reason":"RBAC: allowed by ClusterRoleBinding"}})");
  ASSERT_TRUE(allowed.ok());
  EXPECT_TRUE(allowed->allowed);
  auto denied = DecodeSubjectAccessReviewStatus(
      R"({"status":{"allowed":true,"denied":true,"reason":"no"}})");
  ASSERT_TRUE(denied.ok());
  EXPECT_FALSE(denied->allowed);
  EXPECT_EQ(denied->reason, "no");
}

TEST(RestReviewerTest, MalformedAnswersAreErrorsNotCrashes) {
  for (const char* body :
       {"", "not json", "[1,2]", "{\"status\": 3}",
        R"({"status":{"user":{"groups":[1,{}],"extra":{"k":3}}}})"}) {
    auto t = DecodeTokenReviewStatus(body);
    if (t.ok()) {
      EXPECT_FALSE(t->authenticated) << body;
    }
    auto a = DecodeSubjectAccessReviewStatus(body);
    if (a.ok()) {
      EXPECT_FALSE(a->allowed) << body;
    }
  }
  EXPECT_FALSE(DecodeTokenReviewStatus("not json").ok());
}

}  // namespace
}  // namespace ksched::auth

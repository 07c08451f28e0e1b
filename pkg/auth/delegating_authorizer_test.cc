#include "pkg/auth/delegating_authorizer.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "pkg/auth/testing/table_reviewer.h"
#include "pkg/util/fake_clock.h"
#include "pkg/util/json.h"

namespace ksched::auth {
namespace {

using std::chrono::seconds;

const Attributes kGetMetrics{.verb = "get", .path = "/metrics"};

class DelegatingAuthorizerTest : public ::testing::Test {
 protected:
  DelegatingAuthorizerTest() {
    reviewer_.AddUser("prom-token",
                      {.name = "system:serviceaccount:monitoring:prometheus",
                       .groups = {"system:serviceaccounts"}});
    reviewer_.AddUser("other-token", {.name = "jane"});
    reviewer_.Allow("system:serviceaccount:monitoring:prometheus",
                    "get /metrics");
  }
  testing::TableReviewer reviewer_;
  util::FakeClock clock_;
  DelegatingAuthorizer authorizer_{reviewer_, clock_};
};

TEST_F(DelegatingAuthorizerTest, NoTokenOrAnUnknownOneIsUnauthorized) {
  for (const char* header : {"", "Bearer ", "Basic YWRtaW46cHc=",
                             "bearer prom-token", "Bearer nobody"}) {
    const Decision d = authorizer_.Check(header, kGetMetrics);
    EXPECT_EQ(d.code, 401) << header;
    EXPECT_EQ(d.message, "Unauthorized");
  }
  // Only the last one could be asked about.
  EXPECT_EQ(reviewer_.token_reviews.load(), 1);
  EXPECT_EQ(reviewer_.access_reviews.load(), 0);
}

TEST_F(DelegatingAuthorizerTest, AllowedUserPassesAndTheAnswersAreCached) {
  for (int i = 0; i < 5; ++i) {
    const Decision d = authorizer_.Check("Bearer prom-token", kGetMetrics);
    EXPECT_TRUE(d.allowed());
    EXPECT_EQ(d.user, "system:serviceaccount:monitoring:prometheus");
    clock_.Advance(seconds(1));
  }
  EXPECT_EQ(reviewer_.token_reviews.load(), 1);
  EXPECT_EQ(reviewer_.access_reviews.load(), 1);
  // Past the 10 s both reviews are asked again.
  clock_.Advance(seconds(6));
  EXPECT_TRUE(authorizer_.Check("Bearer prom-token", kGetMetrics).allowed());
  EXPECT_EQ(reviewer_.token_reviews.load(), 2);
  EXPECT_EQ(reviewer_.access_reviews.load(), 2);
}

TEST_F(DelegatingAuthorizerTest, AuthenticatedButNotAllowedIsForbidden) {
  reviewer_.SetReason("no RBAC policy matched");
  const Decision d = authorizer_.Check("Bearer other-token", kGetMetrics);
  EXPECT_EQ(d.code, 403);
  EXPECT_EQ(d.message,
            "forbidden: User \"jane\" cannot get path \"/metrics\": no RBAC "
            "policy matched");
  // The denial is cached too.
  EXPECT_EQ(authorizer_.Check("Bearer other-token", kGetMetrics).code, 403);
  EXPECT_EQ(reviewer_.access_reviews.load(), 1);
  // Another request of the same user is another question.
  EXPECT_EQ(
      authorizer_
          .Check("Bearer other-token", {.verb = "post", .path = "/filter"})
          .code,
      403);
  EXPECT_EQ(reviewer_.access_reviews.load(), 2);
  EXPECT_EQ(reviewer_.token_reviews.load(), 1);
}

TEST_F(DelegatingAuthorizerTest, ResourceRequestsAreWordedAsKubeWordsThem) {
  const Attributes bind{.verb = "create",
                        .resource_request = true,
                        .ns = "shop",
                        .resource = "pods",
                        .subresource = "binding",
                        .name = "web-0"};
  const Decision d = authorizer_.Check("Bearer other-token", bind);
  EXPECT_EQ(d.code, 403);
  EXPECT_EQ(d.message,
            "pods \"web-0\" is forbidden: User \"jane\" cannot create "
            "resource \"pods/binding\" in API group \"\" in the namespace "
            "\"shop\"");
  EXPECT_EQ(ForbiddenMessage("u",
                             {.verb = "list",
                              .resource_request = true,
                              .group = "storage.k8s.io",
                              .resource = "csinodes"},
                             ""),
            "csinodes.storage.k8s.io is forbidden: User \"u\" cannot list "
            "resource \"csinodes\" in API group \"storage.k8s.io\" at the "
            "cluster scope");
}

TEST_F(DelegatingAuthorizerTest, AnApiServerThatDoesNotAnswerIsNeverCached) {
  reviewer_.SetDown(true);
  EXPECT_EQ(authorizer_.Check("Bearer prom-token", kGetMetrics).code, 401);
  reviewer_.SetDown(false);
  EXPECT_TRUE(authorizer_.Check("Bearer prom-token", kGetMetrics).allowed());
  EXPECT_EQ(reviewer_.token_reviews.load(), 2);
}

TEST_F(DelegatingAuthorizerTest, AccessReviewFailureIsAnInternalError) {
  EXPECT_TRUE(authorizer_.Check("Bearer prom-token", kGetMetrics).allowed());
  clock_.Advance(seconds(5));
  // The token is still cached; the access question is new.
  reviewer_.SetDown(true);
  const Decision d =
      authorizer_.Check("Bearer prom-token", {.verb = "get", .path = "/debug"});
  EXPECT_EQ(d.code, 500);
  EXPECT_NE(d.message.find("connection refused"), std::string::npos)
      << d.message;
}

TEST_F(DelegatingAuthorizerTest, FullCachesStartOverInsteadOfGrowing) {
  DelegatingAuthorizer small(reviewer_, clock_, {.max_entries = 2});
  for (int i = 0; i < 10; ++i) {
    small.Check("Bearer prom-token",
                {.verb = "get", .path = "/p" + std::to_string(i)});
  }
  // Every path was a new question, and nothing grew without bound: the
  // first is asked again once the cache started over.
  EXPECT_EQ(reviewer_.access_reviews.load(), 10);
  small.Check("Bearer prom-token", {.verb = "get", .path = "/p0"});
  EXPECT_EQ(reviewer_.access_reviews.load(), 11);
}

TEST(StatusBodyTest, IsKubesStatus) {
  rapidjson::Document doc;
  const std::string body = StatusBody({.code = 401, .message = "Unauthorized"});
  doc.Parse(body.c_str());
  ASSERT_FALSE(doc.HasParseError()) << body;
  EXPECT_STREQ(doc["kind"].GetString(), "Status");
  EXPECT_STREQ(doc["status"].GetString(), "Failure");
  EXPECT_STREQ(doc["reason"].GetString(), "Unauthorized");
  EXPECT_EQ(doc["code"].GetInt(), 401);
  EXPECT_EQ(
      body,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})");
  // A forbidden resource names it in details, as the recorded 403 does.
  EXPECT_EQ(
      StatusBody({.code = 403,
                  .message = "m",
                  .details_kind = "pods",
                  .details_name = "web-0"}),
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m","reason":"Forbidden","details":{"name":"web-0","kind":"pods"},"code":403})");
}

}  // namespace
}  // namespace ksched::auth

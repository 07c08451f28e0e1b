// TokenReview and SubjectAccessReview, as kube-apiserver answers the
// delegated authentication and authorization of a component's secure
// port: 201 with the request's spec and the status filled in.
#include <gtest/gtest.h>

#include <string>

#include "test/apiserver/apiserver_test_util.h"

namespace ksched::testing {
namespace {

class ReviewsTest : public ApiServerTest {
 protected:
  rapidjson::Document Review(const std::string& path, const std::string& body,
                             int want_code = 201) {
    HttpResult r = Call("POST", path, body);
    EXPECT_EQ(r.code, want_code) << r.body;
    return ParseJsonOrDie(r.body);
  }
};

constexpr const char* kTokenReviews =
    "/apis/authentication.k8s.io/v1/tokenreviews";
constexpr const char* kAccessReviews =
    "/apis/authorization.k8s.io/v1/subjectaccessreviews";

std::string TokenReviewOf(const std::string& token) {
  return R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":")" +
         token + R"("}})";
}

TEST_F(ReviewsTest, TokenReviewAuthenticatesKnownTokensOnly) {
  server_->AddReviewUser("prom-token",
                         {.name = "system:serviceaccount:monitoring:prom",
                          .uid = "u-1",
                          .groups = {"system:serviceaccounts"}});
  rapidjson::Document known =
      Review(kTokenReviews, TokenReviewOf("prom-token"));
  EXPECT_STREQ(known["kind"].GetString(), "TokenReview");
  EXPECT_STREQ(known["apiVersion"].GetString(), "authentication.k8s.io/v1");
  EXPECT_TRUE(known["metadata"]["creationTimestamp"].IsNull());
  EXPECT_STREQ(known["spec"]["token"].GetString(), "prom-token");
  EXPECT_TRUE(known["status"]["authenticated"].GetBool());
  EXPECT_STREQ(known["status"]["user"]["username"].GetString(),
               "system:serviceaccount:monitoring:prom");
  EXPECT_STREQ(known["status"]["user"]["uid"].GetString(), "u-1");
  EXPECT_EQ(known["status"]["user"]["groups"].Size(), 2u);  // + authenticated

  // The server's own token is its user's.
  rapidjson::Document own =
      Review(kTokenReviews, TokenReviewOf(server_->token()));
  EXPECT_STREQ(own["status"]["user"]["username"].GetString(),
               "system:serviceaccount:kube-system:ksched");

  rapidjson::Document unknown = Review(kTokenReviews, TokenReviewOf("nope"));
  EXPECT_FALSE(unknown["status"].HasMember("authenticated"));
  EXPECT_TRUE(unknown["status"]["user"].ObjectEmpty());
  EXPECT_STREQ(unknown["status"]["error"].GetString(),
               "[invalid bearer token, token lookup failed]");

  // A review-only token cannot call the API itself.
  RequestOptions as_prom = Request("GET", "/api/v1/nodes");
  as_prom.token = "prom-token";
  EXPECT_EQ(Call(as_prom).code, 401);
}

TEST_F(ReviewsTest, SubjectAccessReviewFollowsTheUsersRbac) {
  server_->AddReviewUser(
      "prom-token",
      {.name = "prom",
       .policy = {.cluster = {
                      {.verbs = {"get"}, .non_resource_urls = {"/metrics"}}}}});
  auto review = [&](const std::string& user, const std::string& attributes) {
    return Review(
        kAccessReviews,
        R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{)" +
            attributes + R"(,"user":")" + user + R"(","groups":[]}})");
  };
  const std::string metrics =
      R"("nonResourceAttributes":{"path":"/metrics","verb":"get"})";
  rapidjson::Document allowed = review("prom", metrics);
  EXPECT_TRUE(allowed["status"]["allowed"].GetBool());
  EXPECT_STREQ(allowed["spec"]["nonResourceAttributes"]["path"].GetString(),
               "/metrics");
  EXPECT_FALSE(
      review("prom",
             R"("nonResourceAttributes":{"path":"/metrics","verb":"post"})")
          ["status"]["allowed"]
              .GetBool());
  EXPECT_FALSE(
      review("prom",
             R"("nonResourceAttributes":{"path":"/debug","verb":"get"})")
          ["status"]["allowed"]
              .GetBool());
  EXPECT_FALSE(review("stranger", metrics)["status"]["allowed"].GetBool());
  // The server's own user: its RBAC policy, with no policy set everything.
  const std::string bind =
      R"("resourceAttributes":{"namespace":"default","verb":"create","group":"","version":"v1","resource":"pods","subresource":"binding","name":"p"})";
  EXPECT_TRUE(review("system:serviceaccount:kube-system:ksched",
                     bind)["status"]["allowed"]
                  .GetBool());
  server_->SetRbac(
      {.cluster = {
           {.api_groups = {""}, .resources = {"pods"}, .verbs = {"list"}},
           {.api_groups = {"authorization.k8s.io"},
            .resources = {"subjectaccessreviews"},
            .verbs = {"create"}}}});
  EXPECT_FALSE(review("system:serviceaccount:kube-system:ksched",
                      bind)["status"]["allowed"]
                   .GetBool());
  // Neither kind of attributes: kube's validation error.
  HttpResult bad =
      Call("POST", kAccessReviews,
           R"({"kind":"SubjectAccessReview","spec":{"user":"x"}})");
  EXPECT_EQ(bad.code, 400) << bad.body;
}

// Asking is itself a request RBAC decides: create on the review resource.
TEST_F(ReviewsTest, AskingNeedsCreateOnTheReviewResource) {
  server_->SetRbac(
      {.cluster = {
           {.api_groups = {""}, .resources = {"pods"}, .verbs = {"list"}}}});
  HttpResult r = Call("POST", kTokenReviews, TokenReviewOf("x"));
  EXPECT_EQ(r.code, 403) << r.body;
  EXPECT_NE(r.body.find("cannot create resource \\\"tokenreviews\\\" in API "
                        "group \\\"authentication.k8s.io\\\" at the cluster "
                        "scope"),
            std::string::npos)
      << r.body;
}

}  // namespace
}  // namespace ksched::testing

#include "pkg/client/api_error.h"

#include <gtest/gtest.h>

#include <string>

#include "pkg/client/testing/recorded.h"

namespace ksched::client {
namespace {

using testing::Recorded;

// The recorded answers of a real kube-apiserver are their own errors.
TEST(ApiErrorTest, RecordedStatusBodiesAreTheError) {
  ApiError conflict = ErrorFromResponse(
      409, "POST", Recorded("binding_second_time_409.json"), "");
  EXPECT_TRUE(IsConflict(conflict));
  EXPECT_FALSE(IsAlreadyExists(conflict));
  EXPECT_EQ(conflict.code(), 409);
  EXPECT_EQ(conflict.message(),
            "Operation cannot be fulfilled on pods/binding \"bind-me\": pod "
            "bind-me is already assigned to node \"node-1\"");

  ApiError missing = ErrorFromResponse(
      404, "POST", Recorded("binding_nonexistent_pod_404.json"), "");
  EXPECT_TRUE(IsNotFound(missing));
  EXPECT_EQ(missing.message(), "pods \"no-such-pod\" not found");

  ApiError expired =
      ErrorFromResponse(410, "GET", Recorded("list_rv1_exact_410.json"), "");
  EXPECT_TRUE(IsResourceExpired(expired));
  EXPECT_EQ(expired.code(), 410);
  ApiError continue_expired = ErrorFromResponse(
      410, "GET", Recorded("list_rv1_continue_expired_410.json"), "");
  EXPECT_TRUE(IsResourceExpired(continue_expired));

  ApiError unauthorized =
      ErrorFromResponse(401, "GET", Recorded("bad_token_401.json"), "");
  EXPECT_TRUE(IsUnauthorized(unauthorized));
  EXPECT_EQ(unauthorized.message(), "Unauthorized");

  ApiError stale = ErrorFromResponse(
      409, "PUT", Recorded("lease_update_stale_rv_409.json"), "");
  EXPECT_TRUE(IsConflict(stale));
}

// Bodies that are not a Status get client-go's reason and message.
TEST(ApiErrorTest, OtherBodiesGetClientGosGenericStatus) {
  struct Case {
    int code;
    const char* verb;
    const char* body;
    const char* reason;
    const char* message;
  };
  const Case cases[] = {
      {409, "POST", "", "AlreadyExists", "the server reported a conflict"},
      {409, "PUT", "", "Conflict", "the server reported a conflict"},
      {404, "GET", "", "NotFound",
       "the server could not find the requested resource"},
      {401, "GET", "", "Unauthorized",
       "the server has asked for the client to provide credentials"},
      {403, "GET", "denied by policy", "Forbidden", "denied by policy"},
      {429, "GET", "", "TooManyRequests",
       "the server has received too many requests and has asked us to try "
       "again later"},
      {503, "GET", "upstream connect error", "ServiceUnavailable",
       "the server is currently unable to handle the request"},
      {502, "GET", "upstream connect error", "InternalError",
       "an error on the server (\"upstream connect error\") has prevented the "
       "request from succeeding"},
      {406, "GET", "", "NotAcceptable",
       "the server was unable to respond with a content type that the client "
       "supports"},
      {406, "GET", "only application/json", "NotAcceptable",
       "only application/json"},
      {415, "PATCH", "unsupported patch type", "UnsupportedMediaType",
       "unsupported patch type"},
      {504, "GET", "", "Timeout",
       "the server was unable to return a response in the time allotted, but "
       "may still be processing the request"},
      {418, "GET", "teapot", "Unknown",
       "the server responded with the status code 418 but did not return "
       "more information"},
  };
  for (const Case& c : cases) {
    ApiError e = ErrorFromResponse(c.code, c.verb, c.body, "");
    EXPECT_EQ(e.status.reason, c.reason) << c.code << " " << c.verb;
    EXPECT_EQ(e.message(), c.message) << c.code << " " << c.verb;
    EXPECT_EQ(e.code(), c.code);
  }
  // A success Status (as a 201 binding answers) is no account of a failure.
  ApiError odd =
      ErrorFromResponse(500, "POST", Recorded("binding_success_201.json"), "");
  EXPECT_TRUE(IsInternalError(odd));
  // A huge error page is cut in the message.
  ApiError big = ErrorFromResponse(502, "GET", std::string(100000, 'x'), "");
  EXPECT_LT(big.message().size(), 2000u);
}

TEST(ApiErrorTest, RetryAfterFromHeaderOrDetails) {
  EXPECT_EQ(ErrorFromResponse(429, "GET", "", "7").retry_after_seconds, 7);
  EXPECT_EQ(ErrorFromResponse(429, "GET", "", "soon").retry_after_seconds, 0);
  EXPECT_EQ(ErrorFromResponse(429, "GET", "", "-3").retry_after_seconds, 0);
  const std::string body =
      R"({"kind":"Status","status":"Failure","reason":"TooManyRequests",)"
      R"("details":{"retryAfterSeconds":2},"code":429})";
  EXPECT_EQ(ErrorFromResponse(429, "GET", body, "").retry_after_seconds, 2);
  EXPECT_EQ(ErrorFromResponse(429, "GET", body, "5").retry_after_seconds, 5);
}

TEST(ApiErrorTest, WhatIsRetried) {
  const ApiError throttled = ErrorFromResponse(429, "POST", "", "");
  const ApiError broken = ErrorFromResponse(500, "GET", "", "");
  const ApiError refused = ConnectionError("connection refused");
  const ApiError conflict = ErrorFromResponse(409, "PUT", "", "");
  EXPECT_TRUE(ShouldRetry(throttled, /*idempotent=*/false));
  EXPECT_TRUE(ShouldRetry(broken, true));
  EXPECT_FALSE(ShouldRetry(broken, false));
  EXPECT_TRUE(ShouldRetry(refused, true));
  EXPECT_FALSE(ShouldRetry(refused, false));
  EXPECT_TRUE(IsConnectionError(refused));
  EXPECT_EQ(refused.message(), "connection refused");
  EXPECT_FALSE(ShouldRetry(conflict, true));
}

}  // namespace
}  // namespace ksched::client

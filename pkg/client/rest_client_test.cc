#include "pkg/client/rest_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <vector>

#include "pkg/util/fake_clock.h"

namespace ksched::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Answers from a script, recording what was asked.
class ScriptedTransport final : public Transport {
 public:
  explicit ScriptedTransport(std::deque<util::Result<HttpResponse>> answers)
      : answers_(std::move(answers)) {}
  util::Result<HttpResponse> RoundTrip(const HttpRequest& request) override {
    requests.push_back(request);
    if (answers_.empty()) return util::Error("script ran out");
    auto next = std::move(answers_.front());
    answers_.pop_front();
    return next;
  }
  util::Result<StreamedResponse> Stream(const HttpRequest&,
                                        util::Cancellation&) override {
    return util::Error("streams are not scripted");
  }
  std::vector<HttpRequest> requests;

 private:
  std::deque<util::Result<HttpResponse>> answers_;
};

HttpResponse Answer(int code, std::string body = "",
                    std::string retry_after = "") {
  return {.code = code, .body = std::move(body), .retry_after = retry_after};
}

class RestClientTest : public ::testing::Test {
 protected:
  // A client over the script whose waits advance the fake clock.
  std::unique_ptr<RestClient> Client(
      std::deque<util::Result<HttpResponse>> answers,
      RestClientOptions options = {}) {
    auto transport = std::make_unique<ScriptedTransport>(std::move(answers));
    transport_ = transport.get();
    options.backoff.jitter = 0;
    return std::make_unique<RestClient>(
        std::move(transport), clock_, random_,
        [this](util::Clock::Duration d) {
          slept_.push_back(d);
          clock_.Advance(d);
        },
        options);
  }

  util::FakeClock clock_;
  util::DefaultRandom random_{1};
  ScriptedTransport* transport_ = nullptr;
  std::vector<util::Clock::Duration> slept_;
};

TEST_F(RestClientTest, SuccessPassesThrough) {
  auto client = Client({Answer(201, "{}")});
  ApiResult r = client->Do({.method = "POST", .path = "/x"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.response.code, 201);
  EXPECT_EQ(transport_->requests.size(), 1u);
  EXPECT_TRUE(slept_.empty());
}

// 429 is retried for any verb after the server's Retry-After.
TEST_F(RestClientTest, TooManyRequestsWaitsAsToldAndRetries) {
  auto client = Client({Answer(429, "", "2"), Answer(201)});
  ApiResult r = client->Do({.method = "POST", .path = "/binding"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(transport_->requests.size(), 2u);
  ASSERT_EQ(slept_.size(), 1u);
  EXPECT_EQ(slept_[0], seconds(2));
}

TEST_F(RestClientTest, ServerErrorsAreRetriedOnlyWhenIdempotent) {
  auto post = Client({Answer(500), Answer(201)});
  ApiResult failed = post->Do({.method = "POST", .path = "/binding"});
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(IsInternalError(*failed.error));
  EXPECT_EQ(transport_->requests.size(), 1u);

  auto get =
      Client({Answer(503), util::Error("connection reset"), Answer(200, "[]")});
  ApiResult r = get->Do({.method = "GET", .path = "/api/v1/nodes"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.response.body, "[]");
  EXPECT_EQ(transport_->requests.size(), 3u);
  // Exponential: 250 ms, then 500 ms (no jitter here).
  ASSERT_EQ(slept_.size(), 2u);
  EXPECT_EQ(slept_[0], milliseconds(250));
  EXPECT_EQ(slept_[1], milliseconds(500));
}

TEST_F(RestClientTest, GivesUpAfterMaxRetriesWithTheLastError) {
  RestClientOptions options;
  options.backoff.max_retries = 2;
  auto client =
      Client({Answer(500), Answer(500), Answer(504), Answer(200)}, options);
  ApiResult r = client->Do({.method = "GET", .path = "/x"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->code(), 504);
  EXPECT_EQ(transport_->requests.size(), 3u);
}

TEST_F(RestClientTest, ClientErrorsAreNotRetried) {
  auto client = Client(
      {Answer(409, R"({"kind":"Status","status":"Failure","reason":"Conflict",)"
                   R"("message":"pod p is already assigned","code":409})"),
       Answer(201)});
  ApiResult r = client->Do({.method = "POST", .path = "/binding"});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsConflict(*r.error));
  EXPECT_EQ(r.error->message(), "pod p is already assigned");
  EXPECT_EQ(transport_->requests.size(), 1u);
}

// Past the burst, requests are spaced at the configured rate.
TEST_F(RestClientTest, RequestsAreThrottledByTheTokenBucket) {
  RestClientOptions options;
  options.qps = 10;
  options.burst = 2;
  auto client =
      Client({Answer(200), Answer(200), Answer(200), Answer(200)}, options);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(client->Do({.path = "/x"}).ok());
  ASSERT_EQ(slept_.size(), 2u);
  EXPECT_EQ(slept_[0], milliseconds(100));
  EXPECT_EQ(slept_[1], milliseconds(100));
}

TEST(IsIdempotentTest, Verbs) {
  EXPECT_TRUE(IsIdempotent("GET"));
  EXPECT_TRUE(IsIdempotent("PUT"));
  EXPECT_TRUE(IsIdempotent("DELETE"));
  EXPECT_FALSE(IsIdempotent("POST"));
  EXPECT_FALSE(IsIdempotent("PATCH"));
}

}  // namespace
}  // namespace ksched::client

#include "pkg/client/rest_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <vector>

#include "pkg/client/testing/piece_body.h"
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
  util::Result<StreamedResponse> Stream(const HttpRequest& request,
                                        util::Cancellation&) override {
    requests.push_back(request);
    if (streams.empty()) return util::Error("script ran out");
    auto next = std::move(streams.front());
    streams.pop_front();
    return next;
  }
  std::vector<HttpRequest> requests;
  std::deque<util::Result<StreamedResponse>> streams;

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

// Every attempt is observed, with its code (0 for no answer).
TEST_F(RestClientTest, ObserverSeesEveryAttempt) {
  std::vector<std::pair<std::string, int>> seen;
  RestClientOptions options;
  options.observer = [&seen](const RequestRecord& r) {
    seen.emplace_back(ResourceOfPath(r.request.path), r.code);
  };
  auto client = Client(
      {Answer(503), util::Error("connection reset"), Answer(201)}, options);
  ASSERT_TRUE(client
                  ->Do({.method = "PUT",
                        .path = "/apis/coordination.k8s.io/v1/namespaces/"
                                "kube-system/leases/ksched"})
                  .ok());
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, int>>{
                      {"leases", 503}, {"leases", 0}, {"leases", 201}}));
}

TEST(ResourceOfPathTest, ResourcesAndSubresources) {
  EXPECT_EQ(ResourceOfPath("/api/v1/namespaces/a/pods/b/binding"),
            "pods/binding");
  EXPECT_EQ(ResourceOfPath("/api/v1/namespaces/a/pods/b/status"),
            "pods/status");
  EXPECT_EQ(ResourceOfPath("/api/v1/namespaces/a/pods"), "pods");
  EXPECT_EQ(ResourceOfPath("/api/v1/pods?watch=true&resourceVersion=5"),
            "pods");
  EXPECT_EQ(ResourceOfPath("/api/v1/nodes/n1"), "nodes");
  EXPECT_EQ(ResourceOfPath("/api/v1/namespaces"), "namespaces");
  EXPECT_EQ(ResourceOfPath("/api/v1/namespaces/kube-system"), "namespaces");
  EXPECT_EQ(ResourceOfPath("/apis/events.k8s.io/v1/namespaces/a/events"),
            "events");
  EXPECT_EQ(ResourceOfPath("/apis/storage.k8s.io/v1/storageclasses"),
            "storageclasses");
  EXPECT_EQ(ResourceOfPath("/version"), "");
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

StreamedResponse Streamed(int code, std::deque<std::string> pieces) {
  return {.code = code,
          .content_type = "application/json",
          .body = std::make_unique<testing::PieceBody>(std::move(pieces))};
}

TEST_F(RestClientTest, StreamHandsOverTheBodyOfASuccess) {
  auto client = Client({});
  transport_->streams.push_back(Streamed(200, {"{\"type\":", "\"ADDED\"}\n"}));
  util::Cancellation cancel;
  RestClient::StreamResult r =
      client->Stream({.path = "/api/v1/pods?watch=true"}, cancel);
  ASSERT_TRUE(r.ok()) << r.error->message();
  std::string body;
  while (true) {
    auto more = r.body->ReadSome(body);
    ASSERT_TRUE(more.ok());
    if (!*more) break;
  }
  EXPECT_EQ(body, "{\"type\":\"ADDED\"}\n");
}

TEST_F(RestClientTest, StreamFailuresAreTypedAndNotRetried) {
  auto client = Client({});
  transport_->streams.push_back(Streamed(
      410, {R"({"kind":"Status","apiVersion":"v1","metadata":{},)",
            R"js("status":"Failure","message":"too old resource version: 1 )js"
            R"js((210)","reason":"Expired","code":410})js"}));
  util::Cancellation cancel;
  RestClient::StreamResult gone = client->Stream({.path = "/w"}, cancel);
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(IsResourceExpired(*gone.error));
  EXPECT_EQ(gone.error->message(), "too old resource version: 1 (210)");

  transport_->streams.push_back(util::Error("connection refused"));
  RestClient::StreamResult refused = client->Stream({.path = "/w"}, cancel);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(IsConnectionError(*refused.error));
  EXPECT_EQ(transport_->requests.size(), 2u);
  EXPECT_TRUE(slept_.empty());
}

TEST_F(RestClientTest, StreamsGoThroughTheStreamTransportWhenGiven) {
  auto client = Client({});
  auto streamer = std::make_unique<ScriptedTransport>(
      std::deque<util::Result<HttpResponse>>{});
  ScriptedTransport* stream_transport = streamer.get();
  stream_transport->streams.push_back(Streamed(200, {}));
  client->UseStreamTransport(std::move(streamer));
  util::Cancellation cancel;
  EXPECT_TRUE(client->Stream({.path = "/w"}, cancel).ok());
  EXPECT_EQ(stream_transport->requests.size(), 1u);
  EXPECT_TRUE(transport_->requests.empty());
}

}  // namespace
}  // namespace ksched::client

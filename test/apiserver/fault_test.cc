// Authentication, denials, injected faults, delays, and stop/restart.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/apiserver/apiserver_test_util.h"

namespace ksched::testing {
namespace {

class FaultTest : public ApiServerTest {};

TEST_F(FaultTest, TokenIsRequired) {
  RequestOptions none = Request("GET", "/api/v1/nodes");
  none.token.clear();
  HttpResult missing = Call(none);
  EXPECT_EQ(missing.code, 401);
  EXPECT_EQ(missing.reason, "Unauthorized");
  EXPECT_EQ(missing.headers.count("x-kubernetes-pf-flowschema-uid"), 0u);
  RequestOptions wrong = Request("GET", "/api/v1/nodes");
  wrong.token = "not-it";
  EXPECT_EQ(Call(wrong).code, 401);
  // Health and version are public, but not to a wrong token.
  none.target = "/readyz";
  HttpResult ready = Call(none);
  EXPECT_EQ(ready.code, 200);
  EXPECT_EQ(ready.body, "ok");
  wrong.target = "/version";
  EXPECT_EQ(Call(wrong).code, 401);
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 200);
}

TEST_F(FaultTest, ForbidDeniesOneVerbOnOneResource) {
  server_->Forbid("create", "pods/binding");
  server_->Create("/api/v1/namespaces/default/pods", PodJson("p"));
  HttpResult denied = Call("POST", "/api/v1/namespaces/default/pods/p/binding",
                           BindingJson("p", "n1"));
  EXPECT_EQ(denied.code, 403);
  EXPECT_EQ(denied.Header("x-content-type-options"), "nosniff");
  rapidjson::Document status = ParseJsonOrDie(denied.body);
  EXPECT_EQ(std::string(status["message"].GetString()),
            "pods \"p\" is forbidden: User "
            "\"system:serviceaccount:kube-system:ksched\" cannot create "
            "resource \"pods/binding\" in API group \"\" in the namespace "
            "\"default\"");
  EXPECT_EQ(std::string(status["details"]["kind"].GetString()), "pods");
  // Other verbs and resources are untouched.
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/p").code, 200);
  server_->Forbid("watch", "leases");
  HttpResult watch = Call(
      "GET",
      "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?watch=1");
  EXPECT_EQ(watch.code, 403);
  EXPECT_EQ(std::string(ParseJsonOrDie(watch.body)["message"].GetString()),
            "leases.coordination.k8s.io is forbidden: User "
            "\"system:serviceaccount:kube-system:ksched\" cannot watch "
            "resource \"leases\" in API group \"coordination.k8s.io\" in the "
            "namespace \"kube-system\"");
  server_->ClearFaults();
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods/p/binding",
                 BindingJson("p", "n1"))
                .code,
            201);
}

TEST_F(FaultTest, InjectedTooManyRequestsCarriesRetryAfter) {
  server_->InjectFault({.method = "POST",
                        .path_substring = "/binding",
                        .code = 429,
                        .count = 2,
                        .retry_after_seconds = 3});
  server_->Create("/api/v1/namespaces/default/pods", PodJson("p"));
  for (int i = 0; i < 2; ++i) {
    HttpResult limited =
        Call("POST", "/api/v1/namespaces/default/pods/p/binding",
             BindingJson("p", "n1"));
    EXPECT_EQ(limited.code, 429);
    EXPECT_EQ(limited.reason, "Too Many Requests");
    EXPECT_EQ(limited.Header("retry-after"), "3");
    rapidjson::Document status = ParseJsonOrDie(limited.body);
    EXPECT_EQ(std::string(status["reason"].GetString()), "TooManyRequests");
    EXPECT_EQ(status["details"]["retryAfterSeconds"].GetInt(), 3);
  }
  // The count is spent; the faulted requests changed nothing.
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods/p/binding",
                 BindingJson("p", "n1"))
                .code,
            201);
  EXPECT_EQ(server_->RequestCount("POST", "/binding"), 3);
  EXPECT_EQ(server_->RequestCount("", "/api/v1/namespaces/default/pods/p"), 3);
}

TEST_F(FaultTest, InjectedServerErrorsByProbability) {
  server_->InjectFault(
      {.path_substring = "/api/v1/nodes", .code = 500, .probability = 0.5});
  int failed = 0;
  for (int i = 0; i < 200; ++i) {
    HttpResult r = Call("GET", "/api/v1/nodes");
    if (r.code == 500) {
      ++failed;
      EXPECT_EQ(std::string(ParseJsonOrDie(r.body)["reason"].GetString()),
                "InternalError");
    } else {
      EXPECT_EQ(r.code, 200);
    }
  }
  // 200 draws at p=0.5: outside [60, 140] happens with odds below 1e-8.
  EXPECT_GT(failed, 60);
  EXPECT_LT(failed, 140);
  server_->ClearFaults();
  server_->InjectFault(
      {.method = "PUT", .path_substring = "leases", .code = 409});
  HttpResult conflict =
      Call("PUT", "/apis/coordination.k8s.io/v1/namespaces/x/leases/l", "{}");
  EXPECT_EQ(conflict.code, 409);
  EXPECT_EQ(std::string(ParseJsonOrDie(conflict.body)["reason"].GetString()),
            "Conflict");
}

TEST_F(FaultTest, InjectedServerErrorsOnEveryNthRequest) {
  server_->InjectFault(
      {.path_substring = "/api/v1/nodes", .code = 500, .every = 3});
  std::vector<int> codes;
  for (int i = 0; i < 7; ++i)
    codes.push_back(Call("GET", "/api/v1/nodes").code);
  EXPECT_EQ(codes, (std::vector<int>{200, 200, 500, 200, 200, 500, 200}));
  // Other paths do not move the schedule.
  EXPECT_EQ(Call("GET", "/api/v1/namespaces").code, 200);
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 200);
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 500);
  EXPECT_EQ(server_->Served().injected[500], 3);
}

TEST_F(FaultTest, ResponseDelay) {
  server_->SetResponseDelay("/api/v1/nodes", std::chrono::milliseconds(300));
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(300));
  // Other paths are not delayed while one waits.
  start = std::chrono::steady_clock::now();
  EXPECT_EQ(Call("GET", "/api/v1/namespaces").code, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(300));
}

// An API server without its storage: connections are accepted, requests
// get no answer until the hang ends, then kube-apiserver's 504, and what
// they asked for did not happen.
TEST_F(FaultTest, AHangHoldsEveryRequestThenTimesItOut) {
  server_->Hang(std::chrono::milliseconds(400));
  const auto start = std::chrono::steady_clock::now();
  HttpResult held = Call("POST", "/api/v1/nodes", NodeJson("n1"));
  EXPECT_GE(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(350));
  EXPECT_EQ(held.code, 504);
  const auto status = ParseJsonOrDie(held.body);
  EXPECT_EQ(std::string(status["reason"].GetString()), "Timeout");
  EXPECT_EQ(std::string(status["message"].GetString()),
            "Timeout: request did not complete within the allotted timeout");
  EXPECT_EQ(server_->Served().hung, 1);
  // Over: answered at once, and the node was never created.
  HttpResult nodes = Call("GET", "/api/v1/nodes");
  ASSERT_EQ(nodes.code, 200);
  EXPECT_EQ(ParseJsonOrDie(nodes.body)["items"].Size(), 0u);
}

TEST_F(FaultTest, StopAndRestartKeepTheObjects) {
  server_->Create("/api/v1/nodes", NodeJson("n1"));
  auto watch = OpenWatch("/api/v1/nodes?watch=true");
  ASSERT_EQ(ReadEvents(*watch, 1).size(), 1u);
  const int port = server_->port();
  server_->Stop();
  std::string line;
  EXPECT_EQ(watch->ReadLine(&line, std::chrono::seconds(5)),
            HttpsConnection::LineStatus::kCut);
  EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 0);  // nobody listens
  // The in-process API works while stopped.
  EXPECT_EQ(server_->Create("/api/v1/nodes", NodeJson("n2")).code, 201);
  server_->Restart();
  EXPECT_EQ(server_->port(), port);
  HttpResult nodes = Call("GET", "/api/v1/nodes");
  ASSERT_EQ(nodes.code, 200);
  EXPECT_EQ(ParseJsonOrDie(nodes.body)["items"].Size(), 2u);
}

}  // namespace
}  // namespace ksched::testing

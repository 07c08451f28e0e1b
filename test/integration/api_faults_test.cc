// The real ksched binary against an API server that fails its writes the
// ways a real one does: bindings answered 500, 429, 409 (the pod bound by
// someone else, or deleted and recreated under the same name) and 404 (the
// pod deleted), and a service-account token rotated under it. Each ends
// with every pod bound exactly once, no capacity held by a forgotten pod,
// and no binding retried that cannot succeed.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class ApiFaultsTest : public ClusterTestBase {
 protected:
  int BindingPosts(const std::string& pod) {
    return server_->RequestCount(
        "POST", "/namespaces/default/pods/" + pod + "/binding");
  }
  // The answers the server gave to bindings of this pod, in order.
  std::vector<int> BindingCodes(const std::string& pod) {
    std::vector<int> codes;
    for (const auto& b : server_->Bindings()) {
      if (b.name == pod) codes.push_back(b.code);
    }
    return codes;
  }
};

// Failed bindings are retried through the queue; the assumed pods they
// held are forgotten, so a node sized for exactly all of them takes them
// all.
TEST_F(ApiFaultsTest, BindingsAnswered500AreRetriedAndHoldNoCapacity) {
  CreateNode("a", "1");
  for (int i = 0; i < 10; ++i) CreatePod("p-" + std::to_string(i), "100m");
  server_->InjectFault({.method = "POST",
                        .path_substring = "/binding",
                        .code = 500,
                        .count = 5});
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(server_->RequestCount("POST", "/binding"), 15);
  EXPECT_EQ(server_->Bindings().size(), 10u) << "the 5 failures never landed";
  ExpectBoundOnceAndFitting({{"a", 1000}});
  int failed_pods = 0;
  for (int i = 0; i < 10; ++i) {
    if (HasEvent("p-" + std::to_string(i), "FailedScheduling")) ++failed_pods;
  }
  EXPECT_GE(failed_pods, 1) << "the failures are reported";
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// 429 is the API server shedding load before doing anything: the client
// waits Retry-After and sends the same Binding again, within one
// scheduling attempt.
TEST_F(ApiFaultsTest, TooManyRequestsIsRetriedWithinTheAttempt) {
  CreateNode("a", "1");
  CreatePod("p", "500m");
  server_->InjectFault({.method = "POST",
                        .path_substring = "/binding",
                        .code = 429,
                        .count = 2,
                        .retry_after_seconds = 1});
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(BindingPosts("p"), 3);
  EXPECT_EQ(BindingCodes("p"), std::vector<int>{201});
  EXPECT_FALSE(HasEvent("p", "FailedScheduling"));
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// Another scheduler binds the pod while ksched's Binding is on its way:
// 409, not retried, and the cache counts the pod where it really is (the
// watch event of the other binding moves it there, as kube's cache moves
// an assumed pod that turns up bound elsewhere).
TEST_F(ApiFaultsTest, PodBoundElsewhereMeanwhileIsForgotten) {
  CreateNode("a", "1");
  CreateNode("b", "1");
  CreatePod("p", "500m");
  server_->SetResponseDelay("/binding", milliseconds(1500));
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return BindingPosts("p") == 1; }, seconds(30)))
      << ksched_->Tail();
  ASSERT_EQ(BindElsewhere("p", "b"), 201);
  ASSERT_TRUE(
      WaitUntil([&] { return BindingCodes("p").size() == 2; }, seconds(10)));
  EXPECT_EQ(BindingCodes("p"), (std::vector<int>{201, 409}));
  server_->ClearFaults();

  // a has 1000m free, b 500m: three more pods of 500m fit only if p is
  // counted on b alone.
  for (int i = 0; i < 3; ++i) CreatePod("q-" + std::to_string(i), "500m");
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(GetPod("p").spec.node_name, "b");
  ExpectBoundOnceAndFitting({{"a", 1000}, {"b", 1000}});
  EXPECT_EQ(BindingPosts("p"), 1) << "a conflict is not retried";
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// The pod is deleted and recreated under the same name while the Binding
// is on its way: the UID precondition fails (409) and the new pod is
// scheduled as a pod of its own.
TEST_F(ApiFaultsTest, RecreatedPodIsScheduledAfresh) {
  CreateNode("a", "1");
  CreatePod("p", "500m");
  server_->SetResponseDelay("/binding", milliseconds(1500));
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return BindingPosts("p") == 1; }, seconds(30)))
      << ksched_->Tail();
  const std::string old_uid = GetPod("p").metadata.uid;
  ASSERT_EQ(server_->Delete("/api/v1/namespaces/default/pods/p").code, 200);
  CreatePod("p", "500m");
  const std::string new_uid = GetPod("p").metadata.uid;
  ASSERT_NE(old_uid, new_uid);
  ASSERT_TRUE(WaitUntil([&] { return !GetPod("p").spec.node_name.empty(); },
                        seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(BindingCodes("p"), (std::vector<int>{409, 201}));
  server_->ClearFaults();

  CreatePod("q", "500m");
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  ExpectBoundOnceAndFitting({{"a", 1000}});
  EXPECT_EQ(BindingPosts("p"), 2);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// The pod is deleted while the Binding is on its way: 404, forgotten, not
// retried, and its room goes to the next pod.
TEST_F(ApiFaultsTest, DeletedPodIsForgotten) {
  CreateNode("a", "1");
  CreatePod("p", "1");
  server_->SetResponseDelay("/binding", milliseconds(1500));
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return BindingPosts("p") == 1; }, seconds(30)))
      << ksched_->Tail();
  ASSERT_EQ(server_->Delete("/api/v1/namespaces/default/pods/p").code, 200);
  ASSERT_TRUE(
      WaitUntil([&] { return BindingCodes("p").size() == 1; }, seconds(10)));
  EXPECT_EQ(BindingCodes("p"), std::vector<int>{404});
  server_->ClearFaults();

  CreatePod("q", "1");
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(GetPod("q").spec.node_name, "a");
  EXPECT_EQ(BindingPosts("p"), 1) << "a deleted pod is not retried";
  EXPECT_TRUE(ksched_->Running());
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// A projected service-account token is replaced in its file (atomically,
// as the kubelet does) and the old one revoked at the same moment: the
// watches reconnect and the writes go on with the new token.
TEST_F(ApiFaultsTest, RotatedTokenFileIsPickedUp) {
  const std::filesystem::path token_file = dir_ / "token";
  auto write_token = [&](const std::string& token) {
    WriteFileAtomically(token_file, token);
  };
  write_token(server_->token());
  server_->WriteKubeconfig(dir_ / "kubeconfig", token_file);
  CreateNode("a", "4");
  for (int i = 0; i < 5; ++i) CreatePod("r-" + std::to_string(i), "100m");
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();

  const std::string rotated = "rotated-token-0123456789";
  write_token(rotated);
  server_->SetTokens({rotated});
  server_->DropWatches();
  // Only a watch opened with the new token can see these.
  for (int i = 5; i < 10; ++i) CreatePod("r-" + std::to_string(i), "100m");
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  ExpectBoundOnceAndFitting({{"a", 4000}});
  EXPECT_EQ(server_->Bindings().size(), 10u);
  const std::string log = ksched_->Log();
  EXPECT_EQ(log.find(rotated), std::string::npos) << "tokens are not logged";
  EXPECT_EQ(log.find(server_->token()), std::string::npos);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// An API server that does not answer: the first failure is a warning at
// once, naming the server and the cause, as kube's reflectors report it;
// the informers then back off without a warning each; and once the server
// answers, ksched says so and schedules.
TEST_F(ApiFaultsTest, AnUnreachableServerIsReportedAtOnceThenQuietly) {
  CreateNode("a", "1");
  CreatePod("p", "100m");
  server_->Stop();  // the port stays taken, nothing listens: refused
  const auto start = std::chrono::steady_clock::now();
  StartKsched();
  const std::string refused = "GET " + server_->url() + "/";
  const std::string cause =
      ": connect to 127.0.0.1:" + std::to_string(server_->port()) +
      ": connection refused";
  ASSERT_TRUE(WaitUntil(
      [&] {
        const std::string log = ksched_->Log();
        return log.find(refused) != std::string::npos &&
               log.find(cause) != std::string::npos;
      },
      seconds(10)))
      << ksched_->Tail();
  // Well before the few seconds the client's own retries would take.
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(5));
  std::this_thread::sleep_for(seconds(3));
  int warnings = 0;
  std::istringstream lines(ksched_->Log());
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("W") && line.find(cause) != std::string::npos) {
      ++warnings;
    }
  }
  EXPECT_EQ(warnings, 1) << ksched_->Tail();
  server_->Restart();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(60)))
      << ksched_->Tail();
  EXPECT_NE(ksched_->Log().find("the API server answers again"),
            std::string::npos)
      << ksched_->Tail();
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing

// The real ksched binary against the test API server playing v1.32 and
// v1.35: what start-up says about the server (its version, whether ksched
// should emulate an older kube-scheduler for it, what it does not serve),
// that pods are scheduled either way, and that a server that answers
// nothing at start-up holds ksched up for a bounded time only.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>

#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using std::chrono::seconds;

int Count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + part.size())) {
    ++n;
  }
  return n;
}

constexpr char kV132Version[] = "v1.32.0-beta.0.ste-cd13ec4a";

class ApiVersionsTest : public ClusterTestBase {
 protected:
  // Replaces the server SetUp started with one of these options, under the
  // same RBAC policy and kubeconfig path.
  void UseServer(TestApiServerOptions options) {
    options.bookmark_interval = seconds(1);
    server_ = TestApiServer::Start(options);
    ASSERT_NE(server_, nullptr);
    server_->WriteKubeconfig(dir_ / "kubeconfig");
    auto policy = ChartPolicy();
    ASSERT_TRUE(policy.ok()) << policy.error().message();
    server_->SetRbac(*policy);
  }

  void CreateCluster() {
    for (int i = 0; i < 2; ++i) CreateNode("node-" + std::to_string(i), "2");
    for (int i = 0; i < 4; ++i) CreatePod("p-" + std::to_string(i), "500m");
  }

  // Waits for every pod to be bound and for the line saying the caches
  // synced (start-up's lines are all written by then).
  void ExpectScheduled() {
    ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(60)))
        << ksched_->Tail();
    ASSERT_TRUE(
        WaitUntil([&] { return Count(ksched_->Log(), "caches synced") > 0; },
                  seconds(10)))
        << ksched_->Tail();
    ExpectBoundOnceAndFitting({{"node-0", 2000}, {"node-1", 2000}});
  }
};

TEST_F(ApiVersionsTest, AnOlderServerIsNamedWithTheVersionToEmulate) {
  UseServer({.kube_version = "1.32"});
  CreateCluster();
  StartKsched();
  ExpectScheduled();
  const std::string log = ksched_->Log();
  // Every gate v1.36 has on is built: the start-up line names none.
  EXPECT_EQ(Count(log, "ksched decides as kube-scheduler v1.36\n"), 1) << log;
  EXPECT_EQ(Count(log, "not yet in effect"), 0) << log;
  EXPECT_EQ(Count(log, std::string("the API server is ") + kV132Version), 2)
      << log;
  EXPECT_EQ(Count(log, std::string("the API server is ") + kV132Version +
                           ", older than the version ksched emulates "
                           "(1.36): "),
            1)
      << log;
  EXPECT_EQ(Count(log, "consider --emulated-version=1.32\n"), 1) << log;
  EXPECT_EQ(Count(log,
                  "the API server does not serve resource.k8s.io/v1, so "
                  "deviceclasses, resourceclaims, resourceslices are not "
                  "watched: "),
            1)
      << log;
  EXPECT_EQ(Count(log, "could not"), 0) << log;
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

TEST_F(ApiVersionsTest, EmulatingTheServersVersionSaysNoMoreAboutIt) {
  UseServer({.kube_version = "1.32"});
  CreateCluster();
  StartKsched({"--emulated-version=1.32"});
  ExpectScheduled();
  const std::string log = ksched_->Log();
  EXPECT_EQ(Count(log,
                  "ksched decides as kube-scheduler v1.36 emulating "
                  "v1.32 (feature gates at their v1.32 defaults)"),
            1)
      << log;
  EXPECT_EQ(Count(log, "older than"), 0) << log;
  // What v1.32 does not serve is still said.
  EXPECT_EQ(Count(log, "does not serve resource.k8s.io/v1"), 1) << log;
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// Emulating the server's version, so that only what it serves is in
// question.
TEST_F(ApiVersionsTest, AV135ServerServesEverything) {
  UseServer({.kube_version = "1.35"});
  CreateCluster();
  StartKsched({"--emulated-version=1.35"});
  ExpectScheduled();
  const std::string log = ksched_->Log();
  EXPECT_EQ(Count(log, "the API server is v1.35.6\n"), 1) << log;
  EXPECT_EQ(Count(log, "older than"), 0) << log;
  EXPECT_EQ(Count(log, "does not serve"), 0) << log;
  EXPECT_EQ(Count(log, "could not"), 0) << log;
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// Gangs configured but no PodGroup CRD: PodGroups are not watched (a
// watch of them would never sync), and every other pod is scheduled.
TEST_F(ApiVersionsTest, WithoutThePodGroupCrdOtherPodsAreScheduled) {
  UseServer({.pod_group_crd = false});
  CreateCluster();
  StartKsched({"--config", (std::filesystem::path(KSCHED_SOURCE_DIR) /
                            "examples/gang/scheduler-config.yaml")
                               .string()});
  ExpectScheduled();
  const std::string log = ksched_->Log();
  EXPECT_EQ(Count(log,
                  "the API server does not serve scheduling.x-k8s.io/"
                  "v1alpha1, so podgroups are not watched: the PodGroup CRD "
                  "is not installed"),
            1)
      << log;
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// An API server that answers nothing at start-up (its storage gone) holds
// discovery up for its 5 s bound, not until it answers: ksched says so and
// goes on, and schedules once the server is back.
TEST_F(ApiVersionsTest, AServerThatDoesNotAnswerDelaysStartUpBoundedly) {
  CreateCluster();
  const auto hung_at = std::chrono::steady_clock::now();
  server_->Hang(std::chrono::seconds(16));
  StartKsched();
  // One line, not a warning: the informers warn of the outage, once.
  const std::string text =
      "] could not read the API server's version nor find out what it "
      "serves at /api/v1, /apis/policy/v1, /apis/storage.k8s.io/v1, "
      "/apis/resource.k8s.io/v1: GET " +
      server_->url() + "/version: ";
  auto said = [&] {
    std::istringstream lines(ksched_->Log());
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with("I") && line.find(text) != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  ASSERT_TRUE(WaitUntil(said, seconds(30))) << ksched_->Tail();
  // Said while the server still answered nothing.
  EXPECT_LT(std::chrono::steady_clock::now() - hung_at, seconds(15))
      << ksched_->Tail();
  const std::string log = ksched_->Log();
  EXPECT_EQ(
      Count(log, "going on without them, watching those resources anyway\n"), 1)
      << log;
  EXPECT_EQ(Count(log, "does not serve"), 0) << log;
  ExpectScheduled();
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing

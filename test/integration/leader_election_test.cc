// Two and three ksched replicas against the test API server with leader
// election: one schedules while the others wait; when the leader is killed
// the other takes over once the lease expires, when it stops gracefully it
// hands the lease over at once; every pod is bound exactly once. Each
// replica's metrics say whether it leads.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "pkg/api/codec.h"
#include "pkg/client/testing/loopback.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr auto kLeaseDuration = seconds(3);
constexpr auto kRetryPeriod = milliseconds(500);

class LeaderElectionTest : public ClusterTestBase {
 protected:
  static int BoundLines(const KschedProcess& p) {
    const std::string log = p.Log();
    int n = 0;
    for (size_t at = log.find("Successfully bound pod");
         at != std::string::npos;
         at = log.find("Successfully bound pod", at + 1)) {
      ++n;
    }
    return n;
  }
  void CreatePods(int from, int to) {
    for (int i = from; i < to; ++i) CreatePod("p-" + std::to_string(i), "100m");
  }
  // The one of `a` and `b` that holds the lease, once one does (the holder
  // is in the Lease a moment before its log says so); null on time-out.
  KschedProcess* WaitForLeader(KschedProcess& a, KschedProcess& b) {
    KschedProcess* leader = nullptr;
    WaitUntil(
        [&] {
          const std::string h = LeaseHolder();
          leader = Leads(a, h) ? &a : Leads(b, h) ? &b : nullptr;
          return leader != nullptr;
        },
        seconds(30));
    return leader;
  }
};

TEST_F(LeaderElectionTest, OneLeaderSchedulesAndTheOtherTakesOver) {
  for (int i = 0; i < 2; ++i) CreateNode("node-" + std::to_string(i), "8");
  std::unique_ptr<KschedProcess> a = LaunchReplica();
  std::unique_ptr<KschedProcess> b = LaunchReplica();
  KschedProcess* leader = WaitForLeader(*a, *b);
  ASSERT_NE(leader, nullptr) << a->Tail() << b->Tail();
  const std::string first = LeaseHolder();
  KschedProcess* standby = leader == a.get() ? b.get() : a.get();
  ASSERT_TRUE(Leads(*leader, first));

  CreatePods(0, 10);
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << leader->Tail();
  // The log line follows the Binding's answer, so it may trail the server's
  // view by a moment on a loaded machine.
  EXPECT_TRUE(WaitUntil([&] { return BoundLines(*leader) >= 10; }, seconds(10)))
      << leader->Tail();
  EXPECT_EQ(BoundLines(*leader), 10);
  EXPECT_EQ(BoundLines(*standby), 0) << "the standby does not schedule";

  // The leader dies without a word; the standby waits out the lease.
  leader->Kill();
  const auto killed = Clock::now();
  CreatePods(10, 20);
  ASSERT_TRUE(WaitUntil(
      [&] {
        const std::string h = LeaseHolder();
        return h != first && Leads(*standby, h);
      },
      seconds(30)))
      << standby->Tail();
  const auto takeover = Clock::now() - killed;
  // The lease was renewed at most a retry period before the kill, and the
  // standby tries every retry period plus up to 120 % jitter: at worst
  // 3.2 retry periods past the lease, and this loop notices a moment later.
  EXPECT_LT(takeover, kLeaseDuration + 4 * kRetryPeriod)
      << std::chrono::duration_cast<milliseconds>(takeover).count() << " ms";
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << standby->Tail();
  ExpectBoundOnceAndFitting({{"node-0", 8000}, {"node-1", 8000}});
  EXPECT_EQ(server_->Bindings().size(), 20u);
  std::printf("takeover after SIGKILL: %lld ms\n",
              static_cast<long long>(
                  std::chrono::duration_cast<milliseconds>(takeover).count()));

  // A graceful stop releases the lease: a third replica takes over at once.
  std::unique_ptr<KschedProcess> c = LaunchReplica();
  ASSERT_TRUE(WaitUntil(
      [&] {
        return c->Log().find("attempting to acquire") != std::string::npos;
      },
      seconds(30)));
  const std::string second = LeaseHolder();
  const auto stopping = Clock::now();
  EXPECT_EQ(standby->Terminate(), 0) << standby->Tail();
  ASSERT_TRUE(WaitUntil(
      [&] {
        const std::string h = LeaseHolder();
        return h != second && Leads(*c, h);
      },
      seconds(30)))
      << c->Tail();
  const auto handover = Clock::now() - stopping;
  EXPECT_LT(handover, kLeaseDuration) << "released, not expired";
  std::printf("handover after SIGTERM: %lld ms\n",
              static_cast<long long>(
                  std::chrono::duration_cast<milliseconds>(handover).count()));
  CreatePods(20, 25);
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << c->Tail();
  ExpectBoundOnceAndFitting({{"node-0", 8000}, {"node-1", 8000}});
  EXPECT_EQ(server_->Bindings().size(), 25u);
  EXPECT_EQ(c->Terminate(), 0) << c->Tail();
}

// Each replica tells on its secure /metrics, as Prometheus scrapes it,
// whether it holds the lease: the leader 1, the standby 0. The chart's
// KschedNoLeader alert reads nothing else.
TEST_F(LeaderElectionTest, ReplicasReportOnTheirMetricsWhetherTheyLead) {
  const std::string token = "prometheus-k8s-token";
  AddChartReviewUser(token, "monitoring", "prometheus-k8s");
  const int ports[2] = {client::testing::FreePort(),
                        client::testing::FreePort()};
  std::unique_ptr<KschedProcess> replicas[2];
  for (int i = 0; i < 2; ++i) {
    replicas[i] = LaunchReplica({"--secure-port=" + std::to_string(ports[i]),
                                 "--bind-address=127.0.0.1"});
  }
  KschedProcess* leader = WaitForLeader(*replicas[0], *replicas[1]);
  ASSERT_NE(leader, nullptr) << replicas[0]->Tail() << replicas[1]->Tail();
  const int led = leader == replicas[0].get() ? 0 : 1;
  // The leader sets its gauge just after its log line, and a scrape may
  // come before it; the standby's 0 is there once its elector exists.
  const auto reports = [&](int i, const std::string& value) {
    std::string body;
    const bool found = WaitUntil(
        [&] {
          body = HttpsGet(ports[i], "/metrics", token).body;
          return body.find(R"(leader_election_master_status{name="ksched"} )" +
                           value + "\n") != std::string::npos;
        },
        seconds(30));
    EXPECT_TRUE(found) << "replica " << i << " never reported " << value << "\n"
                       << body.substr(0, 2000) << replicas[i]->Tail();
  };
  reports(led, "1");
  reports(1 - led, "0");
  for (auto& r : replicas) EXPECT_EQ(r->Terminate(), 0) << r->Tail();
}

// An API server that accepts connections and answers nothing (its etcd is
// down) costs the leader its lease at the renew deadline: it exits at once
// with status 1, binding nothing more, as kube-scheduler does, and the
// standby binds the rest once the server answers again.
TEST_F(LeaderElectionTest, ALeaderThatLosesItsLeaseToAHungServerExitsAtOnce) {
  std::map<std::string, int> nodes;
  for (int i = 0; i < 4; ++i) {
    CreateNode("node-" + std::to_string(i), "64");
    nodes["node-" + std::to_string(i)] = 64000;
  }
  std::unique_ptr<KschedProcess> a = LaunchReplica();
  std::unique_ptr<KschedProcess> b = LaunchReplica();
  KschedProcess* leader = WaitForLeader(*a, *b);
  ASSERT_NE(leader, nullptr) << a->Tail() << b->Tail();
  KschedProcess* standby = leader == a.get() ? b.get() : a.get();
  CreatePods(0, 10);
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << leader->Tail();

  // A wave of pods, and the server hangs while the leader binds them.
  constexpr auto kOutage = seconds(6);
  CreatePods(10, 210);
  server_->Hang(kOutage);
  const auto outage_end = Clock::now() + kOutage;
  ASSERT_TRUE(WaitUntil(
      [&] {
        return leader->Log().find("leader election lost") != std::string::npos;
      },
      seconds(20)))
      << leader->Tail();
  const auto lost = Clock::now();
  const int bound_at_loss = BoundLines(*leader);
  EXPECT_EQ(leader->Wait(seconds(10)), 1) << leader->Tail();
  const auto exit_after =
      std::chrono::duration_cast<milliseconds>(Clock::now() - lost);
  EXPECT_LT(exit_after, seconds(2)) << leader->Tail();
  EXPECT_EQ(BoundLines(*leader), bound_at_loss) << "bound after the loss";
  EXPECT_NE(leader->Log().find("leaderelection lost: exiting now"),
            std::string::npos)
      << leader->Tail();
  EXPECT_GT(server_->Served().hung, 0);

  // The standby takes over once the server answers, and binds the rest.
  ASSERT_TRUE(
      WaitUntil([&] { return Leads(*standby, LeaseHolder()); }, seconds(30)))
      << standby->Tail();
  const auto takeover =
      std::chrono::duration_cast<milliseconds>(Clock::now() - outage_end);
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(60)))
      << standby->Tail();
  const auto recovery =
      std::chrono::duration_cast<milliseconds>(Clock::now() - outage_end);
  ExpectBoundOnceAndFitting(nodes);
  EXPECT_EQ(server_->Bindings().size(), 210u);
  std::printf(
      "lost lease to a hung server: exited %lld ms after the loss; after "
      "the outage, the standby led in %lld ms and every pod was bound in "
      "%lld ms (%d bound by the old leader; the rest at the client's QPS)\n",
      static_cast<long long>(exit_after.count()),
      static_cast<long long>(takeover.count()),
      static_cast<long long>(recovery.count()), bound_at_loss);
  EXPECT_EQ(standby->Terminate(), 0) << standby->Tail();
}

// The lease is renewed on a client of its own: neither a long queue of
// Bindings behind a low client QPS nor tokens rotated (and the old one
// revoked at once) under it cost the leader its lease, however long the
// scheduling takes.
TEST_F(LeaderElectionTest, TheLeaseOutlastsAQueueOfBindingsAndTokenRotations) {
  for (int i = 0; i < 4; ++i) CreateNode("node-" + std::to_string(i), "8");
  const std::filesystem::path token_file = dir_ / "token";
  WriteFileAtomically(token_file, server_->token());
  server_->WriteKubeconfig(dir_ / "kubeconfig", token_file);
  const std::filesystem::path config = dir_ / "slow-client.yaml";
  // 5 requests a second for everything but the lease: 40 pods' Bindings,
  // status patches and Events take well over the 2 s renew deadline.
  std::ofstream(config) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                           "kind: KubeSchedulerConfiguration\n"
                           "clientConnection:\n  qps: 5\n  burst: 1\n"
                           "leaderElection:\n"
                           "  leaderElect: true\n"
                           "  leaseDuration: 3s\n"
                           "  renewDeadline: 2s\n"
                           "  retryPeriod: 500ms\n";
  StartKsched({"--config", config.string()});
  ASSERT_TRUE(
      WaitUntil([&] { return Leads(*ksched_, LeaseHolder()); }, seconds(30)))
      << ksched_->Tail();
  const std::string holder = LeaseHolder();
  const auto start = Clock::now();
  CreatePods(0, 40);
  int rotations = 0;
  while (Unbound() > 0 && Clock::now() - start < seconds(90)) {
    // As the kubelet rotates a projected token; the old one is revoked at
    // once.
    const std::string token = "rotated-" + std::to_string(rotations++);
    WriteFileAtomically(token_file, token);
    server_->SetTokens({token});
    std::this_thread::sleep_for(milliseconds(700));
  }
  EXPECT_EQ(Unbound(), 0) << ksched_->Tail();
  EXPECT_GT(Clock::now() - start, seconds(4)) << "the queue was not slow";
  EXPECT_GE(rotations, 5);
  EXPECT_TRUE(ksched_->Running()) << ksched_->Tail();
  EXPECT_EQ(ksched_->Log().find("leader election lost"), std::string::npos)
      << ksched_->Tail();
  // Nor did a renewal come so late that a Binding was held back for it.
  EXPECT_EQ(ksched_->Log().find("no longer holds the leader lease"),
            std::string::npos)
      << ksched_->Tail();
  EXPECT_EQ(LeaseHolder(), holder);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing

// Chaos: the real ksched binary against an API server that misbehaves in
// every way at once while pods keep coming (restarts mid-watch, cut and
// expired watches, bindings answered 500, bindings that lose a race with
// another scheduler, bindings held past ksched's client timeout, a rotated
// token), and two replicas whose leader is killed at random. Whatever
// happened, every pod ends bound exactly once, no node holds more than it
// has, and nothing is left behind in ksched's cache or queue.
//
// KSCHED_CHAOS_SEED sets the seed (printed with the figures of the run),
// KSCHED_CHAOS_SECONDS runs the chaos longer, KSCHED_CHAOS_KILLS kills the
// leader more often.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/client/cpprest_transport.h"
#include "pkg/client/testing/loopback.h"
#include "test/apiserver/test_objects.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// ksched's rest client gives every request but a watch 30 s (the
// CpprestTransport default; no flag shortens it): a Binding held this long
// times out in ksched, and still lands here afterwards.
constexpr auto kPastClientTimeout = milliseconds(31'500);

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

// KSCHED_CHAOS_SEED, or a fixed seed that moves on with every chaos run in
// this process (--gtest_repeat): each run can be replayed from its printed
// seed.
uint64_t ChaosSeed() {
  static uint64_t runs = 0;
  if (const char* v = std::getenv("KSCHED_CHAOS_SEED"); v != nullptr && *v) {
    return std::strtoull(v, nullptr, 10);
  }
  return 20251122 + runs++;
}

milliseconds UniformMs(std::mt19937_64& rng, int lo, int hi) {
  return milliseconds(std::uniform_int_distribution<int>(lo, hi)(rng));
}

std::string BindingPath(const std::string& pod) {
  return "/namespaces/default/pods/" + pod + "/binding";
}

// Stops and joins a background thread however the test body ends (an
// ASSERT returns early).
class Background {
 public:
  explicit Background(std::function<void(const std::atomic<bool>&)> body)
      : thread_([this, body = std::move(body)] { body(stop_); }) {}
  ~Background() { Join(); }
  // Tells the body to stop, and waits for it.
  void Join() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // Waits for the body to end by itself.
  void Finish() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Creates pods (from any thread), deletes bound ones so that the cluster
// never fills up however long the run, and checks every pod it ever made.
class ChaosTestBase : public ClusterTestBase {
 protected:
  void AddNode(const std::string& name, const std::string& pool, int cpu) {
    Create("/api/v1/nodes",
           NodeJson({.name = name,
                     .cpu = std::to_string(cpu),
                     .labels = R"("kubernetes.io/hostname":")" + name +
                               R"(","pool":")" + pool + "\""}));
    node_cpu_[name] = cpu * 1000;
  }

  // A pod of ours asking for `millicpu`, for nodes of `pool`; its Binding
  // is held `binding_delay` by the server until the delay is set back to
  // 0. Only a `deletable` pod is deleted (once bound) to make room.
  std::string NewPod(const std::string& pool, int millicpu,
                     bool deletable = true,
                     milliseconds binding_delay = milliseconds(0),
                     const std::string& prefix = "p-") {
    std::string name;
    {
      std::lock_guard lock(pods_mu_);
      name = prefix + std::to_string(pods_.size());
      pods_.push_back({name, millicpu, deletable});
    }
    if (binding_delay.count() > 0) {
      server_->SetResponseDelay(BindingPath(name), binding_delay);
    }
    Create(
        "/api/v1/namespaces/default/pods",
        PodJson({.name = name,
                 .cpu = std::to_string(millicpu) + "m",
                 .memory = "64Mi",
                 .scheduler = "ksched",
                 .extra_spec = R"("nodeSelector":{"pool":")" + pool + "\"}"}));
    return name;
  }

  // Deletes bound pods, oldest first, until the pods not deleted ask for at
  // most `budget` millicores; whether they do.
  bool DeleteBoundDownTo(int budget) {
    if (Live() <= budget) return true;
    std::set<std::string> bound;
    for (const api::Pod& p : Pods()) {
      if (!p.spec.node_name.empty()) bound.insert(p.metadata.name);
    }
    std::lock_guard lock(pods_mu_);
    int live = LiveLocked();
    for (PodEntry& p : pods_) {
      if (live <= budget) break;
      if (!p.deletable || p.deleted || !bound.contains(p.name)) continue;
      const int code =
          server_->Delete("/api/v1/namespaces/default/pods/" + p.name).code;
      EXPECT_TRUE(code == 200 || code == 202) << p.name << " " << code;
      p.deleted = true;
      ++deleted_;
      live -= p.millicpu;
    }
    return live <= budget;
  }

  int Live() {
    std::lock_guard lock(pods_mu_);
    return LiveLocked();
  }

  int Created() {
    std::lock_guard lock(pods_mu_);
    return static_cast<int>(pods_.size());
  }

  // Every pod ever created, deleted since or not, got exactly one
  // successful binding.
  void ExpectEveryPodBoundOnce() {
    std::map<std::string, int> successes;
    for (const auto& b : server_->Bindings()) {
      if (b.code == 201) ++successes[b.name];
    }
    std::lock_guard lock(pods_mu_);
    for (const PodEntry& p : pods_) {
      EXPECT_EQ(successes[p.name], 1) << p.name << " bound that many times";
    }
  }

  // How many Bindings the server answered with `code`.
  int BindingsAnswered(int code) {
    int n = 0;
    for (const auto& b : server_->Bindings()) n += b.code == code ? 1 : 0;
    return n;
  }

  struct PodEntry {
    std::string name;
    int millicpu;
    bool deletable;
    bool deleted = false;
  };
  int LiveLocked() const {
    int live = 0;
    for (const PodEntry& p : pods_) live += p.deleted ? 0 : p.millicpu;
    return live;
  }

  std::map<std::string, int> node_cpu_;
  std::mutex pods_mu_;
  std::vector<PodEntry> pods_;
  int deleted_ = 0;
};

class ChaosTest : public ChaosTestBase {
 protected:
  // For a failure message: whether ksched still runs, and the end of its
  // log.
  std::string KschedState() {
    return std::string("\nksched ") +
           (ksched_->Running() ? "is running" : "has exited") + ksched_->Tail();
  }

  // The series in ksched's /metrics that are not 0 yet ("" when all are):
  // assumed pods and pending pods of every queue.
  std::string Leftovers(int metrics_port) {
    const client::HttpResponse r = HttpGet(metrics_port, "/metrics");
    if (r.code != 200) return "/metrics answered " + std::to_string(r.code);
    std::string out;
    for (const std::string series : {
             R"(scheduler_cache_size{type="assumed_pods"})",
             R"(scheduler_pending_pods{queue="active"})",
             R"(scheduler_pending_pods{queue="backoff"})",
             R"(scheduler_pending_pods{queue="unschedulable"})",
             R"(scheduler_pending_pods{queue="gated"})",
         }) {
      std::optional<double> value;
      std::istringstream lines(r.body);
      for (std::string line; std::getline(lines, line);) {
        if (line.starts_with(series + " ")) {
          value = std::stod(line.substr(series.size() + 1));
        }
      }
      if (!value.has_value()) {
        out += series + " missing; ";
      } else if (*value != 0) {
        out += series + " " + std::to_string(*value) + "; ";
      }
    }
    return out;
  }
};

// 20 nodes for ksched's pods, a few hundred pods in waves (deleted once
// bound when the cluster would fill), and on another thread: the server
// restarted, watches cut, history compacted, every tenth binding answered
// 500, some pods bound by "another scheduler" while ksched's own Binding is
// held (409 for ksched), Bindings held past ksched's client timeout, the
// token rotated and the old one revoked. Every fault the test checks for
// is scheduled, not drawn: each run serves each kind, however slow the
// build or busy the machine; the seed only moves the times and sizes.
TEST_F(ChaosTest, EveryPodBoundOnceUnderApiServerFaults) {
  const uint64_t seed = ChaosSeed();
  const int chaos_seconds = EnvInt("KSCHED_CHAOS_SECONDS", 20);
  std::cout << "chaos seed " << seed << ", " << chaos_seconds << " s"
            << std::endl;
  std::mt19937_64 pod_rng(seed);
  std::mt19937_64 fault_rng(seed * 0x9E3779B97F4A7C15ull + 1);

  const std::filesystem::path token_file = dir_ / "token";
  auto write_token = [&](const std::string& token) {
    WriteFileAtomically(token_file, token);
  };
  write_token(server_->token());
  server_->WriteKubeconfig(dir_ / "kubeconfig", token_file);

  // Ksched's pods go to the main pool; the ones whose Binding times out to
  // the slow pool, roomy enough for a pod counted twice there meanwhile
  // (a timed-out Binding that lands later is such a pod, in kube too); the
  // test binds pods to elsewhere-0, which no pod of ksched can use.
  constexpr int kMainNodes = 20;
  constexpr int kMainCpu = 4;
  for (int i = 0; i < kMainNodes; ++i) {
    AddNode("node-" + std::to_string(i), "main", kMainCpu);
  }
  for (int i = 0; i < 2; ++i) AddNode("slow-" + std::to_string(i), "slow", 4);
  AddNode("elsewhere-0", "elsewhere", 64);
  // The pods not deleted ask for at most 70 % of the main pool.
  constexpr int kBudget = kMainNodes * kMainCpu * 1000 * 7 / 10;

  const int metrics_port = client::testing::FreePort();
  StartKsched(
      {"--metrics-bind-address=127.0.0.1:" + std::to_string(metrics_port)});
  ASSERT_TRUE(
      WaitUntil([&] { return HttpGet(metrics_port, "/readyz").code == 200; },
                seconds(60)))
      << KschedState();
  // Every tenth Binding of a "p-" pod; the "race-" pods' Bindings are
  // left alone so that each of them ends in the 409 it is there for.
  server_->InjectFault({.method = "POST",
                        .path_substring = "/pods/p-",
                        .code = 500,
                        .every = 10});

  const auto start = Clock::now();
  const auto chaos_end = start + seconds(chaos_seconds);
  // Held Bindings are seen through even after the chaos ends, up to this.
  const auto held_limit = chaos_end + seconds(90);

  // Shared by the pod thread (this one) and the fault thread.
  std::mutex mu;
  // Pods whose Binding the server holds until ksched has sent it.
  struct Held {
    std::string pod;
    bool past_timeout;
  };
  std::vector<Held> held;
  std::set<std::string> bound_elsewhere;
  int elsewhere_409 = 0;  // the test's bindings that lost to ksched
  int raced = 0;          // bound by the test while ksched's Binding was held
  int restarts = 0;       // read by the pod thread to start the races
  auto bind_elsewhere = [&](const std::string& pod) {
    const int code = BindElsewhere(pod, "elsewhere-0");
    std::lock_guard lock(mu);
    if (code == 201) bound_elsewhere.insert(pod);
    if (code == 409) ++elsewhere_409;
    return code;
  };

  // The fault thread's own figures, read after it ends.
  int drops = 0, compactions = 0, rotations = 0;
  int timed_out = 0;  // Bindings ksched sent that were held past its timeout
  std::vector<std::string> never_sent;  // held pods ksched never bound
  // No restart until then: it would answer the held Bindings at once.
  Clock::time_point hold_until = start;
  Background faults([&](const std::atomic<bool>& stop) {
    auto now = Clock::now();
    auto next_restart = now + UniformMs(fault_rng, 500, 1000);
    auto next_drop = now + UniformMs(fault_rng, 2000, 4000);
    auto next_compact = now + UniformMs(fault_rng, 3000, 5000);
    auto next_rotate = now + UniformMs(fault_rng, 2000, 5000);
    bool slow_made = false;
    while (!stop && (now = Clock::now()) < held_limit) {
      std::vector<Held> pending;
      {
        std::lock_guard lock(mu);
        if (now >= chaos_end && held.empty()) break;
        pending.swap(held);
      }
      std::vector<Held> still;
      for (const Held& h : pending) {
        if (server_->RequestCount("POST", BindingPath(h.pod)) == 0) {
          still.push_back(h);  // however long ksched takes to send it
          continue;
        }
        // ksched's Binding is held: another scheduler binds the pod
        // first. A timed-out one is left to land late instead.
        if (!h.past_timeout && bind_elsewhere(h.pod) == 201) {
          std::lock_guard lock(mu);
          ++raced;
        }
        // Only the first one is held.
        server_->SetResponseDelay(BindingPath(h.pod), milliseconds(0));
        if (h.past_timeout) {
          ++timed_out;
          hold_until = std::max(hold_until, now + kPastClientTimeout);
        }
      }
      bool holding = now < hold_until || !still.empty();
      {
        std::lock_guard lock(mu);
        held.insert(held.end(), still.begin(), still.end());
        holding |= !held.empty();
      }
      if (now >= chaos_end) {
        std::this_thread::sleep_for(milliseconds(50));
        continue;
      }

      if (now >= next_restart && !holding) {
        server_->Stop();
        std::this_thread::sleep_for(UniformMs(fault_rng, 100, 700));
        server_->Restart();
        std::lock_guard lock(mu);
        ++restarts;
        next_restart =
            Clock::now() + (restarts < 2 ? UniformMs(fault_rng, 1000, 1500)
                                         : UniformMs(fault_rng, 4000, 8000));
      }
      if (restarts >= 2 && !slow_made) {
        for (int i = 0; i < 2; ++i) {
          const std::string pod =
              NewPod("slow", 250, /*deletable=*/false, kPastClientTimeout);
          std::lock_guard lock(mu);
          held.push_back({pod, /*past_timeout=*/true});
        }
        slow_made = true;
      }
      if (now >= next_drop) {
        server_->DropWatches();
        ++drops;
        next_drop = now + UniformMs(fault_rng, 2000, 4000);
      }
      if (now >= next_compact) {
        // The informers come back from a resourceVersion now gone: 410,
        // and they relist.
        server_->CompactHistory();
        server_->DropWatches();
        ++compactions;
        next_compact = now + UniformMs(fault_rng, 4000, 7000);
      }
      if (now >= next_rotate) {
        // As the kubelet writes a projected token; the old one is revoked
        // at once.
        const std::string token = "rotated-token-" + std::to_string(seed) +
                                  "-" + std::to_string(rotations);
        write_token(token);
        server_->SetTokens({token});
        ++rotations;
        next_rotate = now + UniformMs(fault_rng, 3000, 6000);
      }
      std::this_thread::sleep_for(milliseconds(50));
    }
    std::lock_guard lock(mu);
    for (const Held& h : held) never_sent.push_back(h.pod);
  });

  const int sizes[] = {100, 200, 250, 500};
  int made = 0;
  while (Clock::now() < chaos_end) {
    const int n = std::uniform_int_distribution<int>(4, 12)(pod_rng);
    std::vector<int> wave;
    int wave_cpu = 0;
    for (int i = 0; i < n; ++i) {
      wave.push_back(sizes[std::uniform_int_distribution<int>(0, 3)(pod_rng)]);
      wave_cpu += wave.back();
    }
    if (DeleteBoundDownTo(kBudget - wave_cpu)) {
      for (int millicpu : wave) {
        ++made;
        bool race = false;
        {
          // One race at a time, once the first restarts are done, so that
          // restarts (which answer held Bindings at once) still happen.
          std::lock_guard lock(mu);
          race = restarts >= 2 && made % 15 == 0 &&
                 std::none_of(held.begin(), held.end(),
                              [](const Held& h) { return !h.past_timeout; });
        }
        if (race) {
          // Bound by the test while ksched's Binding is held.
          const std::string pod =
              NewPod("main", millicpu, true, milliseconds(3000), "race-");
          std::lock_guard lock(mu);
          held.push_back({pod, /*past_timeout=*/false});
        } else {
          const std::string pod = NewPod("main", millicpu);
          // Bound by the test at once, racing ksched.
          if (made % 15 == 7) bind_elsewhere(pod);
        }
      }
    }
    std::this_thread::sleep_for(UniformMs(pod_rng, 300, 700));
  }
  // The fault thread ends once the chaos is over and every held Binding
  // was seen through.
  faults.Finish();
  server_->ClearFaults();  // delays too
  EXPECT_TRUE(never_sent.empty())
      << "ksched never sent the Binding of " << never_sent.size()
      << " held pods, e.g. " << never_sent.front() << KschedState();

  // Settled: every pod bound, and the held Bindings answered.
  const auto settle_limit =
      std::chrono::duration_cast<milliseconds>(
          std::max(hold_until - Clock::now(), Clock::duration::zero())) +
      seconds(60);
  ASSERT_TRUE(
      WaitUntil([&] { return Clock::now() >= hold_until && Unbound() == 0; },
                settle_limit))
      << Unbound() << " pods unbound" << KschedState();
  const auto bound = Clock::now();
  EXPECT_TRUE(
      WaitUntil([&] { return Leftovers(metrics_port).empty(); }, seconds(20)))
      << Leftovers(metrics_port);
  const auto settled = Clock::now();
  EXPECT_EQ(HttpGet(metrics_port, "/healthz").code, 200);
  EXPECT_EQ(HttpGet(metrics_port, "/readyz").code, 200);
  EXPECT_TRUE(ksched_->Running()) << KschedState();
  ExpectEveryPodBoundOnce();
  ExpectBoundOnceAndFitting(node_cpu_);
  for (const api::Pod& p : Pods()) {
    EXPECT_EQ(p.spec.node_name == "elsewhere-0",
              bound_elsewhere.contains(p.metadata.name))
        << p.metadata.name << " is on " << p.spec.node_name;
  }

  const TestApiServer::FaultsServed served = server_->Served();
  const int ksched_409 = BindingsAnswered(409) - elsewhere_409;
  const int created = Created();
  const int elsewhere = static_cast<int>(bound_elsewhere.size());
  auto secs = [](Clock::duration d) {
    return std::chrono::duration<double>(d).count();
  };
  std::map<int, int> injected = served.injected;
  std::ostringstream figures;
  figures << "chaos: seed=" << seed << " seconds=" << chaos_seconds
          << std::setprecision(3) << " bound_at=" << secs(bound - start)
          << "s settled_at=" << secs(settled - start) << "s pods=" << created
          << " deleted=" << deleted_
          << " bound_by_ksched=" << BindingsAnswered(201) - elsewhere
          << " bound_elsewhere=" << elsewhere << " restarts=" << restarts
          << " watch_drops=" << drops + compactions
          << " watches_cut=" << served.watches_cut
          << " compactions=" << compactions << " gone_410=" << served.expired
          << " binding_500=" << injected[500] << " conflict_409=" << ksched_409
          << " (raced=" << raced << ", elsewhere_lost=" << elsewhere_409 << ")"
          << " delayed=" << served.delayed << " past_timeout=" << timed_out
          << " token_rotations=" << rotations
          << " unauthorized_401=" << served.unauthorized;
  std::cout << figures.str() << std::endl;
  RecordProperty("seed", std::to_string(seed));
  RecordProperty("seconds", chaos_seconds);
  RecordProperty("pods", created);
  RecordProperty("bound_by_ksched", BindingsAnswered(201) - elsewhere);
  RecordProperty("bound_elsewhere", elsewhere);
  RecordProperty("restarts", restarts);
  RecordProperty("watch_drops", drops + compactions);
  RecordProperty("watches_cut", served.watches_cut);
  RecordProperty("gone_410", served.expired);
  RecordProperty("binding_500", injected[500]);
  RecordProperty("conflict_409", ksched_409);
  RecordProperty("delayed", served.delayed);
  RecordProperty("past_timeout", timed_out);
  RecordProperty("token_rotations", rotations);
  RecordProperty("unauthorized_401", served.unauthorized);

  // Every kind of fault was served: each is scheduled above.
  EXPECT_GE(restarts, 2) << figures.str();
  EXPECT_GT(served.watches_cut, 0) << figures.str();
  EXPECT_GT(served.expired, 0) << figures.str();
  EXPECT_GT(injected[500], 0) << figures.str();
  EXPECT_GT(raced, 0) << figures.str();
  EXPECT_GE(ksched_409, raced) << figures.str();
  EXPECT_EQ(timed_out, 2) << figures.str();
  EXPECT_GT(rotations, 0) << figures.str();
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// Two replicas with leader election, pods coming all the time, and the
// leader SIGKILLed at random moments, or every other time cut off by an API
// server that hangs (it must then exit by itself within 2 s); each
// replica that ended is replaced.
class LeaderChaosTest : public ChaosTestBase {};

TEST_F(LeaderChaosTest, LeaderKilledAtRandomLosesNothingAndBindsNothingTwice) {
  const uint64_t seed = ChaosSeed();
  const int kills_wanted = EnvInt("KSCHED_CHAOS_KILLS", 4);
  const int chaos_seconds = EnvInt("KSCHED_CHAOS_SECONDS", 0);
  std::cout << "leader chaos seed " << seed << ", " << kills_wanted
            << " kills, " << chaos_seconds << " s" << std::endl;
  std::mt19937_64 pod_rng(seed);
  std::mt19937_64 kill_rng(seed * 0x9E3779B97F4A7C15ull + 1);
  constexpr int kNodes = 10;
  constexpr int kCpu = 8;
  for (int i = 0; i < kNodes; ++i) {
    AddNode("node-" + std::to_string(i), "main", kCpu);
  }
  constexpr int kBudget = kNodes * kCpu * 1000 * 7 / 10;

  const auto start = Clock::now();
  std::unique_ptr<KschedProcess> replicas[2] = {LaunchReplica(),
                                                LaunchReplica()};
  Background pods([&](const std::atomic<bool>& stop) {
    while (!stop) {
      const int n = std::uniform_int_distribution<int>(1, 4)(pod_rng);
      if (DeleteBoundDownTo(kBudget - n * 100)) {
        for (int i = 0; i < n; ++i) NewPod("main", 100);
      }
      std::this_thread::sleep_for(UniformMs(pod_rng, 100, 300));
    }
  });

  int kills = 0;  // SIGKILLs, and every other time a hung server
  std::vector<long long> kill_after_ms;
  std::vector<long long> exit_after_ms;  // lease lost to the hang -> exit
  std::vector<long long> recovery_ms;    // outage over -> nothing pending
  while (kills < kills_wanted ||
         Clock::now() - start < seconds(chaos_seconds)) {
    int leader = -1;
    ASSERT_TRUE(WaitUntil(
        [&] {
          const std::string h = LeaseHolder();
          for (int i = 0; i < 2; ++i) {
            if (Leads(*replicas[i], h)) leader = i;
          }
          return leader >= 0;
        },
        seconds(30)))
        << replicas[0]->Tail() << replicas[1]->Tail();
    // Somewhere in the middle of its work. The Bindings it sends in its
    // last moments the server holds (as a slow one would) until about when
    // the next leader takes over, which may then bind the same pods.
    const milliseconds after = UniformMs(kill_rng, 300, 3000);
    const milliseconds window = UniformMs(kill_rng, 100, 300);
    std::this_thread::sleep_for(after - window);
    if (kills % 2 == 1) {
      // Every other time the server hangs instead, as one whose etcd is
      // down: the leader's renewals go unanswered past the renew deadline
      // (2 s), and it must exit by itself at once, binding nothing more.
      std::this_thread::sleep_for(window);
      constexpr auto kOutage = seconds(4);
      server_->Hang(kOutage);
      const auto outage_end = Clock::now() + kOutage;
      ASSERT_TRUE(WaitUntil(
          [&] {
            return replicas[leader]->Log().find("leader election lost") !=
                   std::string::npos;
          },
          seconds(20)))
          << replicas[leader]->Tail();
      const auto lost = Clock::now();
      EXPECT_EQ(replicas[leader]->Wait(seconds(10)), 1)
          << replicas[leader]->Tail();
      exit_after_ms.push_back(
          std::chrono::duration_cast<milliseconds>(Clock::now() - lost)
              .count());
      EXPECT_LT(exit_after_ms.back(), 2000) << replicas[leader]->Tail();
      replicas[leader] = LaunchReplica();
      // Recovery: from the end of the outage to no pod left pending.
      std::this_thread::sleep_until(outage_end);
      ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(60)))
          << replicas[0]->Tail() << replicas[1]->Tail();
      recovery_ms.push_back(
          std::chrono::duration_cast<milliseconds>(Clock::now() - outage_end)
              .count());
      ++kills;
      continue;
    }
    server_->SetResponseDelay("/binding", milliseconds(4000));
    std::this_thread::sleep_for(window);
    replicas[leader]->Kill();
    server_->SetResponseDelay("/binding", milliseconds(0));
    ++kills;
    kill_after_ms.push_back(after.count());
    replicas[leader] = LaunchReplica();
  }
  pods.Join();

  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(60)))
      << Unbound() << " pods unbound\n"
      << replicas[0]->Tail() << replicas[1]->Tail();
  ExpectEveryPodBoundOnce();
  ExpectBoundOnceAndFitting(node_cpu_);
  const int conflicts = BindingsAnswered(409);
  const double wall =
      std::chrono::duration<double>(Clock::now() - start).count();
  std::ostringstream figures;
  figures << "leader chaos: seed=" << seed << " seconds=" << chaos_seconds
          << " wall=" << static_cast<int>(wall) << "s pods=" << Created()
          << " deleted=" << deleted_ << " kills=" << kills << " (after ms:";
  for (long long ms : kill_after_ms) figures << " " << ms;
  figures << ") hangs: exit after loss ms:";
  for (long long ms : exit_after_ms) figures << " " << ms;
  figures << ", all bound after the outage ms:";
  for (long long ms : recovery_ms) figures << " " << ms;
  figures << " bound=" << BindingsAnswered(201) << " conflict_409=" << conflicts
          << " held_at_kill=" << server_->Served().delayed
          << " binding_posts=" << server_->RequestCount("POST", "/binding");
  std::cout << figures.str() << std::endl;
  RecordProperty("seed", std::to_string(seed));
  RecordProperty("pods", Created());
  RecordProperty("kills", kills);
  RecordProperty("conflict_409", conflicts);
  for (auto& r : replicas) {
    EXPECT_TRUE(r->Running());
    EXPECT_EQ(r->Terminate(), 0) << r->Tail();
  }
}

}  // namespace
}  // namespace ksched::testing

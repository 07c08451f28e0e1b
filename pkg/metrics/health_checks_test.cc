#include "pkg/metrics/health_checks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace ksched::metrics {
namespace {

class HealthChecksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    checks_.Add("ping", {"healthz", "livez", "readyz"},
                [] { return std::nullopt; });
    checks_.Add("sched-handler-sync", {"readyz"},
                [this]() -> std::optional<std::string> {
                  if (synced_) return std::nullopt;
                  return "informers have not synced";
                });
  }
  HealthChecks checks_;
  std::atomic<bool> synced_{false};
};

TEST_F(HealthChecksTest, ReadyOnlyOnceSynced) {
  auto a = checks_.Handle("/readyz", "");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->code, 500);
  EXPECT_EQ(a->body,
            "[+]ping ok\n[-]sched-handler-sync failed: reason withheld\n"
            "readyz check failed\n");
  // Liveness does not wait for the caches.
  EXPECT_EQ(checks_.Handle("/livez", "")->code, 200);
  EXPECT_EQ(checks_.Handle("/livez", "")->body, "ok");
  synced_ = true;
  EXPECT_EQ(checks_.Handle("/readyz", "")->code, 200);
  EXPECT_EQ(checks_.Handle("/readyz", "")->body, "ok");
}

TEST_F(HealthChecksTest, VerboseSingleAndExcluded) {
  synced_ = true;
  EXPECT_EQ(checks_.Handle("/readyz", "verbose")->body,
            "[+]ping ok\n[+]sched-handler-sync ok\nreadyz check passed\n");
  synced_ = false;
  EXPECT_EQ(checks_.Handle("/readyz/ping", "")->body, "ok");
  auto one = checks_.Handle("/readyz/sched-handler-sync", "");
  EXPECT_EQ(one->code, 500);
  EXPECT_EQ(checks_.Handle("/readyz/nothing", "")->code, 404);
  auto excluded =
      checks_.Handle("/readyz", "verbose&exclude=sched-handler-sync");
  EXPECT_EQ(excluded->code, 200);
  EXPECT_EQ(excluded->body,
            "[+]ping ok\n[+]sched-handler-sync excluded: ok\n"
            "readyz check passed\n");
  EXPECT_FALSE(checks_.Handle("/metrics", "").has_value());
  EXPECT_EQ(checks_.Handle("/healthz/", "")->code, 200);
}

// Probes arrive on the metrics server's threads while the leader elector
// adds its check and the informers sync: every answer is one of the
// states the checks can be in.
TEST_F(HealthChecksTest, AnswersProbesWhileChecksChange) {
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::atomic<int> answers{0};
  std::vector<std::thread> probes;
  for (int t = 0; t < 3; ++t) {
    probes.emplace_back([&] {
      while (!stop.load()) {
        auto a = checks_.Handle("/readyz", "verbose");
        if (!a || (a->code != 200 && a->code != 500)) ++wrong;
        if (checks_.Handle("/livez", "")->code != 200) ++wrong;
        ++answers;
      }
    });
  }
  for (int i = 0; i < 50 || answers.load() < 50; ++i) {
    if (i < 20) {
      checks_.Add("leader-" + std::to_string(i), {"healthz"},
                  [] { return std::nullopt; });
    }
    synced_ = (i % 2 == 0);
    std::this_thread::yield();
  }
  stop = true;
  for (auto& t : probes) t.join();
  EXPECT_EQ(wrong.load(), 0);
  synced_ = true;
  auto healthz = checks_.Handle("/healthz", "verbose");
  EXPECT_EQ(healthz->code, 200);
  EXPECT_NE(healthz->body.find("[+]leader-19 ok\n"), std::string::npos);
}

}  // namespace
}  // namespace ksched::metrics

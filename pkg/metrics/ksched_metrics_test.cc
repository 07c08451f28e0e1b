#include "pkg/metrics/ksched_metrics.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <string>

namespace ksched::metrics {
namespace {

std::string Exposition(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

// client-go's gauge, under the name kube-scheduler exports it: absent
// until an elector exists, 0 while waiting, 1 while leading.
TEST(KschedMetricsTest, LeaderElectionMasterStatusFollowsTheLease) {
  prometheus::Registry registry;
  KschedMetrics m(registry);
  EXPECT_EQ(Exposition(registry).find("leader_election_master_status{"),
            std::string::npos);
  m.SetLeader("ksched", false);
  EXPECT_NE(Exposition(registry).find(
                "leader_election_master_status{name=\"ksched\"} 0"),
            std::string::npos)
      << Exposition(registry);
  m.SetLeader("ksched", true);
  EXPECT_NE(Exposition(registry).find(
                "leader_election_master_status{name=\"ksched\"} 1"),
            std::string::npos)
      << Exposition(registry);
  EXPECT_NE(
      Exposition(registry).find("# TYPE leader_election_master_status gauge"),
      std::string::npos);
}

}  // namespace
}  // namespace ksched::metrics

// `ksched simulate --kubeconfig` against the test API server: it reads
// the cluster as the informers do, only lists, and a snapshot it writes
// replays offline to the same placements.
#include <gtest/gtest.h>

#include "pkg/util/json.h"
#include "test/cli/run_command.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

class SimulateLiveTest : public ClusterTestBase {};

TEST_F(SimulateLiveTest, ReadsTheClusterAndItsSnapshotReplaysTheSame) {
  CreateNode("node-a", "2");
  CreateNode("node-b", "1");
  CreatePod("running", "1500m");
  ASSERT_EQ(BindElsewhere("running", "node-a"), 201);
  CreatePod("p1", "500m", "default-scheduler");
  CreatePod("p2", "500m", "default-scheduler");
  CreatePod("p3", "800m", "default-scheduler");

  const std::string snapshot = (dir_ / "snapshot.json").string();
  auto live = RunCommand(std::string(KSCHED_BINARY) +
                         " simulate --quiet --all-pods -o json --kubeconfig " +
                         (dir_ / "kubeconfig").string() + " --snapshot-out " +
                         snapshot);
  ASSERT_EQ(live.exit_code, 0) << live.err;
  for (const TestApiServer::Access& a : server_->Accesses()) {
    EXPECT_EQ(a.verb, "list") << a.resource;
  }
  auto offline =
      RunCommand(std::string(KSCHED_BINARY) +
                 " simulate --quiet --all-pods -o json --cluster " + snapshot);
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_EQ(offline.out, live.out);

  rapidjson::Document doc;
  doc.Parse(live.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << live.out;
  std::map<std::string, std::string> placed;
  for (const auto& pod : doc["pods"].GetArray()) {
    placed[pod["name"].GetString()] =
        pod["node"].IsNull() ? "-" : pod["node"].GetString();
  }
  // node-a has 500m left after the running pod, node-b 1 CPU: 1.8 CPU of
  // requests fit in 1.5 CPU of room only two at a time.
  EXPECT_EQ(placed.size(), 3u);
  int unplaced = 0;
  for (const auto& [name, node] : placed) unplaced += node == "-";
  EXPECT_EQ(unplaced, 1) << live.out;
  // Nothing was written to the cluster.
  EXPECT_TRUE(GetPod("p1").spec.node_name.empty());
}

}  // namespace
}  // namespace ksched::testing

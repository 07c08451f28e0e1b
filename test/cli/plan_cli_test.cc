// `ksched simulate` as a planning tool on the bundled example and the
// files in examples/plan: will this Deployment fit, how many more of this
// pod fit, how many nodes of this type are needed, what a drain does.
#include <gtest/gtest.h>

#include "pkg/util/json.h"
#include "test/cli/run_command.h"

namespace ksched::plan_cli {

using testing::RunCommand;

const std::string kKsched = KSCHED_BINARY;
const std::string kSource = KSCHED_SOURCE_DIR;
const std::string kSimulate = kKsched + " simulate --quiet --cluster " +
                              kSource + "/examples/cluster.yaml ";
const std::string kPlan = kSource + "/examples/plan/";

TEST(PlanCliTest, ADeploymentThatHalfFitsAndTheGate) {
  auto r = RunCommand(kSimulate + "--add " + kPlan + "shop-web.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("shop/web (Deployment): 9/15 scheduled, 6 "
                       "unschedulable: 0/7 nodes are available: "),
            std::string::npos)
      << r.out;
  r = RunCommand(kSimulate + "--add " + kPlan +
                 "shop-web.yaml --fail-on-unschedulable");
  EXPECT_EQ(r.exit_code, 3);
}

TEST(PlanCliTest, HowManyMoreFit) {
  // Free CPU after the example's pods: cpu-a-1 1.31, cpu-a-2 1.91, cpu-b-1
  // 1.17, cpu-b-2 1.27 cores; 250m each: 5 + 7 + 4 + 5.
  auto r = RunCommand(kSimulate + "--capacity " + kPlan + "probe-pod.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("21 more pods like default/probe fit: cpu-a-1 5, "
                       "cpu-a-2 7, cpu-b-1 4, cpu-b-2 5\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("the next one: 0/7 nodes are available: "),
            std::string::npos);
  r = RunCommand(kSimulate + "--capacity " + kPlan +
                 "probe-pod.yaml --max 10 -o json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_EQ(doc["capacity"]["fits"].GetInt(), 10);
  EXPECT_TRUE(doc["capacity"]["reachedMax"].GetBool());
  // A workload file gives its pod template.
  r = RunCommand(kSimulate + "--capacity " + kPlan + "shop-web.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("more pods like shop/web fit"), std::string::npos)
      << r.out;
}

TEST(PlanCliTest, HowManyNodesOfThisTypeAreNeeded) {
  auto r = RunCommand(kSimulate + "--add " + kPlan +
                      "shop-web.yaml --node-template " + kPlan +
                      "worker-node.yaml --add-nodes-until-fits");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 6 replicas of 500m left over: one 4-CPU worker takes them.
  EXPECT_NE(r.out.find("shop/web (Deployment): 15/15 scheduled"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1 more node like worker fit every pending pod such "
                       "nodes can take; 6 do not fit on any number of them:"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("added nodes: worker-1\n"), std::string::npos);
  r = RunCommand(kSimulate + "--add-nodes-until-fits");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--add-nodes-until-fits needs --node-template FILE"),
            std::string::npos);
}

TEST(PlanCliTest, DrainingANodeSaysWhereItsPodsGo) {
  auto r = RunCommand(kSimulate + "--drain cpu-a-1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("shop/postgres-0 (on cpu-a-1): gone, no controller "
                       "re-creates it"),
            std::string::npos)
      << r.out;
  r = RunCommand(kSimulate + "--drain nowhere");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--drain nowhere: no such node in the cluster"),
            std::string::npos);
}

}  // namespace ksched::plan_cli

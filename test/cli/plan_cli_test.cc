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
  EXPECT_NE(r.out.find("1 more node like worker fits every pending pod such "
                       "nodes can take\nno node like worker can take 6 "
                       "pods:\n"),
            std::string::npos)
      << r.out;
  // Each with what a worker lacks for it.
  EXPECT_NE(r.out.find("  ml/notebook-0: NodeResourcesFit: Insufficient "
                       "nvidia.com/gpu\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  ci/builder-0: NodeAffinity: node(s) didn't match "
                       "Pod's node affinity/selector\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("added nodes: worker-1\n"), std::string::npos);
  r = RunCommand(kSimulate + "--add-nodes-until-fits");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--add-nodes-until-fits needs --node-template FILE"),
            std::string::npos);
}

TEST(PlanCliTest, DrainingANodeSaysWhereItsPodsGo) {
  // cpu-a-1 runs two bare pods: kubectl drain refuses it without --force.
  auto r = RunCommand(kSimulate + "--drain cpu-a-1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Error: --drain cpu-a-1: cannot delete Pods that "
                       "declare no controller (use --force to override): "
                       "shop/postgres-0, shop/journal-writer-0"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
  r = RunCommand(kSimulate + "--drain cpu-a-1 --force");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("shop/postgres-0 (on cpu-a-1): deleted (--force), no "
                       "controller re-creates it"),
            std::string::npos)
      << r.out;
  r = RunCommand(kSimulate + "--drain nowhere");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--drain nowhere: no such node in the cluster"),
            std::string::npos);
}

// A DaemonSet pod stays on a drained node, as kubectl drain
// --ignore-daemonsets leaves it, and its DaemonSet makes no second one.
TEST(PlanCliTest, DrainingLeavesDaemonSetPodsWhereTheyAre) {
  const std::string cluster = testing::WriteTempFile("ds-drain.yaml", R"(
apiVersion: v1
kind: Node
metadata: {name: r1, labels: {kubernetes.io/hostname: r1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: r2, labels: {kubernetes.io/hostname: r2}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds, namespace: kube-system}
spec:
  selector: {matchLabels: {app: ds}}
  template:
    metadata: {labels: {app: ds}}
    spec: {containers: [{name: c, image: agent, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: ds-aaaaa
  namespace: kube-system
  labels: {app: ds}
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: u1, controller: true}]
spec: {nodeName: r1, containers: [{name: c, image: agent, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: ds-bbbbb
  namespace: kube-system
  labels: {app: ds}
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: u1, controller: true}]
spec: {nodeName: r2, containers: [{name: c, image: agent, resources: {requests: {cpu: 100m}}}]}
)");
  auto r = RunCommand(kKsched + " simulate --quiet --cluster " + cluster +
                      " --drain r1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("kube-system/ds-aaaaa (on r1): stays, "
                       "DaemonSet-managed (drain ignores DaemonSets)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("kube-system/ds (DaemonSet): 2/2 scheduled"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("gone"), std::string::npos) << r.out;
  // No new DaemonSet pod was made: nothing was pending.
  EXPECT_NE(r.out.find("PODS: 0 pending"), std::string::npos) << r.out;
}

// Workloads' pods enter the queue in the order of their workloads'
// creationTimestamp, then of the file, whatever their kind: here a Job
// written before a Deployment takes the one node's room.
TEST(PlanCliTest, WorkloadsQueueInFileOrderNotByKind) {
  const std::string node = R"(
apiVersion: v1
kind: Node
metadata: {name: n, labels: {kubernetes.io/hostname: n}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
)";
  const std::string job = R"(
---
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: t, resources: {requests: {cpu: "3"}}}]
)";
  const std::string deployment = R"(
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: w, resources: {requests: {cpu: "3"}}}]}
)";
  auto run = [&](const std::string& name, const std::string& text) {
    return RunCommand(kKsched + " simulate --quiet --all-pods --cluster " +
                      testing::WriteTempFile(name, text));
  };
  auto job_first = run("job-first.yaml", node + job + deployment);
  ASSERT_EQ(job_first.exit_code, 0) << job_first.err;
  EXPECT_NE(job_first.out.find("default/train (Job): 1/1 scheduled"),
            std::string::npos)
      << job_first.out;
  EXPECT_NE(job_first.out.find("default/web (Deployment): 0/1 scheduled"),
            std::string::npos)
      << job_first.out;
  auto deployment_first = run("deployment-first.yaml", node + deployment + job);
  ASSERT_EQ(deployment_first.exit_code, 0) << deployment_first.err;
  EXPECT_NE(
      deployment_first.out.find("default/web (Deployment): 1/1 scheduled"),
      std::string::npos)
      << deployment_first.out;
  EXPECT_NE(deployment_first.out.find("default/train (Job): 0/1 scheduled"),
            std::string::npos)
      << deployment_first.out;
  // creationTimestamp comes before the file's order.
  std::string stamped_job = job;
  stamped_job.replace(stamped_job.find("{name: train}"), 13,
                      "{name: train, creationTimestamp: "
                      "\"2026-01-01T00:00:00Z\"}");
  auto stamped = run("stamped.yaml", node + deployment + stamped_job);
  ASSERT_EQ(stamped.exit_code, 0) << stamped.err;
  EXPECT_NE(stamped.out.find("default/train (Job): 1/1 scheduled"),
            std::string::npos)
      << stamped.out;
}

}  // namespace ksched::plan_cli

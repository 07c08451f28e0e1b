#include "pkg/simulator/workloads.h"

#include <gtest/gtest.h>

#include "pkg/config/config.h"
#include "pkg/plugins/registry.h"
#include "pkg/simulator/simulator.h"

namespace ksched::simulator {
namespace {

const char kNodes[] = R"(
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2, topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: gpu, labels: {kubernetes.io/hostname: gpu, topology.kubernetes.io/zone: a}}
spec:
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: cordoned, labels: {kubernetes.io/hostname: cordoned, topology.kubernetes.io/zone: a}}
spec:
  unschedulable: true
  taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}
)";

class WorkloadsTest : public ::testing::Test {
 protected:
  Cluster Parse(const std::string& more) {
    auto cluster = ParseCluster(std::string(kNodes) + "---\n" + more);
    EXPECT_TRUE(cluster.ok()) << cluster.error().message();
    return cluster.ok() ? std::move(*cluster) : Cluster{};
  }
  std::vector<WorkloadPods> Expand(Cluster& cluster) {
    auto w = ExpandWorkloads(cluster, {.seed = 7, .now_unix_seconds = 600});
    EXPECT_TRUE(w.ok()) << w.error().message();
    return w.ok() ? std::move(*w) : std::vector<WorkloadPods>{};
  }
  static const api::Pod* Find(const Cluster& c, const std::string& name) {
    for (const api::Pod& p : c.pods) {
      if (p.metadata.name == name) return &p;
    }
    return nullptr;
  }
  SimulationResult Simulate(const Cluster& cluster,
                            const std::vector<WorkloadPods>& workloads) {
    config::KubeSchedulerConfiguration cfg = config::DefaultConfig();
    cfg.profiles.front().scheduler_name = "default-scheduler";
    SimulationOptions options;
    options.workloads = &workloads;
    auto r = simulator::Simulate(cluster, cfg, registry_, options);
    EXPECT_TRUE(r.ok()) << r.error().message();
    return r.ok() ? std::move(*r) : SimulationResult{};
  }
  framework::Registry registry_ = plugins::NewInTreeRegistry();
};

TEST_F(WorkloadsTest,
       ADeploymentBecomesReplicaSetPodsAsTheControllersNameThem) {
  Cluster c = Parse(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, uid: d-uid}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {a: b}}
    spec:
      priorityClassName: system-cluster-critical
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
)");
  std::vector<WorkloadPods> w = Expand(c);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].kind, "Deployment");
  EXPECT_EQ(w[0].desired, 3);
  EXPECT_EQ(w[0].existing, 0);
  ASSERT_EQ(w[0].pods.size(), 3u);
  ASSERT_EQ(c.pods.size(), 3u);
  const std::string hash = TemplateHash(c.deployments[0].spec.pod_template);
  for (const api::Pod& p : c.pods) {
    // <deployment>-<pod-template-hash>-<5 characters of the safe alphabet>
    const std::string prefix = "web-" + hash + "-";
    ASSERT_TRUE(p.metadata.name.starts_with(prefix)) << p.metadata.name;
    const std::string suffix = p.metadata.name.substr(prefix.size());
    EXPECT_EQ(suffix.size(), 5u);
    EXPECT_EQ(suffix.find_first_not_of(kNameAlphabet), std::string::npos);
    EXPECT_EQ(p.metadata.ns, "shop");
    EXPECT_EQ(*p.metadata.labels.Find("app"), "web");
    EXPECT_EQ(*p.metadata.labels.Find("pod-template-hash"), hash);
    EXPECT_EQ(*p.metadata.annotations.Find("a"), "b");
    ASSERT_EQ(p.metadata.owner_references.size(), 1u);
    const api::OwnerReference& ref = p.metadata.owner_references[0];
    EXPECT_EQ(ref.api_version, "apps/v1");
    EXPECT_EQ(ref.kind, "ReplicaSet");
    EXPECT_EQ(ref.name, "web-" + hash);
    EXPECT_EQ(ref.controller, std::optional<bool>(true));
    EXPECT_EQ(ref.block_owner_deletion, std::optional<bool>(true));
    // Admission ran: the PriorityClass's value.
    EXPECT_EQ(p.spec.priority, std::optional<int32_t>(2000000000));
    EXPECT_EQ(p.spec.scheduler_name, "default-scheduler");
    EXPECT_TRUE(p.spec.node_name.empty());
  }
  // The hash has the controllers' shape: only the safe alphabet.
  EXPECT_FALSE(hash.empty());
  EXPECT_EQ(hash.find_first_not_of(kNameAlphabet), std::string::npos);
  // The same seed gives the same names.
  Cluster again = Parse(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {a: b}}
    spec:
      priorityClassName: system-cluster-critical
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
)");
  EXPECT_EQ(Expand(again)[0].pods, w[0].pods);
}

TEST_F(WorkloadsTest, PodsTheClusterHasCountAgainstTheReplicas) {
  Cluster c = Parse(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata:
  name: web-5d8f7c9b4-abcde
  namespace: shop
  labels: {app: web, pod-template-hash: 5d8f7c9b4}
  ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f7c9b4, uid: x, controller: true}
spec:
  nodeName: n1
  containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata:
  name: web-5d8f7c9b4-done
  namespace: shop
  labels: {app: web}
  ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f7c9b4, uid: x, controller: true}
spec:
  nodeName: n1
  containers: [{name: c, image: nginx}]
status: {phase: Failed}
)");
  std::vector<WorkloadPods> w = Expand(c);
  ASSERT_EQ(w.size(), 1u);
  // The failed pod is not a replica; the running one is.
  EXPECT_EQ(w[0].existing, 1);
  EXPECT_EQ(w[0].pods.size(), 3u);
  EXPECT_EQ(w[0].pods[0], "shop/web-5d8f7c9b4-abcde");
  EXPECT_EQ(c.pods.size(), 4u);  // two made
}

TEST_F(WorkloadsTest, AStatefulSetHasOrdinalsAndAClaimPerTemplate) {
  Cluster c = Parse(R"(
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: pg}]
  volumeClaimTemplates:
    - metadata: {name: data, labels: {tier: storage}}
      spec:
        accessModes: [ReadWriteOnce]
        storageClassName: wait
        resources: {requests: {storage: 1Gi}}
)");
  std::vector<WorkloadPods> w = Expand(c);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].pods, (std::vector<std::string>{"shop/db-0", "shop/db-1"}));
  const api::Pod* db1 = Find(c, "db-1");
  ASSERT_NE(db1, nullptr);
  EXPECT_EQ(*db1->metadata.labels.Find("statefulset.kubernetes.io/pod-name"),
            "db-1");
  EXPECT_EQ(*db1->metadata.labels.Find("apps.kubernetes.io/pod-index"), "1");
  EXPECT_TRUE(db1->metadata.labels.Find("controller-revision-hash")
                  ->starts_with("db-"));
  EXPECT_EQ(db1->metadata.owner_references[0].kind, "StatefulSet");
  EXPECT_EQ(db1->metadata.owner_references[0].name, "db");
  ASSERT_EQ(db1->spec.volumes.size(), 1u);
  EXPECT_EQ(db1->spec.volumes[0].name, "data");
  ASSERT_TRUE(db1->spec.volumes[0].persistent_volume_claim.has_value());
  EXPECT_EQ(db1->spec.volumes[0].persistent_volume_claim->claim_name,
            "data-db-1");
  // <template>-<set>-<ordinal>, the template's labels and the selector's.
  ASSERT_EQ(c.persistent_volume_claims.size(), 2u);
  const api::PersistentVolumeClaim& claim = c.persistent_volume_claims[1];
  EXPECT_EQ(claim.metadata.name, "data-db-1");
  EXPECT_EQ(claim.metadata.ns, "shop");
  EXPECT_EQ(*claim.metadata.labels.Find("tier"), "storage");
  EXPECT_EQ(*claim.metadata.labels.Find("app"), "db");
  EXPECT_EQ(claim.spec.storage_class_name, std::optional<std::string>("wait"));
  EXPECT_EQ(claim.status.phase, "Pending");
}

TEST_F(WorkloadsTest, ADaemonSetRunsWhereItToleratesAndIsPinnedByName) {
  const std::string ds = R"(
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: monitoring}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: c, image: agent, resources: {requests: {cpu: 100m}}}]
)";
  Cluster c = Parse(ds);
  std::vector<WorkloadPods> w = Expand(c);
  ASSERT_EQ(w.size(), 1u);
  // n1, n2 and the cordoned node (the unschedulable taint is tolerated, as
  // the controller adds it); not the gpu node.
  EXPECT_EQ(w[0].desired, 3);
  ASSERT_EQ(c.pods.size(), 3u);
  std::set<std::string> pinned;
  for (const api::Pod& p : c.pods) {
    ASSERT_TRUE(p.metadata.name.starts_with("agent-")) << p.metadata.name;
    EXPECT_EQ(p.metadata.name.size(), std::string("agent-").size() + 5);
    EXPECT_EQ(*p.metadata.labels.Find("pod-template-generation"), "1");
    EXPECT_EQ(p.metadata.owner_references[0].kind, "DaemonSet");
    const auto& terms =
        p.spec.affinity->node_affinity->required->node_selector_terms;
    ASSERT_EQ(terms.size(), 1u);
    ASSERT_EQ(terms[0].match_fields.size(), 1u);
    EXPECT_EQ(terms[0].match_fields[0].key, "metadata.name");
    EXPECT_EQ(terms[0].match_fields[0].op, api::NodeSelectorOperator::kIn);
    pinned.insert(terms[0].match_fields[0].values.at(0));
    bool tolerates_unschedulable = false;
    for (const api::Toleration& t : p.spec.tolerations) {
      tolerates_unschedulable |= t.key == "node.kubernetes.io/unschedulable";
    }
    EXPECT_TRUE(tolerates_unschedulable);
  }
  EXPECT_EQ(pinned, (std::set<std::string>{"n1", "n2", "cordoned"}));
  SimulationResult r = Simulate(c, w);
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].scheduled, 3);
  for (const PodOutcome& o : r.pods) {
    // Each on the node it was made for.
    const api::Pod* p = Find(c, o.name);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(o.node,
              p->spec.affinity->node_affinity->required->node_selector_terms[0]
                  .match_fields[0]
                  .values[0]);
  }

  // With a toleration of the gpu taint, the gpu node too.
  std::string tolerating = ds;
  tolerating.replace(
      tolerating.find("      containers:"), 0,
      "      tolerations: [{key: dedicated, operator: Exists}]\n");
  Cluster t = Parse(tolerating);
  EXPECT_EQ(Expand(t)[0].desired, 4);
}

TEST_F(WorkloadsTest, AJobRunsParallelismPodsNoMoreThanItsCompletions) {
  Cluster c = Parse(R"(
apiVersion: batch/v1
kind: Job
metadata: {name: report, namespace: batch, uid: job-uid}
spec:
  parallelism: 4
  completions: 2
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: r}]
)");
  std::vector<WorkloadPods> w = Expand(c);
  ASSERT_EQ(w[0].desired, 2);
  const api::Pod& p = c.pods[1];
  EXPECT_TRUE(p.metadata.name.starts_with("report-1-")) << p.metadata.name;
  EXPECT_EQ(*p.metadata.labels.Find("batch.kubernetes.io/job-name"), "report");
  EXPECT_EQ(*p.metadata.labels.Find("batch.kubernetes.io/controller-uid"),
            "job-uid");
  EXPECT_EQ(*p.metadata.labels.Find("batch.kubernetes.io/job-completion-index"),
            "1");
  EXPECT_EQ(p.metadata.owner_references[0].api_version, "batch/v1");
  EXPECT_EQ(p.metadata.owner_references[0].kind, "Job");
}

TEST_F(WorkloadsTest, CronJobsOnlyWhenAsked) {
  const std::string cron = R"(
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: batch}
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: c, image: r}]
)";
  Cluster c = Parse(cron);
  EXPECT_TRUE(Expand(c).empty());
  Cluster asked = Parse(cron);
  auto w = ExpandWorkloads(
      asked, {.seed = 1, .cron_jobs = true, .now_unix_seconds = 6000});
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(asked.pods.size(), 1u);
  // The Job: <cronjob>-<scheduled minute>; its pod: <job>-<suffix>.
  EXPECT_TRUE(asked.pods[0].metadata.name.starts_with("nightly-100-"));
  EXPECT_EQ(asked.pods[0].metadata.owner_references[0].name, "nightly-100");
}

TEST_F(WorkloadsTest, ADeploymentThatHalfFitsIsReportedAsAUnit) {
  Cluster c = Parse(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: big, namespace: shop}
spec:
  replicas: 4
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 1500m}}}]
)");
  std::vector<WorkloadPods> w = Expand(c);
  SimulationResult r = Simulate(c, w);
  ASSERT_EQ(r.workloads.size(), 1u);
  const WorkloadOutcome& o = r.workloads[0];
  EXPECT_EQ(o.kind, "Deployment");
  EXPECT_EQ(o.desired, 4);
  EXPECT_EQ(o.scheduled, 2);  // one on n1, one on n2
  EXPECT_EQ(o.unschedulable, 2);
  EXPECT_TRUE(o.message.starts_with("0/4 nodes are available: ")) << o.message;
}

TEST_F(WorkloadsTest, AStatefulSetWithWaitForFirstConsumerClaimsIsPlaced) {
  Cluster c = Parse(R"(
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: wait}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: pg, resources: {requests: {cpu: "1"}}}]
  volumeClaimTemplates:
    - metadata: {name: data}
      spec:
        accessModes: [ReadWriteOnce]
        storageClassName: wait
        resources: {requests: {storage: 1Gi}}
)");
  std::vector<WorkloadPods> w = Expand(c);
  SimulationResult r = Simulate(c, w);
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].scheduled, 2) << r.workloads[0].message;
  // An Immediate class that nothing binds: kube's message for each.
  Cluster immediate = Parse(R"(
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: pg}]
  volumeClaimTemplates:
    - metadata: {name: data}
      spec:
        accessModes: [ReadWriteOnce]
        resources: {requests: {storage: 1Gi}}
)");
  std::vector<WorkloadPods> wi = Expand(immediate);
  SimulationResult ri = Simulate(immediate, wi);
  EXPECT_EQ(ri.workloads[0].unschedulable, 1);
  EXPECT_NE(ri.workloads[0].message.find(
                "pod has unbound immediate PersistentVolumeClaims"),
            std::string::npos)
      << ri.workloads[0].message;
}

TEST_F(WorkloadsTest, SelectorsThatMissTheTemplateAreRefused) {
  Cluster c = Parse(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: other}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x}]
)");
  auto w = ExpandWorkloads(c, {});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message(),
            "Deployment shop/web: spec.template.metadata.labels: Invalid "
            "value: `selector` does not match template `labels`");
}

}  // namespace
}  // namespace ksched::simulator

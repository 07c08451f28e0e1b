#include "pkg/cache/assigned_pod.h"

#include <gtest/gtest.h>

#include "pkg/framework/node_info.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::cache {
namespace {

using testing::PodBuilder;

api::Pod FullPod() {
  api::Pod pod =
      PodBuilder("web-0")
          .Namespace("shop")
          .Uid("uid-1")
          .Label("app", "web")
          .Node("node-1")
          .Priority(1000)
          .Req({{"cpu", "250m"}, {"memory", "1Gi"}})
          .ContainerPort(8080)
          .Image("registry.example.com/shop/web:1.2.3")
          .PodAffinity("kubernetes.io/hostname", "app", "web",
                       /*anti=*/true)
          .Toleration("dedicated", "web", api::TaintEffect::kNoSchedule)
          .NodeSelector("disk", "ssd")
          .PvcVolume("data", "web-data")
          .Obj();
  pod.metadata.annotations.Set(
      "kubectl.kubernetes.io/last-applied-configuration",
      std::string(300, 'x'));
  pod.metadata.resource_version = "42";
  pod.spec.volumes.push_back({.name = "kube-api-access-x"});
  pod.status.phase = "Running";
  api::PodCondition ready;
  ready.type = "Ready";
  ready.status = "True";
  api::PodCondition disruption;
  disruption.type = "DisruptionTarget";
  disruption.status = "True";
  disruption.reason = "PreemptionByScheduler";
  pod.status.conditions = {ready, disruption};
  return pod;
}

TEST(SlimAssignedPodTest, KeepsWhatPluginsReadOfRunningPods) {
  const api::Pod full = FullPod();
  auto slim = SlimAssignedPod(full);
  EXPECT_EQ(slim->metadata.name, "web-0");
  EXPECT_EQ(slim->metadata.ns, "shop");
  EXPECT_EQ(slim->metadata.uid, "uid-1");
  EXPECT_EQ(slim->metadata.resource_version, "42");
  EXPECT_EQ(slim->metadata.labels, full.metadata.labels);
  EXPECT_EQ(slim->spec.node_name, "node-1");
  EXPECT_EQ(slim->spec.priority, 1000);
  ASSERT_TRUE(slim->spec.affinity);
  EXPECT_EQ(*slim->spec.affinity, *full.spec.affinity);
  ASSERT_EQ(slim->spec.containers.size(), full.spec.containers.size());
  for (size_t i = 0; i < full.spec.containers.size(); ++i) {
    EXPECT_EQ(slim->spec.containers[i].resources,
              full.spec.containers[i].resources);
    EXPECT_EQ(slim->spec.containers[i].ports, full.spec.containers[i].ports);
  }
  ASSERT_EQ(slim->spec.volumes.size(), 1u);  // the claim only
  EXPECT_EQ(slim->spec.volumes[0].name, "data");
  EXPECT_EQ(slim->status.phase, "Running");
  ASSERT_EQ(slim->status.conditions.size(), 1u);
  EXPECT_EQ(slim->status.conditions[0].type, "DisruptionTarget");
}

TEST(SlimAssignedPodTest, DropsWhatNoPluginReads) {
  auto slim = SlimAssignedPod(FullPod());
  EXPECT_TRUE(slim->metadata.annotations.empty());
  EXPECT_TRUE(slim->spec.tolerations.empty());
  EXPECT_TRUE(slim->spec.node_selector.empty());
  for (const api::Container& c : slim->spec.containers) {
    EXPECT_TRUE(c.image.empty());
  }
}

// The node sees the same requests, ports and claims either way.
TEST(SlimAssignedPodTest, NodeAccountingIsUnchanged) {
  const api::Pod full = FullPod();
  framework::NodeInfo with_full;
  framework::NodeInfo with_slim;
  with_full.AddPod(
      framework::PodInfo::Create(std::make_shared<const api::Pod>(full)));
  with_slim.AddPod(framework::PodInfo::Create(SlimAssignedPod(full)));
  EXPECT_EQ(with_full.requested(), with_slim.requested());
  EXPECT_EQ(with_full.non_zero_requested(), with_slim.non_zero_requested());
  EXPECT_EQ(with_full.used_ports().size(), 1u);
  EXPECT_EQ(with_slim.used_ports().size(), 1u);
  EXPECT_TRUE(with_slim.used_ports().CheckConflict("0.0.0.0", "TCP", 8080));
  EXPECT_EQ(with_full.pvc_ref_counts(), with_slim.pvc_ref_counts());
  EXPECT_EQ(with_full.pods_with_required_anti_affinity().size(),
            with_slim.pods_with_required_anti_affinity().size());
}

}  // namespace
}  // namespace ksched::cache

#include "pkg/framework/pod_info.h"

#include <gtest/gtest.h>

#include <memory>

#include "pkg/framework/node_info.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::framework {
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
  pod.status.start_time =
      api::Time{api::Timestamp(std::chrono::seconds(1700000000))};
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

// A bound pod and the same pod kept whole answer every fact alike.
TEST(PodInfoTest, BoundPodKeepsTheFactsOfTheWholePod) {
  const api::Pod full = FullPod();
  PodInfoPtr whole = PodInfo::Create(std::make_shared<const api::Pod>(full));
  PodInfoPtr bound = PodInfo::CreateBound(full);
  for (const PodInfoPtr& info : {whole, bound}) {
    EXPECT_EQ(info->name(), "web-0");
    EXPECT_EQ(info->ns(), "shop");
    EXPECT_EQ(info->uid(), "uid-1");
    EXPECT_EQ(info->resource_version(), "42");
    EXPECT_EQ(info->node_name(), "node-1");
    EXPECT_EQ(info->labels(), full.metadata.labels);
    EXPECT_EQ(info->start_time(), full.status.start_time);
    EXPECT_FALSE(info->terminating());
    EXPECT_EQ(info->priority(), 1000);
    ASSERT_NE(info->disruption_target(), nullptr);
    EXPECT_EQ(info->disruption_target()->reason, "PreemptionByScheduler");
    ASSERT_EQ(info->host_ports().size(), 1u);
    EXPECT_EQ(info->host_ports()[0].host_port, 8080);
    EXPECT_EQ(info->claim_names(), std::vector<std::string>{"web-data"});
    EXPECT_TRUE(info->WithAffinity());
    EXPECT_TRUE(info->WithRequiredAntiAffinity());
    ASSERT_EQ(info->affinity().required_anti_affinity.size(), 1u);
    EXPECT_EQ(info->affinity().required_anti_affinity[0].topology_key,
              "kubernetes.io/hostname");
    EXPECT_EQ(info->resource().requests.milli_cpu, 250);
    EXPECT_EQ(info->resource().requests.memory, int64_t{1} << 30);
  }
  EXPECT_TRUE(whole->has_pod());
  EXPECT_FALSE(bound->has_pod());
}

TEST(PodInfoTest, FactsOfAPodWithoutExtras) {
  api::Pod pod = PodBuilder("plain").Uid("u").Obj();
  pod.metadata.deletion_timestamp = api::Time{};
  PodInfoPtr bound = PodInfo::CreateBound(pod);
  EXPECT_TRUE(bound->terminating());
  EXPECT_EQ(bound->priority(), 0);
  EXPECT_EQ(bound->disruption_target(), nullptr);
  EXPECT_TRUE(bound->host_ports().empty());
  EXPECT_TRUE(bound->claim_names().empty());
  EXPECT_FALSE(bound->WithAffinity());
  EXPECT_FALSE(bound->has_affinity());
  EXPECT_TRUE(bound->parse_error().empty());
}

// What a write about a bound pod needs survives the round trip; what the
// cache does not keep is gone.
TEST(PodInfoTest, ToPodOfABoundPodCarriesTheFacts) {
  const api::Pod full = FullPod();
  api::Pod pod = PodInfo::CreateBound(full)->ToPod();
  EXPECT_EQ(pod.metadata.name, "web-0");
  EXPECT_EQ(pod.metadata.ns, "shop");
  EXPECT_EQ(pod.metadata.uid, "uid-1");
  EXPECT_EQ(pod.metadata.resource_version, "42");
  EXPECT_EQ(pod.metadata.labels, full.metadata.labels);
  EXPECT_EQ(pod.status.start_time, full.status.start_time);
  EXPECT_EQ(pod.spec.node_name, "node-1");
  EXPECT_EQ(pod.spec.priority, 1000);
  ASSERT_EQ(pod.status.conditions.size(), 1u);
  EXPECT_EQ(pod.status.conditions[0].type, "DisruptionTarget");
  EXPECT_TRUE(pod.metadata.annotations.empty());
  EXPECT_TRUE(pod.spec.tolerations.empty());
  EXPECT_TRUE(pod.spec.containers.empty());

  // Unset priority stays unset.
  api::Pod plain = PodBuilder("plain").Uid("u").Obj();
  EXPECT_FALSE(PodInfo::CreateBound(plain)->ToPod().spec.priority.has_value());
  // A pod kept whole comes back whole.
  EXPECT_EQ(PodInfo::Create(std::make_shared<const api::Pod>(full))->ToPod(),
            full);
}

// The node sees the same requests, ports and claims either way.
TEST(PodInfoTest, NodeAccountingOfABoundPodIsUnchanged) {
  const api::Pod full = FullPod();
  NodeInfo with_whole;
  NodeInfo with_bound;
  with_whole.AddPod(PodInfo::Create(std::make_shared<const api::Pod>(full)));
  with_bound.AddPod(PodInfo::CreateBound(full));
  EXPECT_EQ(with_whole.requested(), with_bound.requested());
  EXPECT_EQ(with_whole.non_zero_requested(), with_bound.non_zero_requested());
  EXPECT_EQ(with_whole.used_ports().size(), 1u);
  EXPECT_EQ(with_bound.used_ports().size(), 1u);
  EXPECT_TRUE(with_bound.used_ports().CheckConflict("0.0.0.0", "TCP", 8080));
  EXPECT_EQ(with_whole.pvc_ref_counts(), with_bound.pvc_ref_counts());
  EXPECT_EQ(with_bound.pvc_ref_counts().size(), 1u);
  EXPECT_EQ(with_whole.pods_with_required_anti_affinity().size(),
            with_bound.pods_with_required_anti_affinity().size());
  EXPECT_TRUE(with_bound.RemovePod("uid-1"));
  EXPECT_EQ(with_bound.requested(), Resource());
  EXPECT_TRUE(with_bound.pvc_ref_counts().empty());
  EXPECT_EQ(with_bound.used_ports().size(), 0u);
}

// The assumed copy (WithPod) takes the new version's facts and keeps the
// derived data.
TEST(PodInfoTest, WithPodTakesTheNewVersionsFacts) {
  api::Pod pending = FullPod();
  pending.spec.node_name.clear();
  PodInfoPtr queued =
      PodInfo::Create(std::make_shared<const api::Pod>(pending));
  api::Pod assumed = pending;
  assumed.spec.node_name = "node-7";
  PodInfoPtr copy = queued->WithPod(std::make_shared<const api::Pod>(assumed));
  EXPECT_EQ(queued->node_name(), "");
  EXPECT_EQ(copy->node_name(), "node-7");
  EXPECT_EQ(copy->pod().spec.node_name, "node-7");
  EXPECT_EQ(&copy->affinity(), &queued->affinity());
  EXPECT_EQ(copy->resource().requests, queued->resource().requests);
}

TEST(PodInfoTest, BoundPodsShareInternedLabels) {
  LabelSets sets;
  api::Pod a = FullPod();
  api::Pod b = FullPod();
  b.metadata.name = "web-1";
  b.metadata.uid = "uid-2";
  PodInfoPtr first = PodInfo::CreateBound(a, &sets);
  PodInfoPtr second = PodInfo::CreateBound(b, &sets);
  EXPECT_EQ(&first->labels(), &second->labels());
  EXPECT_EQ(first->labels(), a.metadata.labels);
  // Without a LabelSets each keeps its own copy; a pod kept whole reads
  // the labels inside its object.
  PodInfoPtr alone = PodInfo::CreateBound(a);
  EXPECT_NE(&alone->labels(), &first->labels());
  EXPECT_EQ(alone->labels(), a.metadata.labels);
  PodInfoPtr whole = PodInfo::Create(std::make_shared<const api::Pod>(a));
  EXPECT_EQ(&whole->labels(), &whole->pod().metadata.labels);
  // No labels: nothing to share or copy, still an empty map.
  EXPECT_TRUE(
      PodInfo::CreateBound(PodBuilder("x").Obj(), &sets)->labels().empty());
}

TEST(PodInfoDeathTest, PodOfABoundPodIsAProgrammingError) {
  PodInfoPtr bound = PodInfo::CreateBound(FullPod());
  EXPECT_DEATH((void)bound->pod(), "bound pod shop/web-0");
}

}  // namespace
}  // namespace ksched::framework

#include "pkg/framework/node_info.h"

#include <gtest/gtest.h>

#include "pkg/framework/testing/wrappers.h"

namespace ksched::framework {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

TEST(NodeInfoTest, AddAndRemovePodKeepTheSums) {
  auto info = testing::MakeNodeInfo(NodeBuilder("n")
                                        .Capacity({{"cpu", "4"},
                                                   {"memory", "8Gi"},
                                                   {"pods", "110"},
                                                   {"nvidia.com/gpu", "2"}})
                                        .Obj());
  EXPECT_EQ(info->allocatable().milli_cpu, 4000);
  EXPECT_EQ(info->allocatable().allowed_pod_number, 110);
  EXPECT_EQ(info->allocatable().Scalar("nvidia.com/gpu"), 2);

  auto a = PodBuilder("a")
               .Req({{"cpu", "500m"}, {"memory", "1Gi"}})
               .ContainerPort(8080)
               .Info();
  auto b = PodBuilder("b")
               .Req({{"nvidia.com/gpu", "1"}})
               .PodAffinity("zone", "app", "x", /*anti=*/true)
               .PvcVolume("v", "data")
               .Info();
  info->AddPod(a);
  info->AddPod(b);
  EXPECT_EQ(info->pods().size(), 2u);
  EXPECT_EQ(info->requested().milli_cpu, 500);
  EXPECT_EQ(info->requested().memory, 1LL << 30);
  EXPECT_EQ(info->requested().Scalar("nvidia.com/gpu"), 1);
  // b names no cpu/memory: the scoring defaults count for it.
  EXPECT_EQ(info->non_zero_requested().milli_cpu, 500 + 100);
  EXPECT_EQ(info->non_zero_requested().memory, (1LL << 30) + (200LL << 20));
  EXPECT_TRUE(info->used_ports().CheckConflict("", "TCP", 8080));
  EXPECT_EQ(info->pods_with_affinity().size(), 1u);
  EXPECT_EQ(info->pods_with_required_anti_affinity().size(), 1u);
  EXPECT_EQ(*info->pvc_ref_counts().Find("default/data"), 1);

  EXPECT_TRUE(info->RemovePod("a-uid"));
  EXPECT_FALSE(info->RemovePod("a-uid"));
  EXPECT_EQ(info->requested().milli_cpu, 0);
  EXPECT_FALSE(info->used_ports().CheckConflict("", "TCP", 8080));
  EXPECT_TRUE(info->RemovePod("b-uid"));
  EXPECT_TRUE(info->pods_with_affinity().empty());
  EXPECT_TRUE(info->pvc_ref_counts().empty());
  EXPECT_EQ(info->non_zero_requested().milli_cpu, 0);
  EXPECT_EQ(info->requested().Scalar("nvidia.com/gpu"), 0);
}

TEST(NodeInfoTest, PodInfoParsesAffinityTermsOnce) {
  auto info = PodBuilder("p")
                  .Namespace("shop")
                  .PodAffinity("zone", "app", "db")
                  .PreferredPodAffinity(5, "host", "app", "web", /*anti=*/true)
                  .Info();
  ASSERT_TRUE(info->has_affinity());
  EXPECT_TRUE(info->parse_error().empty());
  const auto& terms = info->affinity();
  ASSERT_EQ(terms.required_affinity.size(), 1u);
  EXPECT_EQ(terms.required_affinity[0].topology_key, "zone");
  // No namespaces and no selector: the pod's own namespace.
  EXPECT_EQ(terms.required_affinity[0].namespaces,
            std::vector<std::string>{"shop"});
  ASSERT_EQ(terms.preferred_anti_affinity.size(), 1u);
  EXPECT_EQ(terms.preferred_anti_affinity[0].weight, 5);

  auto db = PodBuilder("db").Namespace("shop").Label("app", "db").Info();
  auto web = PodBuilder("web").Namespace("other").Label("app", "db").Info();
  EXPECT_TRUE(terms.required_affinity[0].Matches(*db, {}));
  EXPECT_FALSE(terms.required_affinity[0].Matches(*web, {}));

  auto plain = PodBuilder("q").Info();
  EXPECT_FALSE(plain->has_affinity());
  EXPECT_TRUE(plain->affinity().required_affinity.empty());
}

TEST(NodeInfoTest, BadAffinitySelectorIsRecordedNotThrown) {
  api::Pod pod = PodBuilder("p").PodAffinity("zone", "app", "x").Obj();
  pod.spec.affinity->pod_affinity->required[0]
      .label_selector->match_expressions.push_back(
          {"k", api::LabelSelectorOperator::kIn, {}});
  auto info = PodInfo::Create(std::make_shared<const api::Pod>(pod));
  EXPECT_NE(info->parse_error().find("requiredAffinityTerms"),
            std::string::npos);
  EXPECT_TRUE(info->affinity().required_affinity.empty());
}

TEST(NodeInfoTest, MatchLabelKeysAreMergedIntoTheSelector) {
  api::Pod pod =
      PodBuilder("p").Label("rev", "7").PodAffinity("zone", "app", "x").Obj();
  pod.spec.affinity->pod_affinity->required[0].match_label_keys = {"rev"};
  auto info = PodInfo::Create(std::make_shared<const api::Pod>(pod));
  const AffinityTerm& t = info->affinity().required_affinity[0];
  EXPECT_TRUE(t.Matches(
      *PodBuilder("a").Label("app", "x").Label("rev", "7").Info(), {}));
  EXPECT_FALSE(t.Matches(
      *PodBuilder("b").Label("app", "x").Label("rev", "6").Info(), {}));
}

}  // namespace
}  // namespace ksched::framework

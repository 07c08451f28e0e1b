#include "pkg/simulator/inert_content.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pkg/simulator/cluster.h"

namespace ksched::simulator {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr std::string_view kPods = R"(
apiVersion: v1
kind: Pod
metadata: {name: train}
spec:
  containers:
  - name: c
    resources: {claims: [{name: gpus}]}
  resourceClaims: [{name: gpus, resourceClaimTemplateName: eight}]
---
apiVersion: v1
kind: Pod
metadata: {name: sized}
spec:
  resources: {requests: {cpu: "2"}}
  containers: [{name: c}]
---
apiVersion: v1
kind: Pod
metadata: {name: spread}
spec:
  containers: [{name: c}]
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchLabels: {app: a}}
    nodeTaintsPolicy: Honor
---
apiVersion: v1
kind: Pod
metadata: {name: done}
spec:
  containers: [{name: c}]
  resourceClaims: [{name: gpus, resourceClaimName: old}]
status: {phase: Succeeded}
)";

Cluster Parse() {
  auto cluster = ParseCluster(kPods);
  EXPECT_TRUE(cluster.ok()) << cluster.error().message();
  return std::move(*cluster);
}

TEST(InertContentWarningsTest, NothingAtTheBinarysDefaults) {
  EXPECT_THAT(InertContentWarnings(Parse(), config::FeatureGates()), IsEmpty());
}

TEST(InertContentWarningsTest, OneLinePerGateThatLeavesTheFileUnread) {
  auto gates = config::FeatureGates::Parse("1.32", "", nullptr);
  ASSERT_TRUE(gates.ok()) << gates.error().message();
  // At 1.32 DRA and pod-level resources are off; the finished pod's claim
  // is not counted.
  EXPECT_THAT(
      InertContentWarnings(Parse(), *gates),
      ElementsAre("1 pod asks for ResourceClaims; DynamicResourceAllocation "
                  "is off at 1.32: its claims are ignored; --feature-gates "
                  "DynamicResourceAllocation=true turns it on",
                  "1 pod sets pod-level resources (spec.resources); "
                  "PodLevelResources is off at 1.32: only its containers' "
                  "requests count; --feature-gates PodLevelResources=true "
                  "turns it on"));
}

TEST(InertContentWarningsTest, AGateTurnedOffByFlagSaysSo) {
  // Locked on from 1.33: off by flag at 1.32, beside the two above.
  auto gates = config::FeatureGates::Parse(
      "1.32", "NodeInclusionPolicyInPodTopologySpread=false", nullptr);
  ASSERT_TRUE(gates.ok()) << gates.error().message();
  EXPECT_THAT(InertContentWarnings(Parse(), *gates),
              Contains("1 pod sets nodeAffinityPolicy or nodeTaintsPolicy in "
                       "topology spread constraints; "
                       "NodeInclusionPolicyInPodTopologySpread is off "
                       "(--feature-gates): the defaults apply instead; "
                       "--feature-gates NodeInclusionPolicyInPodTopologySpread="
                       "true turns it on"));
}

}  // namespace
}  // namespace ksched::simulator

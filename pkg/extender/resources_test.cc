// The extender counts a pod's requests with the gates it is given, as the
// scheduler does: pod-level requests (PodLevelResources, v1.34+) replace
// the containers' sum.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "pkg/config/config.h"
#include "pkg/extender/service.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/registry.h"
#include "pkg/util/fake_clock.h"

namespace ksched::extender {
namespace {

using ksched::testing::NodeBuilder;
using ksched::testing::PodBuilder;

class ExtenderResourcesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_.AddNode(
        NodeBuilder("node-1")
            .Capacity({{"cpu", "3"}, {"memory", "8Gi"}, {"pods", "110"}})
            .Ptr());
    // 2 of the node's 3 cpu are taken: 1 is left.
    ASSERT_TRUE(
        cache_
            .AddPod(framework::PodInfo::CreateBound(PodBuilder("running")
                                                        .Uid("running")
                                                        .Node("node-1")
                                                        .Req({{"cpu", "2"}})
                                                        .Obj()))
            .ok());
  }

  ExtenderFilterResult Filter(const config::FeatureGates& gates) {
    ExtenderService::Options options;
    options.clock = &clock_;
    options.features = gates;
    auto service = ExtenderService::Create(config::DefaultConfig(), registry_,
                                           cache_, options);
    EXPECT_TRUE(service.ok()) << service.error().message();
    if (!service.ok()) return {};
    ExtenderArgs args;
    // The containers ask for 100m, the pod as a whole for 2 cpu.
    args.pod = PodBuilder("pending")
                   .Uid("pending")
                   .SchedulerName("ksched")
                   .Req({{"cpu", "100m"}})
                   .PodLevelReq({{"cpu", "2"}})
                   .Obj();
    args.node_names = std::vector<std::string>{"node-1"};
    auto result = (*service)->Filter("ksched", args);
    if (const auto* e = std::get_if<VerbError>(&result)) {
      ADD_FAILURE() << e->message;
      return {};
    }
    return std::get<ExtenderFilterResult>(result);
  }

  util::FakeClock clock_;
  cache::Cache cache_{clock_, std::chrono::nanoseconds(0)};
  framework::Registry registry_ = plugins::NewInTreeRegistry();
};

TEST_F(ExtenderResourcesTest, PodLevelRequestsCountAtV135) {
  ExtenderFilterResult r = Filter(config::FeatureGates());
  EXPECT_EQ(r.node_names, std::vector<std::string>{});
  EXPECT_EQ(
      r.failed_nodes,
      (std::map<std::string, std::string>{{"node-1", "Insufficient cpu"}}));
}

TEST_F(ExtenderResourcesTest, PodLevelRequestsAreNotReadAtV132) {
  ExtenderFilterResult r =
      Filter(config::FeatureGates(config::KubeVersion{1, 32}));
  EXPECT_EQ(r.node_names, std::vector<std::string>{"node-1"});
  EXPECT_TRUE(r.failed_nodes.empty());
}

}  // namespace
}  // namespace ksched::extender

// No device is ever given to two claims, however binding cycles
// interleave: scheduling cycles run one after another (PreFilter, Filter on
// every node, Reserve), as the scheduler runs them, while binding cycles
// (PreBind, then success or a failure that Unreserves) run on other threads
// at random moments, with the API server answering conflicts and failures
// at random. After each Reserve, each round and at the end, the devices of
// the claims as the scheduler and as the API server hold them are checked
// to be disjoint (two cycles reserving one device would show there once
// their PreBinds wrote it).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pkg/dra/dra_manager.h"
#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/dynamicresources/dynamic_resources.h"
#include "pkg/plugins/dynamicresources/fake_claim_api.h"

namespace ksched::plugins {
namespace {

constexpr int kNodes = 6;
constexpr int kDevicesPerNode = 4;
constexpr int kPods = 60;

api::ResourceSlice NodeSlice(int n) {
  api::ResourceSlice s;
  s.metadata.name = "node-" + std::to_string(n) + "-gpu";
  s.spec.driver = "gpu.example.com";
  s.spec.node_name = "node-" + std::to_string(n);
  s.spec.pool = {.name = "node-" + std::to_string(n),
                 .generation = 1,
                 .resource_slice_count = 1};
  for (int d = 0; d < kDevicesPerNode; ++d) {
    s.spec.devices.push_back(api::Device{.name = "gpu-" + std::to_string(d)});
  }
  return s;
}

// Pod p's claim: one or two GPUs; every fifth pod shares the claim of the
// pod before it.
std::string ClaimOf(int p) { return "claim-" + std::to_string(p - p % 5 / 4); }

class ConcurrencyTest : public ::testing::TestWithParam<int> {};

TEST_P(ConcurrencyTest, NoDeviceIsEverGivenTwice) {
  std::mt19937 rng(GetParam());
  dra::DraManager manager;
  dra_testing::FakeClaimApi api(manager);
  testing::FakeHandle handle;
  handle.dra_manager_ = &manager;
  handle.writer_ = &api;

  auto cls = std::make_shared<api::DeviceClass>();
  cls->metadata.name = "gpu";
  manager.UpsertDeviceClass(cls);
  std::vector<framework::NodeInfoPtr> nodes;
  for (int n = 0; n < kNodes; ++n) {
    manager.UpsertResourceSlice(
        std::make_shared<api::ResourceSlice>(NodeSlice(n)));
    nodes.push_back(testing::MakeNodeInfo(
        testing::NodeBuilder("node-" + std::to_string(n)).Obj()));
  }
  handle.SetNodes(nodes);
  std::vector<api::Pod> pods;
  for (int p = 0; p < kPods; ++p) {
    const std::string claim = ClaimOf(p);
    if (claim == "claim-" + std::to_string(p)) {
      api::ResourceClaim c;
      c.metadata.name = claim;
      c.metadata.ns = "default";
      c.spec.devices.requests.push_back(
          {.name = "gpu",
           .exactly = api::ExactDeviceRequest{
               .device_class_name = "gpu",
               .allocation_mode = api::DeviceAllocationMode::kExactCount,
               .count = 1 + p % 2}});
      api.Create(c);
    }
    api::Pod pod = testing::PodBuilder("pod-" + std::to_string(p))
                       .Namespace("default")
                       .Uid("uid-" + std::to_string(p))
                       .Obj();
    pod.spec.resource_claims.push_back(
        {.name = "gpu", .resource_claim_name = claim});
    pods.push_back(std::move(pod));
  }
  auto built = NewDynamicResources(nullptr, handle);
  ASSERT_TRUE(built.ok());
  auto* plugin = dynamic_cast<DynamicResources*>(built->get());

  // Devices of allocated claims (as the server has them) and of claims in
  // flight, never twice.
  auto check_disjoint = [&](const std::string& when) {
    std::map<std::string, std::string> owner;
    for (const auto& claim : manager.ListResourceClaims()) {
      auto stored = api.Stored(claim->metadata.name);
      for (const auto* c : {claim.get(), stored.get()}) {
        if (c == nullptr || !c->status.allocation) continue;
        for (const auto& r : c->status.allocation->devices.results) {
          const std::string device = r.pool + "/" + r.device;
          auto [it, fresh] = owner.emplace(device, c->metadata.name);
          EXPECT_TRUE(fresh || it->second == c->metadata.name)
              << when << ": " << device << " in " << it->second << " and "
              << c->metadata.name;
        }
      }
    }
  };

  std::vector<std::thread> binders;
  std::atomic<int> bound{0};
  std::set<int> pending;
  for (int p = 0; p < kPods; ++p) pending.insert(p);
  std::mutex pending_mu;
  for (int round = 0; round < 8 && !pending.empty(); ++round) {
    std::vector<int> order;
    {
      std::lock_guard lock(pending_mu);
      order.assign(pending.begin(), pending.end());
    }
    std::shuffle(order.begin(), order.end(), rng);
    for (int p : order) {
      auto pod =
          framework::PodInfo::Create(std::make_shared<api::Pod>(pods[p]));
      if (!plugin->PreEnqueue(pods[p]).IsSuccess()) continue;
      auto state = std::make_shared<framework::CycleState>();
      framework::PreFilterResult pre;
      framework::Status pre_status =
          plugin->PreFilter(*state, *pod, nodes, &pre);
      if (!pre_status.IsSuccess()) continue;  // in flight elsewhere, ...
      std::vector<std::string> feasible;
      for (const auto& node : nodes) {
        if (plugin->Filter(*state, *pod, *node).IsSuccess()) {
          feasible.push_back(node->name());
        }
      }
      if (feasible.empty()) continue;
      const std::string node = feasible[rng() % feasible.size()];
      if (!plugin->Reserve(*state, *pod, node).IsSuccess()) {
        plugin->Unreserve(*state, *pod, node);
        continue;
      }
      check_disjoint("after reserving pod-" + std::to_string(p));
      {
        std::lock_guard lock(pending_mu);
        pending.erase(p);
      }
      const bool fail_binding = rng() % 4 == 0;
      const int delay_us = static_cast<int>(rng() % 2000);
      binders.emplace_back([&, state, pod, node, p, fail_binding, delay_us] {
        std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
        framework::Status s = plugin->PreBind(*state, *pod, node);
        if (!s.IsSuccess() || fail_binding) {
          plugin->Unreserve(*state, *pod, node);
          std::lock_guard lock(pending_mu);
          pending.insert(p);  // back to the queue
        } else {
          ++bound;
        }
      });
    }
    for (auto& t : binders) t.join();
    binders.clear();
    check_disjoint("after round " + std::to_string(round));
  }
  for (auto& t : binders) t.join();
  check_disjoint("at the end");
  // Something was scheduled: the run exercised the paths it checks.
  EXPECT_GT(bound.load(), kPods / 4);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ConcurrencyTest, ::testing::Range(1, 21));

}  // namespace
}  // namespace ksched::plugins

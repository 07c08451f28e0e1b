#include "pkg/dra/dra_manager.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace ksched::dra {
namespace {

std::shared_ptr<const api::ResourceClaim> Claim(
    std::string name, std::string rv, std::vector<std::string> devices = {},
    bool admin_access = false) {
  auto c = std::make_shared<api::ResourceClaim>();
  c->metadata.ns = "default";
  c->metadata.name = std::move(name);
  c->metadata.uid = "uid-" + c->metadata.name;
  c->metadata.resource_version = std::move(rv);
  if (!devices.empty()) {
    api::AllocationResult a;
    for (std::string& d : devices) {
      api::DeviceRequestAllocationResult r{.request = "req",
                                           .driver = "driver",
                                           .pool = "pool",
                                           .device = std::move(d)};
      if (admin_access) r.admin_access = true;
      a.devices.results.push_back(std::move(r));
    }
    c->status.allocation = std::move(a);
  }
  return c;
}

DeviceIdSet Ids(std::vector<std::string> devices) {
  DeviceIdSet out;
  for (std::string& d : devices) out.insert({"driver", "pool", std::move(d)});
  return out;
}

struct Recorded {
  std::string label;
  std::string old_rv, new_rv;
};

class DraManagerTest : public ::testing::Test {
 protected:
  DraManagerTest() {
    m.SetListener([this](const framework::ClusterEvent& e,
                         const framework::EventObjects& o) {
      events.push_back(
          {e.Label(), o.old_claim ? o.old_claim->metadata.resource_version : "",
           o.new_claim ? o.new_claim->metadata.resource_version : ""});
    });
  }
  DraManager m;
  std::vector<Recorded> events;
};

TEST_F(DraManagerTest, AllocatedDevicesFollowTheClaims) {
  m.UpsertResourceClaim(Claim("a", "1", {"gpu-0", "gpu-1"}));
  m.UpsertResourceClaim(Claim("b", "2"));
  EXPECT_EQ(m.ListAllAllocatedDevices(), Ids({"gpu-0", "gpu-1"}));
  // b gets allocated, a deallocated.
  m.UpsertResourceClaim(Claim("b", "3", {"gpu-2"}));
  m.UpsertResourceClaim(Claim("a", "4"));
  EXPECT_EQ(m.ListAllAllocatedDevices(), Ids({"gpu-2"}));
  m.DeleteResourceClaim("default", "b");
  EXPECT_TRUE(m.ListAllAllocatedDevices().empty());
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].label, "resource.k8s.io/ResourceClaim/Add");
  EXPECT_EQ(events[2].label, "resource.k8s.io/ResourceClaim/Update");
  EXPECT_EQ(events[2].old_rv, "2");
  EXPECT_EQ(events[2].new_rv, "3");
  EXPECT_EQ(events[4].label, "resource.k8s.io/ResourceClaim/Delete");
  EXPECT_EQ(events[4].old_rv, "3");
}

TEST_F(DraManagerTest, AdminAccessResultsTakeNoDevice) {
  m.UpsertResourceClaim(Claim("a", "1", {"gpu-0"}, /*admin_access=*/true));
  EXPECT_TRUE(m.ListAllAllocatedDevices().empty());
}

TEST_F(DraManagerTest, InFlightAllocationsCount) {
  auto c = Claim("a", "1", {"gpu-0"});
  EXPECT_FALSE(m.ClaimHasPendingAllocation("uid-a"));
  m.SignalClaimPendingAllocation("uid-a", c);
  EXPECT_TRUE(m.ClaimHasPendingAllocation("uid-a"));
  EXPECT_EQ(m.ListAllAllocatedDevices(), Ids({"gpu-0"}));
  EXPECT_TRUE(m.RemoveClaimPendingAllocation("uid-a"));
  EXPECT_FALSE(m.RemoveClaimPendingAllocation("uid-a"));
  EXPECT_TRUE(m.ListAllAllocatedDevices().empty());
}

TEST_F(DraManagerTest, AssumedClaimSurvivesOlderInformerEvents) {
  m.UpsertResourceClaim(Claim("a", "5"));
  ASSERT_TRUE(m.AssumeClaimAfterAPICall(Claim("a", "7", {"gpu-0"})).ok());
  EXPECT_EQ(m.GetResourceClaim("default", "a")->metadata.resource_version, "7");
  EXPECT_EQ(m.ListAllAllocatedDevices(), Ids({"gpu-0"}));
  // A resync of the older object, and the same version again: ignored.
  m.UpsertResourceClaim(Claim("a", "5"));
  m.UpsertResourceClaim(Claim("a", "7", {"gpu-0"}));
  EXPECT_EQ(m.GetResourceClaim("default", "a")->metadata.resource_version, "7");
  // The informer catches up with a newer one.
  m.UpsertResourceClaim(Claim("a", "8", {"gpu-0"}));
  EXPECT_EQ(m.GetResourceClaim("default", "a")->metadata.resource_version, "8");
  EXPECT_EQ(m.ListAllAllocatedDevices(), Ids({"gpu-0"}));
}

TEST_F(DraManagerTest, AssumeOlderThanStoredFails) {
  m.UpsertResourceClaim(Claim("a", "5"));
  auto r = m.AssumeClaimAfterAPICall(Claim("a", "4"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.error().message(),
      "ResourceClaim \"default/a\" is out of sync (stored: 5, assume: 4)");
  auto missing = m.AssumeClaimAfterAPICall(Claim("b", "4"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(),
            "could not find ResourceClaim \"default/b\"");
}

TEST_F(DraManagerTest, RestoreGoesBackToTheInformersObject) {
  m.UpsertResourceClaim(Claim("a", "5"));
  ASSERT_TRUE(m.AssumeClaimAfterAPICall(Claim("a", "6", {"gpu-0"})).ok());
  events.clear();
  m.AssumedClaimRestore("default", "a");
  EXPECT_EQ(m.GetResourceClaim("default", "a")->metadata.resource_version, "5");
  EXPECT_TRUE(m.ListAllAllocatedDevices().empty());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].old_rv, "6");
  EXPECT_EQ(events[0].new_rv, "5");
  // Nothing assumed: no event.
  m.AssumedClaimRestore("default", "a");
  EXPECT_EQ(events.size(), 1u);
}

TEST_F(DraManagerTest, SlicesAndClassesRaiseTheirEvents) {
  auto slice = std::make_shared<api::ResourceSlice>();
  slice->metadata.name = "s";
  m.UpsertResourceSlice(slice);
  auto first = m.ResourceSlices();
  EXPECT_EQ(first->slices().size(), 1u);
  EXPECT_EQ(m.ResourceSlices(), first) << "unchanged slices share one index";
  m.UpsertResourceSlice(slice);
  EXPECT_NE(m.ResourceSlices(), first);
  m.DeleteResourceSlice("s");
  EXPECT_TRUE(m.ResourceSlices()->slices().empty());
  auto cls = std::make_shared<api::DeviceClass>();
  cls->metadata.name = "gpu";
  m.UpsertDeviceClass(cls);
  EXPECT_EQ(m.GetDeviceClass("gpu"), cls);
  EXPECT_EQ(m.GetDeviceClass("nic"), nullptr);
  m.DeleteDeviceClass("gpu");
  std::vector<std::string> labels;
  for (const Recorded& r : events) labels.push_back(r.label);
  EXPECT_EQ(labels,
            (std::vector<std::string>{"resource.k8s.io/ResourceSlice/Add",
                                      "resource.k8s.io/ResourceSlice/Update",
                                      "resource.k8s.io/ResourceSlice/Delete",
                                      "resource.k8s.io/DeviceClass/Add",
                                      "resource.k8s.io/DeviceClass/Delete"}));
}

// The bits a cycle's allocator gets follow every change: allocations,
// in-flight claims, deallocation and a slice rebuild, without a walk over
// all claims per cycle.
TEST_F(DraManagerTest, SnapshotBitsFollowClaimsAndSlices) {
  auto slice = std::make_shared<api::ResourceSlice>();
  slice->metadata.name = "s";
  slice->spec.driver = "driver";
  slice->spec.pool.name = "pool";
  for (const char* d : {"gpu-0", "gpu-1", "gpu-2"}) {
    slice->spec.devices.push_back(api::Device{.name = d});
  }
  m.UpsertResourceSlice(slice);
  auto taken = [&] {
    DraManager::AllocationState st = m.SnapshotForAllocation();
    std::vector<bool> bits;
    for (uint32_t i = 0; i < st.slices->num_devices(); ++i) {
      bits.push_back(st.taken.Test(i));
    }
    return bits;
  };
  EXPECT_EQ(taken(), (std::vector<bool>{false, false, false}));
  m.UpsertResourceClaim(Claim("a", "1", {"gpu-1"}));
  EXPECT_EQ(taken(), (std::vector<bool>{false, true, false}));
  m.SignalClaimPendingAllocation("uid-b", Claim("b", "2", {"gpu-2"}));
  EXPECT_EQ(taken(), (std::vector<bool>{false, true, true}));
  // PreBind's written claim overlaps its in-flight entry for a moment.
  m.UpsertResourceClaim(Claim("b", "3", {"gpu-2"}));
  EXPECT_TRUE(m.RemoveClaimPendingAllocation("uid-b"));
  EXPECT_EQ(taken(), (std::vector<bool>{false, true, true}));
  m.UpsertResourceClaim(Claim("a", "4"));
  EXPECT_EQ(taken(), (std::vector<bool>{false, false, true}));
  // A new slice with gpu-2 first: the ordinals move, the bits with them.
  auto reordered = std::make_shared<api::ResourceSlice>(*slice);
  std::swap(reordered->spec.devices[0], reordered->spec.devices[2]);
  m.UpsertResourceSlice(reordered);
  EXPECT_EQ(taken(), (std::vector<bool>{true, false, false}));
  m.DeleteResourceClaim("default", "b");
  EXPECT_EQ(taken(), (std::vector<bool>{false, false, false}));
}

}  // namespace
}  // namespace ksched::dra

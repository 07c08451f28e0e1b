// Allocator tests: Kubernetes' allocator test table (allocator_kube_cases.cc)
// with each case's features, its "interrupt" subtests, and ksched's own
// checks (threads, the fully-allocated shortcut, CEL errors, ordering).
//
// The cases v1.36's table added, and those that need consumable capacity
// or binding conditions, are in allocator_kube_cases_v136.cc, which says
// which of v1.36's cases are not ported (the list-attributes-* ones) and
// why.
//
// One case runs with a difference: "unknown-allocation-mode" expects the
// error without the mode's text ("future-mode"), which ksched's API types
// do not keep for an unknown mode.
#include "pkg/dra/allocator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <thread>

#include "pkg/dra/allocator_kube_cases.h"
#include "pkg/dra/allocator_testing.h"
#include "pkg/util/fake_clock.h"

namespace ksched::dra::allocator_testing {
namespace allocator_test_detail {
namespace {

using ::testing::HasSubstr;
using Code = AllocateResult::Code;

DeviceClassLookup Lookup(const std::vector<api::DeviceClass>& classes) {
  auto shared =
      std::make_shared<std::vector<std::shared_ptr<const api::DeviceClass>>>();
  for (const api::DeviceClass& c : classes) {
    shared->push_back(std::make_shared<const api::DeviceClass>(c));
  }
  return [shared](
             std::string_view name) -> std::shared_ptr<const api::DeviceClass> {
    for (const auto& c : *shared) {
      if (c->metadata.name == name) return c;
    }
    return nullptr;
  };
}

std::shared_ptr<const SliceIndex> Index(
    const std::vector<api::ResourceSlice>& slices) {
  std::vector<std::shared_ptr<const api::ResourceSlice>> shared;
  for (const api::ResourceSlice& s : slices) {
    shared.push_back(std::make_shared<const api::ResourceSlice>(s));
  }
  return std::make_shared<const SliceIndex>(std::move(shared));
}

std::unique_ptr<Allocator> MakeAllocator(
    const Features& features, const std::vector<DeviceId>& allocated,
    const std::vector<api::DeviceClass>& classes,
    const std::vector<api::ResourceSlice>& slices,
    const SharedAllocationsById& shared) {
  return std::make_unique<Allocator>(
      features, DeviceIdSet(allocated.begin(), allocated.end()), shared,
      Lookup(classes), Index(slices), nullptr);
}

std::unique_ptr<Allocator> MakeAllocator(
    const Features& features, const std::vector<DeviceId>& allocated,
    const std::vector<api::DeviceClass>& classes,
    const std::vector<api::ResourceSlice>& slices) {
  return std::make_unique<Allocator>(
      features, DeviceIdSet(allocated.begin(), allocated.end()),
      Lookup(classes), Index(slices),
      std::make_shared<cel::dra::SelectorCache>(1));
}

std::vector<const api::ResourceClaim*> Pointers(
    const std::vector<WrapClaim>& claims) {
  std::vector<const api::ResourceClaim*> out;
  for (const WrapClaim& c : claims) out.push_back(&c);
  return out;
}

std::string DescribeAll(const std::vector<api::AllocationResult>& results) {
  std::string out;
  for (const auto& r : results) out += "\n  " + Describe(r);
  return out.empty() ? " (none)" : out;
}

// Runs one case of Kubernetes' table as its RunTestAllocator does: on
// node-1 unless the case names a node, with every share id the fixed one
// the expectations carry.
void RunKubeCase(const KubeCase& tc) {
  SharedAllocationsById shared;
  shared.shared = tc.allocated_shared;
  for (const auto& [id, consumed] : tc.allocated_capacity) {
    ConsumedCapacity capacity;
    for (const auto& [name, value] : consumed) capacity[name] = value;
    shared.capacity.emplace_back(id, std::move(capacity));
  }
  std::unique_ptr<Allocator> allocator =
      MakeAllocator(tc.features, tc.allocated, tc.classes, tc.slices, shared);
  std::vector<const api::ResourceClaim*> claims = Pointers(tc.claims);
  api::Node node = tc.node.value_or(Node(kNode1, kRegion1));
  const std::function<std::string()> fixed_share_id = [] {
    return std::string(kFixedShareID);
  };
  AllocateLimits limits;
  limits.new_share_id = &fixed_share_id;
  AllocateResult result = allocator->Allocate(node, claims, limits);

  if (tc.expect_error.empty()) {
    EXPECT_TRUE(result.code == Code::kAllocated || result.code == Code::kNoFit)
        << "unexpected error: " << result.message;
  } else {
    EXPECT_TRUE(result.code == Code::kError ||
                result.code == Code::kFailedOnNode)
        << "code " << static_cast<int>(result.code);
    EXPECT_THAT(result.message, HasSubstr(tc.expect_error));
  }
  std::vector<api::AllocationResult> got;
  if (result.code == Code::kAllocated) got = result.allocations;
  std::vector<api::AllocationResult> want;
  for (const Expected& e : tc.expect_results) want.push_back(e.value);
  EXPECT_TRUE(ConsistOf(tc.expect_results, got))
      << "got:" << DescribeAll(got) << "\nwant:" << DescribeAll(want);
  // Where counting devices decides, it decides as the search does: each on
  // an allocator of its own, so neither finds selector outcomes the other
  // evaluated.
  {
    AllocateLimits without_results = limits;
    without_results.build_results = false;
    std::unique_ptr<Allocator> counting =
        MakeAllocator(tc.features, tc.allocated, tc.classes, tc.slices, shared);
    std::unique_ptr<const CountCheck> check = counting->MakeCountCheck(claims);
    AllocateResult counted = counting->Allocate(
        node, node.metadata.name, claims, without_results, check.get());
    AllocateResult searched =
        MakeAllocator(tc.features, tc.allocated, tc.classes, tc.slices, shared)
            ->Allocate(node, claims, without_results);
    EXPECT_EQ(counted.code, searched.code) << "with the count check";
    EXPECT_EQ(counted.message, searched.message) << "with the count check";
  }
  if (tc.ksched_num_allocate_one_invocations > 0) {
    EXPECT_EQ(result.allocate_one_invocations,
              tc.ksched_num_allocate_one_invocations);
    EXPECT_LT(tc.ksched_num_allocate_one_invocations,
              tc.expect_num_allocate_one_invocations);
  } else if (tc.expect_num_allocate_one_invocations > 0) {
    EXPECT_EQ(result.allocate_one_invocations,
              tc.expect_num_allocate_one_invocations);
  }
}

std::string CaseName(const KubeCase& tc) {
  std::string name = tc.name;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

class KubeTableTest : public ::testing::TestWithParam<size_t> {};

TEST_P(KubeTableTest, Allocate) { RunKubeCase(KubeCases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Kube, KubeTableTest,
                         ::testing::Range<size_t>(0, KubeCases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return CaseName(KubeCases()[info.param]);
                         });

// The cases v1.36's table added, or that need features ksched gained with
// it (allocator_kube_cases_v136.cc).
class KubeV136TableTest : public ::testing::TestWithParam<size_t> {};

TEST_P(KubeV136TableTest, Allocate) {
  RunKubeCase(KubeCasesV136()[GetParam()]);
}

INSTANTIATE_TEST_SUITE_P(Kube, KubeV136TableTest,
                         ::testing::Range<size_t>(0, KubeCasesV136().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return CaseName(KubeCasesV136()[info.param]);
                         });

// Kubernetes' "interrupt" subtests: a search that needs ~thousands of
// steps (6 of 5 devices), stopped by a deadline or cancellation before it
// starts.
class InterruptTest : public ::testing::TestWithParam<std::string> {};

TEST_P(InterruptTest, Allocate) {
  std::unique_ptr<Allocator> allocator = MakeAllocator(
      NoFeatures(), {}, {Class(kClassA, kDriverA)},
      {SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1),
                        Device(kDevice2), Device(kDevice3), Device(kDevice4),
                        Device("device-5"))});
  WrapClaim claim = ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 6));
  std::vector<const api::ResourceClaim*> claims = {&claim};
  util::FakeClock clock;
  std::atomic<bool> canceled = false;
  AllocateLimits limits;
  limits.clock = &clock;
  const std::string& name = GetParam();
  if (name == "timeout") {
    limits.deadline = clock.Now() + std::chrono::nanoseconds(1);
    clock.Advance(std::chrono::nanoseconds(1));
  } else if (name == "deadline") {
    limits.deadline = clock.Now();
  } else if (name == "cancel") {
    canceled = true;
    limits.canceled = &canceled;
  }
  AllocateResult result =
      allocator->Allocate(Node(kNode1, kRegion1), claims, limits);
  if (name == "off") {
    EXPECT_EQ(result.code, Code::kNoFit) << result.message;
  } else if (name == "cancel") {
    EXPECT_EQ(result.code, Code::kCanceled);
    EXPECT_EQ(result.message, "filter operation aborted: context canceled");
  } else {
    EXPECT_EQ(result.code, Code::kTimedOut);
    EXPECT_EQ(result.message,
              "filter operation aborted: context deadline exceeded");
  }
}

INSTANTIATE_TEST_SUITE_P(Kube, InterruptTest,
                         ::testing::Values("off", "timeout", "deadline",
                                           "cancel"));

// A clock that moves one microsecond each time it is read.
class TickingClock final : public util::Clock {
 public:
  TimePoint Now() const override {
    return TimePoint(Duration(std::chrono::microseconds(++ticks_)));
  }
  WallTime WallNow() const override { return WallTime(); }

 private:
  mutable std::atomic<int64_t> ticks_ = 0;
};

TEST(AllocatorTest, DeadlinePassingMidSearchStopsIt) {
  std::unique_ptr<Allocator> allocator = MakeAllocator(
      NoFeatures(), {}, {Class(kClassA, kDriverA)},
      {SliceWithMultipleDevices(kSlice1, kNode1, kPool1, kDriverA, 10)});
  // Two requests that together want one device more than the node has:
  // each alone could be met, so only trying the orders finds out.
  WrapClaim claim = ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 5),
                                      Request(kReq1, kClassA, 6));
  std::vector<const api::ResourceClaim*> claims = {&claim};
  TickingClock clock;
  AllocateLimits limits;
  limits.clock = &clock;
  limits.deadline = clock.Now() + std::chrono::microseconds(100);
  AllocateResult result =
      allocator->Allocate(Node(kNode1, kRegion1), claims, limits);
  EXPECT_EQ(result.code, Code::kTimedOut);
  EXPECT_GT(result.allocate_one_invocations, 50);
  EXPECT_LT(result.allocate_one_invocations, 150);
}

// A timeout is counted from when the search starts (Filter passes one so
// that nodes the count check answers cost no clock read): a clock already
// far along does not time the search out, and a search that runs past it
// stops as one past a deadline does.
TEST(AllocatorTest, TimeoutCountsFromTheSearchStart) {
  std::unique_ptr<Allocator> allocator = MakeAllocator(
      NoFeatures(), {}, {Class(kClassA, kDriverA)},
      {SliceWithMultipleDevices(kSlice1, kNode1, kPool1, kDriverA, 10)});
  WrapClaim fits = ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 2));
  WrapClaim too_many = ClaimWithRequests(
      kClaim0, {}, Request(kReq0, kClassA, 5), Request(kReq1, kClassA, 6));
  TickingClock clock;
  for (int i = 0; i < 1000; ++i) clock.Now();  // 1 ms gone before any search
  AllocateLimits limits;
  limits.clock = &clock;
  limits.timeout = std::chrono::microseconds(100);

  std::vector<const api::ResourceClaim*> claims = {&fits};
  AllocateResult result =
      allocator->Allocate(Node(kNode1, kRegion1), claims, limits);
  EXPECT_EQ(result.code, Code::kAllocated) << result.message;

  claims = {&too_many};
  result = allocator->Allocate(Node(kNode1, kRegion1), claims, limits);
  EXPECT_EQ(result.code, Code::kTimedOut);
  EXPECT_EQ(result.message,
            "filter operation aborted: context deadline exceeded");
  EXPECT_GT(result.allocate_one_invocations, 50);
  EXPECT_LT(result.allocate_one_invocations, 150);
}

// A request for more devices than the node has free and matching fails at
// once: kube's allocator tries every order of the free devices first
// (7! orders and more for 8 GPUs of which one is taken), with the same
// answer.
TEST(AllocatorTest, FewerCandidatesThanRequestedFailWithoutASearch) {
  std::unique_ptr<Allocator> allocator = MakeAllocator(
      NoFeatures(), {}, {Class(kClassA, kDriverA)},
      {SliceWithMultipleDevices(kSlice1, kNode1, kPool1, kDriverA, 8)});
  WrapClaim claim = ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 9));
  std::vector<const api::ResourceClaim*> claims = {&claim};
  AllocateResult result =
      allocator->Allocate(Node(kNode1, kRegion1), claims, AllocateLimits{});
  EXPECT_EQ(result.code, Code::kNoFit);
  EXPECT_EQ(result.allocate_one_invocations, 1);

  // Eight asked for and eight there: the search runs and takes them all.
  WrapClaim eight = ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 8));
  claims = {&eight};
  result =
      allocator->Allocate(Node(kNode1, kRegion1), claims, AllocateLimits{});
  EXPECT_EQ(result.code, Code::kAllocated);
}

// Within one request the search tries each set of devices once (v1.36's
// combinations), not each order of it. Four devices, two of value A and
// two of B, and three that must share a value: enough candidates, so the
// search runs, and fails. In steps: the start, then from A1 (A2, a dead
// end), A2 (nothing after it fits), B1 (B2, a dead end) and B2: 7. v1.35
// tried A1 after A2 and B1 after B2 too, 9 steps.
TEST(AllocatorTest, WithinARequestEachSetOfDevicesIsTriedOnce) {
  auto device = [](const std::string& name, const std::string& value) {
    return Device(name, {}, {{"kind", StringValue(value)}});
  };
  auto allocator =
      MakeAllocator(NoFeatures(), {}, {Class(kClassA, kDriverA)},
                    {SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                                      device("a1", "A"), device("a2", "A"),
                                      device("b1", "B"), device("b2", "B"))});
  api::DeviceConstraint same_kind;
  same_kind.match_attribute = std::string(kDriverA) + "/kind";
  WrapClaim claim =
      ClaimWithRequests(kClaim0, {same_kind}, Request(kReq0, kClassA, 3));
  std::vector<const api::ResourceClaim*> claims = {&claim};
  AllocateResult result = allocator->Allocate(Node(kNode1, kRegion1), claims);
  EXPECT_EQ(result.code, Code::kNoFit) << result.message;
  EXPECT_EQ(result.allocate_one_invocations, 7);
}

// A device whose version attribute is not a semantic version fails the
// first selector that looks at it, in Kubernetes' words.
TEST(AllocatorTest, BadVersionAttributeIsTheSelectorsRuntimeError) {
  api::DeviceAttribute bad;
  bad.version_value = "v1";
  auto slices = std::vector<api::ResourceSlice>{
      SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                       Device(kDevice1, {}, AttributeMap{{"x", bad}}))};
  api::DeviceClass gpu = Class("gpu", kDriverA);
  WrapClaim claim = ClaimWithRequest(kClaim0, kReq0, "gpu");
  claim.metadata.ns = "default";
  std::vector<const api::ResourceClaim*> claims = {&claim};

  AllocateResult result = MakeAllocator(NoFeatures(), {}, {gpu}, slices)
                              ->Allocate(Node(kNode1, kRegion1), claims);
  EXPECT_EQ(result.code, Code::kError);
  EXPECT_THAT(result.message,
              ::testing::StartsWith("class gpu: selector #0: CEL runtime "
                                    "error: attribute x: parse semantic "
                                    "version: "));

  // Without class selectors, the claim's selector is the first to look.
  gpu.spec.selectors.clear();
  claim.spec.devices.requests[0].exactly->selectors = {
      CelSelector("device.driver == \"driver-a\"")};
  result = MakeAllocator(NoFeatures(), {}, {gpu}, slices)
               ->Allocate(Node(kNode1, kRegion1), claims);
  EXPECT_EQ(result.code, Code::kError);
  EXPECT_THAT(result.message,
              ::testing::StartsWith("claim default/claim-0: selector #0: CEL "
                                    "runtime error: attribute x: parse "
                                    "semantic version: "));

  // No selector at all: nothing evaluates the device, so nothing fails.
  claim.spec.devices.requests[0].exactly->selectors.clear();
  result = MakeAllocator(NoFeatures(), {}, {gpu}, slices)
               ->Allocate(Node(kNode1, kRegion1), claims);
  EXPECT_EQ(result.code, Code::kAllocated) << result.message;
}

// A claim that never went through the API server's validation (which
// refuses a count below one) may ask for -2 or 0 devices: as in kube's
// allocator, such a request is done before it takes any device. Kube's
// would then panic sizing the claim's result for a negative total; here
// the claim gets what its other requests get, and nothing crashes.
TEST(AllocatorTest, CountBelowOneTakesNoDevice) {
  auto slices = std::vector<api::ResourceSlice>{SliceWithDevices(
      kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1), Device(kDevice2))};
  auto allocator =
      MakeAllocator(NoFeatures(), {}, {Class(kClassA, kDriverA)}, slices);
  api::Node node = Node(kNode1, kRegion1);
  for (int64_t count : {int64_t{-2}, int64_t{0}}) {
    WrapClaim alone =
        Claim(kClaim0).WithRequests(Request(kReq0, kClassA, count));
    std::vector<const api::ResourceClaim*> claims = {&alone};
    AllocateResult result = allocator->Allocate(node, claims);
    ASSERT_EQ(result.code, Code::kAllocated) << count << ": " << result.message;
    ASSERT_EQ(result.allocations.size(), 1u);
    EXPECT_TRUE(result.allocations[0].devices.results.empty()) << count;

    WrapClaim with_other = Claim(kClaim0).WithRequests(
        Request(kReq0, kClassA, count), Request(kReq1, kClassA, 1));
    claims = {&with_other};
    result = allocator->Allocate(node, claims);
    ASSERT_EQ(result.code, Code::kAllocated) << count << ": " << result.message;
    ASSERT_EQ(result.allocations[0].devices.results.size(), 1u) << count;
    EXPECT_EQ(result.allocations[0].devices.results[0].request, kReq1);
  }
}

// A slice whose devices are all allocated is skipped without evaluating a
// selector for ExactCount requests, as the per-device in-use check would;
// All and admin-access requests still evaluate (and fail) there.
TEST(AllocatorTest, FullyAllocatedSliceIsSkippedOnlyWhereKubeSkipsIt) {
  api::DeviceAttribute bad;
  bad.version_value = "v1";
  auto slices = std::vector<api::ResourceSlice>{
      SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                       Device(kDevice1, {}, AttributeMap{{"x", bad}}),
                       Device(kDevice2, {}, AttributeMap{{"x", bad}}))};
  std::vector<DeviceId> allocated = {{kDriverA, kPool1, kDevice1},
                                     {kDriverA, kPool1, kDevice2}};
  Features features = NoFeatures();
  features.admin_access = true;
  auto allocator =
      MakeAllocator(features, allocated, {Class(kClassA, kDriverA)}, slices);
  api::Node node = Node(kNode1, kRegion1);

  WrapClaim exact = ClaimWithRequest(kClaim0, kReq0, kClassA);
  std::vector<const api::ResourceClaim*> claims = {&exact};
  AllocateResult result = allocator->Allocate(node, claims);
  EXPECT_EQ(result.code, Code::kNoFit) << result.message;

  WrapClaim all = Claim(kClaim0).WithRequests(AllDeviceRequest(kReq0, kClassA));
  claims = {&all};
  result = allocator->Allocate(node, claims);
  EXPECT_EQ(result.code, Code::kError);
  EXPECT_THAT(result.message, HasSubstr("parse semantic version"));

  WrapClaim admin = ClaimWithRequest(kClaim0, kReq0, kClassA);
  admin.spec.devices.requests[0].exactly->admin_access = true;
  claims = {&admin};
  result = allocator->Allocate(node, claims);
  EXPECT_EQ(result.code, Code::kError);
  EXPECT_THAT(result.message, HasSubstr("parse semantic version"));
}

// Cycles share a slice index, and with it each selector's results on its
// devices: a later cycle gets the same answers without evaluating again,
// and a device that failed to evaluate fails again (errors are not kept).
TEST(AllocatorTest, SelectorResultsAreSharedAcrossCyclesOfOneIndex) {
  api::DeviceAttribute healthy;
  healthy.bool_value = true;
  auto index = Index({SliceWithDevices(
      kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1),
      Device(kDevice2, {}, AttributeMap{{"healthy", healthy}}))});
  api::DeviceClass cls = Class(kClassA, kDriverA);
  WrapClaim claim = ClaimWithRequest(kClaim0, kReq0, kClassA);
  claim.metadata.ns = "default";
  claim.spec.devices.requests[0].exactly->selectors = {
      CelSelector("device.attributes[\"driver-a\"].healthy")};
  std::vector<const api::ResourceClaim*> claims = {&claim};
  auto selectors = std::make_shared<cel::dra::SelectorCache>(8);
  for (int cycle = 0; cycle < 3; ++cycle) {
    Allocator allocator(NoFeatures(), DeviceIdSet{}, Lookup({cls}), index,
                        selectors);
    AllocateResult r = allocator.Allocate(Node(kNode1, kRegion1), claims);
    EXPECT_EQ(r.code, Code::kError) << "cycle " << cycle;
    EXPECT_EQ(r.message,
              "claim default/claim-0: selector #0: CEL runtime error: no "
              "such key: healthy");
  }
  // With device-1 taken, device-2 is evaluated, matches, and is given in
  // every cycle, from the table after the first.
  for (int cycle = 0; cycle < 3; ++cycle) {
    Allocator allocator(NoFeatures(), DeviceIdSet{{kDriverA, kPool1, kDevice1}},
                        Lookup({cls}), index, selectors);
    AllocateResult r = allocator.Allocate(Node(kNode1, kRegion1), claims);
    ASSERT_EQ(r.code, Code::kAllocated) << r.message;
    EXPECT_EQ(r.allocations[0].devices.results[0].device, kDevice2);
  }
  const SliceIndex::SelectorResults* table =
      index->Selector("device.attributes[\"driver-a\"].healthy", *selectors);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->matches[0].load(), 0) << "device-1 failed: not kept";
  EXPECT_EQ(table->matches[1].load(), 2) << "device-2 matched: kept";
}

// Diagnose says, for people, which request lacked devices.
TEST(AllocatorTest, DiagnoseNamesTheRequestThatLacksDevices) {
  api::DeviceAttribute big;
  big.int_value = 80;
  api::DeviceAttribute small;
  small.int_value = 40;
  auto slices = std::vector<api::ResourceSlice>{
      SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                       Device(kDevice1, {}, AttributeMap{{"memory", big}}),
                       Device(kDevice2, {}, AttributeMap{{"memory", big}}),
                       Device(kDevice3, {}, AttributeMap{{"memory", small}}))};
  api::DeviceClass cls = Class(kClassA, kDriverA);
  WrapClaim claim = ClaimWithRequest(kClaim0, kReq0, kClassA);
  claim.metadata.ns = "ml";
  claim.spec.devices.requests[0].exactly->count = 2;
  claim.spec.devices.requests[0].exactly->selectors = {
      CelSelector("device.attributes[\"driver-a\"].memory >= 64")};
  std::vector<const api::ResourceClaim*> claims = {&claim};
  const api::Node node = Node(kNode1, kRegion1);

  auto free = MakeAllocator(NoFeatures(), {}, {cls}, slices);
  EXPECT_EQ(free->Diagnose(node, claims), "") << "it fits";

  auto one_taken = MakeAllocator(NoFeatures(), {{kDriverA, kPool1, kDevice1}},
                                 {cls}, slices);
  EXPECT_EQ(one_taken->Allocate(node, claims).code, Code::kNoFit);
  EXPECT_EQ(one_taken->Diagnose(node, claims),
            "claim ml/claim-0, request req-0: 1 of 2 matching devices free, "
            "2 needed");

  claim.spec.devices.requests[0].exactly->selectors = {
      CelSelector("device.attributes[\"driver-a\"].memory >= 100")};
  EXPECT_EQ(free->Diagnose(node, claims),
            "claim ml/claim-0, request req-0: no device matches class class-a "
            "and the request's selectors (3 devices on the node)");

  // A node without slices publishes nothing.
  auto none = MakeAllocator(NoFeatures(), {}, {cls}, {});
  EXPECT_EQ(none->Diagnose(node, claims),
            "claim ml/claim-0, request req-0: no device matches (the node "
            "publishes no devices)");
}

// explain's words for devices that match but cannot serve: a counter set
// spent by a whole GPU, a taint the request does not tolerate, a shared
// device's capacity spent by other shares.
TEST(AllocatorTest, DiagnoseSaysWhyFreeDevicesCannotServe) {
  Features features = NoFeatures();
  features.partitionable_devices = true;
  features.device_taints = true;
  features.consumable_capacity = true;
  const api::Node node = Node(kNode1, kRegion1);
  api::DeviceClass cls = Class(kClassA, kDriverA);

  // gpu-0 whole is allocated; its 1g partition draws on the same counters.
  WrapSlice counters = SliceWithCounterSets(
      "counters", kNode1, ResourcePool(kPool1, 2), kDriverA,
      CounterSet("gpu-0-counters", {{"memory", Q("80Gi")}}));
  WrapSlice partitions = SliceWithDevices(
      "devices", kNode1, ResourcePool(kPool1, 2), kDriverA,
      Device("gpu-0", {}, {{"profile", StringValue("full")}})
          .WithDeviceCounterConsumption(DeviceCounterConsumption(
              "gpu-0-counters", {{"memory", Q("80Gi")}})),
      Device("gpu-0-1g", {}, {{"profile", StringValue("1g")}})
          .WithDeviceCounterConsumption(DeviceCounterConsumption(
              "gpu-0-counters", {{"memory", Q("10Gi")}})));
  partitions.spec.per_device_node_selection.reset();
  WrapClaim one_g = ClaimWithRequests(
      kClaim0, {},
      Request(kReq0, kClassA, 1,
              CelSelector("device.attributes[\"driver-a\"].profile == "
                          "\"1g\"")));
  std::vector<const api::ResourceClaim*> claims = {&one_g};
  auto spent = MakeAllocator(features, {{kDriverA, kPool1, "gpu-0"}}, {cls},
                             {counters, partitions});
  EXPECT_EQ(spent->Allocate(node, claims).code, Code::kNoFit);
  EXPECT_EQ(spent->Diagnose(node, claims),
            "claim claim-0, request req-0: 0 of 1 matching devices free, 1 "
            "needed; counter set gpu-0-counters: 80Gi of 80Gi memory in use, "
            "10Gi needed");

  // A tainted device.
  api::DeviceTaint taint;
  taint.key = "example.com/unhealthy";
  taint.value = "ecc";
  taint.effect = api::DeviceTaintEffect::kNoSchedule;
  auto tainted =
      MakeAllocator(features, {}, {cls},
                    {SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                                      Device("gpu-1").WithTaints(taint))});
  WrapClaim any = ClaimWithRequest(kClaim0, kReq0, kClassA);
  claims = {&any};
  EXPECT_EQ(tainted->Diagnose(node, claims),
            "claim claim-0, request req-0: 0 of 1 matching devices free, 1 "
            "needed; gpu-1: taint example.com/unhealthy=ecc:NoSchedule not "
            "tolerated");

  // A NIC with 90Gi of its 100Gi bandwidth taken by other shares.
  WrapDevice nic = Device("nic-0", QuantityMap{{"bandwidth", Q("100Gi")}})
                       .WithAllowMultipleAllocations();
  SharedAllocationsById shared;
  shared.shared.push_back({kDriverA, kPool1, "nic-0"});
  shared.capacity.push_back(
      {{kDriverA, kPool1, "nic-0"}, {{"bandwidth", Q("90Gi")}}});
  auto busy = MakeAllocator(
      features, {}, {cls},
      {SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA, nic)}, shared);
  WrapClaim twenty = ClaimWithRequest(kClaim0, kReq0, kClassA);
  twenty.spec.devices.requests[0].exactly->capacity =
      api::CapacityRequirements{{{"bandwidth", Q("20Gi")}}};
  claims = {&twenty};
  EXPECT_EQ(busy->Allocate(node, claims).code, Code::kNoFit);
  EXPECT_EQ(busy->Diagnose(node, claims),
            "claim claim-0, request req-0: 0 of 1 matching devices free, 1 "
            "needed; nic-0: bandwidth 90Gi of 100Gi consumed, 20Gi requested");
  // 10Gi still fits beside the others.
  twenty.spec.devices.requests[0].exactly->capacity =
      api::CapacityRequirements{{{"bandwidth", Q("10Gi")}}};
  EXPECT_EQ(busy->Allocate(node, claims).code, Code::kAllocated);
}

// Kubernetes keys the counters a search consumes by pool *name*: two
// drivers' pools of one name draw on each other's counters. Pools whose
// name is their own keep their counters as arrays; both ways give kube's
// answers.
TEST(AllocatorTest, PoolsOfOneNameShareCountersAsKubeKeysThem) {
  Features features = NoFeatures();
  features.partitionable_devices = true;
  const api::Node node = Node(kNode1, kRegion1);
  auto slices_for = [](const char* driver, const char* pool) {
    return std::vector<api::ResourceSlice>{
        SliceWithCounterSets(std::string(driver) + "-counters", kNode1,
                             ResourcePool(pool, 2), driver,
                             CounterSet("cs", {{"memory", Q("8Gi")}})),
        SliceWithDevices(
            std::string(driver) + "-devices", kNode1, ResourcePool(pool, 2),
            driver,
            Device("dev", {}, {})
                .WithDeviceCounterConsumption(
                    DeviceCounterConsumption("cs", {{"memory", Q("6Gi")}})))};
  };
  WrapClaim both = ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1),
                                     Request(kReq1, kClassB, 1));
  std::vector<const api::ResourceClaim*> claims = {&both};
  const std::vector<api::DeviceClass> classes = {Class(kClassA, kDriverA),
                                                 Class(kClassB, kDriverB)};
  std::vector<api::ResourceSlice> one_name = slices_for(kDriverA, kPool1);
  for (api::ResourceSlice& s : slices_for(kDriverB, kPool1)) {
    one_name.push_back(std::move(s));
  }
  for (api::ResourceSlice& s : one_name) {
    s.spec.per_device_node_selection.reset();
  }
  // 6Gi + 6Gi of "cs" in pool-1 is more than its 8Gi.
  EXPECT_EQ(MakeAllocator(features, {}, classes, one_name)
                ->Allocate(node, claims)
                .code,
            Code::kNoFit);

  std::vector<api::ResourceSlice> two_names = slices_for(kDriverA, kPool1);
  for (api::ResourceSlice& s : slices_for(kDriverB, kPool2)) {
    two_names.push_back(std::move(s));
  }
  for (api::ResourceSlice& s : two_names) {
    s.spec.per_device_node_selection.reset();
  }
  AllocateResult fits =
      MakeAllocator(features, {}, classes, two_names)->Allocate(node, claims);
  ASSERT_EQ(fits.code, Code::kAllocated) << fits.message;
  ASSERT_EQ(fits.allocations.size(), 1u);
  EXPECT_EQ(fits.allocations[0].devices.results.size(), 2u);

  // An allocated device's use counts: with driver-a's dev taken, driver-b's
  // pool-2 still has its own 8Gi.
  WrapClaim b_only = ClaimWithRequests(kClaim1, {}, Request(kReq0, kClassB, 1));
  claims = {&b_only};
  EXPECT_EQ(
      MakeAllocator(features, {{kDriverA, kPool1, "dev"}}, classes, two_names)
          ->Allocate(node, claims)
          .code,
      Code::kAllocated);
  EXPECT_EQ(
      MakeAllocator(features, {{kDriverB, kPool2, "dev"}}, classes, two_names)
          ->Allocate(node, claims)
          .code,
      Code::kNoFit);
}

// Pools are searched in (driver, pool) order and slices by name, whatever
// order the slices come in.
TEST(AllocatorTest, PoolsInDriverAndPoolOrder) {
  auto slices = std::vector<api::ResourceSlice>{
      SliceWithOneDevice("b", kNode1, kPool2, kDriverA),
      SliceWithOneDevice("c", kNode1, kPool1, kDriverB),
      SliceWithOneDevice("a", kNodeSelectionAll, kPool3, kDriverA)};
  api::DeviceClass any_driver = Class(kClassA, kDriverA);
  any_driver.spec.selectors.clear();
  auto allocator = MakeAllocator(NoFeatures(), {}, {any_driver}, slices);
  WrapClaim claim = ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 3));
  std::vector<const api::ResourceClaim*> claims = {&claim};
  AllocateResult result = allocator->Allocate(Node(kNode1, kRegion1), claims);
  ASSERT_EQ(result.code, Code::kAllocated) << result.message;
  std::vector<std::string> order;
  for (const auto& r : result.allocations[0].devices.results) {
    order.push_back(r.driver + "/" + r.pool);
  }
  EXPECT_THAT(order,
              ::testing::ElementsAre("driver-a/pool-2", "driver-a/pool-3",
                                     "driver-b/pool-1"));
}

TEST(AllocatorTest, NodeSelectorThatDoesNotParseFailsTheAttempt) {
  api::NodeSelector selector = NodeLabelSelector(kRegionKey, kRegion1);
  selector.node_selector_terms[0].match_expressions[0].op =
      api::NodeSelectorOperator::kOther;
  auto allocator =
      MakeAllocator(NoFeatures(), {}, {Class(kClassA, kDriverA)},
                    {SliceWithOneDevice(kSlice1, selector, kPool1, kDriverA)});
  WrapClaim claim = ClaimWithRequest(kClaim0, kReq0, kClassA);
  std::vector<const api::ResourceClaim*> claims = {&claim};
  AllocateResult result = allocator->Allocate(Node(kNode1, kRegion1), claims);
  EXPECT_EQ(result.code, Code::kError);
  EXPECT_THAT(result.message,
              ::testing::StartsWith("gather pool information: failed to "
                                    "perform node selection for slice "
                                    "slice-1: failed to parse node selector"));
}

TEST(SliceIndexTest, NodeSlicesAndClusterWideSlicesAreSeparate) {
  auto index =
      Index({SliceWithOneDevice("s3", kNode2, kPool2, kDriverA),
             SliceWithOneDevice("s1", kNode1, kPool1, kDriverA),
             SliceWithOneDevice("s2", kNodeSelectionAll, kPool3, kDriverA),
             SliceWithOneDevice("s0", kNode1, kPool1, kDriverB)});
  ASSERT_EQ(index->slices().size(), 4u);
  EXPECT_EQ(index->slices()[0]->metadata.name, "s0");
  EXPECT_THAT(index->SlicesOnNode(kNode1), ::testing::ElementsAre(0u, 1u));
  EXPECT_THAT(index->SlicesOnNode(kNode2), ::testing::ElementsAre(3u));
  EXPECT_THAT(index->SlicesOnNode("node-3"), ::testing::IsEmpty());
  EXPECT_THAT(index->ClusterWideSlices(), ::testing::ElementsAre(2u));
  EXPECT_EQ(index->num_pools(), 4u);
}

// Many threads allocating on different nodes of one Allocator get what
// one thread gets, node by node.
TEST(AllocatorTest, ConcurrentAllocateMatchesSerial) {
  constexpr int kNodes = 40;
  constexpr int kDevicesPerNode = 6;
  std::mt19937 rng(42);
  std::vector<api::ResourceSlice> slices;
  std::vector<DeviceId> allocated;
  for (int n = 0; n < kNodes; ++n) {
    std::string node = "node-" + std::to_string(n);
    WrapSlice s = Slice("slice-" + std::to_string(n), node, node, kDriverA);
    for (int d = 0; d < kDevicesPerNode; ++d) {
      api::DeviceAttribute memory;
      memory.int_value = static_cast<int64_t>(rng() % 4) * 8;
      api::DeviceAttribute numa;
      numa.int_value = static_cast<int64_t>(rng() % 2);
      WrapDevice device =
          Device("gpu-" + std::to_string(d), {},
                 AttributeMap{{"memory", memory}, {"numa", numa}});
      s.spec.devices.push_back(device);
      if (rng() % 3 == 0) allocated.push_back({kDriverA, node, device.name});
    }
    slices.push_back(s);
  }
  // Devices every node sees (without the attributes the selectors read,
  // which would be a CEL error: they carry them).
  WrapSlice shared = SliceWithMultipleDevices("shared", kNodeSelectionAll,
                                              "shared-pool", kDriverA, 4);
  for (api::Device& d : shared.spec.devices) {
    api::DeviceAttribute zero;
    zero.int_value = 0;
    d.attributes.Set("memory", zero);
    d.attributes.Set("numa", zero);
  }
  slices.push_back(shared);
  Features features = NoFeatures();
  features.prioritized_list = true;
  features.admin_access = true;
  auto allocator =
      MakeAllocator(features, allocated, {Class(kClassA, kDriverA)}, slices);

  const std::string numa = std::string(kDriverA) + "/numa";
  WrapClaim big =
      Claim(kClaim0)
          .WithRequests(Request(kReq0, kClassA, 2,
                                CelSelector("device.attributes[\"driver-a\"]"
                                            ".memory >= 16")),
                        RequestWithPrioritizedList(
                            kReq1,
                            SubRequest(kSubReq0, kClassA, 3,
                                       CelSelector("device.attributes[\"dr"
                                                   "iver-a\"].numa == 1")),
                            SubRequest(kSubReq1, kClassA, 1)))
          .WithConstraints(api::DeviceConstraint{{kReq0}, numa, {}});
  WrapClaim small = ClaimWithRequest(kClaim1, kReq0, kClassA);
  std::vector<const api::ResourceClaim*> claims = {&big, &small};

  std::vector<api::Node> nodes;
  for (int n = 0; n < kNodes; ++n) {
    nodes.push_back(Node("node-" + std::to_string(n), kRegion1));
  }
  std::vector<AllocateResult> serial;
  for (const api::Node& node : nodes) {
    serial.push_back(allocator->Allocate(node, claims));
  }
  int allocated_nodes = 0;
  for (const AllocateResult& r : serial) {
    ASSERT_NE(r.code, Code::kError) << r.message;
    allocated_nodes += r.code == Code::kAllocated;
  }
  EXPECT_GT(allocated_nodes, 0);
  EXPECT_LT(allocated_nodes, kNodes);

  // A fresh allocator for the parallel run, so its lazily computed state is
  // built by racing threads.
  auto parallel_allocator =
      MakeAllocator(features, allocated, {Class(kClassA, kDriverA)}, slices);
  constexpr int kThreads = 8;
  std::vector<std::vector<AllocateResult>> parallel(
      kThreads, std::vector<AllocateResult>(kNodes));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<int> order(kNodes);
      for (int n = 0; n < kNodes; ++n) order[n] = n;
      std::shuffle(order.begin(), order.end(), std::mt19937(t));
      for (int n : order) {
        parallel[t][n] = parallel_allocator->Allocate(nodes[n], claims);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int n = 0; n < kNodes; ++n) {
      EXPECT_EQ(parallel[t][n].code, serial[n].code) << "node " << n;
      EXPECT_EQ(parallel[t][n].allocations, serial[n].allocations)
          << "node " << n;
      EXPECT_EQ(parallel[t][n].message, serial[n].message) << "node " << n;
    }
  }
}

// scheduler_perf's DRA shape: 500 nodes with 8 devices each, one claim
// per pod. Each pod is a cycle (a new Allocator over the devices taken so
// far) that filters every node, then takes the first fit. Run by hand:
// --gtest_also_run_disabled_tests --gtest_filter=*Throughput*
TEST(AllocatorTest, DISABLED_Throughput) {
  constexpr int kNodes = 500;
  constexpr int kDevices = 8;
  constexpr int kPods = 3000;
  std::vector<api::ResourceSlice> slices;
  std::vector<api::Node> nodes;
  for (int n = 0; n < kNodes; ++n) {
    std::string node = "node-" + std::to_string(n);
    nodes.push_back(Node(node, kRegion1));
    slices.push_back(SliceWithMultipleDevices("slice-" + node, node, node,
                                              kDriverA, kDevices));
  }
  auto index = Index(slices);
  auto lookup = Lookup({Class(kClassA, kDriverA)});
  auto selectors = std::make_shared<cel::dra::SelectorCache>();
  WrapClaim claim = ClaimWithRequest(kClaim0, kReq0, kClassA);
  std::vector<const api::ResourceClaim*> claims = {&claim};
  DeviceIdSet allocated;
  auto start = std::chrono::steady_clock::now();
  int64_t fits = 0;
  for (int pod = 0; pod < kPods; ++pod) {
    Allocator allocator(NoFeatures(), allocated, lookup, index, selectors);
    std::optional<AllocateResult> chosen;
    for (const api::Node& node : nodes) {
      AllocateResult r = allocator.Allocate(node, claims);
      if (r.code != Code::kAllocated) continue;
      ++fits;
      if (!chosen) chosen = std::move(r);
    }
    ASSERT_TRUE(chosen.has_value());
    for (const auto& d : chosen->allocations[0].devices.results) {
      allocated.insert(DeviceId{d.driver, d.pool, d.device});
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("%d pods x %d nodes: %.3f s, %.0f pods/s, %.2f us/Allocate\n",
              kPods, kNodes, seconds, kPods / seconds,
              seconds * 1e6 / (double(kPods) * kNodes));
  EXPECT_GT(fits, 0);
}

}  // namespace
}  // namespace allocator_test_detail
}  // namespace ksched::dra::allocator_testing

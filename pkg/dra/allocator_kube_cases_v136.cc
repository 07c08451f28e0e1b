// The cases of Kubernetes' v1.36 allocator test table
// (allocatortesting.TestAllocator) that allocator_kube_cases.cc lacks,
// case by case with kube's names, in the order of their names.
//
// Not ported: the cases that need the DRAListTypeAttributes feature
// (list-valued device attributes in match and distinct constraints), which
// ksched does not build:
//   list-attributes-disabled-distinct-constraint-with-lists
//   list-attributes-disabled-match-constraint-with-lists
//   list-attributes-distinct-constaint-with-empty-or-unknown-type
//   list-attributes-distinct-constraint-list-of-bool-values-all-distinct
//   list-attributes-distinct-constraint-list-of-int-values-all-distinct
//   list-attributes-distinct-constraint-list-of-string-values-all-distinct
//   list-attributes-distinct-constraint-list-of-string-values-with-common-elements
//   list-attributes-distinct-constraint-list-of-version-values-all-distinct
//   list-attributes-distinct-constraint-mixed-scalar-and-list-all-distinct
//   list-attributes-distinct-constraint-mixed-scalar-and-list-with-common-elements
//   list-attributes-distinct-constraint-scalar-string-values-all-distinct
//   list-attributes-distinct-constraint-scalar-string-values-not-distinct
//   list-attributes-match-constaint-list-of-bool-values-with-common-elements
//   list-attributes-match-constaint-list-of-int-values-with-common-elements
//   list-attributes-match-constaint-list-of-string-values-with-common-elements
//   list-attributes-match-constaint-list-of-string-values-with-partially-common-elements
//   list-attributes-match-constaint-list-of-string-values-without-common-elements
//   list-attributes-match-constaint-list-of-version-values-with-common-elements
//   list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-common-elements
//   list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-partially-common-elements
//   list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-without-common-elements
//   list-attributes-match-constaint-scalar-string-values
//   list-attributes-match-constaint-with-empty-or-unknown-type
//
// expect_num_allocate_one_invocations is the count kube's table expects of
// its best allocator (expectNumAllocateOneInvocations), not the override
// for its stable one.
#include <initializer_list>

#include "pkg/dra/allocator_kube_cases.h"

namespace ksched::dra::allocator_testing {
namespace allocator_kube_cases_v136_detail {
namespace {

// A Features value with only the named ones on (kube's Features{...}).
Features FeaturesOn(std::initializer_list<bool Features::*> on) {
  Features f = NoFeatures();
  for (bool Features::*member : on) f.*member = true;
  return f;
}

// kube's resource.NewQuantity(value, resource.BinarySI).
api::Quantity NewQuantity(int64_t value) {
  return api::Quantity::FromValue(value, api::Quantity::Format::kBinarySI);
}

}  // namespace
}  // namespace allocator_kube_cases_v136_detail

const std::vector<KubeCase>& KubeCasesV136() {
  using namespace allocator_kube_cases_v136_detail;
  constexpr auto kPrioritizedList = &Features::prioritized_list;
  constexpr auto kPartitionableDevices = &Features::partitionable_devices;
  constexpr auto kDeviceTaints = &Features::device_taints;
  constexpr auto kConsumableCapacity = &Features::consumable_capacity;
  constexpr auto kDeviceBindingAndStatus = &Features::device_binding_and_status;

  const std::string string_attribute =
      std::string(kDriverA) + "/stringAttribute";
  const std::string int_attribute = std::string(kDriverA) + "/numa";
  const std::string bool_attribute = std::string(kDriverA) + "/boolAttribute";
  const std::string version_attribute =
      std::string(kDriverA) + "/driverVersion";
  const std::string taint_key = "taint-key";
  const std::string taint_value = "taint-value";
  const api::DeviceTaint taint_no_schedule{
      taint_key, taint_value, api::DeviceTaintEffect::kNoSchedule, {}};
  const api::DeviceTaint taint_key1_no_schedule{
      "key1", "value1", api::DeviceTaintEffect::kNoSchedule, {}};
  const api::DeviceToleration toleration_no_schedule_key1{
      "key1",
      api::DeviceTolerationOperator::kExists,
      "",
      api::DeviceTaintEffect::kNoSchedule,
      {}};

  const api::Quantity zero = NewQuantity(0);
  const api::Quantity one = NewQuantity(1);
  const api::Quantity two = NewQuantity(2);
  const api::Quantity three = NewQuantity(3);
  const api::Quantity four = NewQuantity(4);

  const DeviceId device1_id{kDriverA, kPool1, kDevice1};

  // A selector on the device's "type" string attribute of driver-a.
  const auto type_is = [](const std::string& type) {
    return CelSelector(
        Sprintf(R"(device.attributes["%s"].type == "%s")", kDriverA, type));
  };
  // A selector for a driver-a device with at least `memory` memory.
  const auto memory_at_least = [](const std::string& memory) {
    return CelSelector(Sprintf(
        R"(device.capacity["%s"].memory.compareTo(quantity("%s")) >= 0)",
        kDriverA, memory));
  };
  // A selector on the device's "generation" string attribute of driver-a.
  const auto generation_is = [](const std::string& generation) {
    return CelSelector(Sprintf(R"(device.attributes["%s"].generation == "%s")",
                               kDriverA, generation));
  };
  const api::DeviceSelector bool_is_true = CelSelector(
      Sprintf(R"(device.attributes["%s"].boolAttribute)", kDriverA));
  const auto type_attr = [](const std::string& type) {
    return AttributeMap{{"type", StringValue(type)}};
  };
  // A share of a driver-a device, consuming `consumed`.
  const auto share = [](const std::string& request, const std::string& pool,
                        const std::string& device,
                        const QuantityMap& consumed) {
    return DeviceRequestAllocationResult(request, kDriverA, pool, device)
        .WithConsumedCapacity(kFixedShareID, consumed);
  };

  // Built once, never destroyed (no static destructors at exit).
  static const auto* cases = new std::vector<KubeCase>{
      {
          .name = "allow-multiple-allocations-exclude-multi-allocatable-"
                  "device-by-class-selector",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, false)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, QuantityMap{{kCapacity0, one}})
                                   .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "allow-multiple-allocations-not-allocate-dedicated-device-"
                  "which-change-from-multi-allocatable",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one))),
          .allocated_capacity = {{device1_id, QuantityMap{{kCapacity0, one}}}},
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1).WithCapacityRequestPolicyRange(
                                   QuantityMap{{kCapacity0, two}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "allow-multiple-allocations-not-allocate-multi-allocatable-"
                  "device-which-already-dedicated",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one))),
          .allocated = {device1_id},
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1)
                                   .WithAllowMultipleAllocations()
                                   .WithCapacityRequestPolicyRange(
                                       QuantityMap{{kCapacity0, two}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "allow-multiple-allocations-with-partitionable-device",
          .features = FeaturesOn(
              {kPrioritizedList, kPartitionableDevices, kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1),
              RequestWithPrioritizedList(
                  kReq1,
                  SubRequest(kSubReq0, kClassA, 1, memory_at_least("6Gi")),
                  SubRequest(kSubReq1, kClassA, 1, memory_at_least("4Gi"))))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithAllowMultipleAllocations(),
                  Device(kDevice2, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("6Gi")}}))
                      .WithAllowMultipleAllocations(),
                  Device(kDevice3, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithAllowMultipleAllocations()),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice1, QuantityMap{{"memory", Q("4Gi")}}),
              share(kReq1SubReq1, kPool1, kDevice3,
                    QuantityMap{{"memory", Q("4Gi")}}))},
      },
      {
          .name = "allow-multiple-allocations-with-shared-device-counter-cross-"
                  "cycle",
          .features = FeaturesOn({kPartitionableDevices, kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1)
                  .WithCapacityRequest(one)
                  .WithSelectors(CelSelector(Sprintf(
                      R"(device.attributes["%s"].mode == "b")", kDriverA))))),
          .allocated_shared = {device1_id},
          .allocated_capacity = {{device1_id, QuantityMap{{kCapacity0, one}}}},
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, kFromCounters,
                         AttributeMap{{"mode", StringValue("a")}})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{kCapacity0, one}}))
                      .WithAllowMultipleAllocations(),
                  Device(kDevice2, kFromCounters,
                         AttributeMap{{"mode", StringValue("b")}})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{kCapacity0, one}}))
                      .WithAllowMultipleAllocations()),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{kCapacity0, one}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "binding-conditions-multiple-devices",
          .features = FeaturesOn({kDeviceBindingAndStatus}),
          .claims =
              Objects(ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 2),
                                        Request(kReq1, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1).WithBindingConditions(
                                   {"IsPrepare"}, {"BindingFailed"}),
                               Device(kDevice2).WithBindingConditions(
                                   {"IsPrepare2"}, {"BindingFailed2"}),
                               Device(kDevice3).WithBindingConditions(
                                   {"IsPrepare3"}, {"BindingFailed3"}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResultWithConfigs(
              LocalNodeSelector(kNode1),
              {DeviceRequestAllocationResultWithBindingConditions(
                   kReq0, kDriverA, kPool1, kDevice1, {"IsPrepare"},
                   {"BindingFailed"}),
               DeviceRequestAllocationResultWithBindingConditions(
                   kReq0, kDriverA, kPool1, kDevice2, {"IsPrepare2"},
                   {"BindingFailed2"}),
               DeviceRequestAllocationResultWithBindingConditions(
                   kReq1, kDriverA, kPool1, kDevice3, {"IsPrepare3"},
                   {"BindingFailed3"})},
              {})},
      },
      {
          .name = "binding-conditions-with-and-without",
          .features = FeaturesOn({kDeviceBindingAndStatus}),
          .claims =
              Objects(ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1),
                                        Request(kReq1, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1),
              Device(kDevice2).WithBindingConditions({"IsPrepare"},
                                                     {"BindingFailed"}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResultWithConfigs(
              LocalNodeSelector(kNode1),
              {DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
               DeviceRequestAllocationResultWithBindingConditions(
                   kReq1, kDriverA, kPool1, kDevice2, {"IsPrepare"},
                   {"BindingFailed"})},
              {})},
      },
      {
          // req-1 takes two devices of any type, req-2 needs the one of
          // type X, which is listed first: the first choice for req-1
          // includes it, so the search has to go back.
          .name = "check-combinations-with-backtracking",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq1, kClassA, 2),
                                Request(kReq2, kClassA, 1, type_is("X")))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, {}, type_attr("X")),
                               Device(kDevice2, {}, type_attr("Y")),
                               Device(kDevice3, {}, type_attr("Y")))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice2, false),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice3, false),
              DeviceAllocationResult(kReq2, kDriverA, kPool1, kDevice1,
                                     false))},
          .expect_num_allocate_one_invocations = 12,
      },
      {
          // As above, with the devices spread over two slices of pool-1
          // and a pool-2; the binding condition on pool-2's device makes
          // that pool come last in the search, so the result is stable.
          .name = "check-combinations-with-backtracking-across-slices-and-"
                  "pools",
          .features = FeaturesOn({kDeviceBindingAndStatus}),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq1, kClassA, 2),
                                Request(kReq2, kClassA, 1, type_is("X")))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice1, {}, type_attr("X"))),
              SliceWithDevices(kSlice2, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice2, {}, type_attr("Y"))),
              SliceWithDevices(kSlice3, kNode1, kPool2, kDriverA,
                               Device(kDevice3, {}, type_attr("Y"))
                                   .WithBindingConditions({"IsPrepare"}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice2, false),
              DeviceRequestAllocationResultWithBindingConditions(
                  kReq1, kDriverA, kPool2, kDevice3, {"IsPrepare"}, {}),
              DeviceAllocationResult(kReq2, kDriverA, kPool1, kDevice1,
                                     false))},
          .expect_num_allocate_one_invocations = 12,
      },
      {
          // req-1's first choice wants three devices of type Y, of which
          // there are two, which the search only finds out by trying; its
          // second choice takes any two. req-2's first choice wants two
          // devices, too many, its second the one of type X.
          .name = "check-combinations-with-prioritized-list",
          .features = FeaturesOn({kPrioritizedList}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              RequestWithPrioritizedList(
                  kReq1, SubRequest(kSubReq0, kClassA, 3, type_is("Y")),
                  SubRequest(kSubReq1, kClassA, 2)),
              RequestWithPrioritizedList(
                  kReq2, SubRequest(kSubReq0, kClassA, 2),
                  SubRequest(kSubReq1, kClassA, 1, type_is("X"))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, {}, type_attr("X")),
                               Device(kDevice2, {}, type_attr("Y")),
                               Device(kDevice3, {}, type_attr("Y")))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq1SubReq1, kDriverA, kPool1, kDevice2,
                                     false),
              DeviceAllocationResult(kReq1SubReq1, kDriverA, kPool1, kDevice3,
                                     false),
              DeviceAllocationResult(kReq2SubReq1, kDriverA, kPool1, kDevice1,
                                     false))},
          .expect_num_allocate_one_invocations = 26,
          .ksched_num_allocate_one_invocations = 20,
      },
      {
          .name = "check-combinations-within-single-request-many-pools",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 5))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1)),
              SliceWithDevices(kSlice2, kNode1, kPool2, kDriverA,
                               Device(kDevice2)),
              SliceWithDevices(kSlice3, kNode1, kPool3, kDriverA,
                               Device(kDevice3)),
              SliceWithDevices(kSlice4, kNode1, kPool4, kDriverA,
                               Device(kDevice4))),
          .node = Node(kNode1, kRegion1),
          .expect_num_allocate_one_invocations = 16,
          .ksched_num_allocate_one_invocations = 1,
      },
      {
          .name = "check-combinations-within-single-request-multiple-pools-"
                  "multiple-slices",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 5))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice1)),
              SliceWithDevices(kSlice2, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice2)),
              SliceWithDevices(kSlice3, kNode1, kPool2, kDriverA,
                               Device(kDevice3), Device(kDevice4))),
          .node = Node(kNode1, kRegion1),
          .expect_num_allocate_one_invocations = 16,
          .ksched_num_allocate_one_invocations = 1,
      },
      {
          .name = "check-combinations-within-single-request-single-pool-"
                  "multiple-slices",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 5))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice1), Device(kDevice2)),
              SliceWithDevices(kSlice2, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice3), Device(kDevice4))),
          .node = Node(kNode1, kRegion1),
          .expect_num_allocate_one_invocations = 16,
          .ksched_num_allocate_one_invocations = 1,
      },
      {
          .name = "check-combinations-within-single-request-single-pool-"
                  "single-slice",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 5))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1),
              Device(kDevice2), Device(kDevice3), Device(kDevice4))),
          .node = Node(kNode1, kRegion1),
          .expect_num_allocate_one_invocations = 16,
          .ksched_num_allocate_one_invocations = 1,
      },
      {
          .name = "consumable-capacity-dedicated-device-with-consumable-"
                  "capacity-request",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, false)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, QuantityMap{{kCapacity0, one}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "consumable-capacity-dedicated-device-with-multiple-"
                  "consumable-capacity-request",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(
              Claim(kClaim0).WithRequests(
                  DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one)),
              Claim(kClaim1).WithRequests(
                  DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, false)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1).WithCapacityRequestPolicyRange(
                                   QuantityMap{{kCapacity0, two}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          // DeviceBindingAndStatus is only on to make kube run its
          // experimental allocator.
          .name = "consumable-capacity-disabled-feature",
          .features = FeaturesOn({kDeviceBindingAndStatus}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices =
              Unwrap(SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "claim claim-0, request req-0: has capacity "
                          "requests, but the DRAConsumableCapacity feature "
                          "is disabled",
      },
      {
          .name = "consumable-capacity-disabled-feature-with-prioritized-list",
          .features = FeaturesOn({kPrioritizedList, kDeviceBindingAndStatus}),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0,
                  SubRequest(kSubReq0, kClassA, 1).WithCapacityRequest(one),
                  SubRequest(kSubReq1, kClassA, 1).WithCapacityRequest(one)))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices =
              Unwrap(SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "claim claim-0, subrequest subReq-0: has capacity "
                          "requests, but the DRAConsumableCapacity feature "
                          "is disabled",
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-allocation-"
                  "mode-all-allocating-insufficient",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one),
              AllDeviceRequest(kReq1, kClassA).WithCapacityRequest(one))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, QuantityMap{{kCapacity0, one}})
                                   .WithAllowMultipleAllocations(),
                               Device(kDevice2, QuantityMap{{kCapacity0, one}})
                                   .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-allocation-"
                  "mode-all-allocating-sufficient",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one),
              AllDeviceRequest(kReq1, kClassA).WithCapacityRequest(one))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, QuantityMap{{kCapacity0, two}})
                                   .WithAllowMultipleAllocations(),
                               Device(kDevice2, QuantityMap{{kCapacity0, one}})
                                   .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice1, QuantityMap{{kCapacity0, one}}),
              share(kReq1, kPool1, kDevice1, QuantityMap{{kCapacity0, one}}),
              share(kReq1, kPool1, kDevice2, QuantityMap{{kCapacity0, one}}))},
      },
      {
          // Only the device with enough capacity is allocated.
          .name = "consumable-capacity-multi-allocatable-device-allocation-"
                  "mode-all-filter-out-insufficient-capacity",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              AllDeviceRequest(kReq0, kClassA).WithCapacityRequest(two))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, QuantityMap{{kCapacity0, two}})
                                   .WithAllowMultipleAllocations(),
                               Device(kDevice2, QuantityMap{{kCapacity0, one}})
                                   .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice1, QuantityMap{{kCapacity0, two}}))},
      },
      {
          // Only the device that has the requested capacity is allocated.
          .name = "consumable-capacity-multi-allocatable-device-allocation-"
                  "mode-all-filter-out-no-capacity",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              AllDeviceRequest(kReq0, kClassA).WithCapacityRequest(two))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, QuantityMap{{kCapacity0, two}})
                  .WithAllowMultipleAllocations(),
              Device(kDevice2).WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice1, QuantityMap{{kCapacity0, two}}))},
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-allocation-"
                  "mode-all-in-use-insufficient",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              AllDeviceRequest(kReq0, kClassA).WithCapacityRequest(one))),
          .allocated_capacity = {{device1_id, QuantityMap{{kCapacity0, one}}}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, QuantityMap{{kCapacity0, one}})
                                   .WithAllowMultipleAllocations(),
                               Device(kDevice2, QuantityMap{{kCapacity0, one}})
                                   .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice2, QuantityMap{{kCapacity0, one}}))},
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-allocation-"
                  "mode-all-in-use-sufficient",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              AllDeviceRequest(kReq0, kClassA).WithCapacityRequest(one))),
          .allocated_capacity = {{device1_id, QuantityMap{{kCapacity0, one}}}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, QuantityMap{{kCapacity0, two}})
                                   .WithAllowMultipleAllocations(),
                               Device(kDevice2, QuantityMap{{kCapacity0, one}})
                                   .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice1, QuantityMap{{kCapacity0, one}}),
              share(kReq0, kPool1, kDevice2, QuantityMap{{kCapacity0, one}}))},
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-allocation-"
                  "mode-all-with-missing-capacity-request",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              AllDeviceRequest(kReq0, kClassA).WithCapacityRequest(one))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, QuantityMap{{kCapacity1, one}})
                                   .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-violates-zero-"
                  "request-policy",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1)
                  .WithAllowMultipleAllocations()
                  .WithCapacityRequestPolicyValidValues(
                      zero, QuantityMap{{kCapacity0, one}}, {}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-with-"
                  "allocated-capacity-next-device",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(two))),
          .allocated_capacity = {{device1_id, QuantityMap{{kCapacity0, two}}}},
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1)
                                   .WithAllowMultipleAllocations()
                                   .WithCapacityRequestPolicyRange(
                                       QuantityMap{{kCapacity0, two}}),
                               Device(kDevice2)
                                   .WithAllowMultipleAllocations()
                                   .WithCapacityRequestPolicyRange(
                                       QuantityMap{{kCapacity0, two}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice2, QuantityMap{{kCapacity0, two}}))},
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-with-"
                  "allocated-capacity-use-remaining",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(two))),
          .allocated_capacity = {{device1_id, QuantityMap{{kCapacity0, two}}}},
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1)
                                   .WithAllowMultipleAllocations()
                                   .WithCapacityRequestPolicyRange(
                                       QuantityMap{{kCapacity0, four}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice1, QuantityMap{{kCapacity0, two}}))},
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-with-exceeded-"
                  "consumable-capacity-request",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(
              Claim(kClaim0).WithRequests(
                  DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one)),
              Claim(kClaim1).WithRequests(
                  DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(two))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1)
                                   .WithAllowMultipleAllocations()
                                   .WithCapacityRequestPolicyRange(
                                       QuantityMap{{kCapacity0, two}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-with-missing-"
                  "capacity-request",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, QuantityMap{{kCapacity1, one}})
                                   .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-with-no-"
                  "available-consumable-capacity",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(two))),
          .allocated_capacity = {{device1_id, QuantityMap{{kCapacity0, two}}}},
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1)
                                   .WithAllowMultipleAllocations()
                                   .WithCapacityRequestPolicyRange(
                                       QuantityMap{{kCapacity0, two}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          // Without a capacity request, each claim consumes the policy's
          // default (two).
          .name = "consumable-capacity-multi-allocatable-device-with-policy-"
                  "without-capacity-request",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1)),
              ClaimWithRequests(kClaim1, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1)
                                   .WithAllowMultipleAllocations()
                                   .WithCapacityRequestPolicyRange(
                                       QuantityMap{{kCapacity0, four}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice1,
                                       QuantityMap{{kCapacity0, two}})),
                             AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice1,
                                       QuantityMap{{kCapacity0, two}}))},
      },
      {
          // A request of three is rounded up to the policy's next step
          // (2 + 2 = 4).
          .name = "consumable-capacity-multi-allocatable-device-with-range-"
                  "policy-step",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1)
                  .WithCapacityRequest(NewQuantity(3)))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1)
                                   .WithAllowMultipleAllocations()
                                   .WithCapacityRequestPolicyRange(
                                       QuantityMap{{kCapacity0, four}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice1, QuantityMap{{kCapacity0, four}}))},
      },
      {
          // Both claims share the device; each request of one is rounded
          // up to the policy's minimum (two).
          .name = "consumable-capacity-multi-allocatable-device-with-range-"
                  "policy-with-capacity-request",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(
              Claim(kClaim0).WithRequests(
                  DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one)),
              Claim(kClaim1).WithRequests(
                  DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1)
                                   .WithAllowMultipleAllocations()
                                   .WithCapacityRequestPolicyRange(
                                       QuantityMap{{kCapacity0, four}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice1,
                                       QuantityMap{{kCapacity0, two}})),
                             AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice1,
                                       QuantityMap{{kCapacity0, two}}))},
      },
      {
          // The range policy's maximum is four: a request of six does not
          // fit, although the device has ten.
          .name = "consumable-capacity-multi-allocatable-device-with-request-"
                  "over-max-sharing-policy",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1)
                  .WithCapacityRequest(NewQuantity(6)))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1)
                  .WithAllowMultipleAllocations()
                  .WithCapacityRequestPolicyRange(
                      QuantityMap{{kCapacity0, NewQuantity(10)}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-with-"
                  "subrequest",
          .features = FeaturesOn({kConsumableCapacity, kPrioritizedList}),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0,
                  SubRequest(kSubReq0, kClassA, 1).WithCapacityRequest(four),
                  SubRequest(kSubReq1, kClassA, 1).WithCapacityRequest(two),
                  SubRequest(kSubReq1, kClassA, 1)))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1)
                                   .WithAllowMultipleAllocations()
                                   .WithCapacityRequestPolicyRange(
                                       QuantityMap{{kCapacity0, two}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0SubReq1, kPool1, kDevice1,
                    QuantityMap{{kCapacity0, two}}))},
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-with-valid-"
                  "values-policy",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1)
                  .WithCapacityRequest(NewQuantity(2)))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1)
                  .WithAllowMultipleAllocations()
                  .WithCapacityRequestPolicyValidValues(
                      one, QuantityMap{{kCapacity0, four}}, {two}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice1, QuantityMap{{kCapacity0, two}}))},
      },
      {
          // The capacity (three) has to be listed as a valid value for a
          // request of two to be rounded up to it.
          .name = "consumable-capacity-multi-allocatable-device-with-valid-"
                  "values-policy-round-up",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1)
                  .WithCapacityRequest(NewQuantity(2)))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1)
                  .WithAllowMultipleAllocations()
                  .WithCapacityRequestPolicyValidValues(
                      one, QuantityMap{{kCapacity0, three}}, {three}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice1,
                    QuantityMap{{kCapacity0, three}}))},
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-with-zero-"
                  "request-policy",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1)),
              ClaimWithRequests(kClaim1, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1)
                  .WithAllowMultipleAllocations()
                  .WithCapacityRequestPolicyValidValues(
                      zero, QuantityMap{{kCapacity0, one}}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice1,
                                       QuantityMap{{kCapacity0, zero}})),
                             AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice1,
                                       QuantityMap{{kCapacity0, zero}}))},
      },
      {
          // The device has no capacity, so both claims share it without
          // consuming any.
          .name = "consumable-capacity-multi-allocatable-device-without-"
                  "capacity-without-capacity-request",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(
              Claim(kClaim0).WithRequests(DeviceRequest(kReq0, kClassA, 1)),
              Claim(kClaim1).WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1).WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              {AllocationResult(LocalNodeSelector(kNode1),
                                share(kReq0, kPool1, kDevice1, QuantityMap{})),
               AllocationResult(LocalNodeSelector(kNode1),
                                share(kReq0, kPool1, kDevice1, QuantityMap{}))},
      },
      {
          .name = "consumable-capacity-multi-allocatable-device-without-"
                  "policy-with-capacity-request",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(
              Claim(kClaim0).WithRequests(
                  DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one)),
              Claim(kClaim1).WithRequests(
                  DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, QuantityMap{{kCapacity0, two}})
                                   .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice1,
                                       QuantityMap{{kCapacity0, one}})),
                             AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice1,
                                       QuantityMap{{kCapacity0, one}}))},
      },
      {
          // Without a request or a policy, each claim consumes all of a
          // device's capacity, so each gets its own device.
          .name = "consumable-capacity-multi-allocatable-device-without-"
                  "policy-without-capacity-request",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(
              Claim(kClaim0).WithRequests(DeviceRequest(kReq0, kClassA, 1)),
              Claim(kClaim1).WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, QuantityMap{{kCapacity0, one}})
                                   .WithAllowMultipleAllocations(),
                               Device(kDevice2, QuantityMap{{kCapacity0, one}})
                                   .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice1,
                                       QuantityMap{{kCapacity0, one}})),
                             AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice2,
                                       QuantityMap{{kCapacity0, one}}))},
      },
      {
          // The first claim takes all of the one device's capacity, so the
          // second cannot be satisfied.
          .name = "consumable-capacity-multi-allocatable-device-without-"
                  "policy-without-capacity-request-block",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(
              Claim(kClaim0).WithRequests(DeviceRequest(kReq0, kClassA, 1)),
              Claim(kClaim1).WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, QuantityMap{{kCapacity0, two}})
                                   .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
      },
      {
          // claim-0 first takes all of device-1's capacity; its request is
          // not under claim-1's constraint. claim-1's first subrequest (all
          // devices) picks device-1, which had room when the candidates
          // were listed but is full now, so it is rejected after it was
          // added to the match constraint. Only if that is undone can the
          // fallback subrequest take device-2, whose attribute differs.
          .name = "consumable-capacity-rejection-rolls-back-constraints",
          .features = FeaturesOn({kConsumableCapacity, kPrioritizedList}),
          .claims = Objects(
              Claim(kClaim0).WithRequests(
                  DeviceRequest(kReq0, kClassA, 1)
                      .WithCapacityRequest(two)
                      .WithSelectors(CelSelector(Sprintf(
                          R"(device.attributes["%s"].stringAttribute == "cap")",
                          kDriverA)))),
              Claim(kClaim1)
                  .WithConstraints(api::DeviceConstraint{.match_attribute =
                                                             string_attribute})
                  .WithRequests(RequestWithPrioritizedList(
                      kReq0,
                      SubRequest(
                          kSubReq0, kClassA, 1,
                          CelSelector(Sprintf(
                              R"(device.attributes["%s"].stringAttribute == "cap")",
                              kDriverA)))
                          .WithAllocationMode(api::DeviceAllocationMode::kAll)
                          .WithCapacityRequest(two),
                      SubRequest(
                          kSubReq1, kClassA, 1,
                          CelSelector(Sprintf(
                              R"(device.attributes["%s"].stringAttribute == "fb")",
                              kDriverA)))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, QuantityMap{{kCapacity0, two}},
                     AttributeMap{{"stringAttribute", StringValue("cap")}})
                  .WithAllowMultipleAllocations(),
              Device(kDevice2, {},
                     AttributeMap{{"stringAttribute", StringValue("fb")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice1,
                                       QuantityMap{{kCapacity0, two}})),
                             AllocationResult(LocalNodeSelector(kNode1),
                                              DeviceAllocationResult(
                                                  kReq0SubReq1, kDriverA,
                                                  kPool1, kDevice2, false))},
      },
      {
          // claim-0's two requests of two each must match, which only
          // device-1 (listed second, with four) can give both of.
          .name = "consumable-capacity-with-multi-allocatable-device-backtrack",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(
              Claim(kClaim0)
                  .WithConstraints(api::DeviceConstraint{.match_attribute =
                                                             string_attribute})
                  .WithRequests(
                      DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(two),
                      DeviceRequest(kReq1, kClassA, 1)
                          .WithCapacityRequest(two)),
              Claim(kClaim1).WithRequests(
                  DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(two))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice2, {},
                     AttributeMap{{"stringAttribute",
                                   StringValue("stringAttributeValue1")}})
                  .WithAllowMultipleAllocations()
                  .WithCapacityRequestPolicyRange(
                      QuantityMap{{kCapacity0, two}}),
              Device(kDevice1, {},
                     AttributeMap{{"stringAttribute",
                                   StringValue("stringAttributeValue2")}})
                  .WithAllowMultipleAllocations()
                  .WithCapacityRequestPolicyRange(
                      QuantityMap{{kCapacity0, four}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice1,
                                       QuantityMap{{kCapacity0, two}}),
                                 share(kReq1, kPool1, kDevice1,
                                       QuantityMap{{kCapacity0, two}})),
                             AllocationResult(
                                 LocalNodeSelector(kNode1),
                                 share(kReq0, kPool1, kDevice2,
                                       QuantityMap{{kCapacity0, two}}))},
      },
      {
          // Prioritized list, partitionable devices and consumable capacity
          // together. req-0 and req-2 ask for one and two of capacity-0;
          // req-1 prefers a device with at least four of it over one with
          // at least two. The counter sets (capacity-0: 4, capacity-1: 8)
          // fit device-1 plus device-3 (2+2 and 4+4) or device-2 (4 and 4)
          // alone, and the range policy makes every share take two of
          // capacity-1.
          //
          // req-0 gets device-1 (one of capacity-0). req-2 needs two, which
          // device-1 no longer has, and device-2 does not fit beside
          // device-1, so it gets device-3. req-1's first choice would need
          // device-2, so its second takes device-1's last unit.
          .name = "consumable-capacity-with-partitionable-device-multiple-"
                  "capacity-pools",
          .features = FeaturesOn(
              {kPrioritizedList, kPartitionableDevices, kConsumableCapacity}),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one),
              DeviceRequest(kReq2, kClassA, 1).WithCapacityRequest(two),
              RequestWithPrioritizedList(
                  kReq1,
                  SubRequest(
                      kSubReq0, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"]["%s"].compareTo(quantity("4")) >= 0)",
                          kDriverA, kCapacity0)))
                      .WithCapacityRequest(one),
                  SubRequest(
                      kSubReq1, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"]["%s"].compareTo(quantity("2")) >= 0)",
                          kDriverA, kCapacity0)))
                      .WithCapacityRequest(one)))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, kFromCounters)
                      .WithDeviceCounterConsumption(
                          DeviceCounterConsumption(
                              kCounterSet1, QuantityMap{{kCapacity0, two}}),
                          DeviceCounterConsumption(
                              kCounterSet2, QuantityMap{{kCapacity1, four}}))
                      .WithAllowMultipleAllocations()
                      .WithCapacityRequestPolicyRange(
                          QuantityMap{{kCapacity1, four}}),
                  Device(kDevice2, kFromCounters)
                      .WithDeviceCounterConsumption(
                          DeviceCounterConsumption(
                              kCounterSet1, QuantityMap{{kCapacity0, four}}),
                          DeviceCounterConsumption(
                              kCounterSet2, QuantityMap{{kCapacity1, four}}))
                      .WithAllowMultipleAllocations()
                      .WithCapacityRequestPolicyRange(
                          QuantityMap{{kCapacity1, four}}),
                  Device(kDevice3, kFromCounters)
                      .WithDeviceCounterConsumption(
                          DeviceCounterConsumption(
                              kCounterSet1, QuantityMap{{kCapacity0, two}}),
                          DeviceCounterConsumption(
                              kCounterSet2, QuantityMap{{kCapacity1, four}}))
                      .WithAllowMultipleAllocations()
                      .WithCapacityRequestPolicyRange(
                          QuantityMap{{kCapacity1, four}})),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{kCapacity0, four}}),
                  CounterSet(kCounterSet2, QuantityMap{{kCapacity1, Q("8")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice1,
                    QuantityMap{{kCapacity0, one}, {kCapacity1, two}}),
              share(kReq2, kPool1, kDevice3,
                    QuantityMap{{kCapacity0, two}, {kCapacity1, two}}),
              share(kReq1SubReq1, kPool1, kDevice1,
                    QuantityMap{{kCapacity0, one}, {kCapacity1, two}}))},
      },
      {
          .name = "device-binding-conditions",
          .features = FeaturesOn({kDeviceBindingAndStatus}),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1).WithBindingConditions(
                                   {"IsPrepare"}, {"BindingFailed"}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResultWithConfigs(
              LocalNodeSelector(kNode1),
              {DeviceRequestAllocationResultWithBindingConditions(
                  kReq0, kDriverA, kPool1, kDevice1, {"IsPrepare"},
                  {"BindingFailed"})},
              {})},
      },
      {
          .name = "distinct-constraint-one-multi-allocatable-device-with-"
                  "distinct-constraint",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(
              Claim(kClaim0)
                  .WithConstraints(api::DeviceConstraint{.distinct_attribute =
                                                             string_attribute})
                  .WithRequests(
                      DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(one),
                      DeviceRequest(kReq1, kClassA, 1)
                          .WithCapacityRequest(one))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {},
                     AttributeMap{{"stringAttribute",
                                   StringValue("stringAttributeValue")}})
                  .WithAllowMultipleAllocations()
                  .WithCapacityRequestPolicyRange(
                      QuantityMap{{kCapacity0, two}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "distinct-constraint-two-multi-allocatable-devices-with-"
                  "distinct-constraint",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims = Objects(
              Claim(kClaim0)
                  .WithConstraints(api::DeviceConstraint{.distinct_attribute =
                                                             string_attribute})
                  .WithRequests(
                      DeviceRequest(kReq0, kClassA, 1).WithCapacityRequest(two),
                      DeviceRequest(kReq1, kClassA, 1)
                          .WithCapacityRequest(two))),
          .classes = Objects(
              ClassWithAllowMultipleAllocations(kClassA, kDriverA, true)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, {},
                         AttributeMap{{"stringAttribute",
                                       StringValue("stringAttributeValue1")}})
                      .WithAllowMultipleAllocations()
                      .WithCapacityRequestPolicyRange(
                          QuantityMap{{kCapacity0, four}})),
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice2, {},
                         AttributeMap{{"stringAttribute",
                                       StringValue("stringAttributeValue2")}})
                      .WithAllowMultipleAllocations()
                      .WithCapacityRequestPolicyRange(
                          QuantityMap{{kCapacity0, four}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice1, QuantityMap{{kCapacity0, two}}),
              share(kReq1, kPool1, kDevice2, QuantityMap{{kCapacity0, two}}))},
      },
      {
          // Ideally nothing would be allocated here, but the allocator
          // ignores the newer, incomplete generation, as a scheduler that
          // has not seen the update yet would: drivers must not rely on
          // more than that.
          .name = "multi-host-resource-pool-incomplete-update-from-node-1-to-"
                  "node-2",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              // node-1, generation 1.
              [&] {
                auto s = SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                                          Device(kDevice1));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&] {
                auto s = SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                                          Device(kDevice2));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              // node-2, generation 2.
              [&] {
                auto s = SliceWithDevices(kSlice2, kNode2, kPool1, kDriverA,
                                          Device(kDevice1));
                s.spec.pool.generation = 2;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }()),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          // Nothing is allocated: the newer generation, on node-1, is
          // incomplete.
          .name = "multi-host-resource-pool-incomplete-update-from-node-2-to-"
                  "node-1",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              // node-2, generation 1.
              [&] {
                auto s = SliceWithDevices(kSlice1, kNode2, kPool1, kDriverA,
                                          Device(kDevice1));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&] {
                auto s = SliceWithDevices(kSlice1, kNode2, kPool1, kDriverA,
                                          Device(kDevice2));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              // node-1, generation 2.
              [&] {
                auto s = SliceWithDevices(kSlice2, kNode1, kPool1, kDriverA,
                                          Device(kDevice1));
                s.spec.pool.generation = 2;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }()),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "node-restriction",
          .features = FeaturesOn({kDeviceBindingAndStatus}),
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, NodeLabelSelector(kPlanetKey, kPlanetValueEarth), kPool1,
              kDriverA, Device(kDevice1).WithBindsToNode(true))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          // The error path of a device that must be allocated (all mode)
          // but breaks the constraint after it took a shared counter:
          // device-2 reserves the only counter, then fails the match, so
          // the counter is released before the error ends the whole
          // allocation. Only the error can be checked from outside.
          .name = "partitionable-all-mode-constraint-must-error-with-reserved-"
                  "counter",
          .features = FeaturesOn({kPartitionableDevices}),
          .claims = Objects([&] {
            auto claim = ClaimWithRequests(
                kClaim0,
                {api::DeviceConstraint{.match_attribute = int_attribute}},
                Request(kReq0, kClassA, 0));
            claim.spec.devices.requests[0].exactly->allocation_mode =
                api::DeviceAllocationMode::kAll;
            return claim;
          }()),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, {}, AttributeMap{{"numa", IntValue(1)}}),
                  Device(kDevice2, {}, AttributeMap{{"numa", IntValue(2)}})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"c", Q("1")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"c", Q("1")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_error = "claim claim-0, request req-0: cannot add device "
                          "driver-a/pool-1/device-2 because a claim "
                          "constraint would not be satisfied",
      },
      {
          // device-1 may be allocated many times and takes the one shared
          // counter when req-0 tries it first. req-1 can only use
          // device-3, which needs that counter, so the search has to undo
          // device-1 and release its counter; then req-0 takes device-2.
          .name = "partitionable-consumable-capacity-backtrack-releases-"
                  "counter",
          .features = FeaturesOn({kPartitionableDevices, kConsumableCapacity}),
          .claims = Objects(ClaimWithRequests(
              kClaim0, {},
              Request(kReq0, kClassA, 1,
                      CelSelector(
                          Sprintf(R"(device.attributes["%s"].kind == "shared")",
                                  kDriverA))),
              Request(kReq1, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.attributes["%s"].kind == "counteronly")",
                          kDriverA))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, {},
                         AttributeMap{{"kind", StringValue("shared")}})
                      .WithAllowMultipleAllocations()
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"c", Q("1")}})),
                  Device(kDevice2, {},
                         AttributeMap{{"kind", StringValue("shared")}}),
                  Device(kDevice3, {},
                         AttributeMap{{"kind", StringValue("counteronly")}})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"c", Q("1")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"c", Q("1")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2, false),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice3,
                                     false))},
      },
      {
          // device-1 (red) is taken first; each blue one reserves a
          // counter and then fails the match. Once those reservations are
          // released, the two blue devices can be allocated together.
          .name = "partitionable-devices-constraint-releases-counter",
          .features = FeaturesOn({kPartitionableDevices}),
          .claims = Objects(ClaimWithRequests(
              kClaim0,
              {api::DeviceConstraint{.match_attribute = string_attribute}},
              Request(kReq0, kClassA, 2))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, {},
                         AttributeMap{{"stringAttribute", StringValue("red")}})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"c", Q("1")}})),
                  Device(kDevice2, {},
                         AttributeMap{{"stringAttribute", StringValue("blue")}})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"c", Q("1")}})),
                  Device(kDevice3, {},
                         AttributeMap{{"stringAttribute", StringValue("blue")}})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"c", Q("1")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"c", Q("2")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2, false),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice3,
                                     false))},
      },
      {
          .name = "partitionable-devices-device-counter-consumption-references-"
                  "counter-set-in-other-pool",
          .features = FeaturesOn({kPartitionableDevices}),
          .claims = Objects(
              Claim(kClaim0).WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, kPool1, kDriverA,
                  Device(kDevice1).WithDeviceCounterConsumption(
                      DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  kPool2, kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_error = "invalid resource pools were encountered",
      },
      {
          .name = "partitionable-devices-device-counter-consumption-references-"
                  "unknown-counter-in-counter-set",
          .features = FeaturesOn({kPartitionableDevices}),
          .claims = Objects(
              Claim(kClaim0).WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1).WithDeviceCounterConsumption(
                      DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1,
                             QuantityMap{{"other-memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_error = "invalid resource pools were encountered",
      },
      {
          .name = "partitionable-devices-device-counter-consumption-references-"
                  "unknown-counter-set",
          .features = FeaturesOn({kPartitionableDevices}),
          .claims = Objects(
              Claim(kClaim0).WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, ResourcePool(kPool1, 2),
                               kDriverA,
                               Device(kDevice1).WithDeviceCounterConsumption(
                                   DeviceCounterConsumption(kCounterSet2, {}))),
              SliceWithCounterSets(kSlice2, kNode1, ResourcePool(kPool1, 2),
                                   kDriverA, CounterSet(kCounterSet1, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_error = "invalid resource pools were encountered",
      },
      {
          .name = "partitionable-devices-devices-on-different-nodes-consume-"
                  "same-counter-set",
          .features = FeaturesOn({kPartitionableDevices, kPrioritizedList}),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0,
                  SubRequest(kSubReq0, kClassA, 1, memory_at_least("6Gi")),
                  SubRequest(kSubReq1, kClassA, 1, memory_at_least("2Gi"))))),
          .allocated = {DeviceId{kDriverA, kPool1, kDevice3}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithCounterSets(
                  kSlice1, kNode1,
                  ResourcePool(kPool1, 3), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}})),
              SliceWithDevices(
                  kSlice2, kNode1, ResourcePool(kPool1, 3), kDriverA,
                  Device(kDevice1, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("6Gi")}})),
                  Device(kDevice2, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("2Gi")}}))),
              SliceWithDevices(
                  kSlice3, kNode2, ResourcePool(kPool1, 3), kDriverA,
                  Device(kDevice3).WithDeviceCounterConsumption(
                      DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("6Gi")}})))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name = "partitionable-devices-disabled-other-device-do-not-consume-"
                  "counters",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1).WithDeviceCounterConsumption(
                      DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}})),
                  Device(kDevice2)),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1,
                             QuantityMap{{"memory", Q("18Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name = "partitionable-devices-per-device-node-selection-node-"
                  "selector-multiple-devices",
          .features = FeaturesOn({kPartitionableDevices, kPrioritizedList}),
          .claims =
              Objects(ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 3),
                                        Request(kReq1, kClassB, 3))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNodeSelectionPerDevice, ResourcePool(kPool1, 2),
                  kDriverA,
                  Device(kDevice1, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithNodeSelection(
                          NodeLabelSelector(kRegionKey, kRegion1)),
                  Device(kDevice2, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithNodeSelection(kNode1),
                  Device(kDevice3, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithNodeSelection(kNodeSelectionAll)),
              SliceWithCounterSets(
                  kSlice2, kNodeSelectionPerDevice, ResourcePool(kPool1, 2),
                  kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("18Gi")}})),
              SliceWithDevices(
                  kSlice3, kNode1, ResourcePool(kPool2, 2), kDriverB,
                  Device(kDevice1, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet2, QuantityMap{{"memory", Q("4Gi")}})),
                  Device(kDevice2, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet2, QuantityMap{{"memory", Q("4Gi")}})),
                  Device(kDevice3, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet2, QuantityMap{{"memory", Q("4Gi")}}))),
              SliceWithCounterSets(
                  kSlice4, kNode1,
                  ResourcePool(kPool2, 2), kDriverB,
                  CounterSet(kCounterSet2,
                             QuantityMap{{"memory", Q("12Gi")}}))),
          .node = Node(kNode1, kRegion1),
          // kube spells the selector out: one term, matching the field
          // metadata.name against node-1.
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2, false),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice3, false),
              DeviceAllocationResult(kReq1, kDriverB, kPool2, kDevice1, false),
              DeviceAllocationResult(kReq1, kDriverB, kPool2, kDevice2, false),
              DeviceAllocationResult(kReq1, kDriverB, kPool2, kDevice3,
                                     false))},
      },
      {
          .name = "partitionable-devices-same-counter-set-name-in-different-"
                  "resource-slices",
          .features = FeaturesOn({kPartitionableDevices}),
          .claims = Objects(
              Claim(kClaim0).WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, ResourcePool(kPool1, 4),
                               kDriverA, Device(kDevice1)),
              SliceWithCounterSets(kSlice2, kNode1, ResourcePool(kPool1, 4),
                                   kDriverA, CounterSet(kCounterSet1, {})),
              SliceWithDevices(kSlice3, kNode1, ResourcePool(kPool1, 4),
                               kDriverA, Device(kDevice2)),
              SliceWithCounterSets(kSlice4, kNode1, ResourcePool(kPool1, 4),
                                   kDriverA, CounterSet(kCounterSet1, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_error = "invalid resource pools were encountered",
      },
      {
          // device-1's NoSchedule taint rejects it after its counter was
          // reserved; releasing that lets the untainted device-2 be
          // allocated.
          .name = "partitionable-devices-taint-releases-counter",
          .features = FeaturesOn({kPartitionableDevices, kDeviceTaints}),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1)
                      .WithTaints(taint_no_schedule)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"c", Q("1")}})),
                  Device(kDevice2).WithDeviceCounterConsumption(
                      DeviceCounterConsumption(kCounterSet1,
                                               QuantityMap{{"c", Q("1")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"c", Q("1")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name = "partitionable-devices-with-binding-conditions",
          .features =
              FeaturesOn({kPartitionableDevices, kDeviceBindingAndStatus}),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithBindingConditions({"IsPrepare"}, {"BindingFailed"})),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResultWithConfigs(
              LocalNodeSelector(kNode1),
              {DeviceRequestAllocationResultWithBindingConditions(
                  kReq0, kDriverA, kPool1, kDevice1, {"IsPrepare"},
                  {"BindingFailed"})},
              {})},
      },
      {
          .name = "partitionable-devices-with-binding-conditions-and-taints",
          .features = FeaturesOn(
              {kPartitionableDevices, kDeviceBindingAndStatus, kDeviceTaints}),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 2))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, kPool1, kDriverA,
                  Device(kDevice1, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithBindingConditions({"IsPrepare"}, {"BindingFailed"})
                      .WithTaints(taint_key1_no_schedule),
                  Device(kDevice2, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  kPool1, kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "partitionable-devices-with-binding-conditions-and-taints-"
                  "tolerated",
          .features = FeaturesOn(
              {kPartitionableDevices, kDeviceBindingAndStatus, kDeviceTaints}),
          .claims =
              Objects(ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 2))
                          .WithTolerations(toleration_no_schedule_key1)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithBindingConditions({"IsPrepare"}, {"BindingFailed"})
                      .WithTaints(taint_key1_no_schedule),
                  Device(kDevice2, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResultWithConfigs(
              LocalNodeSelector(kNode1),
              {DeviceRequestAllocationResultWithBindingConditions(
                   kReq0, kDriverA, kPool1, kDevice1, {"IsPrepare"},
                   {"BindingFailed"}, toleration_no_schedule_key1),
               DeviceRequestAllocationResultWithBindingConditions(
                   kReq0, kDriverA, kPool1, kDevice2, {}, {},
                   toleration_no_schedule_key1)},
              {})},
      },
      {
          .name = "partitionable-devices-with-binding-conditions-multi-slices",
          .features =
              FeaturesOn({kPartitionableDevices, kDeviceBindingAndStatus}),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 2))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice4, kNode1, ResourcePool(kPool1, 4), kDriverA,
                  Device(kDevice1, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithBindingConditions({"IsPrepare"}, {"BindingFailed"})),
              SliceWithCounterSets(
                  kSlice3, kNode1,
                  ResourcePool(kPool1, 4), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}})),
              SliceWithDevices(
                  kSlice2, kNode1, ResourcePool(kPool1, 4), kDriverA,
                  Device(kDevice2, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet2, QuantityMap{{"memory", Q("4Gi")}}))),
              SliceWithCounterSets(
                  kSlice1, kNode1,
                  ResourcePool(kPool1, 4), kDriverA,
                  CounterSet(kCounterSet2, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResultWithConfigs(
              LocalNodeSelector(kNode1),
              {DeviceRequestAllocationResultWithBindingConditions(
                   kReq0, kDriverA, kPool1, kDevice2, {}, {}),
               DeviceRequestAllocationResultWithBindingConditions(
                   kReq0, kDriverA, kPool1, kDevice1, {"IsPrepare"},
                   {"BindingFailed"})},
              {})},
      },
      {
          .name = "partitionable-devices-with-binding-conditions-multiple",
          .features =
              FeaturesOn({kPartitionableDevices, kDeviceBindingAndStatus}),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 2))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithBindingConditions({"IsPrepare"}, {"BindingFailed"}),
                  Device(kDevice2, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithBindingConditions({"IsPrepare2"},
                                             {"BindingFailed2"})),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResultWithConfigs(
              LocalNodeSelector(kNode1),
              {DeviceRequestAllocationResultWithBindingConditions(
                   kReq0, kDriverA, kPool1, kDevice1, {"IsPrepare"},
                   {"BindingFailed"}),
               DeviceRequestAllocationResultWithBindingConditions(
                   kReq0, kDriverA, kPool1, kDevice2, {"IsPrepare2"},
                   {"BindingFailed2"})},
              {})},
      },
      {
          .name = "partitionable-devices-with-binding-conditions-some-devices-"
                  "no-conditions",
          .features =
              FeaturesOn({kPartitionableDevices, kDeviceBindingAndStatus}),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 3))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("2Gi")}}))
                      .WithBindingConditions({"IsPrepare"}, {"BindingFailed"}),
                  Device(kDevice2, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("2Gi")}})),
                  Device(kDevice3, kFromCounters)
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithBindingConditions({"IsReady"}, {"BindingTimeout"})),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResultWithConfigs(
              LocalNodeSelector(kNode1),
              {DeviceRequestAllocationResultWithBindingConditions(
                   kReq0, kDriverA, kPool1, kDevice1, {"IsPrepare"},
                   {"BindingFailed"}),
               DeviceRequestAllocationResultWithBindingConditions(
                   kReq0, kDriverA, kPool1, kDevice2, {}, {}),
               DeviceRequestAllocationResultWithBindingConditions(
                   kReq0, kDriverA, kPool1, kDevice3, {"IsReady"},
                   {"BindingTimeout"})},
              {})},
      },
      {
          // claim-0 takes device-1 as its first share, which reserves the
          // one shared counter. claim-1's req-1 first tries device-1 as a
          // second share (the counter is already held), but its match with
          // req-2 sends it back to device-2. Undoing that share, which has
          // no capacity, must leave device-1 marked as holding the counter
          // for claim-0's share, so that req-3 can share device-1 again
          // without charging the counter twice.
          .name = "partitionable-empty-capacity-multiple-share-backtrack-"
                  "keeps-counter-ownership",
          .features = FeaturesOn({kPartitionableDevices, kConsumableCapacity}),
          .claims = Objects(
              ClaimWithRequests(
                  kClaim0, {},
                  Request(kReq0, kClassA, 1,
                          CelSelector(Sprintf(
                              R"(device.attributes["%s"].kind == "shared")",
                              kDriverA)))),
              ClaimWithRequests(
                  kClaim1,
                  {api::DeviceConstraint{.requests = {kReq1, kReq2},
                                         .match_attribute = string_attribute}},
                  Request(
                      kReq1, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.attributes["%s"].kind == "shared" || device.attributes["%s"].kind == "fallback")",
                          kDriverA, kDriverA))),
                  Request(kReq2, kClassA, 1,
                          CelSelector(Sprintf(
                              R"(device.attributes["%s"].kind == "gate")",
                              kDriverA))),
                  Request(kReq3, kClassA, 1,
                          CelSelector(Sprintf(
                              R"(device.attributes["%s"].kind == "shared")",
                              kDriverA))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  // Shareable, without capacity, consuming the counter.
                  Device(kDevice1, {},
                         AttributeMap{{"kind", StringValue("shared")},
                                      {"stringAttribute", StringValue("red")}})
                      .WithAllowMultipleAllocations()
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"c", Q("1")}})),
                  // req-1's fallback, matching req-2's device.
                  Device(
                      kDevice2, {},
                      AttributeMap{{"kind", StringValue("fallback")},
                                   {"stringAttribute", StringValue("blue")}}),
                  // The one device for req-2.
                  Device(
                      kDevice3, {},
                      AttributeMap{{"kind", StringValue("gate")},
                                   {"stringAttribute", StringValue("blue")}})),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"c", Q("1")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              {AllocationResult(LocalNodeSelector(kNode1),
                                share(kReq0, kPool1, kDevice1, QuantityMap{})),
               AllocationResult(LocalNodeSelector(kNode1),
                                DeviceAllocationResult(kReq1, kDriverA, kPool1,
                                                       kDevice2, false),
                                DeviceAllocationResult(kReq2, kDriverA, kPool1,
                                                       kDevice3, false),
                                share(kReq3, kPool1, kDevice1, QuantityMap{}))},
      },
      {
          // With allocation mode All a subrequest must get at least one
          // device, else the next one is tried.
          .name = "prioritized-list-allocation-mode-all-with-selectors",
          .features = FeaturesOn({kPrioritizedList}),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0,
                  SubRequest(kSubReq0, kClassA, 0, generation_is("v6"))
                      .WithAllocationMode(api::DeviceAllocationMode::kAll),
                  SubRequest(kSubReq1, kClassA, 0, generation_is("v5"))
                      .WithAllocationMode(api::DeviceAllocationMode::kAll)))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {},
                     AttributeMap{{"generation", StringValue("v5")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          // Only the devices the class selects count.
          .name = "prioritized-list-allocation-mode-all-with-selectors-"
                  "deviceclass-subset",
          .features = FeaturesOn({kPrioritizedList}),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0,
                  SubRequest(kSubReq0, kClassA, 0, generation_is("v6"))
                      .WithAllocationMode(api::DeviceAllocationMode::kAll),
                  SubRequest(kSubReq1, kClassA, 0, generation_is("v5"))
                      .WithAllocationMode(api::DeviceAllocationMode::kAll)))),
          .classes = Objects([&] {
            api::DeviceClass c;
            c.metadata.name = kClassA;
            c.spec.selectors.push_back(CelSelector(Sprintf(
                R"(device.driver == "%s" && device.attributes["%s"].selected)",
                kDriverA, kDriverA)));
            return c;
          }()),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {},
                     AttributeMap{{"generation", StringValue("v6")},
                                  {"selected", BoolValue(false)}}),
              Device(kDevice2, {},
                     AttributeMap{{"generation", StringValue("v5")},
                                  {"selected", BoolValue(false)}}),
              Device(kDevice3, {},
                     AttributeMap{{"generation", StringValue("v5")},
                                  {"selected", BoolValue(true)}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice3,
                                     false))},
      },
      {
          // Every device the class selects is allocated, in whatever pool.
          .name = "prioritized-list-allocation-mode-all-with-selectors-"
                  "multiple-pools",
          .features = FeaturesOn({kPrioritizedList}),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0,
                  SubRequest(kSubReq0, kClassA, 0, generation_is("v6"))
                      .WithAllocationMode(api::DeviceAllocationMode::kAll),
                  SubRequest(kSubReq1, kClassA, 0, generation_is("v5"))
                      .WithAllocationMode(api::DeviceAllocationMode::kAll)))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, kPool1, kDriverA,
                  Device(kDevice1, {},
                         AttributeMap{{"generation", StringValue("v5")}})),
              SliceWithDevices(
                  kSlice2, kNode1, kPool2, kDriverA,
                  Device(kDevice1, {},
                         AttributeMap{{"generation", StringValue("v5")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice1,
                                     false),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool2, kDevice1,
                                     false))},
      },
      {
          // As above, but only the devices the node can reach.
          .name = "prioritized-list-allocation-mode-all-with-selectors-"
                  "multiple-pools-across-nodes",
          .features = FeaturesOn({kPrioritizedList}),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0,
                  SubRequest(kSubReq0, kClassA, 0, generation_is("v6"))
                      .WithAllocationMode(api::DeviceAllocationMode::kAll),
                  SubRequest(kSubReq1, kClassA, 0, generation_is("v5"))
                      .WithAllocationMode(api::DeviceAllocationMode::kAll)))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, kPool1, kDriverA,
                  Device(kDevice1, {},
                         AttributeMap{{"generation", StringValue("v5")}})),
              SliceWithDevices(
                  kSlice2, kNode2, kPool2, kDriverA,
                  Device(kDevice1, {},
                         AttributeMap{{"generation", StringValue("v5")}}),
                  Device(kDevice2, {},
                         AttributeMap{{"generation", StringValue("v6")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "prioritized-list-subrequests-with-constraints-ref-parent-"
                  "request",
          .features = FeaturesOn({kPrioritizedList}),
          .claims = Objects(
              Claim(kClaim0)
                  .WithConstraints(api::DeviceConstraint{
                      .requests = {kReq0, kReq1},
                      .match_attribute = version_attribute})
                  .WithRequests(DeviceRequest(kReq0, kClassA, 1)
                                    .WithSelectors(memory_at_least("8Gi")),
                                RequestWithPrioritizedList(
                                    kReq1,
                                    SubRequest(kSubReq0, kClassA, 1,
                                               memory_at_least("2Gi")),
                                    SubRequest(kSubReq1, kClassA, 1,
                                               memory_at_least("1Gi"))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, kPool1, kDriverA,
                  Device(
                      kDevice1, QuantityMap{{"memory", Q("8Gi")}},
                      AttributeMap{{"driverVersion", VersionValue("1.0.0")}})),
              SliceWithDevices(
                  kSlice2, kNode1, kPool2, kDriverA,
                  Device(
                      kDevice2, QuantityMap{{"memory", Q("2Gi")}},
                      AttributeMap{{"driverVersion", VersionValue("2.0.0")}}),
                  Device(
                      kDevice3, QuantityMap{{"memory", Q("1Gi")}},
                      AttributeMap{{"driverVersion", VersionValue("1.0.0")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq1SubReq1, kDriverA, kPool2, kDevice3,
                                     false))},
      },
      {
          .name = "with-distinct-constraints",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims =
              Objects(Claim(kClaim0)
                          .WithConstraints(
                              api::DeviceConstraint{
                                  .requests = {kReq0, kReq1},
                                  .distinct_attribute = bool_attribute},
                              api::DeviceConstraint{
                                  .requests = {kReq0, kReq1, kReq2},
                                  .distinct_attribute = version_attribute},
                              api::DeviceConstraint{
                                  .requests = {kReq0, kReq1, kReq2, kReq3},
                                  .distinct_attribute = int_attribute})
                          .WithRequests(DeviceRequest(kReq0, kClassA, 1),
                                        DeviceRequest(kReq1, kClassA, 1),
                                        DeviceRequest(kReq2, kClassA, 1),
                                        DeviceRequest(kReq3, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {},
                     AttributeMap{{"driverVersion", VersionValue("1.0.0")},
                                  {"numa", IntValue(0)},
                                  {"boolAttribute", BoolValue(true)}})
                  .WithAllowMultipleAllocations(),
              Device(kDevice2, {},
                     AttributeMap{{"driverVersion", VersionValue("1.0.1")},
                                  {"numa", IntValue(1)},
                                  {"boolAttribute", BoolValue(false)}})
                  .WithAllowMultipleAllocations(),
              Device(kDevice3, {},
                     AttributeMap{{"driverVersion", VersionValue("1.0.2")},
                                  {"numa", IntValue(2)},
                                  {"boolAttribute", BoolValue(true)}})
                  .WithAllowMultipleAllocations(),
              Device(kDevice4, {},
                     AttributeMap{{"driverVersion", VersionValue("1.0.0")},
                                  {"numa", IntValue(3)},
                                  {"boolAttribute", BoolValue(true)}})
                  .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0, kPool1, kDevice1, QuantityMap{}),
              share(kReq1, kPool1, kDevice2, QuantityMap{}),
              share(kReq2, kPool1, kDevice3, QuantityMap{}),
              share(kReq3, kPool1, kDevice4, QuantityMap{}))},
      },
      {
          .name = "with-distinct-constraints-attribute-not-set",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims =
              Objects(Claim(kClaim0)
                          .WithConstraints(api::DeviceConstraint{
                              .requests = {kReq0},
                              .distinct_attribute = bool_attribute})
                          .WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1).WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "with-distinct-constraints-unknown-type-attribute",
          .features = FeaturesOn({kConsumableCapacity}),
          .claims =
              Objects(Claim(kClaim0)
                          .WithConstraints(api::DeviceConstraint{
                              .requests = {kReq0},
                              .distinct_attribute = bool_attribute})
                          .WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {},
                     AttributeMap{{"boolAttribute", api::DeviceAttribute{}}})
                  .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
          .expect_error = "unsupported attribute value",
      },
      {
          // All three requests prefer a device whose boolAttribute is
          // true, but only req-0 and req-1 must differ in it: req-1 falls
          // back to device-2, while req-2 may share device-1 with req-0.
          .name = "with-distinct-constraints-with-subrequests",
          .features = FeaturesOn({kConsumableCapacity, kPrioritizedList}),
          .claims = Objects(
              Claim(kClaim0)
                  .WithConstraints(api::DeviceConstraint{
                      .requests = {kReq0, kReq1},
                      .distinct_attribute = bool_attribute})
                  .WithRequests(
                      RequestWithPrioritizedList(
                          kReq0, SubRequest(kSubReq0, kClassA, 1, bool_is_true),
                          SubRequest(kSubReq1, kClassA, 1)),
                      RequestWithPrioritizedList(
                          kReq1, SubRequest(kSubReq0, kClassA, 1, bool_is_true),
                          SubRequest(kSubReq1, kClassA, 1)),
                      RequestWithPrioritizedList(
                          kReq2, SubRequest(kSubReq0, kClassA, 1, bool_is_true),
                          SubRequest(kSubReq1, kClassA, 1)))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {},
                     AttributeMap{{"boolAttribute", BoolValue(true)}})
                  .WithAllowMultipleAllocations(),
              Device(kDevice2, {},
                     AttributeMap{{"boolAttribute", BoolValue(false)}})
                  .WithAllowMultipleAllocations())),
          .node = Node(kNode1, kRegion1),
          .expect_results = {AllocationResult(
              LocalNodeSelector(kNode1),
              share(kReq0SubReq0, kPool1, kDevice1, QuantityMap{}),
              share(kReq1SubReq1, kPool1, kDevice2, QuantityMap{}),
              share(kReq2SubReq0, kPool1, kDevice1, QuantityMap{}))},
      },
  };
  return *cases;
}

}  // namespace ksched::dra::allocator_testing

// Kubernetes' allocator test table (allocatortesting.TestAllocator, v1.35),
// case by case. The cases that need features only Kubernetes'
// experimental allocator has are left out; allocator_test.cc lists them.
#include "pkg/dra/allocator_kube_cases.h"

namespace ksched::dra::allocator_testing {

const std::vector<KubeCase>& KubeCases() {
  const std::string non_existent_attribute =
      std::string(kDriverA) + "/NonExistentAttribute";
  const std::string bool_attribute = std::string(kDriverA) + "/boolAttribute";
  const std::string string_attribute =
      std::string(kDriverA) + "/stringAttribute";
  const std::string version_attribute =
      std::string(kDriverA) + "/driverVersion";
  const std::string int_attribute = std::string(kDriverA) + "/numa";
  const std::string taint_key = "taint-key";
  const std::string taint_value = "taint-value";
  const std::string taint_value2 = "taint-value-2";
  const api::DeviceTaint taint_none{
      taint_key, taint_value, api::DeviceTaintEffect::kNone, {}};
  const api::DeviceTaint taint_no_schedule{
      taint_key, taint_value, api::DeviceTaintEffect::kNoSchedule, {}};
  const api::DeviceTaint taint_no_execute{
      taint_key, taint_value2, api::DeviceTaintEffect::kNoExecute, {}};
  const api::DeviceToleration toleration_no_schedule{
      taint_key,
      api::DeviceTolerationOperator::kExists,
      "",
      api::DeviceTaintEffect::kNoSchedule,
      {}};
  const api::DeviceToleration toleration_no_execute{
      taint_key,
      api::DeviceTolerationOperator::kEqual,
      taint_value2,
      api::DeviceTaintEffect::kNoExecute,
      {}};

  // Built once, never destroyed (no static destructors at exit).
  static const auto* cases = new std::vector<KubeCase>{
      {
          .name = "empty",
      },
      {
          .name = "simple",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "other-node",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverB),
              SliceWithOneDevice(kSlice2, kNode2, kPool2, kDriverA)),
          .node = Node(kNode2, kRegion2),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode2),
              DeviceAllocationResult(kReq0, kDriverA, kPool2, kDevice1,
                                     false))},
      },
      {
          .name = "small-and-large",
          .claims = Objects(ClaimWithRequests(
              kClaim0, {},
              Request(
                  kReq0, kClassA, 1,
                  CelSelector(Sprintf(
                      R"(device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0)",
                      kDriverA))),
              Request(
                  kReq1, kClassA, 1,
                  CelSelector(Sprintf(
                      R"(device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0)",
                      kDriverA))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, QuantityMap{{"memory", Q("1Gi")}}, {}),
              Device(kDevice2, QuantityMap{{"memory", Q("2Gi")}}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name = "small-and-large-backtrack-requests",
          .claims = Objects(ClaimWithRequests(
              kClaim0, {},
              Request(
                  kReq0, kClassA, 1,
                  CelSelector(Sprintf(
                      R"(device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0)",
                      kDriverA))),
              Request(
                  kReq1, kClassA, 1,
                  CelSelector(Sprintf(
                      R"(device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0)",
                      kDriverA))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice2, QuantityMap{{"memory", Q("2Gi")}}, {}),
              Device(kDevice1, QuantityMap{{"memory", Q("1Gi")}}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name = "small-and-large-backtrack-claims",
          .claims = Objects(
              ClaimWithRequests(
                  kClaim0, {},
                  Request(
                      kReq0, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0)",
                          kDriverA)))),
              ClaimWithRequests(
                  kClaim1, {},
                  Request(
                      kReq1, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0)",
                          kDriverA))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice2, QuantityMap{{"memory", Q("2Gi")}}, {}),
              Device(kDevice1, QuantityMap{{"memory", Q("1Gi")}}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              std::vector<Expected>{
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1,
                                             kDevice1, false)),
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq1, kDriverA, kPool1,
                                             kDevice2, false))},
      },
      {
          .name = "devices-split-across-different-slices",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {},
                                [&] {
                                  api::DeviceRequest o;
                                  o.name = kReq0;
                                  o.exactly = [&] {
                                    api::ExactDeviceRequest o;
                                    o.count = 2;
                                    o.allocation_mode =
                                        api::DeviceAllocationMode::kExactCount;
                                    o.device_class_name = kClassA;
                                    return o;
                                  }();
                                  return o;
                                }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA),
              SliceWithOneDevice(kSlice2, kNode1, kPool2, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq0, kDriverA, kPool2, kDevice1,
                                     false))},
      },
      {
          .name = "obsolete-slice",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices("slice-1-obsolete", kNode1,
                               ResourcePool(kPool1, 2), kDriverA,
                               Device(kDevice1, {}, {})),
              [&]() -> WrapSlice {
                auto slice = SliceWithDevices("slice-1-obsolete", kNode1,
                                              ResourcePool(kPool1, 2), kDriverA,
                                              Device(kDevice2, {}, {}));
                ++slice.spec.pool.generation;
                return slice;
              }()),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{},
      },
      {
          .name = "duplicate-slice",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = [&]() -> std::vector<api::ResourceSlice> {
            auto sliceA =
                SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA).Obj();
            sliceA.spec.pool.resource_slice_count = 2;
            auto sliceB = sliceA;
            sliceB.metadata.name += "-2";
            return std::vector<api::ResourceSlice>{sliceA, sliceB};
          }(),
          .node = Node(kNode1, kRegion1),
          .expect_error = "invalid resource pools were encountered",
      },
      {
          .name = "no-slices",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "not-enough-suitable-devices",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA),
                            ClaimWithRequest(kClaim0, kReq1, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "no-classes",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "could not retrieve device class class-a",
      },
      {
          .name = "unknown-class",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, "unknown-class")),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "could not retrieve device class unknown-class",
      },
      {
          .name = "empty-class",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, "")),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "claim claim-0, request req-0: missing device class "
                          "name (unsupported request type?)",
      },
      {
          .name = "no-claims-to-allocate",
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "all-devices-single",
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "all-devices-with-consumed-counters",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, {}, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "all-devices-many",
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA),
              SliceWithOneDevice(kSlice1, kNode1, kPool2, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq0, kDriverA, kPool2, kDevice1,
                                     false))},
      },
      {
          .name = "all-devices-of-the-incomplete-pool",
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.count = 1;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices([&]() -> WrapSlice {
            auto slice = SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA);
            ++slice.spec.pool.resource_slice_count;
            return slice;
          }()),
          .node = Node(kNode1, kRegion1),
          .expect_error =
              "claim claim-0, request req-0: asks for all devices, but "
              "resource pool driver-a/pool-1 is currently being updated",
      },
      {
          .name = "all-devices-plus-another",
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }()),
                      ClaimWithRequests(kClaim1, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::
                                                    kExactCount;
                                            o.count = 1;
                                            o.device_class_name = kClassB;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA),
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverB)),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              std::vector<Expected>{
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1,
                                             kDevice1, false)),
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverB, kPool1,
                                             kDevice1, false))},
      },
      {
          .name = "all-devices-plus-another-reversed",
          .claims =
              Objects(ClaimWithRequests(kClaim1, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::
                                                    kExactCount;
                                            o.count = 1;
                                            o.device_class_name = kClassB;
                                            return o;
                                          }();
                                          return o;
                                        }()),
                      ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA),
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverB)),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              std::vector<Expected>{
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverB, kPool1,
                                             kDevice1, false)),
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1,
                                             kDevice1, false))},
      },
      {
          .name = "all-devices-many-plus-another",
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }()),
                      ClaimWithRequests(kClaim1, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::
                                                    kExactCount;
                                            o.count = 1;
                                            o.device_class_name = kClassB;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, {}, {}),
                               Device(kDevice2, {}, {})),
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverB)),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              std::vector<Expected>{
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1,
                                             kDevice1, false),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1,
                                             kDevice2, false)),
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverB, kPool1,
                                             kDevice1, false))},
      },
      {
          .name = "all-devices-many-plus-another-reversed",
          .claims =
              Objects(ClaimWithRequests(kClaim1, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::
                                                    kExactCount;
                                            o.count = 1;
                                            o.device_class_name = kClassB;
                                            return o;
                                          }();
                                          return o;
                                        }()),
                      ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, {}, {}),
                               Device(kDevice2, {}, {})),
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverB)),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              std::vector<Expected>{
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverB, kPool1,
                                             kDevice1, false)),
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1,
                                             kDevice1, false),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1,
                                             kDevice2, false))},
      },
      {
          .name = "all-devices-no-solution",
          .claims =
              Objects(ClaimWithRequests(kClaim1, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::
                                                    kExactCount;
                                            o.count = 1;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }()),
                      ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "all-devices-no-solution-reversed",
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }()),
                      ClaimWithRequests(kClaim1, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::
                                                    kExactCount;
                                            o.count = 1;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "all-devices-slice-without-devices",
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithNoDevices(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "all-devices-no-slices",
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "all-devices-some-allocated",
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice1}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1, {}, {}),
              Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "all-devices-some-allocated-admin-access",
          .features =
              [] {
                Features o = NoFeatures();
                o.admin_access = true;
                return o;
              }(),
          .claims = [&]() -> std::vector<WrapClaim> {
            auto c = ClaimWithRequest(kClaim0, kReq0, kClassA);
            c.spec.devices.requests[0].exactly->admin_access = true;
            c.spec.devices.requests[0].exactly->allocation_mode =
                api::DeviceAllocationMode::kAll;
            return std::vector<WrapClaim>{c};
          }(),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice1}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1, {}, {}),
              Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, true),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2, true))},
      },
      {
          .name = "all-devices-some-allocating-admin-access",
          .features =
              [] {
                Features o = NoFeatures();
                o.admin_access = true;
                return o;
              }(),
          .claims = [&]() -> std::vector<WrapClaim> {
            auto c = ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1),
                                       Request(kReq1, kClassA, 1));
            c.spec.devices.requests[0].exactly->admin_access = true;
            c.spec.devices.requests[1].exactly->admin_access = true;
            c.spec.devices.requests[1].exactly->allocation_mode =
                api::DeviceAllocationMode::kAll;
            return std::vector<WrapClaim>{c};
          }(),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1, {}, {}),
              Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "count-devices-some-allocated-admin-access",
          .features =
              [] {
                Features o = NoFeatures();
                o.admin_access = true;
                return o;
              }(),
          .claims = [&]() -> std::vector<WrapClaim> {
            auto c = ClaimWithRequest(kClaim0, kReq0, kClassA);
            c.spec.devices.requests[0].exactly->admin_access = true;
            c.spec.devices.requests[0].exactly->allocation_mode =
                api::DeviceAllocationMode::kExactCount;
            c.spec.devices.requests[0].exactly->count = 2;
            return std::vector<WrapClaim>{c};
          }(),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice1}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1, {}, {}),
              Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, true),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2, true))},
      },
      {
          .name = "separate-claims-share-device-admin-access",
          .features =
              [] {
                Features o = NoFeatures();
                o.admin_access = true;
                return o;
              }(),
          .claims = [&]() -> std::vector<WrapClaim> {
            auto c1 = ClaimWithRequest(kClaim0, kReq0, kClassA);
            c1.spec.devices.requests[0].exactly->admin_access = true;
            auto c2 = ClaimWithRequest(kClaim1, kReq0, kClassA);
            c2.spec.devices.requests[0].exactly->admin_access = true;
            return std::vector<WrapClaim>{c1, c2};
          }(),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1, {}, {}),
              Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              std::vector<Expected>{
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                             true)),
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                             true))},
      },
      {
          .name = "admin-access-claims-device-allocating-for-non-admin-access",
          .features =
              [] {
                Features o = NoFeatures();
                o.admin_access = true;
                return o;
              }(),
          .claims = [&]() -> std::vector<WrapClaim> {
            auto admin = ClaimWithRequest(kClaim1, kReq0, kClassA);
            admin.spec.devices.requests[0].exactly->admin_access = true;
            return std::vector<WrapClaim>{
                ClaimWithRequest(kClaim0, kReq0, kClassA), admin};
          }(),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1, {}, {}),
              Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              std::vector<Expected>{
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                             false)),
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                             true))},
      },
      {
          .name = "all-devices-slice-without-devices-prioritized-list",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects([&]() -> WrapClaim {
            auto claim = Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                kReq0, SubRequest(kSubReq0, kClassA, 1),
                SubRequest(kSubReq1, kClassB, 1)));
            claim.spec.devices.requests[0].first_available[0].allocation_mode =
                api::DeviceAllocationMode::kAll;
            claim.spec.devices.requests[0].first_available[0].count = 0;
            return claim;
          }()),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithNoDevices(kSlice1, kNode1, kPool1, kDriverA),
              SliceWithOneDevice(kSlice2, kNode1, kPool2, kDriverB)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverB, kPool2, kDevice1,
                                     false))},
      },
      {
          .name = "all-devices-no-slices-prioritized-list",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects([&]() -> WrapClaim {
            auto claim = Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                kReq0, SubRequest(kSubReq0, kClassA, 1),
                SubRequest(kSubReq1, kClassB, 1)));
            claim.spec.devices.requests[0].first_available[0].allocation_mode =
                api::DeviceAllocationMode::kAll;
            claim.spec.devices.requests[0].first_available[0].count = 0;
            return claim;
          }()),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice2, kNode1, kPool2, kDriverB)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverB, kPool2, kDevice1,
                                     false))},
      },
      {
          .name = "all-devices-some-allocated-prioritized-list",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects([&]() -> WrapClaim {
            auto claim = Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                kReq0, SubRequest(kSubReq0, kClassA, 1),
                SubRequest(kSubReq1, kClassB, 1)));
            claim.spec.devices.requests[0].first_available[0].allocation_mode =
                api::DeviceAllocationMode::kAll;
            claim.spec.devices.requests[0].first_available[0].count = 0;
            return claim;
          }()),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice1}},
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, {}, {}),
                               Device(kDevice2, {}, {})),
              SliceWithOneDevice(kSlice2, kNode1, kPool2, kDriverB)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverB, kPool2, kDevice1,
                                     false))},
      },
      {
          .name = "network-attached-device",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithOneDevice(
              kSlice1, NodeLabelSelector(kRegionKey, kRegion1), kPool1,
              kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              NodeLabelSelector(kRegionKey, kRegion1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "unsuccessful-allocation-network-attached-device",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithOneDevice(
              kSlice1, NodeLabelSelector(kRegionKey, kRegion1), kPool1,
              kDriverA)),
          .node = Node(kNode2, kRegion2),
      },
      {
          .name = "many-network-attached-devices",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 4))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1,
                                 NodeLabelSelector(kRegionKey, kRegion1),
                                 kPool1, kDriverA),
              SliceWithOneDevice(kSlice1, kNodeSelectionAll, kPool2, kDriverA),
              SliceWithOneDevice(
                  kSlice1, NodeLabelSelector(kPlanetKey, kPlanetValueEarth),
                  kPool3, kDriverA),
              SliceWithOneDevice(kSlice1, LocalNodeSelector(kNode1), kPool4,
                                 kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              std::vector<Expected>{
                  AllocationResult(
                      [&] {
                        api::NodeSelector o;
                        o.node_selector_terms =
                            std::vector<api::NodeSelectorTerm>{[&] {
                              api::NodeSelectorTerm o;
                              o.match_expressions =
                                  std::vector<api::NodeSelectorRequirement>{
                                      [&] {
                                        api::NodeSelectorRequirement o;
                                        o.key = kRegionKey;
                                        o.op = api::NodeSelectorOperator::kIn;
                                        o.values =
                                            std::vector<std::string>{kRegion1};
                                        return o;
                                      }(),
                                      [&] {
                                        api::NodeSelectorRequirement o;
                                        o.key = kPlanetKey;
                                        o.op = api::NodeSelectorOperator::kIn;
                                        o.values = std::vector<std::string>{
                                            kPlanetValueEarth};
                                        return o;
                                      }()};
                              o.match_fields =
                                  std::vector<api::NodeSelectorRequirement>{
                                      [&] {
                                        api::NodeSelectorRequirement o;
                                        o.key = kFieldNameKey;
                                        o.op = api::NodeSelectorOperator::kIn;
                                        o.values =
                                            std::vector<std::string>{kNode1};
                                        return o;
                                      }()};
                              return o;
                            }()};
                        return o;
                      }(),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                             false),
                      DeviceAllocationResult(kReq0, kDriverA, kPool2, kDevice1,
                                             false),
                      DeviceAllocationResult(kReq0, kDriverA, kPool3, kDevice1,
                                             false),
                      DeviceAllocationResult(kReq0, kDriverA, kPool4, kDevice1,
                                             false))},
      },
      {
          .name = "local-and-network-attached-devices",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 2))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1,
                                 NodeLabelSelector(kRegionKey, kRegion1),
                                 kPool1, kDriverA),
              SliceWithOneDevice(kSlice1, kNode1, kPool2, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq0, kDriverA, kPool2, kDevice1,
                                     false))},
      },
      {
          .name = "several-different-drivers",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA),
                            ClaimWithRequest(kClaim0, kReq0, kClassB)),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                               Device(kDevice1, {}, {}),
                               Device(kDevice2, {}, {})),
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverB)),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              std::vector<Expected>{
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1,
                                             kDevice1, false)),
                  AllocationResult(
                      LocalNodeSelector(kNode1),
                      DeviceAllocationResult(kReq0, kDriverB, kPool1,
                                             kDevice1, false))},
      },
      {
          .name = "already-allocated-devices",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice1},
                                    DeviceId{kDriverA, kPool1, kDevice2}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "admin-access-disabled",
          .features =
              [] {
                Features o = NoFeatures();
                o.admin_access = false;
                return o;
              }(),
          .claims = [&]() -> std::vector<WrapClaim> {
            auto c = ClaimWithRequest(kClaim0, kReq0, kClassA);
            c.spec.devices.requests[0].exactly->admin_access = true;
            return std::vector<WrapClaim>{c};
          }(),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "claim claim-0, request req-0: admin access is "
                          "requested, but the feature is disabled",
      },
      {
          .name = "admin-access-enabled",
          .features =
              [] {
                Features o = NoFeatures();
                o.admin_access = true;
                return o;
              }(),
          .claims = [&]() -> std::vector<WrapClaim> {
            auto c = ClaimWithRequest(kClaim0, kReq0, kClassA);
            c.spec.devices.requests[0].exactly->admin_access = true;
            return std::vector<WrapClaim>{c};
          }(),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice1},
                                    DeviceId{kDriverA, kPool1, kDevice2}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, true))},
      },
      {
          .name = "with-constraint",
          .claims = Objects(ClaimWithRequests(
              kClaim0,
              std::vector<api::DeviceConstraint>{
                  [&] {
                    api::DeviceConstraint o;
                    o.match_attribute = int_attribute;
                    return o;
                  }(),
                  [&] {
                    api::DeviceConstraint o;
                    o.match_attribute = version_attribute;
                    return o;
                  }(),
                  [&] {
                    api::DeviceConstraint o;
                    o.match_attribute = string_attribute;
                    return o;
                  }(),
                  [&] {
                    api::DeviceConstraint o;
                    o.match_attribute = bool_attribute;
                    return o;
                  }()},
              Request(kReq0, kClassA, 1), Request(kReq1, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(kSlice1, kNode1,
                                                          kPool1, kDriverA,
                                                          Device(kDevice1, {},
                                                                 AttributeMap{
                                                                     {"driverVe"
                                                                      "rsion",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.version_value =
                                                                            "1."
                                                                            "0."
                                                                            "0";
                                                                        return o;
                                                                      }()},
                                                                     {"numa",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.int_value =
                                                                            int64_t{
                                                                                1};
                                                                        return o;
                                                                      }()},
                                                                     {"stringAt"
                                                                      "tribute",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.string_value =
                                                                            "st"
                                                                            "ri"
                                                                            "ng"
                                                                            "At"
                                                                            "tr"
                                                                            "ib"
                                                                            "ut"
                                                                            "eV"
                                                                            "al"
                                                                            "u"
                                                                            "e";
                                                                        return o;
                                                                      }()},
                                                                     {"boolAttr"
                                                                      "ibute",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.bool_value =
                                                                            true;
                                                                        return o;
                                                                      }()}}),
                                                          Device(kDevice2, {},
                                                                 AttributeMap{
                                                                     {"driverVe"
                                                                      "rsion",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.version_value =
                                                                            "1."
                                                                            "0."
                                                                            "0";
                                                                        return o;
                                                                      }()},
                                                                     {"numa",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.int_value =
                                                                            int64_t{
                                                                                1};
                                                                        return o;
                                                                      }()},
                                                                     {"stringAt"
                                                                      "tribute",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.string_value =
                                                                            "st"
                                                                            "ri"
                                                                            "ng"
                                                                            "At"
                                                                            "tr"
                                                                            "ib"
                                                                            "ut"
                                                                            "eV"
                                                                            "al"
                                                                            "u"
                                                                            "e";
                                                                        return o;
                                                                      }()},
                                                                     {"boolAttr"
                                                                      "ibute",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.bool_value =
                                                                            true;
                                                                        return o;
                                                                      }()}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name = "with-constraint-non-existent-attribute",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA,
                                             [&] {
                                               api::DeviceConstraint o;
                                               o.match_attribute =
                                                   non_existent_attribute;
                                               return o;
                                             }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "with-constraint-not-matching-int-attribute",
          .claims = Objects(ClaimWithRequests(
              kClaim0, std::vector<api::DeviceConstraint>{[&] {
                api::DeviceConstraint o;
                o.match_attribute = int_attribute;
                return o;
              }()},
              Request(kReq0, kClassA, 2))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(SliceWithDevices(kSlice1, kNode1,
                                                          kPool1, kDriverA,
                                                          Device(kDevice1, {},
                                                                 AttributeMap{
                                                                     {"numa",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.int_value =
                                                                            int64_t{
                                                                                1};
                                                                        return o;
                                                                      }()}}),
                                                          Device(kDevice2, {},
                                                                 AttributeMap{
                                                                     {"numa",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.int_value =
                                                                            int64_t{
                                                                                2};
                                                                        return o;
                                                                      }()}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "with-constraint-not-matching-int-attribute-all-devices",
          .claims = Objects([&]() -> WrapClaim {
            auto claim = ClaimWithRequests(
                kClaim0, std::vector<api::DeviceConstraint>{[&] {
                  api::DeviceConstraint o;
                  o.match_attribute = int_attribute;
                  return o;
                }()},
                Request(kReq0, kClassA, 0));
            claim.spec.devices.requests[0].exactly->allocation_mode =
                api::DeviceAllocationMode::kAll;
            return claim;
          }()),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(SliceWithDevices(kSlice1, kNode1,
                                                          kPool1, kDriverA,
                                                          Device(kDevice1, {},
                                                                 AttributeMap{
                                                                     {"numa",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.int_value =
                                                                            int64_t{
                                                                                1};
                                                                        return o;
                                                                      }()}}),
                                                          Device(kDevice2, {},
                                                                 AttributeMap{
                                                                     {"numa",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.int_value =
                                                                            int64_t{
                                                                                2};
                                                                        return o;
                                                                      }()}}))),
          .node = Node(kNode1, kRegion1),
          .expect_error = "claim claim-0, request req-0: cannot add device "
                          "driver-a/pool-1/device-2 because a claim constraint "
                          "would not be satisfied",
      },
      {
          .name = "with-constraint-not-matching-string-attribute",
          .claims = Objects(ClaimWithRequests(
              kClaim0, std::vector<api::DeviceConstraint>{[&] {
                api::DeviceConstraint o;
                o.match_attribute = string_attribute;
                return o;
              }()},
              Request(kReq0, kClassA, 2))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices =
              UnwrapResourceSlices(SliceWithDevices(kSlice1, kNode1, kPool1,
                                                    kDriverA,
                                                    Device(
                                                        kDevice1, {},
                                                        AttributeMap{
                                                            {"stringAttribute",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.string_value =
                                                                   "stringAttri"
                                                                   "buteValue";
                                                               return o;
                                                             }()}}),
                                                    Device(
                                                        kDevice2, {},
                                                        AttributeMap{
                                                            {"stringAttribute",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.string_value =
                                                                   "stringAttri"
                                                                   "buteValue2";
                                                               return o;
                                                             }()}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "with-constraint-not-matching-bool-attribute",
          .claims = Objects(ClaimWithRequests(
              kClaim0, std::vector<api::DeviceConstraint>{[&] {
                api::DeviceConstraint o;
                o.match_attribute = bool_attribute;
                return o;
              }()},
              Request(kReq0, kClassA, 2))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices =
              UnwrapResourceSlices(SliceWithDevices(kSlice1, kNode1, kPool1,
                                                    kDriverA,
                                                    Device(
                                                        kDevice1, {},
                                                        AttributeMap{
                                                            {"boolAttribute",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.bool_value =
                                                                   true;
                                                               return o;
                                                             }()}}),
                                                    Device(
                                                        kDevice2, {},
                                                        AttributeMap{
                                                            {"boolAttribute",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.bool_value =
                                                                   false;
                                                               return o;
                                                             }()}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "with-constraint-not-matching-version-attribute",
          .claims = Objects(ClaimWithRequests(
              kClaim0, std::vector<api::DeviceConstraint>{[&] {
                api::DeviceConstraint o;
                o.match_attribute = version_attribute;
                return o;
              }()},
              Request(kReq0, kClassA, 2))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices =
              UnwrapResourceSlices(SliceWithDevices(kSlice1, kNode1, kPool1,
                                                    kDriverA,
                                                    Device(
                                                        kDevice1, {},
                                                        AttributeMap{
                                                            {"driverVersion",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.version_value =
                                                                   "1.0.0";
                                                               return o;
                                                             }()}}),
                                                    Device(
                                                        kDevice2, {},
                                                        AttributeMap{
                                                            {"driverVersion",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.version_value =
                                                                   "2.0.0";
                                                               return o;
                                                             }()}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "with-constraint-for-request",
          .claims = Objects(ClaimWithRequests(
              kClaim0, std::vector<api::DeviceConstraint>{[&] {
                api::DeviceConstraint o;
                o.requests = std::vector<std::string>{kReq0};
                o.match_attribute = version_attribute;
                return o;
              }()},
              Request(kReq0, kClassA, 1), Request(kReq1, kClassA, 1))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices =
              UnwrapResourceSlices(SliceWithDevices(kSlice1, kNode1, kPool1,
                                                    kDriverA,
                                                    Device(
                                                        kDevice1, {},
                                                        AttributeMap{
                                                            {"driverVersion",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.version_value =
                                                                   "1.0.0";
                                                               return o;
                                                             }()}}),
                                                    Device(
                                                        kDevice2, {},
                                                        AttributeMap{
                                                            {"driverVersion",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.version_value =
                                                                   "2.0.0";
                                                               return o;
                                                             }()}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name = "with-constraint-for-request-retry",
          .claims = Objects(ClaimWithRequests(
              kClaim0,
              std::vector<api::DeviceConstraint>{
                  [&] {
                    api::DeviceConstraint o;
                    o.requests = std::vector<std::string>{kReq0};
                    o.match_attribute = version_attribute;
                    return o;
                  }(),
                  [&] {
                    api::DeviceConstraint o;
                    o.match_attribute = string_attribute;
                    return o;
                  }()},
              Request(kReq0, kClassA, 1), Request(kReq1, kClassA, 1))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices =
              UnwrapResourceSlices(SliceWithDevices(kSlice1, kNode1, kPool1,
                                                    kDriverA,
                                                    Device(
                                                        kDevice1, {},
                                                        AttributeMap{
                                                            {"driverVersion",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.version_value =
                                                                   "1.0.0";
                                                               return o;
                                                             }()},
                                                            {"stringAttribute",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.string_value =
                                                                   "a";
                                                               return o;
                                                             }()}}),
                                                    Device(
                                                        kDevice2, {},
                                                        AttributeMap{
                                                            {"driverVersion",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.version_value =
                                                                   "2.0.0";
                                                               return o;
                                                             }()},
                                                            {"stringAttribute",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.string_value =
                                                                   "b";
                                                               return o;
                                                             }()}}),
                                                    Device(
                                                        kDevice3, {},
                                                        AttributeMap{
                                                            {"driverVersion",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.version_value =
                                                                   "3.0.0";
                                                               return o;
                                                             }()},
                                                            {"stringAttribute",
                                                             [&] {
                                                               api::
                                                                   DeviceAttribute
                                                                       o;
                                                               o.string_value =
                                                                   "b";
                                                               return o;
                                                             }()}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2, false),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice3,
                                     false))},
      },
      {
          .name = "with-class-device-config",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes =
              Objects(ClassWithConfig(kClassA, kDriverA, "classAttribute")),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResultWithConfigs(
              LocalNodeSelector(kNode1),
              Objects(DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                             false)),
              std::vector<api::DeviceAllocationConfiguration>{[&] {
                api::DeviceAllocationConfiguration o;
                o.source = api::AllocationConfigSource::kFromClass;
                o.requests = std::vector<std::string>{kReq0};
                o.config = DeviceConfiguration(kDriverA, "classAttribute");
                return o;
              }()})},
      },
      {
          .name = "with-class-device-config-with-multiple-request-and-configs",
          .claims = Objects(ClaimWithRequests(
              kClaim0, std::vector<api::DeviceConstraint>{},
              Request(kReq0, kClassA, 1), Request(kReq1, kClassA, 1),
              Request(kReq2, kClassB, 1))),
          .classes =
              Objects(ClassWithConfig(kClassA, kDriverA, "classAttribute-A"),
                      ClassWithConfig(kClassB, kDriverB, "classAttribute-B")),
          .slices = Unwrap(
              SliceWithMultipleDevices(kSlice1, kNode1, kPool1, kDriverA, 2),
              SliceWithOneDevice(kSlice2, kNode1, kPool1, kDriverB)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResultWithConfigs(
              LocalNodeSelector(kNode1),
              Objects(DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice0,
                                             false),
                      DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice1,
                                             false),
                      DeviceAllocationResult(kReq2, kDriverB, kPool1, kDevice1,
                                             false)),
              std::vector<api::DeviceAllocationConfiguration>{
                  [&] {
                    api::DeviceAllocationConfiguration o;
                    o.source = api::AllocationConfigSource::kFromClass;
                    o.requests = std::vector<std::string>{kReq0, kReq1};
                    o.config =
                        DeviceConfiguration(kDriverA, "classAttribute-A");
                    return o;
                  }(),
                  [&] {
                    api::DeviceAllocationConfiguration o;
                    o.source = api::AllocationConfigSource::kFromClass;
                    o.requests = std::vector<std::string>{kReq2};
                    o.config =
                        DeviceConfiguration(kDriverB, "classAttribute-B");
                    return o;
                  }()})},
      },
      {
          .name = "claim-with-device-config",
          .claims = Objects(ClaimWithDeviceConfig(kClaim0, kReq0, kClassA,
                                                  kDriverA, "deviceAttribute")),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResultWithConfig(
              LocalNodeSelector(kNode1), kDriverA,
              api::AllocationConfigSource::kFromClaim, "deviceAttribute",
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "unknown-selector",
          .claims = Objects([&]() -> WrapClaim {
            auto claim = ClaimWithRequest(kClaim0, kReq0, kClassA);
            claim.spec.devices.requests[0].exactly->selectors =
                std::vector<api::DeviceSelector>{api::DeviceSelector{}};
            return claim;
          }()),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "CEL expression empty (unsupported selector type?)",
      },
      {
          .name = "unknown-allocation-mode",
          .claims = Objects([&]() -> WrapClaim {
            auto claim = ClaimWithRequest(kClaim0, kReq0, kClassA);
            claim.spec.devices.requests[0].exactly->allocation_mode =
                api::DeviceAllocationMode::kOther;
            return claim;
          }()),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          // ksched does not keep an unknown mode's text ("future-mode").
          .expect_error = "unsupported count mode",
      },
      {
          .name = "unknown-constraint",
          .claims = Objects([&]() -> WrapClaim {
            auto claim = ClaimWithRequest(kClaim0, kReq0, kClassA);
            claim.spec.devices.constraints =
                std::vector<api::DeviceConstraint>{api::DeviceConstraint{}};
            return claim;
          }()),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "empty constraint (unsupported constraint type?)",
      },
      {
          .name = "invalid-CEL-one-device",
          .claims = Objects([&]() -> WrapClaim {
            auto claim = ClaimWithRequest(kClaim0, kReq0, kClassA);
            claim.spec.devices.requests[0].exactly->selectors =
                std::vector<api::DeviceSelector>{CelSelector("noSuchVar")};
            return claim;
          }()),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "undeclared reference",
      },
      {
          .name = "invalid-CEL-one-device-class",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects([&]() -> api::DeviceClass {
            auto c = Class(kClassA, kDriverA);
            c.spec.selectors[0].cel->expression = "noSuchVar";
            return c;
          }()),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "undeclared reference",
      },
      {
          .name = "invalid-CEL-all-devices",
          .claims = Objects([&]() -> WrapClaim {
            auto claim = ClaimWithRequest(kClaim0, kReq0, kClassA);
            claim.spec.devices.requests[0].exactly->selectors =
                std::vector<api::DeviceSelector>{CelSelector("noSuchVar")};
            claim.spec.devices.requests[0].exactly->allocation_mode =
                api::DeviceAllocationMode::kAll;
            return claim;
          }()),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "undeclared reference",
      },
      {
          .name = "too-many-devices-single-request",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 500))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .expect_error = "exceeds the claim limit",
      },
      {
          .name = "many-devices-okay",
          .claims = Objects(ClaimWithRequests(
              kClaim0, {}, Request(kReq0, kClassA, kAllocationResultsMaxSize))),
          .classes = Objects(Class(kClassA, kDriverA)),
      },
      {
          .name = "too-many-devices-total",
          .claims = Objects(ClaimWithRequests(
              kClaim0, {}, Request(kReq0, kClassA, kAllocationResultsMaxSize),
              Request(kReq1, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithMultipleDevices(kSlice1, kNode1, kPool1, kDriverA,
                                       kAllocationResultsMaxSize + 1)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "exceeds the claim limit",
      },
      {
          .name = "all-devices-invalid-CEL",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 500))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .expect_error = "exceeds the claim limit",
      },
      {
          .name = "prioritized-list-first-unavailable",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0, SubRequest(kSubReq0, kClassB, 1),
                  SubRequest(kSubReq1, kClassA, 1)))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "prioritized-list-non-available",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0, SubRequest(kSubReq0, kClassB, 2),
                  SubRequest(kSubReq1, kClassA, 2)))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA),
              SliceWithOneDevice(kSlice2, kNode1, kPool2, kDriverB)),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "prioritized-list-device-config",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects(
              Claim(kClaim0)
                  .WithRequests(RequestWithPrioritizedList(
                      kReq0, SubRequest(kSubReq0, kClassA, 1),
                      SubRequest(kSubReq1, kClassB, 2)))
                  .WithConfigs(Objects(
                      DeviceClaimConfig(std::vector<std::string>{kReq0SubReq0},
                                        DeviceConfiguration(kDriverA, "foo")),
                      DeviceClaimConfig(
                          std::vector<std::string>{kReq0SubReq1},
                          DeviceConfiguration(kDriverB, "bar"))))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverB,
                               Device(kDevice1, {}, AttributeMap{}),
                               Device(kDevice2, {}, AttributeMap{}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResultWithConfigs(
              LocalNodeSelector(kNode1),
              Objects(DeviceAllocationResult(kReq0SubReq1, kDriverB, kPool1,
                                             kDevice1, false),
                      DeviceAllocationResult(kReq0SubReq1, kDriverB, kPool1,
                                             kDevice2, false)),
              std::vector<api::DeviceAllocationConfiguration>{[&] {
                api::DeviceAllocationConfiguration o;
                o.source = api::AllocationConfigSource::kFromClaim;
                o.requests = std::vector<std::string>{kReq0SubReq1};
                o.config = DeviceConfiguration(kDriverB, "bar");
                return o;
              }()})},
      },
      {
          .name = "prioritized-list-class-config",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0, SubRequest(kSubReq0, kClassA, 2),
                  SubRequest(kSubReq1, kClassB, 2)))),
          .classes = Objects(ClassWithConfig(kClassA, kDriverA, "foo"),
                             ClassWithConfig(kClassB, kDriverB, "bar")),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, kPool1, kDriverB,
                               Device(kDevice1, {}, {}),
                               Device(kDevice2, {}, {})),
              SliceWithDevices(kSlice2, kNode1, kPool2, kDriverA,
                               Device(kDevice3, {}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResultWithConfigs(
              LocalNodeSelector(kNode1),
              Objects(DeviceAllocationResult(kReq0SubReq1, kDriverB, kPool1,
                                             kDevice1, false),
                      DeviceAllocationResult(kReq0SubReq1, kDriverB, kPool1,
                                             kDevice2, false)),
              std::vector<api::DeviceAllocationConfiguration>{[&] {
                api::DeviceAllocationConfiguration o;
                o.source = api::AllocationConfigSource::kFromClass;
                o.requests = std::vector<std::string>{kReq0SubReq1};
                o.config = DeviceConfiguration(kDriverB, "bar");
                return o;
              }()})},
      },
      {
          .name = "prioritized-list-subrequests-with-expressions",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1)
                  .WithSelectors(CelSelector(Sprintf(
                      R"(device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0)",
                      kDriverA))),
              RequestWithPrioritizedList(
                  kReq1,
                  SubRequest(
                      kSubReq0, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0)",
                          kDriverA))),
                  SubRequest(
                      kSubReq1, kClassA, 2,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0)",
                          kDriverA)))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, QuantityMap{{"memory", Q("2Gi")}}, {}),
              Device(kDevice2, QuantityMap{{"memory", Q("2Gi")}}, {}),
              Device(kDevice3, QuantityMap{{"memory", Q("1Gi")}}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice3, false),
              DeviceAllocationResult(kReq1SubReq1, kDriverA, kPool1, kDevice1,
                                     false),
              DeviceAllocationResult(kReq1SubReq1, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name = "prioritized-list-subrequests-with-constraints-ref-parent-"
                  "request",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects(
              Claim(kClaim0)
                  .WithConstraints([&] {
                    api::DeviceConstraint o;
                    o.requests = std::vector<std::string>{kReq0, kReq1};
                    o.match_attribute = version_attribute;
                    return o;
                  }())
                  .WithRequests(
                      DeviceRequest(kReq0, kClassA, 1)
                          .WithSelectors(CelSelector(Sprintf(
                              R"(device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0)",
                              kDriverA))),
                      RequestWithPrioritizedList(
                          kReq1,
                          SubRequest(
                              kSubReq0, kClassA, 1,
                              CelSelector(Sprintf(
                                  R"(device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0)",
                                  kDriverA))),
                          SubRequest(
                              kSubReq1, kClassA, 1,
                              CelSelector(Sprintf(
                                  R"(device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0)",
                                  kDriverA)))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices =
              UnwrapResourceSlices(SliceWithDevices(
                                       kSlice1, kNode1, kPool1, kDriverA,
                                       Device(kDevice1,
                                              QuantityMap{{"memory", Q("8Gi")}},
                                              AttributeMap{{"driverVersion",
                                                            [&] {
                                                              api::
                                                                  DeviceAttribute
                                                                      o;
                                                              o.version_value =
                                                                  "1.0.0";
                                                              return o;
                                                            }()}})),
                                   SliceWithDevices(
                                       kSlice2, kNode1, kPool2, kDriverA,
                                       Device(kDevice2,
                                              QuantityMap{{"memory", Q("2Gi")}},
                                              AttributeMap{{"driverVersion",
                                                            [&] {
                                                              api::
                                                                  DeviceAttribute
                                                                      o;
                                                              o.version_value =
                                                                  "2.0.0";
                                                              return o;
                                                            }()}}),
                                       Device(kDevice3,
                                              QuantityMap{{"memory", Q("1Gi")}},
                                              AttributeMap{{"driverVersion",
                                                            [&] {
                                                              api::
                                                                  DeviceAttribute
                                                                      o;
                                                              o.version_value =
                                                                  "1.0.0";
                                                              return o;
                                                            }()}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq1SubReq1, kDriverA, kPool2, kDevice3,
                                     false))},
      },
      {
          .name =
              "prioritized-list-subrequests-with-constraints-ref-sub-request",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects(
              Claim(kClaim0)
                  .WithConstraints([&] {
                    api::DeviceConstraint o;
                    o.requests = std::vector<std::string>{kReq0, kReq1SubReq0};
                    o.match_attribute = version_attribute;
                    return o;
                  }())
                  .WithRequests(
                      DeviceRequest(kReq0, kClassA, 1)
                          .WithSelectors(CelSelector(Sprintf(
                              R"(device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0)",
                              kDriverA))),
                      RequestWithPrioritizedList(
                          kReq1,
                          SubRequest(
                              kSubReq0, kClassA, 1,
                              CelSelector(Sprintf(
                                  R"(device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0)",
                                  kDriverA))),
                          SubRequest(
                              kSubReq1, kClassA, 1,
                              CelSelector(Sprintf(
                                  R"(device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0)",
                                  kDriverA)))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices =
              UnwrapResourceSlices(SliceWithDevices(
                                       kSlice1, kNode1, kPool1, kDriverA,
                                       Device(kDevice1,
                                              QuantityMap{{"memory", Q("8Gi")}},
                                              AttributeMap{{"driverVersion",
                                                            [&] {
                                                              api::
                                                                  DeviceAttribute
                                                                      o;
                                                              o.version_value =
                                                                  "1.0.0";
                                                              return o;
                                                            }()}})),
                                   SliceWithDevices(
                                       kSlice2, kNode1, kPool2, kDriverA,
                                       Device(kDevice2,
                                              QuantityMap{{"memory", Q("2Gi")}},
                                              AttributeMap{{"driverVersion",
                                                            [&] {
                                                              api::
                                                                  DeviceAttribute
                                                                      o;
                                                              o.version_value =
                                                                  "2.0.0";
                                                              return o;
                                                            }()}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq1SubReq1, kDriverA, kPool2, kDevice2,
                                     false))},
      },
      {
          .name = "prioritized-list-subrequests-with-allocation-mode-all",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects([&]() -> WrapClaim {
            auto claim = Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                kReq0, SubRequest(kSubReq0, kClassA, 1),
                SubRequest(kSubReq1, kClassA, 1)));
            claim.spec.devices.requests[0].first_available[0].allocation_mode =
                api::DeviceAllocationMode::kAll;
            claim.spec.devices.requests[0].first_available[0].count = 0;
            return claim;
          }()),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice1}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1, {}, {}),
              Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name = "prioritized-list-allocation-mode-all-multiple-requests",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1),
              RequestWithPrioritizedList(
                  kReq1,
                  SubRequest(kSubReq0, kClassA, 0)
                      .WithAllocationMode(api::DeviceAllocationMode::kAll),
                  SubRequest(kSubReq1, kClassA, 1)))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1, {}, {}),
              Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq1SubReq1, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name = "prioritized-list-disabled",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = false;
                return o;
              }(),
          .claims = Objects([&]() -> WrapClaim {
            auto claim = Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                kReq0, SubRequest(kSubReq0, kClassA, 1)));
            return claim;
          }()),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_error = "claim claim-0, request req-0: has subrequests, but "
                          "the DRAPrioritizedList feature is disabled",
      },
      {
          .name = "prioritized-list-multi-request",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq1, kClassA, 1)
                  .WithSelectors(CelSelector(Sprintf(
                      R"(device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0)",
                      kDriverA))),
              RequestWithPrioritizedList(
                  kReq0,
                  SubRequest(
                      kSubReq0, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0)",
                          kDriverA))),
                  SubRequest(
                      kSubReq1, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0)",
                          kDriverA)))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, kPool1, kDriverA,
                  Device(kDevice1, QuantityMap{{"memory", Q("8Gi")}},
                         AttributeMap{})),
              SliceWithDevices(
                  kSlice2, kNode1, kPool2, kDriverA,
                  Device(kDevice2, QuantityMap{{"memory", Q("4Gi")}},
                         AttributeMap{}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool2, kDevice2,
                                     false))},
      },
      {
          .name = "prioritized-list-with-backtracking",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects(Claim(kClaim0).WithRequests(
              RequestWithPrioritizedList(
                  kReq0,
                  SubRequest(
                      kSubReq0, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0)",
                          kDriverA))),
                  SubRequest(
                      kSubReq1, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0)",
                          kDriverA)))),
              DeviceRequest(kReq1, kClassA, 1)
                  .WithSelectors(CelSelector(Sprintf(
                      R"(device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0)",
                      kDriverA))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, kPool1, kDriverA,
                  Device(kDevice1, QuantityMap{{"memory", Q("8Gi")}},
                         AttributeMap{})),
              SliceWithDevices(
                  kSlice2, kNode1, kPool2, kDriverA,
                  Device(kDevice2, QuantityMap{{"memory", Q("4Gi")}},
                         AttributeMap{}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool2, kDevice2,
                                     false),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "prioritized-list-too-many-in-first-subrequest",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0, SubRequest(kSubReq0, kClassB, 500),
                  SubRequest(kSubReq1, kClassA, 1)))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithOneDevice(kSlice1, kNode1, kPool1, kDriverA)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "partitionable-devices-single-device",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, {}, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "partitionable-devices-prioritized-list",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                o.partitionable_devices = true;
                return o;
              }(),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1),
              RequestWithPrioritizedList(
                  kReq1,
                  SubRequest(
                      kSubReq0, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0)",
                          kDriverA))),
                  SubRequest(
                      kSubReq1, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0)",
                          kDriverA)))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}})),
                  Device(kDevice2, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("6Gi")}})),
                  Device(kDevice3, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq1SubReq1, kDriverA, kPool1, kDevice3,
                                     false))},
      },
      {
          .name = "partitionable-devices-multiple-devices",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims =
              Objects(ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1),
                                        Request(kReq1, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}})),
                  Device(kDevice2, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("6Gi")}})),
                  Device(kDevice3, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice3,
                                     false))},
      },
      {
          .name = "partitionable-devices-multiple-capacity-pools",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                o.partitionable_devices = true;
                return o;
              }(),
          .claims = Objects(Claim(kClaim0).WithRequests(
              DeviceRequest(kReq0, kClassA, 1),
              RequestWithPrioritizedList(
                  kReq1,
                  SubRequest(
                      kSubReq0, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0)",
                          kDriverA))),
                  SubRequest(
                      kSubReq1, kClassA, 1,
                      CelSelector(Sprintf(
                          R"(device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0)",
                          kDriverA)))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(
                          DeviceCounterConsumption(
                              kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}),
                          DeviceCounterConsumption(
                              kCounterSet2, QuantityMap{{"cpus", Q("4")}})),
                  Device(kDevice2, kFromCounters, {})
                      .WithDeviceCounterConsumption(
                          DeviceCounterConsumption(
                              kCounterSet1, QuantityMap{{"memory", Q("6Gi")}}),
                          DeviceCounterConsumption(
                              kCounterSet2, QuantityMap{{"cpus", Q("6")}})),
                  Device(kDevice3, kFromCounters, {})
                      .WithDeviceCounterConsumption(
                          DeviceCounterConsumption(
                              kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}),
                          DeviceCounterConsumption(
                              kCounterSet2, QuantityMap{{"cpus", Q("4")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("18Gi")}}),
                  CounterSet(kCounterSet2, QuantityMap{{"cpus", Q("8")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false),
              DeviceAllocationResult(kReq1SubReq1, kDriverA, kPool1, kDevice3,
                                     false))},
      },
      {
          .name = "partitionable-devices-multiple-counters",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims =
              Objects(ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1),
                                        Request(kReq1, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(
                          DeviceCounterConsumption(
                              kCounterSet1, QuantityMap{{"memory", Q("4Gi")},
                                                        {"cpus", Q("6")}}),
                          DeviceCounterConsumption(
                              kCounterSet2, QuantityMap{{"cpus", Q("4")},
                                                        {"memory", Q("2Gi")}})),
                  Device(kDevice2, kFromCounters, {})
                      .WithDeviceCounterConsumption(
                          DeviceCounterConsumption(
                              kCounterSet1, QuantityMap{{"memory", Q("6Gi")},
                                                        {"cpus", Q("4")}}),
                          DeviceCounterConsumption(
                              kCounterSet2, QuantityMap{{"cpus", Q("6")},
                                                        {"memory", Q("6Gi")}})),
                  Device(kDevice3, kFromCounters, {})
                      .WithDeviceCounterConsumption(
                          DeviceCounterConsumption(
                              kCounterSet1, QuantityMap{{"memory", Q("4Gi")},
                                                        {"cpus", Q("4")}}),
                          DeviceCounterConsumption(
                              kCounterSet2,
                              QuantityMap{{"cpus", Q("4")},
                                          {"memory", Q("4Gi")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"cpus", Q("8")},
                                                       {"memory", Q("18Gi")}}),
                  CounterSet(
                      kCounterSet2,
                      QuantityMap{{"cpus", Q("12")}, {"memory", Q("18Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2, false),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice3,
                                     false))},
      },
      {
          .name = "partitionable-devices-multiple-pools",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims =
              Objects(ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1),
                                        Request(kReq1, kClassA, 1))),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice2},
                                    DeviceId{kDriverA, kPool1, kDevice3},
                                    DeviceId{kDriverA, kPool2, kDevice1}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1,
                          QuantityMap{{"cpus", Q("6")}, {"memory", Q("4Gi")}})),
                  Device(kDevice2, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1,
                          QuantityMap{{"cpus", Q("4")}, {"memory", Q("6Gi")}})),
                  Device(kDevice3, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"cpus", Q("4")},
                                                    {"memory", Q("4Gi")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"cpus", Q("8")},
                                                       {"memory", Q("18Gi")}})),
              SliceWithDevices(
                  kSlice3, kNode1, ResourcePool(kPool2, 2), kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1,
                          QuantityMap{{"cpus", Q("6")}, {"memory", Q("4Gi")}})),
                  Device(kDevice2, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1,
                          QuantityMap{{"cpus", Q("1")}, {"memory", Q("7Gi")}})),
                  Device(kDevice3, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"cpus", Q("1")},
                                                    {"memory", Q("7Gi")}}))),
              SliceWithCounterSets(
                  kSlice4, kNode1,
                  ResourcePool(kPool2, 2), kDriverA,
                  CounterSet(
                      kCounterSet1,
                      QuantityMap{{"cpus", Q("8")}, {"memory", Q("18Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool2, kDevice2, false),
              DeviceAllocationResult(kReq1, kDriverA, kPool2, kDevice3,
                                     false))},
      },
      {
          .name = "partitionable-devices-unused-counters-in-counter-set",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 2))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, {}, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("5Gi")}})),
                  Device(kDevice2, {}, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}})),
                  Device(kDevice3, {}, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")},
                                                       {"unused", Q("1Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2, false),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice3,
                                     false))},
      },
      {
          .name = "partitionable-devices-no-capacity-available",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice2}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, kPool1, kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}})),
                  Device(kDevice2, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("16Gi")}}))),
              SliceWithCounterSets(kSlice2, kNode1, kPool1, kDriverA,
                                   CounterSet(
                                       kCounterSet1,
                                       QuantityMap{{"memory", Q("18Gi")}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "partitionable-devices-overallocated-capacity-pool",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice2}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, kPool1, kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}})),
                  Device(kDevice2, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("20Gi")}}))),
              SliceWithCounterSets(kSlice2, kNode1, kPool1, kDriverA,
                                   CounterSet(
                                       kCounterSet1,
                                       QuantityMap{{"memory", Q("18Gi")}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "partitionable-devices-disabled-device-consumes-counters",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = false;
                return o;
              }(),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, kPool1, kDriverA,
                  Device(kDevice1, {}, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))),
              SliceWithCounterSets(kSlice2, kNode1, kPool1, kDriverA,
                                   CounterSet(
                                       kCounterSet1,
                                       QuantityMap{{"memory", Q("18Gi")}}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "partitionable-devices-disabled-other-device-do-not-consume-"
                  "counters",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = false;
                return o;
              }(),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, {}, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}})),
                  Device(kDevice2, {}, {})),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  ResourcePool(kPool1, 2), kDriverA,
                  CounterSet(kCounterSet1,
                             QuantityMap{{"memory", Q("18Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name = "partitionable-devices-disabled-per-device-node-selection",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = false;
                return o;
              }(),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNodeSelectionPerDevice, kPool1, kDriverA,
              Device(kDevice2, {}, {}).WithNodeSelection(kNode1))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "partitionable-devices-per-device-node-selection-nodename",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
              kReq0,
              SubRequest(
                  kSubReq0, kClassA,
                  1,
                  CelSelector(Sprintf(
                      R"(device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0)",
                      kDriverA))),
              SubRequest(
                  kSubReq1, kClassA, 1,
                  CelSelector(Sprintf(
                      R"(device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0)",
                      kDriverA)))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNodeSelectionPerDevice, ResourcePool(kPool1, 2),
                  kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithNodeSelection(kNode1),
                  Device(kDevice2, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("6Gi")}}))
                      .WithNodeSelection(kNode2)),
              SliceWithCounterSets(
                  kSlice2, kNodeSelectionPerDevice, ResourcePool(kPool1, 2),
                  kDriverA,
                  CounterSet(kCounterSet1,
                             QuantityMap{{"memory", Q("18Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name =
              "partitionable-devices-per-device-node-selection-node-selector",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNodeSelectionPerDevice, ResourcePool(kPool1, 2),
                  kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithNodeSelection(
                          NodeLabelSelector(kRegionKey, kRegion1))),
              SliceWithCounterSets(
                  kSlice2, kNodeSelectionPerDevice, ResourcePool(kPool1, 2),
                  kDriverA,
                  CounterSet(kCounterSet1,
                             QuantityMap{{"memory", Q("18Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              std::vector<Expected>{
                  AllocationResult(
                      [&] {
                        api::NodeSelector o;
                        o.node_selector_terms =
                            std::vector<api::NodeSelectorTerm>{[&] {
                              api::NodeSelectorTerm o;
                              o.match_expressions =
                                  std::vector<api::NodeSelectorRequirement>{
                                      [&] {
                                        api::NodeSelectorRequirement o;
                                        o.key = kRegionKey;
                                        o.op = api::NodeSelectorOperator::kIn;
                                        o.values =
                                            std::vector<std::string>{kRegion1};
                                        return o;
                                      }()};
                              return o;
                            }()};
                        return o;
                      }(),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                             false))},
      },
      {
          .name = "partitionable-devices-per-device-node-selection-node-"
                  "selector-multiple-devices",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                o.prioritized_list = true;
                return o;
              }(),
          .claims =
              Objects(ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 3),
                                        Request(kReq1, kClassB, 3))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNodeSelectionPerDevice, ResourcePool(kPool1, 2),
                  kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithNodeSelection(
                          NodeLabelSelector(kRegionKey, kRegion1)),
                  Device(kDevice2, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithNodeSelection(kNode1),
                  Device(kDevice3, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("4Gi")}}))
                      .WithNodeSelection(kNodeSelectionAll)),
              SliceWithCounterSets(
                  kSlice2, kNodeSelectionPerDevice, ResourcePool(kPool1, 2),
                  kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("18Gi")}})),
              SliceWithDevices(
                  kSlice3, kNode1, ResourcePool(kPool2, 2), kDriverB,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet2, QuantityMap{{"memory", Q("4Gi")}})),
                  Device(kDevice2, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet2, QuantityMap{{"memory", Q("4Gi")}})),
                  Device(kDevice3, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet2, QuantityMap{{"memory", Q("4Gi")}}))),
              SliceWithCounterSets(
                  kSlice4, kNode1,
                  ResourcePool(kPool2, 2), kDriverB,
                  CounterSet(kCounterSet2,
                             QuantityMap{{"memory", Q("12Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results =
              std::vector<Expected>{
                  AllocationResult(
                      [&] {
                        api::NodeSelector o;
                        o.node_selector_terms =
                            std::vector<api::NodeSelectorTerm>{[&] {
                              api::NodeSelectorTerm o;
                              o.match_fields =
                                  std::vector<api::NodeSelectorRequirement>{
                                      [&] {
                                        api::NodeSelectorRequirement o;
                                        o.key = kFieldNameKey;
                                        o.op = api::NodeSelectorOperator::kIn;
                                        o.values =
                                            std::vector<std::string>{kNode1};
                                        return o;
                                      }()};
                              return o;
                            }()};
                        return o;
                      }(),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                             false),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2,
                                             false),
                      DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice3,
                                             false),
                      DeviceAllocationResult(kReq1, kDriverB, kPool2, kDevice1,
                                             false),
                      DeviceAllocationResult(kReq1, kDriverB, kPool2, kDevice2,
                                             false),
                      DeviceAllocationResult(kReq1, kDriverB, kPool2, kDevice3,
                                             false))},
      },
      {
          .name = "tainted-two-devices",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = true;
                return o;
              }(),
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {}).WithTaints(taint_no_schedule),
              Device(kDevice2, {}, {}).WithTaints(taint_no_execute))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "tainted-one-device-two-taints",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = true;
                return o;
              }(),
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {})
                  .WithTaints(taint_no_schedule, taint_no_execute))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "tainted-two-devices-tolerated",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = true;
                return o;
              }(),
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)
                                .WithTolerations(toleration_no_execute)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {}).WithTaints(taint_no_schedule),
              Device(kDevice2, {}, {}).WithTaints(taint_no_execute))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2, false,
                                     toleration_no_execute))},
      },
      {
          .name = "tainted-two-devices-prioritized-list-tolerated",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = true;
                o.prioritized_list = true;
                return o;
              }(),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0, SubRequest(kSubReq0, kClassA, 1),
                  SubRequest(kSubReq1, kClassA, 1, toleration_no_execute)))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {}).WithTaints(taint_no_schedule),
              Device(kDevice2, {}, {}).WithTaints(taint_no_execute))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice2,
                                     false, toleration_no_execute))},
      },
      {
          .name = "tainted-no-effect",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = true;
                return o;
              }(),
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {}).WithTaints(taint_none))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "tainted-one-device-two-taints-both-tolerated",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = true;
                return o;
              }(),
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)
                                .WithTolerations(toleration_no_schedule,
                                                 toleration_no_execute)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {})
                  .WithTaints(taint_no_schedule, taint_no_execute))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, false,
                                     toleration_no_schedule,
                                     toleration_no_execute))},
      },
      {
          .name = "tainted-disabled",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = false;
                return o;
              }(),
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {})
                  .WithTaints(taint_no_schedule, taint_no_execute))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "tainted-prioritized-list",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = true;
                o.prioritized_list = true;
                return o;
              }(),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0, SubRequest(kSubReq0, kClassB, 1),
                  SubRequest(kSubReq1, kClassA, 1)))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {}).WithTaints(taint_no_schedule))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "tainted-prioritized-list-disabled",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = false;
                o.prioritized_list = true;
                return o;
              }(),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0, SubRequest(kSubReq0, kClassB, 1),
                  SubRequest(kSubReq1, kClassA, 1)))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {}).WithTaints(taint_no_schedule))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "tainted-admin-access",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = true;
                o.admin_access = true;
                return o;
              }(),
          .claims = [&]() -> std::vector<WrapClaim> {
            auto c = ClaimWithRequest(kClaim0, kReq0, kClassA);
            c.spec.devices.requests[0].exactly->admin_access = true;
            return std::vector<WrapClaim>{c};
          }(),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice1},
                                    DeviceId{kDriverA, kPool1, kDevice2}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {}).WithTaints(taint_no_schedule))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "tainted-admin-access-disabled",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = false;
                o.admin_access = true;
                return o;
              }(),
          .claims = [&]() -> std::vector<WrapClaim> {
            auto c = ClaimWithRequest(kClaim0, kReq0, kClassA);
            c.spec.devices.requests[0].exactly->admin_access = true;
            return std::vector<WrapClaim>{c};
          }(),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice1},
                                    DeviceId{kDriverA, kPool1, kDevice2}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {}).WithTaints(taint_no_schedule))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1, true))},
      },
      {
          .name = "tainted-all-devices-single",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = true;
                return o;
              }(),
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {}).WithTaints(taint_no_schedule))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "tainted-all-devices-single-disabled",
          .features =
              [] {
                Features o = NoFeatures();
                o.device_taints = false;
                return o;
              }(),
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {}).WithTaints(taint_no_schedule))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "prioritized-list-allocation-mode-all",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims =
              Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
                  kReq0,
                  SubRequest(kSubReq0, kClassA, 0)
                      .WithAllocationMode(api::DeviceAllocationMode::kAll),
                  SubRequest(kSubReq1, kClassA, 1)))),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice2}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA, Device(kDevice1, {}, {}),
              Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "max-number-devices",
          .claims = Objects(ClaimWithRequests(
              kClaim0, {}, Request(kReq0, kClassA, kAllocationResultsMaxSize))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithMultipleDevices(
              kSlice1, kNode1, kPool1, kDriverA, kAllocationResultsMaxSize)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              MultipleDeviceAllocationResults(kReq0, kDriverA, kPool1,
                                              kAllocationResultsMaxSize, 0))},
      },
      {
          .name = "partitionable-devices-with-attribute-selector",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims = Objects(ClaimWithRequests(
              kClaim0, {}, Request(kReq0, kClassA, 2),
              Request(kReq1, kClassA, 1,
                      CelSelector(Sprintf(R"(device.attributes["%s"].special)",
                                          kDriverA))))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices =
              UnwrapResourceSlices(SliceWithDevices(kSlice1, kNode1,
                                                    ResourcePool(kPool1, 2),
                                                    kDriverA,
                                                    Device(
                                                        kDevice1, {},
                                                        AttributeMap{{"special",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.bool_value =
                                                                            true;
                                                                        return o;
                                                                      }()}})
                                                        .WithDeviceCounterConsumption(
                                                            DeviceCounterConsumption(
                                                                kCounterSet1,
                                                                QuantityMap{
                                                                    {"cpu1",
                                                                     Q("1")}}),
                                                            DeviceCounterConsumption(
                                                                kCounterSet2,
                                                                QuantityMap{
                                                                    {"mem",
                                                                     Q("10G"
                                                                       "i")}})),
                                                    Device(
                                                        kDevice2, {},
                                                        AttributeMap{{"special",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.bool_value =
                                                                            false;
                                                                        return o;
                                                                      }()}})
                                                        .WithDeviceCounterConsumption(
                                                            DeviceCounterConsumption(
                                                                kCounterSet1,
                                                                QuantityMap{
                                                                    {"cpu2",
                                                                     Q("1")}}),
                                                            DeviceCounterConsumption(
                                                                kCounterSet2,
                                                                QuantityMap{
                                                                    {"mem",
                                                                     Q("10G"
                                                                       "i")}})),
                                                    Device(
                                                        kDevice3, {},
                                                        AttributeMap{{"special",
                                                                      [&] {
                                                                        api::DeviceAttribute
                                                                            o;
                                                                        o.bool_value =
                                                                            false;
                                                                        return o;
                                                                      }()}})
                                                        .WithDeviceCounterConsumption(
                                                            DeviceCounterConsumption(
                                                                kCounterSet1,
                                                                QuantityMap{
                                                                    {"cpu3",
                                                                     Q("1")}}),
                                                            DeviceCounterConsumption(
                                                                kCounterSet2,
                                                                QuantityMap{
                                                                    {"mem",
                                                                     Q("10G"
                                                                       "i")}}))),
                                   SliceWithCounterSets(
                                       kSlice2, kNode1,
                                       ResourcePool(kPool1, 2), kDriverA,
                                       CounterSet(
                                           kCounterSet1,
                                           QuantityMap{{"cpu1", Q("1")},
                                                       {"cpu2", Q("1")},
                                                       {"cpu3", Q("1")}}),
                                       CounterSet(
                                           kCounterSet2,
                                           QuantityMap{{"mem", Q("30Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2, false),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice3, false),
              DeviceAllocationResult(kReq1, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "prioritized-list-max-allocation-limit-request",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects(Claim(kClaim0).WithRequests(
              RequestWithPrioritizedList(
                  kReq0,
                  SubRequest(kSubReq0, kClassA, kAllocationResultsMaxSize),
                  SubRequest(kSubReq1, kClassA, kAllocationResultsMaxSize / 2)),
              RequestWithPrioritizedList(
                  kReq1,
                  SubRequest(kSubReq0, kClassA, kAllocationResultsMaxSize),
                  SubRequest(kSubReq1, kClassA,
                             kAllocationResultsMaxSize / 2)))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithMultipleDevices(kSlice1, kNode1, kPool1, kDriverA,
                                       kAllocationResultsMaxSize * 2)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              Concat(MultipleDeviceAllocationResults(
                         kReq0SubReq1, kDriverA, kPool1,
                         kAllocationResultsMaxSize / 2, 0),
                     MultipleDeviceAllocationResults(
                         kReq1SubReq1, kDriverA, kPool1,
                         kAllocationResultsMaxSize / 2,
                         kAllocationResultsMaxSize / 2)))},
          .expect_num_allocate_one_invocations = 75,
      },
      {
          .name = "prioritized-list-max-allocation-allocation-mode-all",
          .features =
              [] {
                Features o = NoFeatures();
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects(Claim(kClaim0).WithRequests(
              RequestWithPrioritizedList(
                  kReq0,
                  SubRequest(kSubReq0, kClassA, 0)
                      .WithAllocationMode(api::DeviceAllocationMode::kAll),
                  SubRequest(kSubReq1, kClassA, 2)),
              DeviceRequest(kReq1, kClassB, 2))),
          .classes =
              Objects(Class(kClassA, kDriverA), Class(kClassB, kDriverB)),
          .slices = UnwrapResourceSlices(
              SliceWithMultipleDevices(kSlice1, kNode1, kPool1, kDriverA,
                                       kAllocationResultsMaxSize - 1),
              SliceWithMultipleDevices(kSlice2, kNode1, kPool2, kDriverB, 2)),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, "device-0",
                                     false),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, "device-1",
                                     false),
              DeviceAllocationResult(kReq1, kDriverB, kPool2, "device-0",
                                     false),
              DeviceAllocationResult(kReq1, kDriverB, kPool2, "device-1",
                                     false))},
          .expect_num_allocate_one_invocations = 42,
      },
      {
          .name = "binding-conditions-without-feature-gate",
          .features =
              [] {
                Features o = NoFeatures();
                return o;
              }(),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(SliceWithDevices(
              kSlice1, kNode1, kPool1, kDriverA,
              Device(kDevice1, {}, {})
                  .WithBindingConditions(
                      std::vector<std::string>{"IsPrepare"},
                      std::vector<std::string>{"BindingFailed"}))),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "allocation-mode-all-with-multi-host-resource-pool",
          .claims =
              Objects(ClaimWithRequests(kClaim0, {},
                                        [&] {
                                          api::DeviceRequest o;
                                          o.name = kReq0;
                                          o.exactly = [&] {
                                            api::ExactDeviceRequest o;
                                            o.allocation_mode =
                                                api::DeviceAllocationMode::kAll;
                                            o.device_class_name = kClassA;
                                            return o;
                                          }();
                                          return o;
                                        }())),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice1, {}, {})),
              SliceWithDevices(kSlice2, kNode2, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "multi-host-resource-pool-with-stale-slice-for-current-node",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                                          Device(kDevice1, {}, {}));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice2, kNode2, kPool1, kDriverA,
                                          Device(kDevice2, {}, {}));
                s.spec.pool.generation = 2;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }()),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name =
              "multi-host-resource-pool-complete-update-from-node-1-to-node-2",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                                          Device(kDevice1, {}, {}));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                                          Device(kDevice2, {}, {}));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice2, kNode2, kPool1, kDriverA,
                                          Device(kDevice1, {}, {}));
                s.spec.pool.generation = 2;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice2, kNode2, kPool1, kDriverA,
                                          Device(kDevice2, {}, {}));
                s.spec.pool.generation = 2;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }()),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name =
              "multi-host-resource-pool-complete-update-from-node-2-to-node-1",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice1, kNode2, kPool1, kDriverA,
                                          Device(kDevice1, {}, {}));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice1, kNode2, kPool1, kDriverA,
                                          Device(kDevice2, {}, {}));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice2, kNode1, kPool1, kDriverA,
                                          Device(kDevice1, {}, {}));
                s.spec.pool.generation = 2;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice2, kNode1, kPool1, kDriverA,
                                          Device(kDevice2, {}, {}));
                s.spec.pool.generation = 2;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }()),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "multi-host-resource-pool-incomplete-update-from-node-1-to-"
                  "node-2",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                                          Device(kDevice1, {}, {}));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice1, kNode1, kPool1, kDriverA,
                                          Device(kDevice2, {}, {}));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice2, kNode2, kPool1, kDriverA,
                                          Device(kDevice1, {}, {}));
                s.spec.pool.generation = 2;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }()),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice1,
                                     false))},
      },
      {
          .name = "multi-host-resource-pool-incomplete-update-from-node-2-to-"
                  "node-1",
          .claims = Objects(ClaimWithRequest(kClaim0, kReq0, kClassA)),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice1, kNode2, kPool1, kDriverA,
                                          Device(kDevice1, {}, {}));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice1, kNode2, kPool1, kDriverA,
                                          Device(kDevice2, {}, {}));
                s.spec.pool.generation = 1;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }(),
              [&]() -> WrapSlice {
                auto s = SliceWithDevices(kSlice2, kNode1, kPool1, kDriverA,
                                          Device(kDevice1, {}, {}));
                s.spec.pool.generation = 2;
                s.spec.pool.resource_slice_count = 2;
                return s;
              }()),
          .node = Node(kNode1, kRegion1),
      },
      {
          .name = "partitionable-devices-same-counter-set-name-in-different-"
                  "resource-slices",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims = Objects(
              Claim(kClaim0).WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, ResourcePool(kPool1, 4),
                               kDriverA, Device(kDevice1, {}, {})),
              SliceWithCounterSets(kSlice2, kNode1, ResourcePool(kPool1, 4),
                                   kDriverA, CounterSet(kCounterSet1, {})),
              SliceWithDevices(kSlice3, kNode1, ResourcePool(kPool1, 4),
                               kDriverA, Device(kDevice2, {}, {})),
              SliceWithCounterSets(kSlice4, kNode1, ResourcePool(kPool1, 4),
                                   kDriverA, CounterSet(kCounterSet1, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_error = "invalid resource pools were encountered",
      },
      {
          .name = "partitionable-devices-device-counter-consumption-references-"
                  "unknown-counter-set",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims = Objects(
              Claim(kClaim0).WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, {}, {})
                      .WithDeviceCounterConsumption(
                          DeviceCounterConsumption(kCounterSet2, {}))),
              SliceWithCounterSets(kSlice2, kNode1, ResourcePool(kPool1, 2),
                                   kDriverA, CounterSet(kCounterSet1, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_error = "invalid resource pools were encountered",
      },
      {
          .name = "partitionable-devices-device-counter-consumption-references-"
                  "unknown-counter-in-counter-set",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims = Objects(
              Claim(kClaim0).WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, ResourcePool(kPool1, 2), kDriverA,
                  Device(kDevice1, {}, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
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
                  "counter-set-in-other-pool",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims = Objects(
              Claim(kClaim0).WithRequests(DeviceRequest(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(
                  kSlice1, kNode1, kPool1, kDriverA,
                  Device(kDevice1, {}, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
              SliceWithCounterSets(
                  kSlice2, kNode1,
                  kPool2, kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}}))),
          .node = Node(kNode1, kRegion1),
          .expect_error = "invalid resource pools were encountered",
      },
      {
          .name = "partitionable-devices-devices-on-different-nodes-consume-"
                  "same-counter-set",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                o.prioritized_list = true;
                return o;
              }(),
          .claims = Objects(Claim(kClaim0).WithRequests(RequestWithPrioritizedList(
              kReq0,
              SubRequest(
                  kSubReq0, kClassA,
                  1,
                  CelSelector(Sprintf(
                      R"(device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0)",
                      kDriverA))),
              SubRequest(
                  kSubReq1, kClassA, 1,
                  CelSelector(Sprintf(
                      R"(device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0)",
                      kDriverA)))))),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool1, kDevice3}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithCounterSets(
                  kSlice1, kNode1,
                  ResourcePool(kPool1, 3), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}})),
              SliceWithDevices(
                  kSlice2, kNode1, ResourcePool(kPool1, 3), kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("6Gi")}})),
                  Device(kDevice2, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("2Gi")}}))),
              SliceWithDevices(
                  kSlice3, kNode2, ResourcePool(kPool1, 3), kDriverA,
                  Device(kDevice3, {}, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("6Gi")}})))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0SubReq1, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name =
              "partitionable-devices-validation-error-on-non-targeting-slice",
          .features =
              [] {
                Features o = NoFeatures();
                o.partitionable_devices = true;
                return o;
              }(),
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithCounterSets(
                  kSlice1, kNode1,
                  ResourcePool(kPool1, 3), kDriverA,
                  CounterSet(kCounterSet1, QuantityMap{{"memory", Q("8Gi")}})),
              SliceWithDevices(
                  kSlice2, kNode1, ResourcePool(kPool1, 3), kDriverA,
                  Device(kDevice1, kFromCounters, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet1, QuantityMap{{"memory", Q("6Gi")}}))),
              SliceWithDevices(
                  kSlice3, kNode2, ResourcePool(kPool1, 3), kDriverA,
                  Device(kDevice3, {}, {})
                      .WithDeviceCounterConsumption(DeviceCounterConsumption(
                          kCounterSet2, QuantityMap{{"memory", Q("6Gi")}})))),
          .node = Node(kNode1, kRegion1),
          .expect_error = "invalid resource pools were encountered",
      },
      {
          .name = "different-resourceslices-in-pool-can-target-different-nodes",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode2, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice1, {}, {})),
              SliceWithDevices(kSlice2, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool1, kDevice2,
                                     false))},
      },
      {
          .name = "invalid-pool-is-ok-if-devices-can-be-allocated-from-other",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice1, {}, {})),
              SliceWithDevices(kSlice2, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice1, {}, {})),
              SliceWithDevices(kSlice3, kNode1, ResourcePool(kPool2, 1),
                               kDriverA, Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_results = std::vector<Expected>{AllocationResult(
              LocalNodeSelector(kNode1),
              DeviceAllocationResult(kReq0, kDriverA, kPool2, kDevice2,
                                     false))},
      },
      {
          .name = "invalid-pool-is-error-if-no-other-device-can-be-allocated",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .allocated =
              std::vector<DeviceId>{DeviceId{kDriverA, kPool2, kDevice2}},
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice1, {}, {})),
              SliceWithDevices(kSlice2, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice1, {}, {})),
              SliceWithDevices(kSlice3, kNode1, ResourcePool(kPool2, 1),
                               kDriverA, Device(kDevice2, {}, {}))),
          .node = Node(kNode1, kRegion1),
          .expect_error = "invalid resource pools were encountered",
      },
      {
          .name = "no-allocation-from-incomplete-pools",
          .claims = Objects(
              ClaimWithRequests(kClaim0, {}, Request(kReq0, kClassA, 1))),
          .classes = Objects(Class(kClassA, kDriverA)),
          .slices = UnwrapResourceSlices(
              SliceWithDevices(kSlice1, kNode1, ResourcePool(kPool1, 2),
                               kDriverA, Device(kDevice1, {}, {}))),
          .node = Node(kNode1, kRegion1),
      },
  };
  return *cases;
}

}  // namespace ksched::dra::allocator_testing

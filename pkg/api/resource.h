// resource.k8s.io/v1 (Dynamic Resource Allocation): DeviceClass,
// ResourceSlice, ResourceClaim and ResourceClaimTemplate, as of Kubernetes
// v1.35. The fields are those the scheduler's DRA allocator reads or writes
// back (the allocation result and the config it copies into it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/meta.h"
#include "pkg/api/objects.h"
#include "pkg/api/quantity.h"
#include "pkg/api/selector.h"
#include "pkg/api/string_map.h"
#include "pkg/api/time.h"

namespace ksched::api {

// The finalizer the scheduler puts on a claim it allocates, so the claim is
// not deleted while a pod may still use the devices.
inline constexpr std::string_view kResourceClaimFinalizer =
    "resource.kubernetes.io/delete-protection";
// Annotation of a claim the scheduler created for extended resources backed
// by DRA.
inline constexpr std::string_view kExtendedResourceClaimAnnotation =
    "resource.kubernetes.io/extended-resource-claim";
// The implicit extended resource of every DeviceClass is this prefix and
// the class's name (resourceapi.ResourceDeviceClassPrefix).
inline constexpr std::string_view kDeviceClassResourcePrefix =
    "deviceclass.resource.kubernetes.io/";

// runtime.RawExtension: an arbitrary JSON value (a driver's opaque
// parameters, a device's status data) kept as compact JSON text. The
// scheduler never interprets it, but copies class and claim config into the
// allocation result, so it must survive a decode/encode round trip.
struct RawJson {
  std::string json;  // empty when absent
  friend bool operator==(const RawJson&, const RawJson&) = default;
};

// ---- DeviceClass and shared pieces ----

struct CelDeviceSelector {
  std::string expression;
  friend bool operator==(const CelDeviceSelector&,
                         const CelDeviceSelector&) = default;
};

struct DeviceSelector {
  std::optional<CelDeviceSelector> cel;
  friend bool operator==(const DeviceSelector&,
                         const DeviceSelector&) = default;
};

struct OpaqueDeviceConfiguration {
  std::string driver;
  RawJson parameters;
  friend bool operator==(const OpaqueDeviceConfiguration&,
                         const OpaqueDeviceConfiguration&) = default;
};

// Go's DeviceConfiguration, inlined into the config entries below.
struct DeviceConfiguration {
  std::optional<OpaqueDeviceConfiguration> opaque;
  friend bool operator==(const DeviceConfiguration&,
                         const DeviceConfiguration&) = default;
};

struct DeviceClassConfiguration {
  DeviceConfiguration config;  // inline in JSON
  friend bool operator==(const DeviceClassConfiguration&,
                         const DeviceClassConfiguration&) = default;
};

struct DeviceClassSpec {
  std::vector<DeviceSelector> selectors;
  std::vector<DeviceClassConfiguration> config;
  std::optional<std::string> extended_resource_name;
  friend bool operator==(const DeviceClassSpec&,
                         const DeviceClassSpec&) = default;
};

struct DeviceClass {
  ObjectMeta metadata;
  DeviceClassSpec spec;
  friend bool operator==(const DeviceClass&, const DeviceClass&) = default;
};

// ---- ResourceSlice ----

struct ResourcePool {
  std::string name;
  int64_t generation = 0;
  int64_t resource_slice_count = 0;
  friend bool operator==(const ResourcePool&, const ResourcePool&) = default;
};

// Exactly one member is set in a valid attribute; an attribute of a kind
// this version does not know has none set.
struct DeviceAttribute {
  std::optional<int64_t> int_value;
  std::optional<bool> bool_value;
  std::optional<std::string> string_value;
  std::optional<std::string> version_value;  // semver text
  friend bool operator==(const DeviceAttribute&,
                         const DeviceAttribute&) = default;
};

struct CapacityRequestPolicyRange {
  std::optional<Quantity> min;
  std::optional<Quantity> max;
  std::optional<Quantity> step;
  friend bool operator==(const CapacityRequestPolicyRange&,
                         const CapacityRequestPolicyRange&) = default;
};

struct CapacityRequestPolicy {
  std::optional<Quantity> default_value;  // "default"
  std::vector<Quantity> valid_values;
  std::optional<CapacityRequestPolicyRange> valid_range;
  friend bool operator==(const CapacityRequestPolicy&,
                         const CapacityRequestPolicy&) = default;
};

struct DeviceCapacity {
  Quantity value;
  std::optional<CapacityRequestPolicy> request_policy;
  friend bool operator==(const DeviceCapacity&,
                         const DeviceCapacity&) = default;
};

struct Counter {
  Quantity value;
  friend bool operator==(const Counter&, const Counter&) = default;
};

struct CounterSet {
  std::string name;
  FlatMap<Counter> counters;
  friend bool operator==(const CounterSet&, const CounterSet&) = default;
};

struct DeviceCounterConsumption {
  std::string counter_set;
  FlatMap<Counter> counters;
  friend bool operator==(const DeviceCounterConsumption&,
                         const DeviceCounterConsumption&) = default;
};

// A device taint's effect. kUnset is "" (in a toleration: every effect);
// kNone is the explicit "None" a taint may carry (it has no effect on
// scheduling, it only informs).
enum class DeviceTaintEffect : uint8_t {
  kOther,
  kUnset,
  kNone,
  kNoSchedule,
  kNoExecute
};

struct DeviceTaint {
  std::string key;
  std::string value;
  DeviceTaintEffect effect = DeviceTaintEffect::kUnset;
  std::optional<Time> time_added;
  friend bool operator==(const DeviceTaint&, const DeviceTaint&) = default;
};

struct Device {
  std::string name;
  // Keys are QualifiedNames: "model" (in the driver's domain) or
  // "domain/id".
  FlatMap<DeviceAttribute> attributes;
  FlatMap<DeviceCapacity> capacity;
  std::vector<DeviceCounterConsumption> consumes_counters;
  // Per-device node selection (spec.perDeviceNodeSelection); exactly one of
  // the three is set then.
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<DeviceTaint> taints;
  std::optional<bool> binds_to_node;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  std::optional<bool> allow_multiple_allocations;
  friend bool operator==(const Device&, const Device&) = default;
};

struct ResourceSliceSpec {
  std::string driver;
  ResourcePool pool;
  // Exactly one of node_name, node_selector, all_nodes and
  // per_device_node_selection is set in a valid slice.
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<Device> devices;
  std::optional<bool> per_device_node_selection;
  std::vector<CounterSet> shared_counters;
  friend bool operator==(const ResourceSliceSpec&,
                         const ResourceSliceSpec&) = default;
};

struct ResourceSlice {
  ObjectMeta metadata;
  ResourceSliceSpec spec;
  friend bool operator==(const ResourceSlice&, const ResourceSlice&) = default;
};

// ---- ResourceClaim ----

enum class DeviceAllocationMode : uint8_t {
  kOther,
  kUnset,  // "": the server defaults it to ExactCount
  kExactCount,
  kAll
};

// kUnset ("") is defaulted to Equal by the server.
enum class DeviceTolerationOperator : uint8_t {
  kOther,
  kUnset,
  kExists,
  kEqual
};

struct DeviceToleration {
  std::string key;
  DeviceTolerationOperator op = DeviceTolerationOperator::kUnset;
  std::string value;
  DeviceTaintEffect effect = DeviceTaintEffect::kUnset;
  std::optional<int64_t> toleration_seconds;
  friend bool operator==(const DeviceToleration&,
                         const DeviceToleration&) = default;
};

struct CapacityRequirements {
  FlatMap<Quantity> requests;
  friend bool operator==(const CapacityRequirements&,
                         const CapacityRequirements&) = default;
};

struct ExactDeviceRequest {
  std::string device_class_name;
  std::vector<DeviceSelector> selectors;
  DeviceAllocationMode allocation_mode = DeviceAllocationMode::kUnset;
  // Go's Count is a plain int64 with omitempty, not a pointer: 0 means
  // unset, which the server defaults to 1 for ExactCount.
  int64_t count = 0;
  std::optional<bool> admin_access;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
  friend bool operator==(const ExactDeviceRequest&,
                         const ExactDeviceRequest&) = default;
};

struct DeviceSubRequest {
  std::string name;
  std::string device_class_name;
  std::vector<DeviceSelector> selectors;
  DeviceAllocationMode allocation_mode = DeviceAllocationMode::kUnset;
  int64_t count = 0;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
  friend bool operator==(const DeviceSubRequest&,
                         const DeviceSubRequest&) = default;
};

// Exactly one of exactly and first_available is set.
struct DeviceRequest {
  std::string name;
  std::optional<ExactDeviceRequest> exactly;
  std::vector<DeviceSubRequest> first_available;
  friend bool operator==(const DeviceRequest&, const DeviceRequest&) = default;
};

struct DeviceConstraint {
  std::vector<std::string> requests;
  std::optional<std::string> match_attribute;     // FullyQualifiedName
  std::optional<std::string> distinct_attribute;  // FullyQualifiedName
  friend bool operator==(const DeviceConstraint&,
                         const DeviceConstraint&) = default;
};

struct DeviceClaimConfiguration {
  std::vector<std::string> requests;
  DeviceConfiguration config;  // inline in JSON
  friend bool operator==(const DeviceClaimConfiguration&,
                         const DeviceClaimConfiguration&) = default;
};

struct DeviceClaim {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  std::vector<DeviceClaimConfiguration> config;
  friend bool operator==(const DeviceClaim&, const DeviceClaim&) = default;
};

struct ResourceClaimSpec {
  DeviceClaim devices;
  friend bool operator==(const ResourceClaimSpec&,
                         const ResourceClaimSpec&) = default;
};

struct DeviceRequestAllocationResult {
  // "<request>" or "<request>/<subrequest>" for a firstAvailable request.
  std::string request;
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<bool> admin_access;
  std::vector<DeviceToleration> tolerations;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  std::optional<std::string> share_id;  // "shareID"
  FlatMap<Quantity> consumed_capacity;
  friend bool operator==(const DeviceRequestAllocationResult&,
                         const DeviceRequestAllocationResult&) = default;
};

enum class AllocationConfigSource : uint8_t { kOther, kFromClass, kFromClaim };

struct DeviceAllocationConfiguration {
  AllocationConfigSource source = AllocationConfigSource::kOther;
  std::vector<std::string> requests;
  DeviceConfiguration config;  // inline in JSON
  friend bool operator==(const DeviceAllocationConfiguration&,
                         const DeviceAllocationConfiguration&) = default;
};

struct DeviceAllocationResult {
  std::vector<DeviceRequestAllocationResult> results;
  std::vector<DeviceAllocationConfiguration> config;
  friend bool operator==(const DeviceAllocationResult&,
                         const DeviceAllocationResult&) = default;
};

struct AllocationResult {
  DeviceAllocationResult devices;
  std::optional<NodeSelector> node_selector;
  std::optional<Time> allocation_timestamp;
  friend bool operator==(const AllocationResult&,
                         const AllocationResult&) = default;
};

struct ResourceClaimConsumerReference {
  std::string api_group;  // "" for core (pods)
  std::string resource;
  std::string name;
  std::string uid;
  friend bool operator==(const ResourceClaimConsumerReference&,
                         const ResourceClaimConsumerReference&) = default;
};

// metav1.Condition, as a driver reports it for an allocated device.
struct Condition {
  std::string type;
  std::string status;
  int64_t observed_generation = 0;
  Time last_transition_time;
  std::string reason;
  std::string message;
  friend bool operator==(const Condition&, const Condition&) = default;
};

struct NetworkDeviceData {
  std::string interface_name;
  std::vector<std::string> ips;
  std::string hardware_address;
  friend bool operator==(const NetworkDeviceData&,
                         const NetworkDeviceData&) = default;
};

struct AllocatedDeviceStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<std::string> share_id;
  std::vector<Condition> conditions;
  RawJson data;
  std::optional<NetworkDeviceData> network_data;
  friend bool operator==(const AllocatedDeviceStatus&,
                         const AllocatedDeviceStatus&) = default;
};

struct ResourceClaimStatus {
  std::optional<AllocationResult> allocation;
  std::vector<ResourceClaimConsumerReference> reserved_for;
  std::vector<AllocatedDeviceStatus> devices;
  friend bool operator==(const ResourceClaimStatus&,
                         const ResourceClaimStatus&) = default;
};

struct ResourceClaim {
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  ResourceClaimStatus status;
  friend bool operator==(const ResourceClaim&, const ResourceClaim&) = default;
};

struct ResourceClaimTemplateSpec {
  ObjectMeta metadata;  // copied into each generated claim
  ResourceClaimSpec spec;
  friend bool operator==(const ResourceClaimTemplateSpec&,
                         const ResourceClaimTemplateSpec&) = default;
};

struct ResourceClaimTemplate {
  ObjectMeta metadata;
  ResourceClaimTemplateSpec spec;
  friend bool operator==(const ResourceClaimTemplate&,
                         const ResourceClaimTemplate&) = default;
};

using DeviceClassList = List<DeviceClass>;
using ResourceSliceList = List<ResourceSlice>;
using ResourceClaimList = List<ResourceClaim>;
using ResourceClaimTemplateList = List<ResourceClaimTemplate>;

}  // namespace ksched::api

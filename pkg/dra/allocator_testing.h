// Builders for the allocator tests, named after the helpers of Kubernetes'
// allocator test table (structured/internal/allocatortesting) so each
// ported case reads like the one it comes from: Claim(...).WithRequests(),
// SliceWithDevices(...), AllocationResult(...) and so on.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/resource.h"
#include "pkg/dra/allocator.h"

namespace ksched::dra::allocator_testing {

inline constexpr const char* kRegion1 = "region-1";
inline constexpr const char* kRegion2 = "region-2";
inline constexpr const char* kNode1 = "node-1";
inline constexpr const char* kNode2 = "node-2";
inline constexpr const char* kClassA = "class-a";
inline constexpr const char* kClassB = "class-b";
inline constexpr const char* kDriverA = "driver-a";
inline constexpr const char* kDriverB = "driver-b";
inline constexpr const char* kPool1 = "pool-1";
inline constexpr const char* kPool2 = "pool-2";
inline constexpr const char* kPool3 = "pool-3";
inline constexpr const char* kPool4 = "pool-4";
inline constexpr const char* kReq0 = "req-0";
inline constexpr const char* kReq1 = "req-1";
inline constexpr const char* kReq2 = "req-2";
inline constexpr const char* kReq3 = "req-3";
inline constexpr const char* kSubReq0 = "subReq-0";
inline constexpr const char* kSubReq1 = "subReq-1";
inline constexpr const char* kReq0SubReq0 = "req-0/subReq-0";
inline constexpr const char* kReq0SubReq1 = "req-0/subReq-1";
inline constexpr const char* kReq1SubReq0 = "req-1/subReq-0";
inline constexpr const char* kReq1SubReq1 = "req-1/subReq-1";
inline constexpr const char* kReq2SubReq0 = "req-2/subReq-0";
inline constexpr const char* kReq2SubReq1 = "req-2/subReq-1";
inline constexpr const char* kClaim0 = "claim-0";
inline constexpr const char* kClaim1 = "claim-1";
inline constexpr const char* kSlice1 = "slice-1";
inline constexpr const char* kSlice2 = "slice-2";
inline constexpr const char* kSlice3 = "slice-3";
inline constexpr const char* kSlice4 = "slice-4";
inline constexpr const char* kDevice0 = "device-0";
inline constexpr const char* kDevice1 = "device-1";
inline constexpr const char* kDevice2 = "device-2";
inline constexpr const char* kDevice3 = "device-3";
inline constexpr const char* kDevice4 = "device-4";
inline constexpr const char* kCounterSet1 = "counter-set-1";
inline constexpr const char* kCounterSet2 = "counter-set-2";
inline constexpr const char* kCapacity0 = "capacity-0";
inline constexpr const char* kCapacity1 = "capacity-1";
// kube's fixedShareID: the share id the test runner makes the allocator
// hand out (kube overwrites every share id with it), so expected results
// can name it.
inline constexpr const char* kFixedShareID =
    "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa";
inline constexpr const char* kFieldNameKey = "metadata.name";
inline constexpr const char* kRegionKey = "region";
inline constexpr const char* kPlanetKey = "planet";
inline constexpr const char* kPlanetValueEarth = "earth";
// Pseudo node names for Slice(): every node, or per-device selection.
inline constexpr const char* kNodeSelectionAll = "nodeSelectionAll";
inline constexpr const char* kNodeSelectionPerDevice = "nodeSelectionPerDevice";
// Device(): capacity equal to the counters it consumes.
inline constexpr const char* kFromCounters = "fromCounters";

using QuantityMap = std::vector<std::pair<std::string, api::Quantity>>;
using AttributeMap = std::vector<std::pair<std::string, api::DeviceAttribute>>;

api::Quantity Q(std::string_view text);

// Go's fmt.Sprintf for the verbs the table uses (%s, %v, %d).
std::string SprintfImpl(std::string_view format,
                        const std::vector<std::string>& args);
inline std::string ToArg(const std::string& s) { return s; }
inline std::string ToArg(const char* s) { return s; }
inline std::string ToArg(bool b) { return b ? "true" : "false"; }
inline std::string ToArg(int64_t i) { return std::to_string(i); }
inline std::string ToArg(int i) { return std::to_string(i); }
template <typename... A>
std::string Sprintf(std::string_view format, const A&... args) {
  return SprintfImpl(format, {ToArg(args)...});
}

// Every feature off: a case turns on what it needs, as in Kubernetes'
// table (whose zero Features value is all off).
Features NoFeatures();

api::Node Node(const std::string& name, const std::string& region);
api::DeviceClass Class(const std::string& name, const std::string& driver);
api::DeviceConfiguration DeviceConfiguration(const std::string& driver,
                                             const std::string& attribute);
api::DeviceClass ClassWithConfig(const std::string& name,
                                 const std::string& driver,
                                 const std::string& attribute);
api::DeviceSelector CelSelector(const std::string& expression);
// A class whose selector also requires device.allowMultipleAllocations to
// be `multi_alloc`.
api::DeviceClass ClassWithAllowMultipleAllocations(const std::string& name,
                                                   const std::string& driver,
                                                   bool multi_alloc);

// Device attributes, as kube's literals spell them ({StringValue: ...}).
api::DeviceAttribute StringValue(const std::string& value);
api::DeviceAttribute IntValue(int64_t value);
api::DeviceAttribute BoolValue(bool value);
api::DeviceAttribute VersionValue(const std::string& value);

// ---- requests ----

// Capacity requirements asking for `request` of kCapacity0; none given:
// requirements without any request (kube's nil quantity).
api::CapacityRequirements CapacityRequests(
    std::optional<api::Quantity> request);

struct WrapRequest : api::DeviceRequest {
  WrapRequest WithSelectors(auto... selectors) const {
    WrapRequest out = *this;
    out.exactly->selectors = {selectors...};
    return out;
  }
  WrapRequest WithCapacityRequest(std::optional<api::Quantity> quantity) const;
};

struct WrapSubRequest : api::DeviceSubRequest {
  WrapSubRequest WithAllocationMode(api::DeviceAllocationMode mode) const {
    WrapSubRequest out = *this;
    out.allocation_mode = mode;
    return out;
  }
  WrapSubRequest WithCapacityRequest(
      std::optional<api::Quantity> quantity) const;
};

WrapRequest Request(const std::string& name, const std::string& device_class,
                    int64_t count,
                    std::vector<api::DeviceSelector> selectors = {});
template <typename... S>
WrapRequest Request(const std::string& name, const std::string& device_class,
                    int64_t count, api::DeviceSelector first, S... rest) {
  return Request(name, device_class, count,
                 std::vector<api::DeviceSelector>{first, rest...});
}
WrapRequest DeviceRequest(const std::string& name,
                          const std::string& device_class, int64_t count);
WrapRequest AllDeviceRequest(const std::string& name,
                             const std::string& device_class);

// Fields are selectors or tolerations, in any order.
template <typename... F>
WrapSubRequest SubRequest(const std::string& name,
                          const std::string& device_class, int64_t count,
                          F... fields) {
  WrapSubRequest sub;
  sub.name = name;
  sub.device_class_name = device_class;
  sub.count = count;
  sub.allocation_mode = api::DeviceAllocationMode::kExactCount;
  [[maybe_unused]] auto add = [&](const auto& field) {
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>,
                                 api::DeviceSelector>) {
      sub.selectors.push_back(field);
    } else {
      sub.tolerations.push_back(field);
    }
  };
  (add(fields), ...);
  return sub;
}

template <typename... S>
WrapRequest RequestWithPrioritizedList(const std::string& name, S... subs) {
  WrapRequest r;
  r.name = name;
  r.first_available = {api::DeviceSubRequest(subs)...};
  return r;
}

// ---- claims ----

struct WrapClaim : api::ResourceClaim {
  const api::ResourceClaim& Obj() const { return *this; }
  WrapClaim WithTolerations(auto... tolerations) const {
    WrapClaim out = *this;
    for (api::DeviceRequest& r : out.spec.devices.requests) {
      (r.exactly->tolerations.push_back(tolerations), ...);
    }
    return out;
  }
  WrapClaim WithRequests(auto... requests) const {
    WrapClaim out = *this;
    out.spec.devices.requests = {api::DeviceRequest(requests)...};
    return out;
  }
  WrapClaim WithConstraints(auto... constraints) const {
    WrapClaim out = *this;
    out.spec.devices.constraints = {constraints...};
    return out;
  }
  WrapClaim WithConfigs(
      std::vector<api::DeviceClaimConfiguration> configs) const {
    WrapClaim out = *this;
    out.spec.devices.config = std::move(configs);
    return out;
  }
};

WrapClaim Claim(const std::string& name);
template <typename... R>
WrapClaim ClaimWithRequests(const std::string& name,
                            std::vector<api::DeviceConstraint> constraints,
                            R... requests) {
  WrapClaim c = Claim(name);
  c.spec.devices.requests = {api::DeviceRequest(requests)...};
  c.spec.devices.constraints = std::move(constraints);
  return c;
}
template <typename... C>
WrapClaim ClaimWithRequest(const std::string& name, const std::string& request,
                           const std::string& device_class, C... constraints) {
  return ClaimWithRequests(name, {constraints...},
                           Request(request, device_class, 1));
}
WrapClaim ClaimWithDeviceConfig(const std::string& name,
                                const std::string& request,
                                const std::string& device_class,
                                const std::string& driver,
                                const std::string& attribute);
api::DeviceClaimConfiguration DeviceClaimConfig(
    std::vector<std::string> requests, api::DeviceConfiguration config);

// ---- devices and slices ----

// Device()'s capacity: none, these values, or kFromCounters.
struct CapacityArg {
  CapacityArg() = default;
  CapacityArg(QuantityMap values) : values(std::move(values)) {}  // NOLINT
  CapacityArg(const char* from_counters)                          // NOLINT
      : from_counters(true) {
    if (std::string_view(from_counters) != kFromCounters) std::abort();
  }
  QuantityMap values;
  bool from_counters = false;
};

// A node name (or kNodeSelectionAll / kNodeSelectionPerDevice), or a node
// selector.
struct NodeSelectionArg {
  NodeSelectionArg(const char* name) : name(name) {}                 // NOLINT
  NodeSelectionArg(std::string name) : name(std::move(name)) {}      // NOLINT
  NodeSelectionArg(api::NodeSelector s) : selector(std::move(s)) {}  // NOLINT
  std::string name;
  std::optional<api::NodeSelector> selector;
};

// A pool name (generation 1, one slice) or a ResourcePool.
struct PoolArg {
  PoolArg(const char* name) : pool{name, 1, 1} {}             // NOLINT
  PoolArg(std::string name) : pool{std::move(name), 1, 1} {}  // NOLINT
  PoolArg(api::ResourcePool pool) : pool(std::move(pool)) {}  // NOLINT
  api::ResourcePool pool;
};

struct WrapDevice : api::Device {
  bool capacity_from_counters = false;

  WrapDevice WithTaints(auto... taints) const {
    WrapDevice out;
    static_cast<api::Device&>(out) = *this;
    (out.taints.push_back(taints), ...);
    return out;
  }
  WrapDevice WithDeviceCounterConsumption(auto... consumptions) const {
    WrapDevice out;
    static_cast<api::Device&>(out) = *this;
    (out.consumes_counters.push_back(consumptions), ...);
    if (capacity_from_counters) SetCapacityFromCounters(out);
    return out;
  }
  WrapDevice WithNodeSelection(NodeSelectionArg selection) const;
  WrapDevice WithBindingConditions(std::vector<std::string> conditions,
                                   std::vector<std::string> failure) const;
  WrapDevice WithBindsToNode(bool binds_to_node) const;
  WrapDevice WithAllowMultipleAllocations() const;
  // Adds each capacity with kube's default range policy: default 2, valid
  // from 2 to 4 in steps of 2.
  WrapDevice WithCapacityRequestPolicyRange(QuantityMap capacity) const;
  // Adds each capacity with a policy whose default (also the smallest
  // valid value) is `default_value`, and whose other valid values are
  // `additional_valid_values`.
  WrapDevice WithCapacityRequestPolicyValidValues(
      api::Quantity default_value, QuantityMap capacity,
      std::vector<api::Quantity> additional_valid_values) const;

 private:
  static void SetCapacityFromCounters(api::Device& device);
};

WrapDevice Device(const std::string& name, CapacityArg capacity = {},
                  AttributeMap attributes = {});
api::DeviceCounterConsumption DeviceCounterConsumption(
    const std::string& counter_set, QuantityMap counters);
api::CounterSet CounterSet(const std::string& name, QuantityMap counters);

struct WrapSlice : api::ResourceSlice {
  const api::ResourceSlice& Obj() const { return *this; }
};

api::ResourcePool ResourcePool(const std::string& name, int64_t count);
WrapSlice Slice(const std::string& name, NodeSelectionArg selection,
                PoolArg pool, const std::string& driver);
template <typename... D>
WrapSlice SliceWithDevices(const std::string& name, NodeSelectionArg selection,
                           PoolArg pool, const std::string& driver,
                           D... devices) {
  WrapSlice s = Slice(name, std::move(selection), std::move(pool), driver);
  (s.spec.devices.push_back(api::Device(devices)), ...);
  return s;
}
template <typename... C>
WrapSlice SliceWithCounterSets(const std::string& name,
                               NodeSelectionArg selection, PoolArg pool,
                               const std::string& driver, C... sets) {
  WrapSlice s = Slice(name, std::move(selection), std::move(pool), driver);
  s.spec.shared_counters = {sets...};
  return s;
}
WrapSlice SliceWithNoDevices(const std::string& name,
                             NodeSelectionArg selection, PoolArg pool,
                             const std::string& driver);
WrapSlice SliceWithOneDevice(const std::string& name,
                             NodeSelectionArg selection, PoolArg pool,
                             const std::string& driver);
WrapSlice SliceWithMultipleDevices(const std::string& name,
                                   NodeSelectionArg selection, PoolArg pool,
                                   const std::string& driver, int64_t count);

api::NodeSelector NodeLabelSelector(const std::string& key, auto... values) {
  api::NodeSelector s;
  api::NodeSelectorTerm& term = s.node_selector_terms.emplace_back();
  term.match_expressions.push_back(api::NodeSelectorRequirement{
      key, api::NodeSelectorOperator::kIn, {std::string(values)...}});
  return s;
}
api::NodeSelector LocalNodeSelector(const std::string& node_name);

// ---- expected results ----

api::DeviceRequestAllocationResult DeviceAllocationResult(
    const std::string& request, const std::string& driver,
    const std::string& pool, const std::string& device, bool admin_access,
    auto... tolerations) {
  api::DeviceRequestAllocationResult r;
  r.request = request;
  r.driver = driver;
  r.pool = pool;
  r.device = device;
  if (admin_access) r.admin_access = true;
  r.tolerations = {tolerations...};
  return r;
}
// A result without admin access or tolerations, to which a share id and
// consumed capacity may be added (kube's deviceRequestAllocationResult).
struct WrapDeviceRequestAllocationResult : api::DeviceRequestAllocationResult {
  // No share id: kube's nil; an empty `consumed_capacity`: kube's nil map.
  api::DeviceRequestAllocationResult WithConsumedCapacity(
      std::optional<std::string> share_id,
      const QuantityMap& consumed_capacity) const;
};
WrapDeviceRequestAllocationResult DeviceRequestAllocationResult(
    const std::string& request, const std::string& driver,
    const std::string& pool, const std::string& device);

api::DeviceRequestAllocationResult
DeviceRequestAllocationResultWithBindingConditions(
    const std::string& request, const std::string& driver,
    const std::string& pool, const std::string& device,
    std::vector<std::string> binding_conditions,
    std::vector<std::string> binding_failure_conditions, auto... tolerations) {
  api::DeviceRequestAllocationResult r;
  r.request = request;
  r.driver = driver;
  r.pool = pool;
  r.device = device;
  r.binding_conditions = std::move(binding_conditions);
  r.binding_failure_conditions = std::move(binding_failure_conditions);
  r.tolerations = {tolerations...};
  return r;
}

std::vector<api::DeviceRequestAllocationResult> MultipleDeviceAllocationResults(
    const std::string& request, const std::string& driver,
    const std::string& pool, int64_t count, int64_t start_index);

// One expected AllocationResult: compared exactly, or (AllocationResult())
// with the device results, node selector terms, requirements and values in
// any order, and no config, as Kubernetes' allocationResult matcher.
struct Expected {
  Expected(api::AllocationResult v) : value(std::move(v)) {}  // NOLINT
  Expected(api::AllocationResult v, bool any_order)
      : value(std::move(v)), any_order(any_order) {}
  api::AllocationResult value;
  bool any_order = false;
};

void AppendResults(std::vector<api::DeviceRequestAllocationResult>& out,
                   const api::DeviceRequestAllocationResult& r);
void AppendResults(std::vector<api::DeviceRequestAllocationResult>& out,
                   const std::vector<api::DeviceRequestAllocationResult>& rs);

Expected AllocationResult(std::optional<api::NodeSelector> selector,
                          const auto&... results) {
  api::AllocationResult r;
  r.node_selector = std::move(selector);
  (AppendResults(r.devices.results, results), ...);
  return Expected(std::move(r), true);
}
api::AllocationResult AllocationResultWithConfig(
    std::optional<api::NodeSelector> selector, const std::string& driver,
    api::AllocationConfigSource source, const std::string& attribute,
    auto... results) {
  api::AllocationResult r;
  r.node_selector = std::move(selector);
  r.devices.results = {results...};
  api::DeviceAllocationConfiguration& config = r.devices.config.emplace_back();
  config.source = source;
  config.config = DeviceConfiguration(driver, attribute);
  return r;
}
api::AllocationResult AllocationResultWithConfigs(
    std::optional<api::NodeSelector> selector,
    std::vector<api::DeviceRequestAllocationResult> results,
    std::vector<api::DeviceAllocationConfiguration> configs);

// Whether `actual` is what `expected` describes.
bool Matches(const Expected& expected, const api::AllocationResult& actual);
// Whether the results are the expected ones in some order (ConsistOf).
bool ConsistOf(const std::vector<Expected>& expected,
               const std::vector<api::AllocationResult>& actual);
std::string Describe(const api::AllocationResult& r);

// ---- lists ----

template <typename T, typename... R>
std::vector<std::decay_t<T>> Objects(T first, R... rest) {
  return {first, rest...};
}
template <typename... S>
std::vector<api::ResourceSlice> UnwrapResourceSlices(S... slices) {
  return {api::ResourceSlice(slices)...};
}
template <typename... S>
std::vector<api::ResourceSlice> Unwrap(S... slices) {
  return {api::ResourceSlice(slices)...};
}
template <typename T>
std::vector<T> Concat(std::vector<T> a, const std::vector<T>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace ksched::dra::allocator_testing

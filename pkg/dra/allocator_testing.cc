#include "pkg/dra/allocator_testing.h"

#include <sstream>

namespace ksched::dra::allocator_testing {

api::Quantity Q(std::string_view text) {
  auto q = api::Quantity::Parse(text);
  if (!q) std::abort();
  return *q;
}

std::string SprintfImpl(std::string_view format,
                        const std::vector<std::string>& args) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '%' && i + 1 < format.size()) {
      char verb = format[i + 1];
      if (verb == '%') {
        out += '%';
      } else {
        out += next < args.size() ? args[next++] : "%!" + std::string(1, verb);
      }
      ++i;
      continue;
    }
    out += format[i];
  }
  return out;
}

Features NoFeatures() {
  Features f;
  f.admin_access = false;
  f.prioritized_list = false;
  f.partitionable_devices = false;
  f.device_taints = false;
  f.consumable_capacity = false;
  f.device_binding_and_status = false;
  return f;
}

api::Node Node(const std::string& name, const std::string& region) {
  api::Node n;
  n.metadata.name = name;
  n.metadata.labels.Set(kRegionKey, region);
  n.metadata.labels.Set(kPlanetKey, kPlanetValueEarth);
  return n;
}

api::DeviceSelector CelSelector(const std::string& expression) {
  api::DeviceSelector s;
  s.cel.emplace().expression = expression;
  return s;
}

api::DeviceClass Class(const std::string& name, const std::string& driver) {
  api::DeviceClass c;
  c.metadata.name = name;
  c.spec.selectors.push_back(
      CelSelector("device.driver == \"" + driver + "\""));
  return c;
}

api::DeviceClass ClassWithAllowMultipleAllocations(const std::string& name,
                                                   const std::string& driver,
                                                   bool multi_alloc) {
  api::DeviceClass c;
  c.metadata.name = name;
  c.spec.selectors.push_back(CelSelector(Sprintf(
      R"(device.driver == "%s" && device.allowMultipleAllocations == %v)",
      driver, multi_alloc)));
  return c;
}

api::DeviceAttribute StringValue(const std::string& value) {
  api::DeviceAttribute a;
  a.string_value = value;
  return a;
}

api::DeviceAttribute IntValue(int64_t value) {
  api::DeviceAttribute a;
  a.int_value = value;
  return a;
}

api::DeviceAttribute BoolValue(bool value) {
  api::DeviceAttribute a;
  a.bool_value = value;
  return a;
}

api::DeviceAttribute VersionValue(const std::string& value) {
  api::DeviceAttribute a;
  a.version_value = value;
  return a;
}

api::DeviceConfiguration DeviceConfiguration(const std::string& driver,
                                             const std::string& attribute) {
  api::DeviceConfiguration c;
  c.opaque.emplace();
  c.opaque->driver = driver;
  c.opaque->parameters.json =
      "{\"" + attribute + "\":\"" + attribute + "Value\"}";
  return c;
}

api::DeviceClass ClassWithConfig(const std::string& name,
                                 const std::string& driver,
                                 const std::string& attribute) {
  api::DeviceClass c = Class(name, driver);
  c.spec.config.emplace_back().config = DeviceConfiguration(driver, attribute);
  return c;
}

WrapRequest Request(const std::string& name, const std::string& device_class,
                    int64_t count, std::vector<api::DeviceSelector> selectors) {
  WrapRequest r;
  r.name = name;
  api::ExactDeviceRequest& exact = r.exactly.emplace();
  exact.count = count;
  exact.allocation_mode = api::DeviceAllocationMode::kExactCount;
  exact.device_class_name = device_class;
  exact.selectors = std::move(selectors);
  return r;
}

api::CapacityRequirements CapacityRequests(
    std::optional<api::Quantity> request) {
  api::CapacityRequirements r;
  if (request) r.requests.Set(kCapacity0, *request);
  return r;
}

WrapRequest WrapRequest::WithCapacityRequest(
    std::optional<api::Quantity> quantity) const {
  WrapRequest out = *this;
  out.exactly->capacity = CapacityRequests(std::move(quantity));
  return out;
}

WrapSubRequest WrapSubRequest::WithCapacityRequest(
    std::optional<api::Quantity> quantity) const {
  WrapSubRequest out = *this;
  out.capacity = CapacityRequests(std::move(quantity));
  return out;
}

WrapRequest DeviceRequest(const std::string& name,
                          const std::string& device_class, int64_t count) {
  return Request(name, device_class, count);
}

WrapRequest AllDeviceRequest(const std::string& name,
                             const std::string& device_class) {
  WrapRequest r;
  r.name = name;
  api::ExactDeviceRequest& exact = r.exactly.emplace();
  exact.allocation_mode = api::DeviceAllocationMode::kAll;
  exact.device_class_name = device_class;
  return r;
}

WrapClaim Claim(const std::string& name) {
  WrapClaim c;
  c.metadata.name = name;
  return c;
}

WrapClaim ClaimWithDeviceConfig(const std::string& name,
                                const std::string& request,
                                const std::string& device_class,
                                const std::string& driver,
                                const std::string& attribute) {
  WrapClaim c = ClaimWithRequest(name, request, device_class);
  c.spec.devices.config.emplace_back().config =
      DeviceConfiguration(driver, attribute);
  return c;
}

api::DeviceClaimConfiguration DeviceClaimConfig(
    std::vector<std::string> requests, api::DeviceConfiguration config) {
  api::DeviceClaimConfiguration c;
  c.requests = std::move(requests);
  c.config = std::move(config);
  return c;
}

WrapDevice Device(const std::string& name, CapacityArg capacity,
                  AttributeMap attributes) {
  WrapDevice d;
  d.name = name;
  for (auto& [key, value] : attributes) d.attributes.Set(key, value);
  for (auto& [key, value] : capacity.values) {
    d.capacity.Set(key, api::DeviceCapacity{value, std::nullopt});
  }
  d.capacity_from_counters = capacity.from_counters;
  return d;
}

void WrapDevice::SetCapacityFromCounters(api::Device& device) {
  device.capacity.clear();
  for (const api::DeviceCounterConsumption& c : device.consumes_counters) {
    for (const auto& [name, counter] : c.counters) {
      device.capacity.Set(name,
                          api::DeviceCapacity{counter.value, std::nullopt});
    }
  }
}

WrapDevice WrapDevice::WithNodeSelection(NodeSelectionArg selection) const {
  WrapDevice out;
  static_cast<api::Device&>(out) = *this;
  if (selection.selector) {
    out.node_selector = std::move(selection.selector);
  } else if (selection.name == kNodeSelectionAll) {
    out.all_nodes = true;
  } else if (selection.name == kNodeSelectionPerDevice) {
    std::abort();  // not a device's choice
  } else {
    out.node_name = selection.name;
  }
  return out;
}

WrapDevice WrapDevice::WithBindingConditions(
    std::vector<std::string> conditions,
    std::vector<std::string> failure) const {
  WrapDevice out;
  static_cast<api::Device&>(out) = *this;
  out.binding_conditions = std::move(conditions);
  out.binding_failure_conditions = std::move(failure);
  return out;
}

WrapDevice WrapDevice::WithBindsToNode(bool binds_to_node) const {
  WrapDevice out;
  static_cast<api::Device&>(out) = *this;
  out.binds_to_node = binds_to_node;
  return out;
}

WrapDevice WrapDevice::WithAllowMultipleAllocations() const {
  WrapDevice out;
  static_cast<api::Device&>(out) = *this;
  out.allow_multiple_allocations = true;
  return out;
}

WrapDevice WrapDevice::WithCapacityRequestPolicyRange(
    QuantityMap capacity) const {
  const api::Quantity two =
      api::Quantity::FromValue(2, api::Quantity::Format::kBinarySI);
  const api::Quantity four =
      api::Quantity::FromValue(4, api::Quantity::Format::kBinarySI);
  WrapDevice out;
  static_cast<api::Device&>(out) = *this;
  for (auto& [name, value] : capacity) {
    api::CapacityRequestPolicy policy;
    policy.default_value = two;
    policy.valid_range = api::CapacityRequestPolicyRange{two, four, two};
    out.capacity.Set(name, api::DeviceCapacity{value, std::move(policy)});
  }
  return out;
}

WrapDevice WrapDevice::WithCapacityRequestPolicyValidValues(
    api::Quantity default_value, QuantityMap capacity,
    std::vector<api::Quantity> additional_valid_values) const {
  WrapDevice out;
  static_cast<api::Device&>(out) = *this;
  for (auto& [name, value] : capacity) {
    api::CapacityRequestPolicy policy;
    policy.default_value = default_value;
    policy.valid_values.push_back(default_value);
    policy.valid_values.insert(policy.valid_values.end(),
                               additional_valid_values.begin(),
                               additional_valid_values.end());
    out.capacity.Set(name, api::DeviceCapacity{value, std::move(policy)});
  }
  return out;
}

api::DeviceCounterConsumption DeviceCounterConsumption(
    const std::string& counter_set, QuantityMap counters) {
  api::DeviceCounterConsumption c;
  c.counter_set = counter_set;
  for (auto& [name, value] : counters) c.counters.Set(name, {value});
  return c;
}

api::CounterSet CounterSet(const std::string& name, QuantityMap counters) {
  api::CounterSet s;
  s.name = name;
  for (auto& [key, value] : counters) s.counters.Set(key, {value});
  return s;
}

api::ResourcePool ResourcePool(const std::string& name, int64_t count) {
  return api::ResourcePool{name, 1, count};
}

WrapSlice Slice(const std::string& name, NodeSelectionArg selection,
                PoolArg pool, const std::string& driver) {
  WrapSlice s;
  s.metadata.name = name;
  s.spec.driver = driver;
  s.spec.pool = std::move(pool.pool);
  if (selection.selector) {
    s.spec.node_selector = std::move(selection.selector);
  } else if (selection.name == kNodeSelectionAll) {
    s.spec.all_nodes = true;
  } else if (selection.name == kNodeSelectionPerDevice) {
    s.spec.per_device_node_selection = true;
  } else {
    s.spec.node_name = selection.name;
  }
  return s;
}

WrapSlice SliceWithNoDevices(const std::string& name,
                             NodeSelectionArg selection, PoolArg pool,
                             const std::string& driver) {
  return Slice(name, std::move(selection), std::move(pool), driver);
}

WrapSlice SliceWithOneDevice(const std::string& name,
                             NodeSelectionArg selection, PoolArg pool,
                             const std::string& driver) {
  return SliceWithDevices(name, std::move(selection), std::move(pool), driver,
                          Device(kDevice1));
}

WrapSlice SliceWithMultipleDevices(const std::string& name,
                                   NodeSelectionArg selection, PoolArg pool,
                                   const std::string& driver, int64_t count) {
  WrapSlice s = Slice(name, std::move(selection), std::move(pool), driver);
  for (int64_t i = 0; i < count; ++i) {
    s.spec.devices.push_back(Device("device-" + std::to_string(i)));
  }
  return s;
}

api::NodeSelector LocalNodeSelector(const std::string& node_name) {
  api::NodeSelector s;
  api::NodeSelectorTerm& term = s.node_selector_terms.emplace_back();
  term.match_fields.push_back(api::NodeSelectorRequirement{
      kFieldNameKey, api::NodeSelectorOperator::kIn, {node_name}});
  return s;
}

std::vector<api::DeviceRequestAllocationResult> MultipleDeviceAllocationResults(
    const std::string& request, const std::string& driver,
    const std::string& pool, int64_t count, int64_t start_index) {
  std::vector<api::DeviceRequestAllocationResult> out;
  for (int64_t i = start_index; i < start_index + count; ++i) {
    out.push_back(DeviceAllocationResult(request, driver, pool,
                                         "device-" + std::to_string(i), false));
  }
  return out;
}

WrapDeviceRequestAllocationResult DeviceRequestAllocationResult(
    const std::string& request, const std::string& driver,
    const std::string& pool, const std::string& device) {
  WrapDeviceRequestAllocationResult r;
  r.request = request;
  r.driver = driver;
  r.pool = pool;
  r.device = device;
  return r;
}

api::DeviceRequestAllocationResult
WrapDeviceRequestAllocationResult::WithConsumedCapacity(
    std::optional<std::string> share_id,
    const QuantityMap& consumed_capacity) const {
  api::DeviceRequestAllocationResult out = *this;
  out.share_id = std::move(share_id);
  out.consumed_capacity.clear();
  for (const auto& [name, value] : consumed_capacity) {
    out.consumed_capacity.Set(name, value);
  }
  return out;
}

void AppendResults(std::vector<api::DeviceRequestAllocationResult>& out,
                   const api::DeviceRequestAllocationResult& r) {
  out.push_back(r);
}

void AppendResults(std::vector<api::DeviceRequestAllocationResult>& out,
                   const std::vector<api::DeviceRequestAllocationResult>& rs) {
  out.insert(out.end(), rs.begin(), rs.end());
}

api::AllocationResult AllocationResultWithConfigs(
    std::optional<api::NodeSelector> selector,
    std::vector<api::DeviceRequestAllocationResult> results,
    std::vector<api::DeviceAllocationConfiguration> configs) {
  api::AllocationResult r;
  r.node_selector = std::move(selector);
  r.devices.results = std::move(results);
  r.devices.config = std::move(configs);
  return r;
}

namespace allocator_testing_detail {
namespace {

std::string NanoText(const api::Quantity& q) {
  __int128 v = q.NanoValue();
  const bool negative = v < 0;
  std::string digits;
  do {
    const int digit = static_cast<int>(v % 10);
    digits.insert(digits.begin(),
                  static_cast<char>('0' + (digit < 0 ? -digit : digit)));
    v /= 10;
  } while (v != 0);
  return negative ? "-" + digits : digits;
}

// Every field operator== compares, so that results equal as multisets
// sort into the same sequence.
std::string Key(const api::DeviceRequestAllocationResult& r) {
  std::string key =
      r.request + "|" + r.driver + "|" + r.pool + "|" + r.device + "|" +
      (r.admin_access ? (*r.admin_access ? "admin" : "noadmin") : "") + "|" +
      std::to_string(r.tolerations.size());
  for (const api::DeviceToleration& t : r.tolerations) {
    key += "|tol:" + t.key + "," + std::to_string(static_cast<int>(t.op)) +
           "," + t.value + "," + std::to_string(static_cast<int>(t.effect)) +
           "," +
           (t.toleration_seconds ? std::to_string(*t.toleration_seconds) : "");
  }
  for (const std::string& c : r.binding_conditions) key += "|bc:" + c;
  for (const std::string& c : r.binding_failure_conditions) key += "|bfc:" + c;
  if (r.share_id) key += "|share:" + *r.share_id;
  for (const auto& [name, value] : r.consumed_capacity) {
    key += "|cap:" + name + "=" + NanoText(value);
  }
  return key;
}

void SortRequirements(std::vector<api::NodeSelectorRequirement>& rs) {
  for (auto& r : rs) std::sort(r.values.begin(), r.values.end());
  std::sort(rs.begin(), rs.end(), [](const auto& a, const auto& b) {
    return std::tie(a.key, a.op, a.values) < std::tie(b.key, b.op, b.values);
  });
}

// The form in which order does not matter.
api::AllocationResult Normalized(api::AllocationResult r) {
  std::stable_sort(
      r.devices.results.begin(), r.devices.results.end(),
      [](const auto& a, const auto& b) { return Key(a) < Key(b); });
  if (r.node_selector) {
    for (auto& term : r.node_selector->node_selector_terms) {
      SortRequirements(term.match_expressions);
      SortRequirements(term.match_fields);
    }
  }
  return r;
}

}  // namespace
}  // namespace allocator_testing_detail
using namespace allocator_testing_detail;

bool Matches(const Expected& expected, const api::AllocationResult& actual) {
  if (!expected.any_order) return expected.value == actual;
  return Normalized(expected.value) == Normalized(actual);
}

bool ConsistOf(const std::vector<Expected>& expected,
               const std::vector<api::AllocationResult>& actual) {
  if (expected.size() != actual.size()) return false;
  std::vector<size_t> order(actual.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  do {
    bool all = true;
    for (size_t i = 0; i < expected.size() && all; ++i) {
      all = Matches(expected[i], actual[order[i]]);
    }
    if (all) return true;
  } while (std::next_permutation(order.begin(), order.end()));
  return false;
}

std::string Describe(const api::AllocationResult& r) {
  std::ostringstream out;
  out << "{results:[";
  for (const auto& d : r.devices.results) {
    out << " " << d.request << "=" << d.driver << "/" << d.pool << "/"
        << d.device << (d.admin_access.value_or(false) ? "(admin)" : "");
    if (!d.tolerations.empty()) out << "+" << d.tolerations.size() << "tol";
    if (!d.binding_conditions.empty() ||
        !d.binding_failure_conditions.empty()) {
      out << " binding{";
      for (const auto& c : d.binding_conditions) out << c << ",";
      out << " failure:";
      for (const auto& c : d.binding_failure_conditions) out << c << ",";
      out << "}";
    }
    if (d.share_id) out << " share=" << *d.share_id;
    if (!d.consumed_capacity.empty()) {
      out << " consumed{";
      for (const auto& [name, value] : d.consumed_capacity) {
        out << name << "=" << value.ToString() << ",";
      }
      out << "}";
    }
  }
  out << " ] config:[";
  for (const auto& c : r.devices.config) {
    out << " "
        << (c.source == api::AllocationConfigSource::kFromClass ? "class"
                                                                : "claim")
        << ":";
    for (const auto& q : c.requests) out << q << ",";
    if (c.config.opaque) out << c.config.opaque->parameters.json;
  }
  out << " ] nodeSelector:";
  if (!r.node_selector) {
    out << "nil";
  } else {
    for (const auto& t : r.node_selector->node_selector_terms) {
      out << " term{";
      for (const auto& e : t.match_expressions) {
        out << " expr " << e.key << ":";
        for (const auto& v : e.values) out << v << ",";
      }
      for (const auto& f : t.match_fields) {
        out << " field " << f.key << ":";
        for (const auto& v : f.values) out << v << ",";
      }
      out << " }";
    }
  }
  out << "}";
  return out.str();
}

}  // namespace ksched::dra::allocator_testing

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

std::string Key(const api::DeviceRequestAllocationResult& r) {
  return r.request + "|" + r.driver + "|" + r.pool + "|" + r.device + "|" +
         (r.admin_access ? (*r.admin_access ? "admin" : "noadmin") : "") + "|" +
         std::to_string(r.tolerations.size());
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

#include "pkg/dra/slice_index.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace ksched::dra {

// One device's CEL view: the cel::dra::Device the activation borrows from,
// the activation, or the reason it could not be made.
struct SliceIndex::DeviceCache {
  std::once_flag once;
  cel::dra::Device device;
  std::unique_ptr<cel::dra::DeviceActivation> activation;
  std::string error;
};

namespace slice_index_detail {
namespace {

// Whether the allocator treats the slice as one node's own: a nodeName and
// none of the fields that make every node look at it.
bool IsNodeLocal(const api::ResourceSliceSpec& spec) {
  return spec.node_name.has_value() && !spec.node_name->empty() &&
         spec.shared_counters.empty() &&
         !spec.per_device_node_selection.has_value();
}

// Whether a device is picked by being free and matching alone: nothing
// about it can refuse it once a request's selectors accept it.
bool IsPlainDevice(const api::Device& d) {
  if (!d.taints.empty() || !d.consumes_counters.empty() ||
      !d.binding_conditions.empty() || d.binds_to_node.value_or(false) ||
      d.allow_multiple_allocations.value_or(false)) {
    return false;
  }
  for (const auto& [name, cap] : d.capacity) {
    if (cap.request_policy) return false;
  }
  return true;
}

// Kubernetes' conversion of a device for CEL (cel.Device): the driver,
// attributes and capacity. A value of a kind this version does not know
// fails the evaluation as Kubernetes' getAttributeValue does.
void BuildCelDevice(const std::string& driver, const api::Device& in,
                    cel::dra::Device& out, std::string& error) {
  out.driver = driver;
  out.allow_multiple_allocations = in.allow_multiple_allocations;
  out.attributes.reserve(in.attributes.size());
  for (const auto& [name, attr] : in.attributes) {
    cel::dra::DeviceAttribute a;
    if (attr.int_value) {
      a.kind = cel::dra::DeviceAttribute::Kind::kInt;
      a.int_value = *attr.int_value;
    } else if (attr.bool_value) {
      a.kind = cel::dra::DeviceAttribute::Kind::kBool;
      a.bool_value = *attr.bool_value;
    } else if (attr.string_value) {
      a.kind = cel::dra::DeviceAttribute::Kind::kString;
      a.string_value = *attr.string_value;
    } else if (attr.version_value) {
      a.kind = cel::dra::DeviceAttribute::Kind::kVersion;
      a.string_value = *attr.version_value;
    } else {
      if (error.empty()) {
        error = "attribute " + name + ": unsupported attribute value";
      }
      continue;
    }
    out.attributes.emplace_back(name, std::move(a));
  }
  out.capacity.reserve(in.capacity.size());
  for (const auto& [name, cap] : in.capacity) {
    out.capacity.emplace_back(name, cap.value);
  }
}

}  // namespace
}  // namespace slice_index_detail
using namespace slice_index_detail;

const SliceIndex::NodeSlices* SliceIndex::FindNode(
    std::string_view name) const {
  if (node_slots_.empty()) return nullptr;
  const size_t hash = std::hash<std::string_view>()(name);
  const size_t mask = node_slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const NodeSlot& slot = node_slots_[i];
    if (slot.node == nullptr) return nullptr;
    if (slot.hash == hash && slot.name == name) return slot.node;
  }
}

const SliceIndex::MemoCell& SliceIndex::NodeMemo(std::string_view node) const {
  const NodeSlices* own = FindNode(node);
  return own != nullptr ? own->memo : no_slices_memo_;
}

SliceIndex::SliceIndex(
    std::vector<std::shared_ptr<const api::ResourceSlice>> slices)
    : slices_(std::move(slices)) {
  std::erase(slices_, nullptr);
  std::stable_sort(slices_.begin(), slices_.end(),
                   [](const auto& a, const auto& b) {
                     return a->metadata.name < b->metadata.name;
                   });

  // Pool positions in (driver, pool name) order.
  std::map<std::pair<std::string_view, std::string_view>, uint32_t> pools;
  for (const auto& s : slices_) {
    pools.emplace(std::pair<std::string_view, std::string_view>(
                      s->spec.driver, s->spec.pool.name),
                  0);
  }
  uint32_t next_pool = 0;
  std::map<std::string_view, int> drivers_per_name;
  for (auto& [id, position] : pools) {
    position = next_pool++;
    ++drivers_per_name[id.second];
  }
  pool_name_shared_.reserve(pools.size());
  for (const auto& [id, position] : pools) {
    pool_name_shared_.push_back(drivers_per_name[id.second] > 1);
  }
  pool_slices_.resize(pools.size());
  pool_memo_ = std::make_unique<std::atomic<int8_t>[]>(pools.size());

  indexed_.resize(slices_.size());
  std::unordered_map<std::string_view, size_t> node_positions;
  for (uint32_t i = 0; i < slices_.size(); ++i) {
    const api::ResourceSlice& s = *slices_[i];
    Slice& entry = indexed_[i];
    entry.slice = &s;
    entry.pool = pools[{s.spec.driver, s.spec.pool.name}];
    entry.first_device = static_cast<uint32_t>(num_devices_);
    entry.num_devices = static_cast<uint32_t>(s.spec.devices.size());
    entry.per_device_node_selection =
        s.spec.per_device_node_selection.value_or(false);
    entry.binding_conditions = std::any_of(
        s.spec.devices.begin(), s.spec.devices.end(),
        [](const api::Device& d) { return !d.binding_conditions.empty(); });
    num_devices_ += s.spec.devices.size();
    if (s.spec.node_selector) {
      entry.node_selector =
          std::make_unique<api::CompiledNodeSelector>(*s.spec.node_selector);
    }
    std::vector<std::string_view> names;
    names.reserve(s.spec.devices.size());
    for (const api::Device& d : s.spec.devices) names.push_back(d.name);
    std::sort(names.begin(), names.end());
    entry.duplicate_device_names =
        std::adjacent_find(names.begin(), names.end()) != names.end();
    bool any_device_selector = false;
    for (const api::Device& d : s.spec.devices) {
      any_device_selector |= d.node_selector.has_value();
    }
    if (any_device_selector) {
      entry.device_node_selectors.resize(s.spec.devices.size());
      for (size_t d = 0; d < s.spec.devices.size(); ++d) {
        if (s.spec.devices[d].node_selector) {
          entry.device_node_selectors[d] =
              std::make_unique<api::CompiledNodeSelector>(
                  *s.spec.devices[d].node_selector);
        }
      }
    }
    for (size_t d = 0; d < s.spec.devices.size(); ++d) {
      ordinals_[DeviceKey{s.spec.driver, s.spec.pool.name,
                          s.spec.devices[d].name}]
          .push_back(entry.first_device + static_cast<uint32_t>(d));
    }
    entry.plain =
        IsNodeLocal(s.spec) && std::all_of(s.spec.devices.begin(),
                                           s.spec.devices.end(), IsPlainDevice);
    pool_slices_[entry.pool].push_back(i);
    if (IsNodeLocal(s.spec)) {
      auto [it, added] =
          node_positions.try_emplace(*s.spec.node_name, nodes_.size());
      if (added) nodes_.emplace_back().name = *s.spec.node_name;
      nodes_[it->second].slices.push_back(i);
    } else if (!s.spec.shared_counters.empty()) {
      counter_slices_.push_back(i);
    } else {
      cluster_wide_.push_back(i);
    }
  }
  for (const auto& slice : slices_) {
    for (const api::Device& d : slice->spec.devices) {
      if (d.allow_multiple_allocations.value_or(false)) {
        capacity_policies_ = true;
      }
      for (const auto& [name, cap] : d.capacity) {
        if (cap.request_policy) capacity_policies_ = true;
      }
    }
  }
  devices_ = std::make_unique<DeviceCache[]>(num_devices_);
  size_t name_bytes = 0;
  for (const NodeSlices& node : nodes_) name_bytes += node.name.size();
  node_name_arena_.reserve(name_bytes);  // views into it stay valid
  node_names_.reserve(nodes_.size());
  for (const NodeSlices& node : nodes_) {
    node_names_.emplace_back(node_name_arena_.data() + node_name_arena_.size(),
                             node.name.size());
    node_name_arena_.append(node.name);
  }
  if (!nodes_.empty()) {
    size_t slots = 2;
    while (slots < 2 * nodes_.size()) slots *= 2;
    node_slots_.resize(slots);
    for (size_t n = 0; n < nodes_.size(); ++n) {
      const size_t hash = std::hash<std::string_view>()(node_names_[n]);
      size_t i = hash & (slots - 1);
      while (node_slots_[i].node != nullptr) i = (i + 1) & (slots - 1);
      node_slots_[i] = {hash, node_names_[n], &nodes_[n]};
    }
  }
}

SliceIndex::~SliceIndex() = default;

std::span<const uint32_t> SliceIndex::SlicesOnNode(
    std::string_view node) const {
  const NodeSlices* own = FindNode(node);
  if (own == nullptr) return {};
  return own->slices;
}

size_t SliceIndex::DeviceKeyHash::operator()(const DeviceKey& k) const {
  std::hash<std::string_view> h;
  size_t seed = h(k.driver);
  seed ^= h(k.pool) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  seed ^= h(k.device) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  return seed;
}

std::span<const uint32_t> SliceIndex::Ordinals(const DeviceId& id) const {
  auto it = ordinals_.find(DeviceKey{id.driver, id.pool, id.device});
  if (it == ordinals_.end()) return {};
  return it->second;
}

const SliceIndex::SelectorResults* SliceIndex::Selector(
    const std::string& expression, cel::dra::SelectorCache& cache) const {
  std::lock_guard lock(selectors_mu_);
  auto it = selectors_.find(expression);
  if (it != selectors_.end()) return it->second.get();
  if (selectors_.size() >= kMaxSelectorTables) return nullptr;
  auto table = std::make_unique<SelectorResults>(
      SelectorResults{cache.Get(expression), nullptr});
  table->matches = std::make_unique<std::atomic<int8_t>[]>(num_devices_);
  return selectors_.emplace(expression, std::move(table)).first->second.get();
}

SliceIndex::CelDevice SliceIndex::Cel(uint32_t position,
                                      size_t device_index) const {
  const Slice& s = indexed_[position];
  DeviceCache& cache = devices_[s.first_device + device_index];
  std::call_once(cache.once, [&] {
    BuildCelDevice(s.slice->spec.driver, s.slice->spec.devices[device_index],
                   cache.device, cache.error);
    if (!cache.error.empty()) return;
    auto made = cel::dra::DeviceActivation::Make(cache.device);
    if (made) {
      cache.activation = std::move(*made);
    } else {
      cache.error = made.error().message();
    }
  });
  if (cache.activation) return {cache.activation.get(), nullptr};
  return {nullptr, &cache.error};
}

}  // namespace ksched::dra

// The allocation results of a finished search: the devices per claim,
// the class and claim config that applies to them, and the node selector
// that says where the devices can be used.
#include <algorithm>
#include <cstdio>
#include <random>
#include <unordered_map>

#include "pkg/dra/allocator_search.h"

namespace ksched::dra {
namespace allocator_result_detail {
namespace {

constexpr std::string_view kNodeNameField = "metadata.name";

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool SameValues(const std::vector<std::string>& a,
                const std::vector<std::string>& b) {
  for (const std::string& v : a) {
    if (!Contains(b, v)) return false;
  }
  for (const std::string& v : b) {
    if (!Contains(a, v)) return false;
  }
  return true;
}

// Appends the requirements `to` does not have yet (same key, operator and
// set of values).
void AddNewRequirements(const std::vector<api::NodeSelectorRequirement>& from,
                        std::vector<api::NodeSelectorRequirement>& to) {
  for (const api::NodeSelectorRequirement& r : from) {
    bool present = std::any_of(to.begin(), to.end(), [&](const auto& have) {
      return have.key == r.key && have.op == r.op &&
             SameValues(have.values, r.values);
    });
    if (!present) to.push_back(r);
  }
}

// A random (version 4) UUID, as the shareID kube-scheduler writes.
std::string RandomShareId() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  const uint64_t hi = (engine() & ~uint64_t{0xF000}) | uint64_t{0x4000};
  const uint64_t lo =
      (engine() & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);
  char text[37];
  std::snprintf(text, sizeof(text), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF),
                static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return text;
}

}  // namespace
}  // namespace allocator_result_detail
using namespace allocator_result_detail;

bool AllocatorSearch::BuildResults(std::vector<api::AllocationResult>& out) {
  out.resize(claims_.size());
  for (size_t c = 0; c < claims_.size(); ++c) {
    const api::ResourceClaim& claim = *claims_[c];
    api::AllocationResult& allocation = out[c];

    std::vector<api::DeviceRequestAllocationResult>& results =
        allocation.devices.results;
    results.reserve(results_[c].size());
    for (const DeviceResult& picked : results_[c]) {
      const api::ResourceSliceSpec& spec =
          index_.slice(picked.ref.slice).slice->spec;
      api::DeviceRequestAllocationResult& r = results.emplace_back();
      r.request = picked.data->Name();
      r.driver = spec.driver;
      r.pool = spec.pool.name;
      r.device = DeviceOf(picked.ref).name;
      if (picked.data->request.admin()) r.admin_access = true;
      if (picked.data->request.tolerations != nullptr) {
        r.tolerations = *picked.data->request.tolerations;
      }
      if (picked.shared) {
        r.share_id = limits_.new_share_id != nullptr ? (*limits_.new_share_id)()
                                                     : RandomShareId();
      }
      for (const auto& [name, value] : picked.consumed) {
        r.consumed_capacity.Set(name, value);
      }
      if (allocator_.features_.device_binding_and_status) {
        const api::Device& device = DeviceOf(picked.ref);
        r.binding_conditions = device.binding_conditions;
        r.binding_failure_conditions = device.binding_failure_conditions;
      }
    }

    // Class config: each class's entries once, naming every request that
    // uses the class (with a firstAvailable request, the subrequest the
    // search picked).
    std::vector<api::DeviceAllocationConfiguration>& config =
        allocation.devices.config;
    std::unordered_map<std::string_view, std::pair<size_t, size_t>>
        class_config;
    for (const RequestSlot& slot : requests_[c]) {
      const RequestData& data = slot.options[slot.selected];
      if (!data.device_class) continue;
      std::string name = data.Name();
      auto it = class_config.find(data.device_class->metadata.name);
      if (it != class_config.end()) {
        for (size_t i = it->second.first; i < it->second.second; ++i) {
          config[i].requests.push_back(name);
        }
        continue;
      }
      size_t start = config.size();
      for (const api::DeviceClassConfiguration& entry :
           data.device_class->spec.config) {
        api::DeviceAllocationConfiguration& added = config.emplace_back();
        added.source = api::AllocationConfigSource::kFromClass;
        added.requests = {name};
        added.config = entry.config;
      }
      class_config.emplace(data.device_class->metadata.name,
                           std::make_pair(start, config.size()));
    }

    // Claim config: entries for every request always apply; others once
    // per request they name, by the request's name or by its picked
    // subrequest's "<request>/<subrequest>".
    const std::vector<api::DeviceRequest>& requests =
        claim.spec.devices.requests;
    for (const api::DeviceClaimConfiguration& entry :
         claim.spec.devices.config) {
      auto add = [&] {
        api::DeviceAllocationConfiguration& added = config.emplace_back();
        added.source = api::AllocationConfigSource::kFromClaim;
        added.requests = entry.requests;
        added.config = entry.config;
      };
      if (entry.requests.empty()) {
        add();
        continue;
      }
      for (size_t r = 0; r < requests.size(); ++r) {
        if (Contains(entry.requests, requests[r].name)) {
          add();
          continue;
        }
        const RequestSlot& slot = requests_[c][r];
        if (!slot.first_available) continue;
        if (Contains(entry.requests, slot.options[slot.selected].Name())) {
          add();
        }
      }
    }

    // Where the devices are: the first node-local device, or device that
    // binds to the node it is attached to, pins the claim to this node;
    // otherwise the devices' single-term node selectors are merged into
    // one term; devices for all nodes add nothing.
    api::NodeSelectorTerm term;
    std::optional<std::string> pinned;
    for (const DeviceResult& picked : results_[c]) {
      const api::ResourceSliceSpec& spec =
          index_.slice(picked.ref.slice).slice->spec;
      const api::Device& device = DeviceOf(picked.ref);
      bool per_device = spec.per_device_node_selection.value_or(false);
      const std::optional<std::string>& node_name =
          per_device ? device.node_name : spec.node_name;
      const std::optional<api::NodeSelector>& selector =
          per_device ? device.node_selector : spec.node_selector;
      if (node_name || device.binds_to_node.value_or(false)) {
        pinned = node_.metadata.name;
        break;
      }
      if (!selector) continue;
      size_t terms = selector->node_selector_terms.size();
      if (terms == 1) {
        AddNewRequirements(selector->node_selector_terms[0].match_fields,
                           term.match_fields);
        AddNewRequirements(selector->node_selector_terms[0].match_expressions,
                           term.match_expressions);
      } else if (terms > 1) {
        return Fail("create NodeSelector for claim " + claim.metadata.name +
                    ": unsupported ResourceSlice.NodeSelector with " +
                    std::to_string(terms) + " terms");
      }
    }
    if (pinned) {
      api::NodeSelectorTerm local;
      local.match_fields.push_back(
          api::NodeSelectorRequirement{std::string(kNodeNameField),
                                       api::NodeSelectorOperator::kIn,
                                       {*pinned}});
      allocation.node_selector.emplace().node_selector_terms.push_back(
          std::move(local));
    } else if (!term.match_fields.empty() || !term.match_expressions.empty()) {
      allocation.node_selector.emplace().node_selector_terms.push_back(
          std::move(term));
    }
  }
  return true;
}

}  // namespace ksched::dra

#include "pkg/dra/allocator_search.h"

#include <algorithm>
#include <limits>

namespace ksched::dra {
namespace allocator_search_detail {
namespace {

// Kubernetes prints a claim as klog.KObj does: "<namespace>/<name>", or
// the bare name when it has no namespace.
std::string ClaimRef(const api::ResourceClaim& claim) {
  if (claim.metadata.ns.empty()) return claim.metadata.name;
  return claim.metadata.ns + "/" + claim.metadata.name;
}

// resourceclaim.ToleratesTaint.
bool ToleratesTaint(const api::DeviceToleration& toleration,
                    const api::DeviceTaint& taint) {
  if (toleration.effect != api::DeviceTaintEffect::kUnset &&
      toleration.effect != taint.effect) {
    return false;
  }
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  switch (toleration.op) {
    case api::DeviceTolerationOperator::kUnset:
    case api::DeviceTolerationOperator::kEqual:
      return toleration.value == taint.value;
    case api::DeviceTolerationOperator::kExists:
      return true;
    default:
      return false;
  }
}

// A taint as kube prints one: "key=value:Effect".
std::string TaintString(const api::DeviceTaint& taint) {
  std::string out = taint.key;
  if (!taint.value.empty()) out += "=" + taint.value;
  switch (taint.effect) {
    case api::DeviceTaintEffect::kNoSchedule:
      return out + ":NoSchedule";
    case api::DeviceTaintEffect::kNoExecute:
      return out + ":NoExecute";
    case api::DeviceTaintEffect::kNone:
      return out + ":None";
    default:
      return out;
  }
}

const util::Clock& DefaultClock() {
  static const util::RealClock clock;
  return clock;
}

}  // namespace
}  // namespace allocator_search_detail
using namespace allocator_search_detail;

size_t AllocatorSearch::MatchKeyHash::operator()(const MatchKey& k) const {
  uint64_t a = (uint64_t{k.device} << 32) | k.claim;
  uint64_t b = (uint64_t{k.request} << 32) | k.sub;
  return std::hash<uint64_t>()(a * 0x9e3779b97f4a7c15ULL ^ b);
}

std::string AllocatorSearch::RequestData::Name() const {
  if (parent.empty()) return std::string(request.name);
  std::string name;
  name.reserve(parent.size() + 1 + request.name.size());
  name.append(parent).append("/").append(request.name);
  return name;
}

AllocatorSearch::AllocatorSearch(
    const Allocator& allocator, const api::Node& node,
    std::span<const api::ResourceClaim* const> claims,
    const AllocateLimits& limits)
    : allocator_(allocator),
      index_(*allocator.slices_),
      node_(node),
      claims_(claims),
      limits_(limits),
      deadline_(limits.deadline) {
  if (!deadline_ && limits.timeout) {
    const util::Clock& clock =
        limits.clock != nullptr ? *limits.clock : DefaultClock();
    deadline_ = clock.Now() + *limits.timeout;
  }
}

bool AllocatorSearch::Fail(std::string message, AllocateResult::Code code) {
  error_code_ = code;
  error_ = std::move(message);
  return false;
}

const api::Device& AllocatorSearch::DeviceOf(const DeviceRef& ref) const {
  return index_.slice(ref.slice).slice->spec.devices[ref.device];
}

uint32_t AllocatorSearch::Ordinal(const DeviceRef& ref) const {
  return index_.slice(ref.slice).first_device + ref.device;
}

std::string AllocatorSearch::DeviceIdString(const DeviceRef& ref) const {
  const api::ResourceSliceSpec& spec = index_.slice(ref.slice).slice->spec;
  return spec.driver + "/" + spec.pool.name + "/" + DeviceOf(ref).name;
}

AllocateResult AllocatorSearch::Run() {
  auto gathered =
      PoolsForNode(index_, node_, allocator_.features_.partitionable_devices);
  if (!gathered) {
    AllocateResult result;
    result.code = AllocateResult::Code::kError;
    result.message = "gather pool information: " + gathered.error().message();
    return result;
  }
  return Run(std::move(*gathered));
}

AllocateResult AllocatorSearch::Run(NodePools gathered) {
  AllocateResult result;
  auto finish_error = [&] {
    result.code = error_code_;
    result.message = std::move(error_);
    result.allocate_one_invocations = invocations_;
    return result;
  };
  pools_holder_.emplace(std::move(gathered));

  if (!ValidateClaims()) return finish_error();

  Step step = AllocateOne(Position{}, false, Location{});
  result.allocate_one_invocations = invocations_;
  if (step == Step::kError) return finish_error();
  if (step == Step::kMaxSize) {
    // The first claim alone cannot stay within the limit: Kubernetes lets
    // that sentinel error escape as a plain error.
    Fail("allocation max size exceeded");
    return finish_error();
  }
  if (step != Step::kDone) {
    for (const Pool& pool : pools()) {
      if (pool.invalid) {
        result.code = AllocateResult::Code::kFailedOnNode;
        result.message = "invalid resource pools were encountered";
        return result;
      }
    }
    result.code = AllocateResult::Code::kNoFit;
    return result;
  }
  // Only devices of node-local slices: the result cannot fail to build
  // (its node selector is the node's name), so it need not be built yet.
  bool node_local = true;
  for (const auto& claim_results : results_) {
    for (const DeviceResult& picked : claim_results) {
      const auto& node_name =
          index_.slice(picked.ref.slice).slice->spec.node_name;
      if (!node_name || node_name->empty()) node_local = false;
    }
  }
  if (!limits_.build_results && node_local) {
    result.code = AllocateResult::Code::kAllocated;
    return result;
  }
  if (!BuildResults(result.allocations)) {
    result.allocations.clear();
    return finish_error();
  }
  if (!limits_.build_results) result.allocations.clear();
  result.code = AllocateResult::Code::kAllocated;
  return result;
}

std::string AllocatorSearch::Diagnose() {
  AllocateResult outcome = Run();
  switch (outcome.code) {
    case AllocateResult::Code::kAllocated:
      return "";
    case AllocateResult::Code::kNoFit:
      break;
    default:
      return outcome.message;
  }
  // Run() left pools() and requests_ as the search saw them; the search's
  // own devices were released as it backtracked.
  for (size_t c = 0; c < requests_.size(); ++c) {
    const std::string claim_ref = ClaimRef(*claims_[c]);
    for (size_t q = 0; q < requests_[c].size(); ++q) {
      const RequestSlot& slot = requests_[c][q];
      std::string best;  // the alternative that came closest
      bool some_option_fits = false;
      for (size_t sub = 0; sub < slot.options.size(); ++sub) {
        const RequestData& data = slot.options[sub];
        int64_t matching = 0, free = 0, total = 0;
        // Why free devices still cannot serve the request, each reason
        // once, in the order the devices are met.
        std::vector<std::string> unusable;
        for (const Pool& pool : pools()) {
          if (pool.incomplete || pool.invalid) continue;
          for (uint32_t s : pool.slices) {
            const size_t n = index_.slice(s).slice->spec.devices.size();
            for (size_t d = 0; d < n; ++d) {
              ++total;
              DeviceRef device{s, static_cast<uint32_t>(d), &pool};
              MatchKey key{Ordinal(device), static_cast<uint32_t>(c),
                           static_cast<uint32_t>(q),
                           static_cast<uint32_t>(sub)};
              const int selectable = IsSelectable(key, data, device);
              if (selectable < 0) return error_;
              if (selectable == 0) continue;
              ++matching;
              if (!data.request.admin() && DeviceAllocated(device)) continue;
              std::string why = WhyUnusable(data, device);
              if (why.empty()) {
                ++free;
              } else if (std::find(unusable.begin(), unusable.end(), why) ==
                         unusable.end()) {
                unusable.push_back(std::move(why));
              }
            }
          }
        }
        const int64_t needed =
            data.request.mode == api::DeviceAllocationMode::kAll
                ? std::max<int64_t>(matching, 1)
                : data.num_devices;
        if (free >= needed && matching > 0) {
          some_option_fits = true;
          break;
        }
        std::string why =
            "claim " + claim_ref + ", request " + data.Name() + ": ";
        if (total == 0) {
          // A node without a driver's slices (a template written without
          // them, a node whose driver is not running): the plain cause.
          why += "no device matches (the node publishes no devices)";
        } else if (matching == 0) {
          why += "no device matches";
          if (data.request.class_name != nullptr) {
            why += " class " + *data.request.class_name;
            if (data.request.selectors != nullptr &&
                !data.request.selectors->empty()) {
              why += " and the request's selectors";
            }
          }
          why += " (" + std::to_string(total) + " devices on the node)";
        } else if (data.request.mode == api::DeviceAllocationMode::kAll) {
          why += std::to_string(free) + " of " + std::to_string(matching) +
                 " matching devices free, all needed";
        } else {
          why += std::to_string(free) + " of " + std::to_string(matching) +
                 " matching devices free, " + std::to_string(needed) +
                 " needed";
        }
        constexpr size_t kShownReasons = 3;
        for (size_t k = 0; k < unusable.size() && k < kShownReasons; ++k) {
          why += "; " + unusable[k];
        }
        if (unusable.size() > kShownReasons) {
          why += "; and " + std::to_string(unusable.size() - kShownReasons) +
                 " more";
        }
        if (best.empty()) best = std::move(why);
      }
      if (!some_option_fits) return best;
    }
  }
  for (size_t c = 0; c < claims_.size(); ++c) {
    if (!claims_[c]->spec.devices.constraints.empty()) {
      return "claim " + ClaimRef(*claims_[c]) +
             ": the devices that match its requests do not meet its "
             "constraints together";
    }
  }
  return "the claims together need more matching devices than are free";
}

// ---- validation ----

bool AllocatorSearch::ValidateClaims() {
  const Features& features = allocator_.features_;
  requests_.resize(claims_.size());
  constraints_.resize(claims_.size());
  results_.resize(claims_.size());
  for (size_t c = 0; c < claims_.size(); ++c) {
    const api::ResourceClaim& claim = *claims_[c];
    const std::vector<api::DeviceRequest>& requests =
        claim.spec.devices.requests;
    std::vector<RequestSlot>& slots = requests_[c];
    slots.resize(requests.size());
    int64_t min_devices_per_claim = 0;
    for (size_t r = 0; r < requests.size(); ++r) {
      const api::DeviceRequest& request = requests[r];
      RequestSlot& slot = slots[r];
      bool has_sub_requests = !request.first_available.empty();
      if (!features.prioritized_list && has_sub_requests) {
        return Fail("claim " + ClaimRef(claim) + ", request " + request.name +
                    ": has subrequests, but the DRAPrioritizedList feature is "
                    "disabled");
      }
      if (!features.consumable_capacity) {
        if (request.exactly && request.exactly->capacity) {
          return Fail("claim " + ClaimRef(claim) + ", request " + request.name +
                      ": has capacity requests, but the DRAConsumableCapacity "
                      "feature is disabled");
        }
        for (const api::DeviceSubRequest& sub : request.first_available) {
          if (sub.capacity) {
            return Fail("claim " + ClaimRef(claim) + ", subrequest " +
                        sub.name +
                        ": has capacity requests, but the "
                        "DRAConsumableCapacity feature is disabled");
          }
        }
      }
      if (has_sub_requests) {
        slot.first_available = true;
        slot.options.resize(request.first_available.size());
        int64_t min_devices = std::numeric_limits<int64_t>::max();
        for (size_t s = 0; s < request.first_available.size(); ++s) {
          const api::DeviceSubRequest& sub = request.first_available[s];
          RequestView view{.name = sub.name,
                           .class_name = &sub.device_class_name,
                           .mode = sub.allocation_mode,
                           .count = sub.count,
                           .admin_access = nullptr,
                           .selectors = &sub.selectors,
                           .tolerations = &sub.tolerations,
                           .capacity = &sub.capacity};
          MatchKey key{0, static_cast<uint32_t>(c), static_cast<uint32_t>(r),
                       static_cast<uint32_t>(s)};
          if (!ValidateRequest(view, request.name, key, slot.options[s])) {
            return false;
          }
          min_devices = std::min(min_devices, slot.options[s].num_devices);
        }
        min_devices_per_claim += min_devices;
      } else {
        slot.options.resize(1);
        RequestView view;
        view.name = request.name;
        if (request.exactly) {
          const api::ExactDeviceRequest& exact = *request.exactly;
          view.class_name = &exact.device_class_name;
          view.mode = exact.allocation_mode;
          view.count = exact.count;
          view.admin_access = &exact.admin_access;
          view.selectors = &exact.selectors;
          view.tolerations = &exact.tolerations;
          view.capacity = &exact.capacity;
        }
        MatchKey key{0, static_cast<uint32_t>(c), static_cast<uint32_t>(r), 0};
        if (!ValidateRequest(view, {}, key, slot.options[0])) return false;
        min_devices_per_claim += slot.options[0].num_devices;
      }
    }
    if (min_devices_per_claim > kAllocationResultsMaxSize) {
      return Fail("claim " + ClaimRef(claim) +
                  ": number of requested devices " +
                  std::to_string(min_devices_per_claim) +
                  " exceeds the claim limit of " +
                  std::to_string(kAllocationResultsMaxSize));
    }
    // A request whose count is zero or negative (a claim the API server
    // never validated: its validation refuses a count below one) takes no
    // device, as kube's allocator treats it: done as soon as it starts.
    // Kube's allocator would then panic making room for a negative total;
    // here there is simply no room to make.
    results_[c].reserve(
        static_cast<size_t>(std::max<int64_t>(min_devices_per_claim, 0)));

    const std::vector<api::DeviceConstraint>& constraints =
        claim.spec.devices.constraints;
    constraints_[c].reserve(constraints.size());
    for (size_t i = 0; i < constraints.size(); ++i) {
      if (constraints[i].match_attribute) {
        constraints_[c].push_back(std::make_unique<MatchAttributeConstraint>(
            constraints[i].requests, *constraints[i].match_attribute));
      } else if (constraints[i].distinct_attribute) {
        constraints_[c].push_back(std::make_unique<DistinctAttributeConstraint>(
            constraints[i].requests, *constraints[i].distinct_attribute));
      } else {
        return Fail("claim " + ClaimRef(claim) + ", constraint #" +
                    std::to_string(i) +
                    ": empty constraint (unsupported constraint type?)");
      }
    }
  }
  return true;
}

bool AllocatorSearch::ValidateRequest(const RequestView& request,
                                      std::string_view parent,
                                      const MatchKey& key, RequestData& data) {
  const api::ResourceClaim& claim = *claims_[key.claim];
  data.request = request;
  data.parent = parent;
  auto prefix = [&] {
    return "claim " + ClaimRef(claim) + ", request " +
           std::string(request.name);
  };
  if (request.class_name == nullptr) {
    // Neither exactly nor firstAvailable: Kubernetes reads an empty class
    // name from the nil request, which the check below reports.
    static const std::string kEmpty;
    data.request.class_name = &kEmpty;
  }
  if (request.selectors != nullptr) {
    for (size_t i = 0; i < request.selectors->size(); ++i) {
      if (!(*request.selectors)[i].cel) {
        return Fail(prefix() + ", selector #" + std::to_string(i) +
                    ": CEL expression empty (unsupported selector type?)");
      }
    }
  }
  if (!allocator_.features_.admin_access && request.admin_access != nullptr &&
      request.admin_access->has_value()) {
    return Fail(prefix() +
                ": admin access is requested, but the feature is disabled");
  }
  const std::string& class_name = *data.request.class_name;
  if (class_name.empty()) {
    return Fail(prefix() +
                ": missing device class name (unsupported request type?)");
  }
  data.device_class =
      allocator_.classes_ ? allocator_.classes_(class_name) : nullptr;
  if (!data.device_class) {
    return Fail(prefix() + ": could not retrieve device class " + class_name +
                ": deviceclass.resource.k8s.io \"" + class_name +
                "\" not found");
  }

  api::DeviceAllocationMode mode = request.mode;
  int64_t count = request.count;
  if (mode == api::DeviceAllocationMode::kUnset) {
    // The API server defaults an absent mode to ExactCount, and an absent
    // count to 1; an object that skipped the server gets the same.
    mode = api::DeviceAllocationMode::kExactCount;
    if (count == 0) count = 1;
  }
  data.request.mode = mode;
  data.request.count = count;
  switch (mode) {
    case api::DeviceAllocationMode::kExactCount:
      data.num_devices = count;
      return true;
    case api::DeviceAllocationMode::kAll:
      data.all_devices.reserve(kAllocationResultsMaxSize);
      for (const Pool& pool : pools()) {
        if (pool.incomplete) {
          return Fail(prefix() + ": asks for all devices, but resource pool " +
                      pool.String() + " is currently being updated");
        }
        if (pool.invalid) {
          return Fail(prefix() + ": asks for all devices, but resource pool " +
                      pool.String() + " is currently invalid");
        }
        for (uint32_t s : pool.slices) {
          size_t n = index_.slice(s).slice->spec.devices.size();
          for (size_t d = 0; d < n; ++d) {
            DeviceRef ref{s, static_cast<uint32_t>(d), &pool};
            MatchKey k = key;
            k.device = Ordinal(ref);
            int selectable = IsSelectable(k, data, ref);
            if (selectable < 0) return false;
            if (selectable == 0) continue;
            // A device whose capacity cannot take the request (or lacks a
            // capacity it names) is not one of "all".
            if (allocator_.features_.consumable_capacity &&
                CapacityFits(data.request, ref) != CapacityFit::kFits) {
              continue;
            }
            data.all_devices.push_back(ref);
          }
        }
      }
      data.num_devices = static_cast<int64_t>(data.all_devices.size());
      return true;
    default:
      // ksched's API types do not keep an unknown mode's text.
      return Fail(prefix() + ": unsupported count mode");
  }
}

// ---- the search ----

bool AllocatorSearch::Interrupted() {
  if (limits_.canceled != nullptr &&
      limits_.canceled->load(std::memory_order_relaxed)) {
    Fail("filter operation aborted: " + std::string(limits_.cancel_cause),
         AllocateResult::Code::kCanceled);
    return true;
  }
  if (deadline_) {
    const util::Clock& clock =
        limits_.clock != nullptr ? *limits_.clock : DefaultClock();
    if (clock.Now() >= *deadline_) {
      Fail("filter operation aborted: context deadline exceeded",
           AllocateResult::Code::kTimedOut);
      return true;
    }
  }
  return false;
}

AllocatorSearch::Step AllocatorSearch::AllocateOne(Position r,
                                                   bool inside_sub_request,
                                                   Location start) {
  ++invocations_;
  if (Interrupted()) return Step::kError;
  if (r.claim >= claims_.size()) return Step::kDone;

  std::vector<RequestSlot>& slots = requests_[r.claim];
  if (r.request >= slots.size()) {
    Step step = AllocateOne(Position{.claim = r.claim + 1}, false, Location{});
    // A later claim over the limit is no reason to give up on this one: a
    // different choice here may let it pick a smaller subrequest.
    return step == Step::kMaxSize ? Step::kFailed : step;
  }

  RequestSlot& slot = slots[r.request];
  if (!inside_sub_request && slot.first_available) {
    bool all_exceeded = true;
    for (size_t sub = 0; sub < slot.options.size(); ++sub) {
      r.sub = sub;
      Step step = AllocateOne(r, true, Location{});
      if (step == Step::kMaxSize) continue;
      all_exceeded = false;
      if (step == Step::kError) return step;
      if (step == Step::kDone) {
        slot.selected = sub;
        return step;
      }
    }
    return all_exceeded ? Step::kMaxSize : Step::kFailed;
  }

  const RequestData& data = slot.options[r.sub];
  const RequestView& request = data.request;
  bool all_devices = request.mode == api::DeviceAllocationMode::kAll;
  if (all_devices && data.all_devices.empty()) return Step::kFailed;

  if (static_cast<int64_t>(r.device) >= data.num_devices) {
    return AllocateOne(Position{.claim = r.claim, .request = r.request + 1},
                       false, Location{});
  }
  int64_t after = static_cast<int64_t>(results_[r.claim].size()) +
                  data.num_devices - static_cast<int64_t>(r.device);
  if (after > kAllocationResultsMaxSize) return Step::kMaxSize;

  if (all_devices) {
    const DeviceRef& device = data.all_devices[r.device];
    Step taken = AllocateDevice(r, device, true);
    if (taken != Step::kDone) return taken;
    Step step = AllocateOne(Position{.claim = r.claim,
                                     .request = r.request,
                                     .sub = r.sub,
                                     .device = r.device + 1},
                            inside_sub_request, Location{});
    if (step != Step::kDone) Deallocate(r, device);
    return step;
  }

  const uint32_t claim_index = static_cast<uint32_t>(r.claim);
  const bool admin = request.admin();
  if (r.device == 0 && !admin) {
    const Step enough = EnoughCandidates(r, data);
    if (enough != Step::kDone) return enough;
  }
  const bool consumable = allocator_.features_.consumable_capacity;
  for (size_t p = start.pool; p < pools().size(); ++p) {
    const Pool& pool = pools()[p];
    if (pool.incomplete || pool.invalid) continue;
    const size_t first_slice = p == start.pool ? start.slice : 0;
    for (size_t si = first_slice; si < pool.slices.size(); ++si) {
      const uint32_t s = pool.slices[si];
      // A slice whose devices are all allocated has nothing for a request
      // that skips allocated devices (the in-use check below would pass
      // over each one before any selector runs).
      if (!admin && FreeDevices(s) == 0) continue;
      size_t n = index_.slice(s).slice->spec.devices.size();
      const size_t first_device =
          p == start.pool && si == start.slice ? start.device : 0;
      for (size_t d = first_device; d < n; ++d) {
        DeviceRef device{s, static_cast<uint32_t>(d), &pool};
        uint32_t ordinal = Ordinal(device);
        if (InUse(device, ordinal, request, r.claim)) continue;
        MatchKey key{ordinal, claim_index, static_cast<uint32_t>(r.request),
                     static_cast<uint32_t>(r.sub)};
        int selectable = IsSelectable(key, data, device);
        if (selectable < 0) return Step::kError;
        if (selectable == 0) continue;
        if (consumable && CapacityFits(request, device) != CapacityFit::kFits) {
          continue;
        }
        Step taken = AllocateDevice(r, device, false);
        if (taken == Step::kError) return taken;
        if (taken != Step::kDone) continue;
        Position next = r;
        next.device = r.device + 1;
        Step step =
            AllocateOne(next, inside_sub_request,
                        Location{.pool = p, .slice = si, .device = d + 1});
        if (step == Step::kDone) return step;
        Deallocate(r, device);
        if (step == Step::kError || step == Step::kMaxSize) return step;
      }
    }
  }
  return Step::kFailed;
}

AllocatorSearch::Step AllocatorSearch::EnoughCandidates(
    const Position& r, const RequestData& data) {
  const uint32_t claim_index = static_cast<uint32_t>(r.claim);
  int64_t candidates = 0;
  for (const Pool& pool : pools()) {
    if (pool.incomplete || pool.invalid) continue;
    for (uint32_t s : pool.slices) {
      if (FreeDevices(s) == 0) continue;
      size_t n = index_.slice(s).slice->spec.devices.size();
      for (size_t d = 0; d < n; ++d) {
        DeviceRef device{s, static_cast<uint32_t>(d), &pool};
        uint32_t ordinal = Ordinal(device);
        if (InUse(device, ordinal, data.request, r.claim)) continue;
        MatchKey key{ordinal, claim_index, static_cast<uint32_t>(r.request),
                     static_cast<uint32_t>(r.sub)};
        int selectable = IsSelectable(key, data, device);
        if (selectable < 0) return Step::kError;
        candidates += selectable;
        if (candidates >= data.num_devices) return Step::kDone;
      }
    }
  }
  return Step::kFailed;
}

bool AllocatorSearch::DeviceAllocated(const DeviceRef& device) const {
  return allocator_.taken_.Test(index_.slice(device.slice).first_device +
                                device.device);
}

size_t AllocatorSearch::FreeDevices(uint32_t slice) const {
  const SliceIndex::Slice& s = index_.slice(slice);
  const auto n = static_cast<uint32_t>(s.slice->spec.devices.size());
  return n - allocator_.taken_.CountIn(s.first_device, n);
}

bool AllocatorSearch::AllocatingForAnyClaim(uint32_t ordinal) const {
  for (const auto& [device, claim] : allocating_) {
    if (device == ordinal) return true;
  }
  return false;
}

bool AllocatorSearch::AllocatingForClaim(uint32_t ordinal, size_t claim) const {
  for (const auto& [device, c] : allocating_) {
    if (device == ordinal && c == claim) return true;
  }
  return false;
}

bool AllocatorSearch::InUse(const DeviceRef& device, uint32_t ordinal,
                            const RequestView& request, size_t claim) const {
  if (request.admin()) return AllocatingForClaim(ordinal, claim);
  return DeviceAllocated(device) || AllocatingForAnyClaim(ordinal);
}

int AllocatorSearch::IsSelectable(const MatchKey& key, const RequestData& data,
                                  const DeviceRef& device) {
  const api::Device& d = DeviceOf(device);
  // Without DRADeviceBindingConditions, devices that need binding
  // conditions are never picked.
  if (!allocator_.features_.device_binding_and_status &&
      !d.binding_conditions.empty()) {
    return 0;
  }
  if (auto it = matches_.find(key); it != matches_.end()) return it->second;

  auto remember = [&](bool match) {
    matches_.emplace(key, match);
    return match ? 1 : 0;
  };
  if (data.device_class) {
    int match = SelectorsMatch(key.claim, device, data.device_class.get(),
                               data.device_class->spec.selectors);
    if (match < 0) return match;
    if (match == 0) return remember(false);
  }
  if (data.request.selectors != nullptr) {
    int match =
        SelectorsMatch(key.claim, device, nullptr, *data.request.selectors);
    if (match < 0) return match;
    if (match == 0) return remember(false);
  }
  const SliceIndex::Slice& slice = index_.slice(device.slice);
  if (slice.slice->spec.per_device_node_selection.value_or(false)) {
    const api::CompiledNodeSelector* selector =
        slice.device_node_selectors.empty()
            ? nullptr
            : slice.device_node_selectors[device.device].get();
    auto match = NodeMatches(node_, d.node_name, d.all_nodes, selector);
    if (!match) {
      Fail(match.error().message());
      return -1;
    }
    if (!*match) return remember(false);
  }
  return remember(true);
}

int AllocatorSearch::SelectorsMatch(
    size_t claim, const DeviceRef& device, const api::DeviceClass* device_class,
    const std::vector<api::DeviceSelector>& selectors) {
  for (size_t i = 0; i < selectors.size(); ++i) {
    const std::string& expression = selectors[i].cel->expression;
    auto where = [&] {
      return (device_class != nullptr ? "class " + device_class->metadata.name
                                      : "claim " + ClaimRef(*claims_[claim])) +
             ": selector #" + std::to_string(i);
    };
    auto it = compiled_.find(expression);
    if (it == compiled_.end()) {
      const SliceIndex::SelectorResults* table =
          index_.Selector(expression, *allocator_.selectors_);
      it = compiled_
               .emplace(expression,
                        CompiledSelector{
                            table != nullptr
                                ? table->compiled
                                : allocator_.selectors_->Get(expression),
                            table})
               .first;
    }
    const CompiledSelector& selector = it->second;
    if (!selector.compiled) {
      Fail(where() +
           ": CEL compile error: " + selector.compiled.error().message());
      return -1;
    }
    const uint32_t ordinal = Ordinal(device);
    if (selector.results != nullptr) {
      const int8_t known =
          selector.results->matches[ordinal].load(std::memory_order_relaxed);
      if (known == 1) return 0;
      if (known == 2) continue;
    }
    SliceIndex::CelDevice cel = index_.Cel(device.slice, device.device);
    if (cel.activation == nullptr) {
      Fail(where() + ": CEL runtime error: " + *cel.error);
      return -1;
    }
    util::Result<bool> match =
        (*selector.compiled)
            ->Matches(*cel.activation, nullptr, limits_.canceled);
    if (match && selector.results != nullptr) {
      selector.results->matches[ordinal].store(*match ? 2 : 1,
                                               std::memory_order_relaxed);
    }
    if (!match) {
      std::string message =
          where() + ": CEL runtime error: " + match.error().message();
      if (limits_.canceled != nullptr && limits_.canceled->load() &&
          match.error().message().find("operation interrupted") !=
              std::string::npos) {
        Fail(message + ": " + std::string(limits_.cancel_cause),
             AllocateResult::Code::kCanceled);
      } else {
        Fail(std::move(message));
      }
      return -1;
    }
    if (!*match) return 0;
  }
  return 1;
}

std::string AllocatorSearch::WhyUnusable(const RequestData& data,
                                         const DeviceRef& device) {
  const api::Device& d = DeviceOf(device);
  const Features& features = allocator_.features_;
  const RequestView& request = data.request;
  if (features.device_taints) {
    for (const api::DeviceTaint& taint : d.taints) {
      if (taint.effect != api::DeviceTaintEffect::kNoSchedule &&
          taint.effect != api::DeviceTaintEffect::kNoExecute) {
        continue;
      }
      bool tolerated = false;
      if (request.tolerations != nullptr) {
        for (const api::DeviceToleration& t : *request.tolerations) {
          if (ToleratesTaint(t, taint)) tolerated = true;
        }
      }
      if (!tolerated) {
        return d.name + ": taint " + TaintString(taint) + " not tolerated";
      }
    }
  }
  if (features.consumable_capacity) {
    const CapacityFit fit = CapacityFits(request, device);
    if (fit == CapacityFit::kUndefinedCapacity) {
      return d.name + ": the request names a capacity the device lacks";
    }
    if (fit == CapacityFit::kDoesNotFit) {
      const auto& committed = allocator_.shared_allocations_->capacity;
      auto held = committed.find(Ordinal(device));
      for (const auto& [name, cap] : d.capacity) {
        const api::Quantity* asked = nullptr;
        if (const api::CapacityRequirements* r = request.capacity_requests()) {
          asked = r->requests.Find(name);
        }
        const api::Quantity wanted = ConsumedFromRequest(asked, cap);
        api::Quantity used;
        if (held != committed.end()) {
          if (auto it = held->second.find(name); it != held->second.end()) {
            used = it->second;
          }
        }
        api::Quantity total = used;
        total += wanted;
        if (total > cap.value) {
          return d.name + ": " + name + " " + used.ToString() + " of " +
                 cap.value.ToString() + " consumed, " + wanted.ToString() +
                 " requested";
        }
      }
      return d.name + ": the request is outside its capacity's request policy";
    }
  }
  if (features.partitionable_devices && !d.consumes_counters.empty() &&
      !(AllowsMultipleAllocations(d) && CapacityInUse(Ordinal(device)))) {
    if (CheckAvailableCounters(device)) {
      ReleaseCounters(device);
    } else {
      // The counter that ran out, against what the pool's counter sets
      // offer and what allocated devices use of them.
      for (const api::DeviceCounterConsumption& c : d.consumes_counters) {
        for (const auto& [name, counter] : c.counters) {
          api::Quantity offered, left;
          if (!CounterLeft(device, c.counter_set, name, offered, left)) {
            continue;
          }
          if (counter.value > left) {
            api::Quantity used = offered;
            used -= left;
            return "counter set " + c.counter_set + ": " + used.ToString() +
                   " of " + offered.ToString() + " " + name + " in use, " +
                   counter.value.ToString() + " needed";
          }
        }
      }
      return d.name + ": its counter sets are spent";
    }
  }
  return "";
}

bool AllocatorSearch::TaintPreventsAllocation(
    const api::Device& device, const RequestView& request) const {
  for (const api::DeviceTaint& taint : device.taints) {
    // Only the effects that keep pods away count; None and unknown ones
    // only inform.
    if (taint.effect != api::DeviceTaintEffect::kNoSchedule &&
        taint.effect != api::DeviceTaintEffect::kNoExecute) {
      continue;
    }
    bool tolerated = false;
    if (request.tolerations != nullptr) {
      for (const api::DeviceToleration& t : *request.tolerations) {
        if (ToleratesTaint(t, taint)) {
          tolerated = true;
          break;
        }
      }
    }
    if (!tolerated) return true;
  }
  return false;
}

bool AllocatorSearch::AllowsMultipleAllocations(
    const api::Device& device) const {
  return allocator_.features_.consumable_capacity &&
         device.allow_multiple_allocations.value_or(false);
}

bool AllocatorSearch::CapacityInUse(uint32_t ordinal) const {
  return allocator_.shared_allocations_->capacity.contains(ordinal) ||
         allocating_capacity_.contains(ordinal);
}

bool AllocatorSearch::AllocatedOrShared(const DeviceRef& device) const {
  if (DeviceAllocated(device)) return true;
  const SharedAllocations& shared = *allocator_.shared_allocations_;
  const uint32_t ordinal = Ordinal(device);
  if (shared.shared.capacity() > ordinal && shared.shared.Test(ordinal)) {
    return true;
  }
  return shared.capacity.contains(ordinal);
}

CapacityFit AllocatorSearch::CapacityFits(const RequestView& request,
                                          const DeviceRef& device) {
  static const ConsumedCapacity kNone;
  const uint32_t ordinal = Ordinal(device);
  const auto& committed = allocator_.shared_allocations_->capacity;
  // The common case, decided without arithmetic: nothing asked, nothing
  // consumed by others, no policy. Then the request consumes each
  // capacity's whole value, which always fits.
  if (request.capacity_requests() == nullptr && !index_.capacity_policies() &&
      committed.empty() && allocating_capacity_.empty()) {
    return CapacityFit::kFits;
  }
  if (request.capacity_requests() == nullptr &&
      (committed.empty() || !committed.contains(ordinal)) &&
      (allocating_capacity_.empty() ||
       !allocating_capacity_.contains(ordinal))) {
    bool policy = false;
    for (const auto& [name, cap] : DeviceOf(device).capacity) {
      policy |= cap.request_policy.has_value();
    }
    if (!policy) return CapacityFit::kFits;
  }
  auto allocated = committed.find(ordinal);
  auto allocating = allocating_capacity_.find(ordinal);
  return CmpRequestOverCapacity(
      allocated != committed.end() ? allocated->second : kNone,
      request.capacity_requests(), DeviceOf(device).capacity,
      allocating != allocating_capacity_.end() ? &allocating->second : nullptr);
}

AllocatorSearch::Step AllocatorSearch::AllocateDevice(const Position& r,
                                                      const DeviceRef& device,
                                                      bool must) {
  const RequestData& data = requests_[r.claim][r.request].options[r.sub];
  const RequestView& request = data.request;
  const uint32_t ordinal = Ordinal(device);
  const api::Device& d = DeviceOf(device);
  const Features& features = allocator_.features_;
  const bool multiple = AllowsMultipleAllocations(d);
  if (!multiple && request.admin() && AllocatingForClaim(ordinal, r.claim)) {
    return Step::kFailed;
  }
  if (!request.admin() &&
      (DeviceAllocated(device) || AllocatingForAnyClaim(ordinal))) {
    return Step::kFailed;
  }
  if (!features.partitionable_devices && !d.consumes_counters.empty()) {
    return Step::kFailed;
  }

  DeviceResult picked{.data = &data, .ref = device};
  // A further share of a device some share already uses has had its
  // counters counted then.
  const bool skip_counters = multiple && CapacityInUse(ordinal);
  if (!skip_counters && !d.consumes_counters.empty()) {
    if (!CheckAvailableCounters(device)) return Step::kFailed;
    picked.counters_reserved = true;
  }
  std::string_view base = data.parent.empty() ? request.name : data.parent;
  std::string_view sub =
      data.parent.empty() ? std::string_view() : request.name;
  std::vector<std::unique_ptr<ClaimConstraint>>& constraints =
      constraints_[r.claim];
  // v1.36 gives back what a refused device took (its counters, the
  // constraints it joined), where v1.35 kept the counters until the end.
  auto refuse = [&](size_t constraints_joined) {
    if (picked.marked) {
      allocating_.pop_back();
      picked.marked = false;
    }
    for (size_t j = constraints_joined; j-- > 0;) {
      constraints[j]->Remove(base, sub);
    }
    if (picked.counters_reserved) ReleaseCounters(device);
  };

  if (features.device_taints && TaintPreventsAllocation(d, request)) {
    refuse(0);
    return Step::kFailed;
  }
  std::string_view driver = index_.slice(device.slice).slice->spec.driver;
  for (size_t i = 0; i < constraints.size(); ++i) {
    if (constraints[i]->Add(base, sub, d, driver)) continue;
    refuse(i);
    if (must) {
      Fail("claim " + ClaimRef(*claims_[r.claim]) + ", request " +
           std::string(request.name) + ": cannot add device " +
           DeviceIdString(device) +
           " because a claim constraint would not be satisfied");
      return Step::kError;
    }
    return Step::kFailed;
  }

  if (!multiple) {
    allocating_.emplace_back(ordinal, r.claim);
    picked.marked = true;
  }
  if (features.consumable_capacity) {
    if (CapacityFits(request, device) != CapacityFit::kFits) {
      refuse(constraints.size());
      return Step::kFailed;
    }
    if (multiple) {
      picked.shared = true;
      picked.consumed =
          ConsumedCapacityFromRequest(request.capacity_requests(), d.capacity);
      auto [entry, created] = allocating_capacity_.try_emplace(ordinal);
      picked.capacity_entry_existed = !created;
      AddCapacity(entry->second, picked.consumed);
    }
  }
  results_[r.claim].push_back(std::move(picked));
  return Step::kDone;
}

void AllocatorSearch::Deallocate(const Position& r, const DeviceRef& device) {
  DeviceResult picked = std::move(results_[r.claim].back());
  results_[r.claim].pop_back();
  const RequestData& data = *picked.data;
  const uint32_t ordinal = Ordinal(device);
  if (picked.shared) {
    auto it = allocating_capacity_.find(ordinal);
    if (it != allocating_capacity_.end() &&
        SubtractCapacity(it->second, picked.consumed)) {
      allocating_capacity_.erase(it);
    }
    // The entry also marks the device as shared by an earlier share of
    // this search, which still needs it.
    if (picked.capacity_entry_existed)
      allocating_capacity_.try_emplace(ordinal);
  }
  if (picked.marked) {
    for (auto it = allocating_.rbegin(); it != allocating_.rend(); ++it) {
      if (it->first == ordinal && it->second == r.claim) {
        allocating_.erase(std::next(it).base());
        break;
      }
    }
  }
  std::string_view base = data.parent.empty() ? data.request.name : data.parent;
  std::string_view sub =
      data.parent.empty() ? std::string_view() : data.request.name;
  std::vector<std::unique_ptr<ClaimConstraint>>& constraints =
      constraints_[r.claim];
  for (size_t j = constraints.size(); j-- > 0;) {
    constraints[j]->Remove(base, sub);
  }
  if (picked.counters_reserved) ReleaseCounters(device);
}

CounterValues& AllocatorSearch::ConsumedCounters(std::string_view pool) {
  auto it = consumed_counters_.find(pool);
  if (it == consumed_counters_.end()) {
    it = consumed_counters_.emplace(std::string(pool), CounterValues()).first;
  }
  return it->second;
}

AllocatorSearch::FlatCounters& AllocatorSearch::Flat(const Pool& pool) {
  for (FlatCounters& f : flat_counters_) {
    if (f.pool == &pool) return f;
  }
  const PoolCounters& layout = *pool.counters;
  FlatCounters& f = flat_counters_.emplace_back();
  f.pool = &pool;
  f.available = layout.offered;
  f.consumed.resize(layout.offered.size());
  auto subtract = [&](uint32_t row) {
    for (uint32_t u = layout.row_begin[row]; u < layout.row_begin[row + 1];
         ++u) {
      f.available[layout.uses[u].counter] -= layout.uses[u].value;
    }
  };
  const SharedAllocations& shared = *allocator_.shared_allocations_;
  const bool any_shared = !shared.shared.none() || !shared.capacity.empty();
  for (const PoolCounters::SliceRows& rows : layout.slices) {
    const SliceIndex::Slice& slice = index_.slice(rows.slice);
    const auto n = static_cast<uint32_t>(slice.slice->spec.devices.size());
    if (!any_shared) {
      // Allocated devices only: their bits, not every device, are looked at.
      allocator_.taken_.ForEachIn(slice.first_device, n, [&](uint32_t ordinal) {
        subtract(rows.first_row + (ordinal - slice.first_device));
      });
      continue;
    }
    for (uint32_t d = 0; d < n; ++d) {
      if (AllocatedOrShared(DeviceRef{rows.slice, d, &pool})) {
        subtract(rows.first_row + d);
      }
    }
  }
  return f;
}

bool AllocatorSearch::CounterLeft(const DeviceRef& device, std::string_view set,
                                  std::string_view name, api::Quantity& offered,
                                  api::Quantity& left) {
  const Pool& pool = *device.pool;
  if (pool.counters) {
    const int k = pool.counters->Find(set, name);
    if (k < 0) return false;
    offered = pool.counters->offered[k];
    left = Flat(pool).available[k];
    return true;
  }
  const api::CounterSet* counter_set = nullptr;
  for (const api::CounterSet* s : pool.counter_sets) {
    if (s->name == set) counter_set = s;
  }
  if (counter_set == nullptr) return false;
  const api::Counter* counter = counter_set->counters.Find(name);
  if (counter == nullptr) return false;
  std::shared_ptr<const CounterValues> available;
  {
    std::lock_guard<std::mutex> lock(allocator_.shared_->counters_mu);
    auto it = allocator_.shared_->available_counters.find(pool.name);
    if (it != allocator_.shared_->available_counters.end()) {
      available = it->second;
    }
  }
  if (available == nullptr) return false;
  auto left_set = available->find(set);
  if (left_set == available->end()) return false;
  auto value = left_set->second.find(name);
  if (value == left_set->second.end()) return false;
  offered = counter->value;
  left = value->second;
  return true;
}

bool AllocatorSearch::CheckAvailableCounters(const DeviceRef& device) {
  const Pool& pool = *device.pool;
  if (pool.counters) {
    FlatCounters& f = Flat(pool);
    for (const PoolCounters::Use& use :
         pool.counters->UsesOf(device.slice, device.device)) {
      f.consumed[use.counter] += use.value;
    }
    for (size_t k = 0; k < f.available.size(); ++k) {
      if (f.available[k] < f.consumed[k]) {
        ReleaseCounters(device);
        return false;
      }
    }
    return true;
  }
  Allocator::Shared& shared = *allocator_.shared_;
  std::shared_ptr<const CounterValues> available;
  {
    std::lock_guard<std::mutex> lock(shared.counters_mu);
    auto it = shared.available_counters.find(pool.name);
    if (it != shared.available_counters.end()) available = it->second;
  }
  if (!available) {
    // What the pool's counter sets offer, minus what devices allocated
    // before this cycle use. Computed once per pool name and cycle; racing
    // threads compute the same values.
    auto computed = std::make_shared<CounterValues>();
    for (const api::CounterSet* set : pool.counter_sets) {
      auto& counters = (*computed)[set->name];
      for (const auto& [name, counter] : set->counters) {
        counters[name] = counter.value;
      }
    }
    for (const std::vector<uint32_t>* slices :
         {&pool.slices, &pool.slices_not_targeting_node}) {
      for (uint32_t s : *slices) {
        const auto& devices = index_.slice(s).slice->spec.devices;
        for (size_t i = 0; i < devices.size(); ++i) {
          if (!AllocatedOrShared(
                  DeviceRef{s, static_cast<uint32_t>(i), &pool})) {
            continue;
          }
          for (const api::DeviceCounterConsumption& c :
               devices[i].consumes_counters) {
            auto set = computed->find(c.counter_set);
            if (set == computed->end()) continue;
            for (const auto& [name, counter] : c.counters) {
              auto value = set->second.find(name);
              if (value == set->second.end()) continue;
              value->second -= counter.value;
            }
          }
        }
      }
    }
    std::lock_guard<std::mutex> lock(shared.counters_mu);
    available = computed;
    shared.available_counters.insert_or_assign(std::string(pool.name),
                                               std::move(computed));
  }

  CounterValues& consumed = ConsumedCounters(pool.name);
  for (const api::DeviceCounterConsumption& c :
       DeviceOf(device).consumes_counters) {
    auto set = consumed.find(c.counter_set);
    if (set == consumed.end())
      set = consumed.emplace(c.counter_set, CounterValues::mapped_type()).first;
    for (const auto& [name, counter] : c.counters) {
      auto value = set->second.find(name);
      if (value == set->second.end()) {
        set->second.emplace(name, counter.value);
      } else {
        value->second += counter.value;
      }
    }
  }
  for (const auto& [set_name, counters] : *available) {
    auto consumed_set = consumed.find(set_name);
    for (const auto& [name, value] : counters) {
      api::Quantity used;
      if (consumed_set != consumed.end()) {
        auto it = consumed_set->second.find(name);
        if (it != consumed_set->second.end()) used = it->second;
      }
      if (value < used) {
        ReleaseCounters(device);
        return false;
      }
    }
  }
  return true;
}

void AllocatorSearch::ReleaseCounters(const DeviceRef& device) {
  if (device.pool->counters) {
    FlatCounters& f = Flat(*device.pool);
    for (const PoolCounters::Use& use :
         device.pool->counters->UsesOf(device.slice, device.device)) {
      f.consumed[use.counter] -= use.value;
    }
    return;
  }
  CounterValues& consumed = ConsumedCounters(device.pool->name);
  for (const api::DeviceCounterConsumption& c :
       DeviceOf(device).consumes_counters) {
    auto& set = consumed[c.counter_set];
    for (const auto& [name, counter] : c.counters) set[name] -= counter.value;
  }
}

}  // namespace ksched::dra

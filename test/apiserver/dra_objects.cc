#include "test/apiserver/dra_objects.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "test/apiserver/ids.h"
#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

namespace dra_objects_detail {
namespace {

// ResourceClaimReservedForMaxSize.
constexpr rapidjson::SizeType kMaxReservedFor = 256;

constexpr char kBadRequestName[] =
    "must be the name of a request in the claim or the name of a request and "
    "a subrequest separated by '/'";

bool Is(const ResourceInfo& r, std::string_view resource) {
  return r.group == "resource.k8s.io" && r.resource == resource;
}

std::string JsonString(std::string_view s) {
  JsonDocument doc;
  JsonValue v(s.data(), static_cast<rapidjson::SizeType>(s.size()),
              doc.GetAllocator());
  return ToJson(v);
}

// An ExactCount of one unless the request says otherwise.
void DefaultAllocationMode(JsonValue& request, JsonAllocator& a) {
  if (!request.IsObject()) return;
  if (StringAt(request, {"allocationMode"}).empty()) {
    SetString(request, "allocationMode", "ExactCount", a);
  }
  const std::optional<int64_t> count = IntAt(request, {"count"});
  if (StringAt(request, {"allocationMode"}) == "ExactCount" &&
      count.value_or(0) == 0) {
    SetMember(request, "count", JsonValue(1), a);
  }
}

void DefaultDeviceRequests(JsonValue* claim_spec, JsonAllocator& a) {
  if (claim_spec == nullptr) return;
  JsonValue* devices = MutableMember(*claim_spec, "devices");
  if (devices == nullptr) return;
  JsonValue* requests = MutableMember(*devices, "requests");
  if (requests == nullptr || !requests->IsArray()) return;
  for (JsonValue& request : requests->GetArray()) {
    if (JsonValue* exactly = MutableMember(request, "exactly")) {
      DefaultAllocationMode(*exactly, a);
    }
    JsonValue* first = MutableMember(request, "firstAvailable");
    if (first == nullptr || !first->IsArray()) continue;
    for (JsonValue& sub : first->GetArray()) DefaultAllocationMode(sub, a);
  }
}

// Every device taint of a slice's spec without timeAdded gets the time
// now, to the second.
void DefaultTaintTimes(JsonValue* slice_spec, JsonAllocator& a) {
  if (slice_spec == nullptr) return;
  JsonValue* devices = MutableMember(*slice_spec, "devices");
  if (devices == nullptr || !devices->IsArray()) return;
  for (JsonValue& device : devices->GetArray()) {
    JsonValue* taints = MutableMember(device, "taints");
    if (taints == nullptr || !taints->IsArray()) continue;
    for (JsonValue& taint : taints->GetArray()) {
      if (!taint.IsObject()) continue;
      const JsonValue* added = Member(taint, "timeAdded");
      if (added != nullptr && !added->IsNull()) continue;
      SetString(taint, "timeAdded", Rfc3339Now(), a);
    }
  }
}

// A request name a result may name: "<request>" or
// "<request>/<subrequest>" of the claim's spec.
bool NamesRequest(const JsonValue& claim, std::string_view name) {
  const JsonValue* requests = Find(claim, {"spec", "devices", "requests"});
  if (requests == nullptr || !requests->IsArray()) return false;
  const size_t slash = name.find('/');
  const std::string_view head = name.substr(0, slash);
  for (const JsonValue& request : requests->GetArray()) {
    if (StringAt(request, {"name"}) != head) continue;
    if (slash == std::string_view::npos) return true;
    const std::string_view sub = name.substr(slash + 1);
    const JsonValue* first = Member(request, "firstAvailable");
    if (first == nullptr || !first->IsArray()) return false;
    for (const JsonValue& s : first->GetArray()) {
      if (StringAt(s, {"name"}) == sub) return true;
    }
    return false;
  }
  return false;
}

void ValidateReservedFor(const JsonValue& reserved,
                         std::vector<StatusCause>& causes) {
  const std::string at = "status.reservedFor";
  if (reserved.Size() > kMaxReservedFor) {
    // The size check alone, as a guard against huge lists.
    causes.push_back(
        StatusCause{.reason = "FieldValueTooMany",
                    .message = "Too many: " + std::to_string(reserved.Size()) +
                               ": must have at most " +
                               std::to_string(kMaxReservedFor) + " items",
                    .field = at});
    return;
  }
  for (rapidjson::SizeType i = 0; i < reserved.Size(); ++i) {
    const std::string item = at + "[" + std::to_string(i) + "]";
    for (const char* field : {"resource", "name", "uid"}) {
      if (StringAt(reserved[i], {field}).empty()) {
        causes.push_back(FieldRequired(item + "." + field));
      }
    }
  }
  std::vector<std::string> uids;
  for (rapidjson::SizeType i = 0; i < reserved.Size(); ++i) {
    const std::string uid = StringAt(reserved[i], {"uid"});
    if (std::find(uids.begin(), uids.end(), uid) != uids.end()) {
      causes.push_back(
          StatusCause{.reason = "FieldValueDuplicate",
                      .message = "Duplicate value: " + JsonString(uid),
                      .field = at + "[" + std::to_string(i) + "]"});
    } else {
      uids.push_back(uid);
    }
  }
}

void ValidateNewAllocation(const JsonValue& claim, const JsonValue& allocation,
                           std::vector<StatusCause>& causes) {
  const JsonValue* results = Find(allocation, {"devices", "results"});
  if (results == nullptr || !results->IsArray()) return;
  for (rapidjson::SizeType i = 0; i < results->Size(); ++i) {
    const JsonValue& result = (*results)[i];
    const std::string at =
        "status.allocation.devices.results[" + std::to_string(i) + "]";
    const std::string request = StringAt(result, {"request"});
    if (request.empty()) {
      causes.push_back(FieldRequired(at + ".request"));
    }
    if (!NamesRequest(claim, request)) {
      causes.push_back(
          FieldInvalid(at + ".request", JsonString(request), kBadRequestName));
    }
    for (const char* field : {"driver", "pool", "device"}) {
      if (StringAt(result, {field}).empty()) {
        causes.push_back(FieldRequired(at + "." + field));
      }
    }
  }
}

void ValidateClaimStatus(const JsonValue& previous, const JsonValue& next,
                         std::vector<StatusCause>& causes) {
  const JsonValue* reserved = Find(next, {"status", "reservedFor"});
  const bool has_reserved =
      reserved != nullptr && reserved->IsArray() && !reserved->Empty();
  if (has_reserved) ValidateReservedFor(*reserved, causes);
  const JsonValue* allocation = Find(next, {"status", "allocation"});
  if (allocation != nullptr && allocation->IsNull()) allocation = nullptr;
  const JsonValue* old_allocation = Find(previous, {"status", "allocation"});
  if (old_allocation != nullptr && old_allocation->IsNull()) {
    old_allocation = nullptr;
  }
  if (has_reserved) {
    if (allocation == nullptr) {
      causes.push_back(
          FieldForbidden("status.reservedFor",
                         "may not be specified when `allocated` is not set"));
    } else if (Find(next, {"metadata", "deletionTimestamp"}) != nullptr) {
      // Consumers may leave a claim being deleted, not join it.
      const JsonValue* old_reserved = Find(previous, {"status", "reservedFor"});
      for (const JsonValue& entry : reserved->GetArray()) {
        bool known = false;
        if (old_reserved != nullptr && old_reserved->IsArray()) {
          for (const JsonValue& old_entry : old_reserved->GetArray()) {
            known = known || old_entry == entry;
          }
        }
        if (!known) {
          causes.push_back(FieldForbidden(
              "status.reservedFor",
              "new entries may not be added while `deallocationRequested` "
              "or `deletionTimestamp` are set"));
          break;
        }
      }
    }
  }
  if (old_allocation != nullptr && allocation != nullptr) {
    if (!(*old_allocation == *allocation)) {
      causes.push_back(FieldInvalid("status.allocation", ToJson(*allocation),
                                    "field is immutable"));
    }
  } else if (allocation != nullptr) {
    ValidateNewAllocation(next, *allocation, causes);
  }
}

// equality.Semantic.DeepEqual of two optional JSON values, as far as a
// claim's status needs it: absent and null are the same nil, and so is an
// empty list (the semantic comparison equates empty and nil slices).
bool SemanticallyEqual(const JsonValue* a, const JsonValue* b) {
  auto nil = [](const JsonValue* v) {
    return v == nullptr || v->IsNull() || (v->IsArray() && v->Empty());
  };
  if (nil(a) || nil(b)) return nil(a) && nil(b);
  return *a == *b;
}

// The driver of every status.devices entry of `next` that is new or
// changed since `previous`, and of every entry removed, sorted
// (getModifiedDrivers). Entries are keyed by driver, pool, device and
// shareID.
std::vector<std::string> ModifiedDrivers(const JsonValue& previous,
                                         const JsonValue& next) {
  auto key = [](const JsonValue& d) {
    return StringAt(d, {"driver"}) + "\n" + StringAt(d, {"pool"}) + "\n" +
           StringAt(d, {"device"}) + "\n" + StringAt(d, {"shareID"});
  };
  std::vector<std::pair<std::string, const JsonValue*>> old_entries;
  if (const JsonValue* d = Find(previous, {"status", "devices"});
      d != nullptr && d->IsArray()) {
    for (const JsonValue& e : d->GetArray()) {
      old_entries.emplace_back(key(e), &e);
    }
  }
  std::vector<std::string> drivers;
  if (const JsonValue* d = Find(next, {"status", "devices"});
      d != nullptr && d->IsArray()) {
    for (const JsonValue& e : d->GetArray()) {
      const std::string k = key(e);
      auto it = std::find_if(old_entries.begin(), old_entries.end(),
                             [&k](const auto& o) { return o.first == k; });
      if (it == old_entries.end() || !(*it->second == e)) {
        drivers.push_back(StringAt(e, {"driver"}));
      }
      if (it != old_entries.end()) old_entries.erase(it);
    }
  }
  for (const auto& [k, e] : old_entries) {
    drivers.push_back(StringAt(*e, {"driver"}));
  }
  std::sort(drivers.begin(), drivers.end());
  drivers.erase(std::unique(drivers.begin(), drivers.end()), drivers.end());
  return drivers;
}

}  // namespace
}  // namespace dra_objects_detail

using namespace dra_objects_detail;

bool IsDraResource(const ResourceInfo& resource) {
  return resource.group == "resource.k8s.io";
}

void ApplyDraDefaults(const ResourceInfo& resource, JsonDocument& object,
                      int kube_minor) {
  if (!object.IsObject()) return;
  auto& a = object.GetAllocator();
  if (Is(resource, "resourceslices") && kube_minor >= 36) {
    DefaultTaintTimes(MutableMember(object, "spec"), a);
  } else if (Is(resource, "resourceclaims")) {
    DefaultDeviceRequests(MutableMember(object, "spec"), a);
    EnsureObject(object, "status", a);
  } else if (Is(resource, "resourceclaimtemplates")) {
    JsonValue* spec = MutableMember(object, "spec");
    if (spec != nullptr) DefaultDeviceRequests(MutableMember(*spec, "spec"), a);
  }
}

std::vector<StatusCause> ValidateDraObject(const ResourceInfo& resource,
                                           const JsonValue& object,
                                           int kube_minor) {
  std::vector<StatusCause> causes;
  if (!Is(resource, "resourceslices") || kube_minor < 36) return causes;
  // Both lists given (a null one is not given, an empty one is).
  auto given = [&object](const char* list) {
    const JsonValue* v = Find(object, {"spec", list});
    return v != nullptr && !v->IsNull();
  };
  if (given("sharedCounters") && given("devices")) {
    causes.push_back(
        FieldInvalid("spec", "\"\"",
                     "only one of `sharedCounters` or `devices` is allowed"));
  }
  return causes;
}

void PrepareDraForCreate(const ResourceInfo& resource, JsonDocument& object) {
  auto& a = object.GetAllocator();
  if (Is(resource, "deviceclasses") || Is(resource, "resourceslices")) {
    SetMember(EnsureObject(object, "metadata", a), "generation", JsonValue(1),
              a);
  } else if (Is(resource, "resourceclaims")) {
    SetMember(object, "status", JsonValue(rapidjson::kObjectType), a);
  }
}

void PrepareDraForUpdate(const ResourceInfo& resource,
                         const JsonValue& previous, JsonDocument& next) {
  if (!Is(resource, "deviceclasses") && !Is(resource, "resourceslices")) {
    return;
  }
  const JsonValue* old_spec = Member(previous, "spec");
  const JsonValue* new_spec = Member(next, "spec");
  const bool same = old_spec != nullptr && new_spec != nullptr
                        ? *old_spec == *new_spec
                        : old_spec == new_spec;
  if (same) return;
  auto& a = next.GetAllocator();
  SetMember(
      EnsureObject(next, "metadata", a), "generation",
      JsonValue(IntAt(previous, {"metadata", "generation"}).value_or(0) + 1),
      a);
}

void KeepMetadataOnDraStatusUpdate(const ResourceInfo& resource,
                                   const JsonValue& previous,
                                   JsonDocument& next) {
  if (!Is(resource, "resourceclaims")) return;
  auto& a = next.GetAllocator();
  JsonValue& metadata = EnsureObject(next, "metadata", a);
  const JsonValue* old_metadata = Member(previous, "metadata");
  for (const char* field :
       {"labels", "annotations", "finalizers", "ownerReferences"}) {
    const JsonValue* old_value =
        old_metadata != nullptr ? Member(*old_metadata, field) : nullptr;
    if (old_value == nullptr) {
      RemoveMember(metadata, field);
    } else {
      SetMember(metadata, field, JsonValue(*old_value, a), a);
    }
  }
}

std::vector<StatusCause> ValidateDraUpdate(const ResourceInfo& resource,
                                           const JsonValue& previous,
                                           const JsonValue& next) {
  std::vector<StatusCause> causes;
  if (!Is(resource, "resourceclaims")) return causes;
  const JsonValue* old_spec = Member(previous, "spec");
  const JsonValue* new_spec = Member(next, "spec");
  if (old_spec != nullptr && new_spec != nullptr && !(*old_spec == *new_spec)) {
    causes.push_back(
        FieldInvalid("spec", ToJson(*new_spec), "field is immutable"));
  }
  ValidateClaimStatus(previous, next, causes);
  return causes;
}

std::vector<StatusCause> AuthorizeClaimStatusUpdate(
    const JsonValue& previous, const JsonValue& next, const std::string& user,
    const std::string& verb, const std::string& ns,
    const SyntheticAuthorizer& authorize) {
  std::vector<StatusCause> causes;
  // The answer to a synthetic request: the 403 message the filter would
  // have given it, as the strategy embeds it, or "" when allowed.
  auto denial = [&](const RequestAttributes& request) -> std::string {
    if (authorize(request)) return "";
    return Forbidden(request.group, request.resource, request.name,
                     DenialReason(user, request))
        .message;
  };
  auto synthetic = [&](std::string synthetic_verb, std::string subresource,
                       std::string synthetic_ns, std::string name) {
    RequestAttributes request;
    request.resource_request = true;
    request.verb = std::move(synthetic_verb);
    request.group = "resource.k8s.io";
    request.version = "v1";
    request.resource = "resourceclaims";
    request.subresource = std::move(subresource);
    request.ns = std::move(synthetic_ns);
    request.name = std::move(name);
    return request;
  };
  if (!SemanticallyEqual(Find(previous, {"status", "allocation"}),
                         Find(next, {"status", "allocation"})) ||
      !SemanticallyEqual(Find(previous, {"status", "reservedFor"}),
                         Find(next, {"status", "reservedFor"}))) {
    // Cluster-wide and for every name: the scheduler's "bind claim".
    const std::string denied = denial(synthetic(verb, "binding", "", ""));
    if (!denied.empty()) {
      causes.push_back(FieldForbidden(
          "status.allocation",
          "changing status.allocation or status.reservedFor requires "
          "resource=\"resourceclaims/binding\", verb=\"" +
              verb + "\" permission: " + denied));
    }
  }
  const JsonValue* allocation = Find(next, {"status", "allocation"});
  if (allocation == nullptr || allocation->IsNull()) return causes;
  const std::string driver_verb = "arbitrary-node:" + verb;
  for (const std::string& driver : ModifiedDrivers(previous, next)) {
    const std::string denied =
        denial(synthetic(driver_verb, "driver", ns, driver));
    if (denied.empty()) continue;
    causes.push_back(FieldForbidden(
        "status.devices",
        "changing status.devices requires resource=\"resourceclaims/driver\", "
        "verb=\"[" +
            driver_verb + "]\" permission: " + denied));
  }
  return causes;
}

}  // namespace ksched::testing::apiserver

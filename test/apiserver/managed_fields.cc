#include "test/apiserver/managed_fields.h"

#include <algorithm>
#include <vector>

#include "test/apiserver/merge_keys.h"

namespace ksched::testing::apiserver {

namespace {

// Metadata the server owns; it never appears in a field set.
bool IsSystemMetadata(std::string_view key) {
  return key == "name" || key == "namespace" || key == "uid" ||
         key == "resourceVersion" || key == "generation" ||
         key == "creationTimestamp" || key == "deletionTimestamp" ||
         key == "deletionGracePeriodSeconds" || key == "managedFields" ||
         key == "selfLink" || key == "generateName";
}

void AddFields(const JsonValue& value, std::string_view field, int depth,
               JsonValue& out, JsonAllocator& a);

// `out` gains the fields of object `value` at `depth`.
void AddMembers(const JsonValue& value, int depth, bool is_metadata,
                JsonValue& out, JsonAllocator& a) {
  for (const auto& m : value.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (m.value.IsNull()) continue;
    if (is_metadata && IsSystemMetadata(key)) continue;
    if (!key.empty() && key[0] == '$') continue;  // a patch directive
    const std::string name = "f:" + std::string(key);
    JsonValue* child = MutableMember(out, name);
    if (child == nullptr) {
      SetMember(out, name, JsonValue(rapidjson::kObjectType), a);
      child = MutableMember(out, name);
    }
    AddFields(m.value, key, depth + 1, *child, a);
  }
}

void MarkSelf(std::string_view field, int depth, JsonValue& out,
              JsonAllocator& a) {
  // Nested maps, structs and lists own themselves too; top-level fields
  // and the required containers list do not.
  if (depth >= 2 && field != "containers" && Member(out, ".") == nullptr) {
    SetMember(out, ".", JsonValue(rapidjson::kObjectType), a);
  }
}

void AddFields(const JsonValue& value, std::string_view field, int depth,
               JsonValue& out, JsonAllocator& a) {
  if (value.IsObject() && !value.ObjectEmpty()) {
    MarkSelf(field, depth, out, a);
    AddMembers(value, depth, depth == 1 && field == "metadata", out, a);
    return;
  }
  if (!value.IsArray() || value.Empty()) return;  // a leaf: {}
  const std::vector<std::string_view> keys = ListMapKeysFor(field);
  if (!keys.empty()) {
    MarkSelf(field, depth, out, a);
    for (const auto& element : value.GetArray()) {
      // An element a patch deletes is no field of the writer's.
      if (const JsonValue* directive = Member(element, "$patch");
          directive != nullptr && directive->IsString() &&
          std::string_view(directive->GetString()) == "delete") {
        continue;
      }
      JsonValue key_object(rapidjson::kObjectType);
      for (std::string_view key : keys) {
        if (const JsonValue* key_value = Member(element, key)) {
          SetMember(key_object, key, JsonValue(*key_value, a), a);
        }
      }
      if (key_object.ObjectEmpty()) continue;
      const std::string name = "k:" + ToJson(key_object);
      JsonValue* child = MutableMember(out, name);
      if (child == nullptr) {
        SetMember(out, name, JsonValue(rapidjson::kObjectType), a);
        child = MutableMember(out, name);
      }
      SetMember(*child, ".", JsonValue(rapidjson::kObjectType), a);
      if (element.IsObject()) AddMembers(element, depth + 1, false, *child, a);
    }
  } else if (IsSetOfScalars(field)) {
    MarkSelf(field, depth, out, a);
    for (const auto& element : value.GetArray()) {
      SetMember(out, "v:" + ToJson(element), JsonValue(rapidjson::kObjectType),
                a);
    }
  }
}

// `into` becomes the union of itself and `from` (both field sets).
void UnionInto(JsonValue& into, const JsonValue& from, JsonAllocator& a) {
  for (const auto& m : from.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    JsonValue* existing = MutableMember(into, key);
    if (existing == nullptr) {
      into.AddMember(JsonValue(m.name, a), JsonValue(m.value, a), a);
    } else if (existing->IsObject() && m.value.IsObject()) {
      UnionInto(*existing, m.value, a);
    }
  }
}

// Field sets are written with their keys in byte order ("." first, then
// "f:...", then "k:..."), as structured-merge-diff serializes them.
void SortFieldSet(JsonValue& set, JsonAllocator& a) {
  if (!set.IsObject()) return;
  std::vector<std::pair<std::string, JsonValue>> members;
  for (auto& m : set.GetObject()) {
    members.emplace_back(
        std::string(m.name.GetString(), m.name.GetStringLength()),
        std::move(m.value));
  }
  std::sort(members.begin(), members.end(),
            [](const auto& p, const auto& q) { return p.first < q.first; });
  set.SetObject();
  for (auto& [name, value] : members) {
    SortFieldSet(value, a);
    set.AddMember(MakeString(name, a), std::move(value), a);
  }
}

std::string EntryString(const JsonValue& entry, std::string_view key) {
  return StringAt(entry, {key});
}

}  // namespace

std::string ManagerFromUserAgent(std::string_view user_agent) {
  std::string_view product = user_agent.substr(0, user_agent.find('/'));
  if (product.empty()) return "unknown";
  return std::string(product.substr(0, 128));
}

void RecordManagedFields(JsonDocument& object, const JsonValue* previous,
                         const JsonValue& written,
                         const FieldManager& manager) {
  auto& a = object.GetAllocator();
  // Which fields this write sets: status only for the status subresource.
  JsonValue fields(rapidjson::kObjectType);
  if (written.IsObject()) {
    for (const auto& m : written.GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      if (key == "kind" || key == "apiVersion" || m.value.IsNull()) continue;
      if ((key == "status") != (manager.subresource == "status") &&
          key != "metadata") {
        continue;
      }
      JsonValue child(rapidjson::kObjectType);
      AddFields(m.value, key, 1, child, a);
      if (key == "metadata" && child.ObjectEmpty()) continue;
      SetMember(fields, "f:" + std::string(key), std::move(child), a);
    }
  }

  std::vector<JsonValue> entries;
  const JsonValue* old =
      previous ? Find(*previous, {"metadata", "managedFields"}) : nullptr;
  if (old != nullptr && old->IsArray()) {
    for (const auto& e : old->GetArray()) entries.emplace_back(e, a);
  }
  auto mine = std::find_if(entries.begin(), entries.end(), [&](const auto& e) {
    return EntryString(e, "manager") == manager.manager &&
           EntryString(e, "operation") == manager.operation &&
           EntryString(e, "apiVersion") == manager.api_version &&
           EntryString(e, "subresource") == manager.subresource;
  });
  if (mine == entries.end()) {
    if (fields.ObjectEmpty()) return;  // nothing owned, nothing recorded
    JsonValue entry(rapidjson::kObjectType);
    SetString(entry, "manager", manager.manager, a);
    SetString(entry, "operation", manager.operation, a);
    SetString(entry, "apiVersion", manager.api_version, a);
    SetString(entry, "time", manager.time, a);
    SetString(entry, "fieldsType", "FieldsV1", a);
    SetMember(entry, "fieldsV1", std::move(fields), a);
    if (!manager.subresource.empty()) {
      SetString(entry, "subresource", manager.subresource, a);
    }
    entries.push_back(std::move(entry));
  } else {
    SetString(*mine, "time", manager.time, a);
    JsonValue& owned = EnsureObject(*mine, "fieldsV1", a);
    UnionInto(owned, fields, a);
  }
  // The order the API server keeps them in.
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const JsonValue& p, const JsonValue& q) {
        for (std::string_view key :
             {"operation", "time", "manager", "apiVersion", "subresource"}) {
          const std::string lhs = EntryString(p, key);
          const std::string rhs = EntryString(q, key);
          if (lhs != rhs) return lhs < rhs;
        }
        return false;
      });
  JsonValue list(rapidjson::kArrayType);
  for (JsonValue& e : entries) {
    if (JsonValue* set = MutableMember(e, "fieldsV1")) SortFieldSet(*set, a);
    list.PushBack(std::move(e), a);
  }
  JsonValue& metadata = EnsureObject(object, "metadata", a);
  SetMember(metadata, "managedFields", std::move(list), a);
}

}  // namespace ksched::testing::apiserver

#include "test/apiserver/json_util.h"

#include <rapidjson/prettywriter.h>

namespace ksched::testing::apiserver {

namespace {

// Serializing and merging recurse; bounding the nesting up front keeps a
// hostile body from exhausting the stack anywhere later.
constexpr int kMaxDepth = 512;

bool NestingWithinLimit(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) return false;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return true;
}

}  // namespace

bool ParseJson(std::string_view text, JsonDocument* out, std::string* error) {
  if (!NestingWithinLimit(text)) {
    *error = "exceeded max depth of " + std::to_string(kMaxDepth);
    return false;
  }
  out->Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (out->HasParseError()) {
    *error = std::string(rapidjson::GetParseError_En(out->GetParseError())) +
             " (at offset " + std::to_string(out->GetErrorOffset()) + ")";
    return false;
  }
  return true;
}

std::string ToJson(const JsonValue& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string ToPrettyJson(const JsonValue& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
  writer.SetIndent(' ', 2);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string Prettify(std::string_view compact) {
  JsonDocument doc;
  std::string error;
  if (!ParseJson(compact, &doc, &error)) return std::string(compact);
  return ToPrettyJson(doc);
}

const JsonValue* Member(const JsonValue& object, std::string_view key) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(
      JsonValue(rapidjson::StringRef(key.data(), key.size())));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

JsonValue* MutableMember(JsonValue& object, std::string_view key) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(
      JsonValue(rapidjson::StringRef(key.data(), key.size())));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

const JsonValue* Find(const JsonValue& object,
                      std::initializer_list<std::string_view> path) {
  const JsonValue* v = &object;
  for (std::string_view key : path) {
    v = Member(*v, key);
    if (v == nullptr) return nullptr;
  }
  return v;
}

std::string StringAt(const JsonValue& object,
                     std::initializer_list<std::string_view> path,
                     std::string_view fallback) {
  const JsonValue* v = Find(object, path);
  if (v == nullptr || !v->IsString()) return std::string(fallback);
  return std::string(v->GetString(), v->GetStringLength());
}

std::optional<int64_t> IntAt(const JsonValue& object,
                             std::initializer_list<std::string_view> path) {
  const JsonValue* v = Find(object, path);
  if (v == nullptr || !v->IsInt64()) return std::nullopt;
  return v->GetInt64();
}

JsonValue MakeString(std::string_view s, JsonAllocator& alloc) {
  return JsonValue(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc);
}

void SetMember(JsonValue& object, std::string_view key, JsonValue value,
               JsonAllocator& alloc) {
  if (JsonValue* existing = MutableMember(object, key)) {
    *existing = std::move(value);
    return;
  }
  object.AddMember(MakeString(key, alloc), std::move(value), alloc);
}

void SetString(JsonValue& object, std::string_view key, std::string_view value,
               JsonAllocator& alloc) {
  SetMember(object, key, MakeString(value, alloc), alloc);
}

JsonValue& EnsureObject(JsonValue& object, std::string_view key,
                        JsonAllocator& alloc) {
  JsonValue* existing = MutableMember(object, key);
  if (existing != nullptr && existing->IsObject()) return *existing;
  SetMember(object, key, JsonValue(rapidjson::kObjectType), alloc);
  return *MutableMember(object, key);
}

void RemoveMember(JsonValue& object, std::string_view key) {
  if (!object.IsObject()) return;
  // Erase (not Remove, which swaps in the last member) keeps the order.
  auto it = object.FindMember(
      JsonValue(rapidjson::StringRef(key.data(), key.size())));
  if (it != object.MemberEnd()) object.EraseMember(it);
}

std::string JsonTypeName(const JsonValue& value) {
  if (value.IsString()) return "string";
  if (value.IsNumber()) return "number";
  if (value.IsObject()) return "object";
  if (value.IsArray()) return "array";
  if (value.IsBool()) return "bool";
  return "null";
}

}  // namespace ksched::testing::apiserver

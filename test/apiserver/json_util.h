// JSON helpers shared by the test API server: parsing with a message the
// server can put in a 400 answer, compact and pretty serialization in the
// layout kube-apiserver writes, and typed access to object fields.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/util/json.h"

namespace ksched::testing::apiserver {

using JsonValue = rapidjson::Value;
using JsonDocument = rapidjson::Document;
using JsonAllocator = rapidjson::Document::AllocatorType;

// Parses `text`; on failure returns false and says why in `error`.
bool ParseJson(std::string_view text, JsonDocument* out, std::string* error);

// Compact, as written on watch streams and to most clients.
std::string ToJson(const JsonValue& value);
// Two-space indentation, as kube-apiserver writes for curl and pretty=true.
std::string ToPrettyJson(const JsonValue& value);
// Re-indents compact JSON text; returns it unchanged if it does not parse.
std::string Prettify(std::string_view compact);

// The member `key` of `object`, or nullptr when `object` is no object or
// has no such member.
const JsonValue* Member(const JsonValue& object, std::string_view key);
JsonValue* MutableMember(JsonValue& object, std::string_view key);
// Follows `path` through nested objects.
const JsonValue* Find(const JsonValue& object,
                      std::initializer_list<std::string_view> path);

// The string at `path`, or `fallback` when absent or not a string.
std::string StringAt(const JsonValue& object,
                     std::initializer_list<std::string_view> path,
                     std::string_view fallback = "");
std::optional<int64_t> IntAt(const JsonValue& object,
                             std::initializer_list<std::string_view> path);

// Sets object[key] (object must be an object), replacing any value there.
void SetMember(JsonValue& object, std::string_view key, JsonValue value,
               JsonAllocator& alloc);
void SetString(JsonValue& object, std::string_view key, std::string_view value,
               JsonAllocator& alloc);
// object[key], created as {} when absent or not an object.
JsonValue& EnsureObject(JsonValue& object, std::string_view key,
                        JsonAllocator& alloc);
void RemoveMember(JsonValue& object, std::string_view key);

JsonValue MakeString(std::string_view s, JsonAllocator& alloc);

// The Go type name kube-apiserver's decoder uses in messages ("string",
// "number", "object", "array", "bool").
std::string JsonTypeName(const JsonValue& value);

}  // namespace ksched::testing::apiserver

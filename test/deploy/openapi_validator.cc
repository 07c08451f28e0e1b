// Validation of Kubernetes objects against an OpenAPI v2 document.
//
// What a real cluster does with a manifest, and what this file copies:
//   1. kubectl turns the YAML into JSON with sigs.k8s.io/yaml, i.e. go-yaml
//      v2 with YAML 1.1 scalar resolution and no target type, so a plain
//      `on` becomes JSON true and a plain `0x10` becomes 16 before anything
//      looks at the schema (ResolvePlain below);
//   2. the API server decodes that JSON into the Go types, which fails on a
//      type mismatch, and with strict field validation on any unknown or
//      duplicate field (Validator below, driven by the OpenAPI definitions).
// kubectl's client-side OpenAPI validation adds the `required` lists.
#include "test/deploy/openapi_validator.h"

#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "pkg/api/quantity.h"
#include "pkg/util/json.h"

namespace ksched::testing::deploy {
namespace {

using JsonValue = rapidjson::Value;
using Int128 = __int128;
using Uint128 = unsigned __int128;

constexpr std::string_view kRefPrefix = "#/definitions/";
constexpr std::string_view kYamlTagPrefix = "tag:yaml.org,2002:";
// Guards against runaway recursion; real objects are far shallower.
constexpr int kMaxDepth = 256;
// $ref chains are one hop in practice; more than this is a cycle.
constexpr int kMaxRefHops = 16;
// Values quoted in messages are cut to this many characters.
constexpr size_t kMaxShownValue = 40;

// How a definition's Go type decodes, where that differs from what its
// OpenAPI schema says.
enum class Special : uint8_t {
  kNone,
  // Any JSON value (raw JSON kept as is, or a schema that says nothing).
  kAny,
  // resource.Quantity: declared `type: string`, but its UnmarshalJSON also
  // takes a bare number, and rejects strings that are not quantities.
  kQuantity,
  // intstr.IntOrString: an int32 or a string.
  kIntOrString,
};

// Definitions whose value is arbitrary JSON, whatever their `type` says.
constexpr std::string_view kAnyDefinitions[] = {
    "io.k8s.apimachinery.pkg.runtime.RawExtension",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
    "JSONSchemaPropsOrArray",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
    "JSONSchemaPropsOrBool",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
    "JSONSchemaPropsOrStringArray",
};
constexpr std::string_view kQuantityDefinition =
    "io.k8s.apimachinery.pkg.api.resource.Quantity";

struct Definition {
  const JsonValue* schema = nullptr;
  Special special = Special::kNone;
};

// Lookups built once at load time; the views and pointers point into the
// parsed document, which never changes afterwards.
struct SchemaIndex {
  std::unordered_map<std::string_view, Definition> definitions;
  // "group/version/kind" -> the top-level schema of that kind.
  std::unordered_map<std::string, const JsonValue*> by_gvk;
};

std::string GvkKey(std::string_view group, std::string_view version,
                   std::string_view kind) {
  std::string key;
  key.reserve(group.size() + version.size() + kind.size() + 2);
  key.append(group).append("/").append(version).append("/").append(kind);
  return key;
}

// ---------------------------------------------------------------------------
// Reading the schema.

std::string_view View(const JsonValue& v) {
  return {v.GetString(), v.GetStringLength()};
}

const JsonValue* Member(const JsonValue& object, std::string_view name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(rapidjson::StringRef(
      name.data(), static_cast<rapidjson::SizeType>(name.size())));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string_view StringMember(const JsonValue& object, std::string_view name) {
  const JsonValue* v = Member(object, name);
  return v != nullptr && v->IsString() ? View(*v) : std::string_view();
}

bool TrueMember(const JsonValue& object, std::string_view name) {
  const JsonValue* v = Member(object, name);
  return v != nullptr && v->IsBool() && v->GetBool();
}

// Formats and extensions that change how a (non-$ref) schema decodes.
Special SpecialOf(const JsonValue& schema) {
  std::string_view format = StringMember(schema, "format");
  if (format == "int-or-string" ||
      TrueMember(schema, "x-kubernetes-int-or-string")) {
    return Special::kIntOrString;
  }
  if (format == "quantity") return Special::kQuantity;
  return Special::kNone;
}

Special SpecialOfDefinition(std::string_view name, const JsonValue& schema) {
  if (name == kQuantityDefinition) return Special::kQuantity;
  for (std::string_view any : kAnyDefinitions) {
    if (name == any) return Special::kAny;
  }
  return SpecialOf(schema);
}

util::Result<SchemaIndex> BuildIndex(const rapidjson::Document& doc) {
  const JsonValue* definitions = Member(doc, "definitions");
  if (definitions == nullptr || !definitions->IsObject()) {
    return util::Error("no \"definitions\" object");
  }
  SchemaIndex index;
  index.definitions.reserve(definitions->MemberCount());
  for (const auto& def : definitions->GetObject()) {
    if (!def.name.IsString() || !def.value.IsObject()) continue;
    const std::string_view name = View(def.name);
    index.definitions.emplace(
        name, Definition{&def.value, SpecialOfDefinition(name, def.value)});
    const JsonValue* gvks =
        Member(def.value, "x-kubernetes-group-version-kind");
    if (gvks == nullptr || !gvks->IsArray()) continue;
    for (const JsonValue& gvk : gvks->GetArray()) {
      std::string_view kind = StringMember(gvk, "kind");
      std::string_view version = StringMember(gvk, "version");
      if (kind.empty() || version.empty()) continue;
      // A kind served by one definition only; should two ever claim it, the
      // first wins rather than failing the load.
      index.by_gvk.emplace(GvkKey(StringMember(gvk, "group"), version, kind),
                           &def.value);
    }
  }
  if (index.by_gvk.empty()) {
    return util::Error("no definition has x-kubernetes-group-version-kind");
  }
  return index;
}

// ---------------------------------------------------------------------------
// YAML scalars as go-yaml v2 resolves them.

struct Scalar {
  enum class Kind : uint8_t { kNull, kString, kInt, kFloat, kBool };
  Kind kind = Kind::kString;
  // kInt: the value; go-yaml also yields uint64 values above int64's range.
  Int128 int_value = 0;
  // kFloat: the value, which may be infinite or NaN.
  double float_value = 0;
  // kBool
  bool bool_value = false;
};

bool IsOneOf(std::string_view s, std::initializer_list<std::string_view> set) {
  for (std::string_view candidate : set) {
    if (s == candidate) return true;
  }
  return false;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// strconv.ParseInt(s, 0, 64), falling back to strconv.ParseUint(s, 0, 64):
// an optional sign, then a 0b/0o/0x prefix, a leading 0 for octal, or
// decimal.
std::optional<Int128> ParseGoInt(std::string_view s) {
  bool negative = false;
  bool signed_text = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    signed_text = true;
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s[0] == '0') {
    const char prefix = s.size() >= 3 ? static_cast<char>(s[1] | 0x20) : '\0';
    if (prefix == 'b') {
      base = 2;
      s.remove_prefix(2);
    } else if (prefix == 'o') {
      base = 8;
      s.remove_prefix(2);
    } else if (prefix == 'x') {
      base = 16;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
  }
  constexpr Uint128 kMaxUint64 = std::numeric_limits<uint64_t>::max();
  Uint128 magnitude = 0;
  for (char c : s) {
    int digit = 99;
    if (IsDigit(c)) {
      digit = c - '0';
    } else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') {
      digit = (c | 0x20) - 'a' + 10;
    }
    if (digit >= base) return std::nullopt;
    magnitude = magnitude * base + digit;
    if (magnitude > kMaxUint64) return std::nullopt;
  }
  constexpr Uint128 kInt64Limit = Uint128{1} << 63;
  if (negative) {
    if (magnitude > kInt64Limit) return std::nullopt;
    return -static_cast<Int128>(magnitude);
  }
  // Above int64 only ParseUint succeeds, and it takes no sign.
  if (magnitude >= kInt64Limit && signed_text) return std::nullopt;
  return static_cast<Int128>(magnitude);
}

// go-yaml's yamlStyleFloat:
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool IsYamlStyleFloat(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// strconv.ParseFloat on text IsYamlStyleFloat accepted; fails, as Go does,
// when the value overflows a double.
std::optional<double> ParseFiniteFloat(std::string_view s) {
  const std::string text(s);
  const double value = std::strtod(text.c_str(), nullptr);
  if (std::isinf(value)) return std::nullopt;
  return value;
}

Scalar MakeBool(bool value) {
  return {.kind = Scalar::Kind::kBool, .bool_value = value};
}
Scalar MakeFloat(double value) {
  return {.kind = Scalar::Kind::kFloat, .float_value = value};
}

// go-yaml v2's resolve() for an untagged plain scalar.
Scalar ResolvePlain(std::string_view s) {
  if (IsOneOf(s, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on",
                  "On", "ON"})) {
    return MakeBool(true);
  }
  if (IsOneOf(s, {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off",
                  "Off", "OFF"})) {
    return MakeBool(false);
  }
  if (IsOneOf(s, {"", "~", "null", "Null", "NULL"})) {
    return {.kind = Scalar::Kind::kNull};
  }
  if (IsOneOf(s, {".nan", ".NaN", ".NAN"})) {
    return MakeFloat(std::numeric_limits<double>::quiet_NaN());
  }
  if (IsOneOf(s, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) {
    return MakeFloat(std::numeric_limits<double>::infinity());
  }
  if (IsOneOf(s, {"-.inf", "-.Inf", "-.INF"})) {
    return MakeFloat(-std::numeric_limits<double>::infinity());
  }
  const char first = s[0];
  if (first == '.') {
    if (IsYamlStyleFloat(s)) {
      if (auto value = ParseFiniteFloat(s)) return MakeFloat(*value);
    }
  } else if (first == '+' || first == '-' || IsDigit(first)) {
    // Numbers may group digits with underscores (1_000).
    std::string plain;
    plain.reserve(s.size());
    for (char c : s) {
      if (c != '_') plain.push_back(c);
    }
    if (auto value = ParseGoInt(plain)) {
      return {.kind = Scalar::Kind::kInt, .int_value = *value};
    }
    if (IsYamlStyleFloat(plain)) {
      if (auto value = ParseFiniteFloat(plain)) return MakeFloat(*value);
    }
    // Anything else starting with a digit (dates, "1.2.3", "08:00") stays
    // a string: go-yaml v2 hands timestamps to an untyped target as strings.
  }
  return {.kind = Scalar::Kind::kString};
}

Scalar ResolveScalar(const YAML::Node& node) {
  if (node.IsNull()) return {.kind = Scalar::Kind::kNull};
  const std::string& tag = node.Tag();
  // yaml-cpp tags a plain scalar "?" and a quoted or block one "!".
  if (tag == "?") return ResolvePlain(node.Scalar());
  if (std::string_view(tag).starts_with(kYamlTagPrefix)) {
    std::string_view type = std::string_view(tag).substr(kYamlTagPrefix.size());
    if (IsOneOf(type, {"int", "float", "bool", "null"})) {
      return ResolvePlain(node.Scalar());
    }
  }
  return {.kind = Scalar::Kind::kString};
}

std::string Int128ToString(Int128 value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  Uint128 magnitude =
      negative ? -static_cast<Uint128>(value) : static_cast<Uint128>(value);
  std::string digits;
  while (magnitude > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + magnitude % 10));
    magnitude /= 10;
  }
  return negative ? "-" + digits : digits;
}

// The JSON object key sigs.k8s.io/yaml makes of a YAML map key: booleans and
// integers are re-printed, so a plain `on:` key is "true" and `0x1F:` is "31".
std::optional<std::string> KeyName(const YAML::Node& key) {
  if (!key.IsScalar()) return std::nullopt;
  const Scalar scalar = ResolveScalar(key);
  switch (scalar.kind) {
    case Scalar::Kind::kBool:
      return scalar.bool_value ? "true" : "false";
    case Scalar::Kind::kInt:
      return Int128ToString(scalar.int_value);
    default:
      return key.Scalar();
  }
}

std::string Shorten(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, kMaxShownValue)) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else {
      out.push_back(c);
    }
  }
  if (text.size() > kMaxShownValue) out += "...";
  return out;
}

// "string \"2\"", "integer 2", "boolean on", "object", ... for messages.
std::string Describe(const YAML::Node& node) {
  if (node.IsMap()) return "object";
  if (node.IsSequence()) return "array";
  if (node.IsNull()) return "null";
  switch (ResolveScalar(node).kind) {
    case Scalar::Kind::kNull:
      return "null";
    case Scalar::Kind::kString:
      return "string \"" + Shorten(node.Scalar()) + "\"";
    case Scalar::Kind::kInt:
      return "integer " + Shorten(node.Scalar());
    case Scalar::Kind::kFloat:
      return "number " + Shorten(node.Scalar());
    case Scalar::Kind::kBool:
      return "boolean " + Shorten(node.Scalar());
  }
  return "unknown";
}

// What Go's encoding/json accepts for a []byte: standard base64 with
// padding, line breaks ignored.
bool IsStdBase64(std::string_view text) {
  size_t count = 0;
  size_t padding = 0;
  for (char c : text) {
    if (c == '\r' || c == '\n') continue;
    ++count;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) return false;
    const bool alphabet = IsDigit(c) || (c >= 'a' && c <= 'z') ||
                          (c >= 'A' && c <= 'Z') || c == '+' || c == '/';
    if (!alphabet) return false;
  }
  return count % 4 == 0 && padding <= 2;
}

std::string_view TrimSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\r\v\f";
  const size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

// An integer value as the API server would read it. JSON does not tell
// 8.0 from 8 (kubectl sends the YAML float 8.0 as 8), so integral floats
// count; json.Marshal switches to exponent form at 1e21, which no Go
// integer decodes.
std::optional<Int128> AsInteger(const Scalar& scalar) {
  if (scalar.kind == Scalar::Kind::kInt) return scalar.int_value;
  if (scalar.kind == Scalar::Kind::kFloat &&
      std::isfinite(scalar.float_value) &&
      std::trunc(scalar.float_value) == scalar.float_value &&
      std::fabs(scalar.float_value) < 1e21) {
    return static_cast<Int128>(scalar.float_value);
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Walking an object along its schema.

class Validator {
 public:
  Validator(const SchemaIndex& index, std::vector<std::string>& errors)
      : index_(index), errors_(errors) {}

  // Checks `node` against `schema`; `path` is the node's JSON path, which
  // this extends and restores while descending.
  void Check(const JsonValue& schema_in, const YAML::Node& node,
             std::string& path, int depth) {
    if (depth > kMaxDepth) {
      AddError(path, "nested too deeply");
      return;
    }
    const JsonValue* schema = &schema_in;
    Special special = Special::kNone;
    for (int hops = 0;; ++hops) {
      std::string_view ref = StringMember(*schema, "$ref");
      if (ref.empty()) break;
      auto it = ref.starts_with(kRefPrefix)
                    ? index_.definitions.find(ref.substr(kRefPrefix.size()))
                    : index_.definitions.end();
      if (it == index_.definitions.end() || hops >= kMaxRefHops) {
        AddError(path, "schema has unresolvable $ref " + std::string(ref));
        return;
      }
      schema = it->second.schema;
      if (special == Special::kNone) special = it->second.special;
    }
    if (special == Special::kNone) special = SpecialOf(*schema);

    // An explicit null leaves the field unset, whatever its type.
    if (node.IsNull()) return;
    if (node.IsScalar() && ResolveScalar(node).kind == Scalar::Kind::kNull) {
      return;
    }

    switch (special) {
      case Special::kAny:
        return;
      case Special::kQuantity:
        CheckQuantity(node, path);
        return;
      case Special::kIntOrString:
        CheckIntOrString(node, path);
        return;
      case Special::kNone:
        break;
    }

    if (const JsonValue* all_of = Member(*schema, "allOf");
        all_of != nullptr && all_of->IsArray()) {
      for (const JsonValue& part : all_of->GetArray()) {
        Check(part, node, path, depth + 1);
      }
    }

    std::string_view type = StringMember(*schema, "type");
    if (type.empty() && (Member(*schema, "properties") != nullptr ||
                         Member(*schema, "additionalProperties") != nullptr)) {
      type = "object";
    }
    if (type == "object") {
      CheckObject(*schema, node, path, depth);
    } else if (type == "array") {
      CheckArray(*schema, node, path, depth);
    } else if (type == "string" || type == "integer" || type == "number" ||
               type == "boolean") {
      CheckScalar(*schema, type, node, path);
    }
    // No type: the schema does not constrain the value.
  }

  void AddError(const std::string& path, std::string_view message) {
    std::string error = path;
    if (!error.empty()) error += ": ";
    error += message;
    errors_.push_back(std::move(error));
  }

 private:
  void Mismatch(const std::string& path, std::string_view expected,
                const YAML::Node& node) {
    AddError(path,
             "expected " + std::string(expected) + ", got " + Describe(node));
  }

  static void AppendKey(std::string& path, std::string_view key) {
    if (!path.empty()) path += '.';
    path += key;
  }

  void CheckObject(const JsonValue& schema, const YAML::Node& node,
                   std::string& path, int depth) {
    if (!node.IsMap()) {
      Mismatch(path, "object", node);
      return;
    }
    const JsonValue* properties = Member(schema, "properties");
    if (properties != nullptr && !properties->IsObject()) properties = nullptr;
    const JsonValue* additional = Member(schema, "additionalProperties");
    const JsonValue* additional_schema =
        additional != nullptr && additional->IsObject() ? additional : nullptr;
    // Fields outside `properties` are welcome when the schema says so, or
    // when it lists no fields at all (a free-form object).
    const bool open =
        TrueMember(schema, "x-kubernetes-preserve-unknown-fields") ||
        (properties == nullptr && additional == nullptr) ||
        (additional != nullptr && additional->IsBool() &&
         additional->GetBool());

    const size_t base = path.size();
    std::unordered_set<std::string> seen;
    std::unordered_set<std::string> present;  // set, i.e. not null
    for (const auto& entry : node) {
      std::optional<std::string> key = KeyName(entry.first);
      if (!key) {
        AddError(path, "map key is not a string: " + Describe(entry.first));
        continue;
      }
      AppendKey(path, *key);
      if (!seen.insert(*key).second) {
        AddError(path, "duplicate field");
      } else {
        if (!entry.second.IsNull()) present.insert(*key);
        const JsonValue* field =
            properties != nullptr ? Member(*properties, *key) : nullptr;
        if (field != nullptr) {
          Check(*field, entry.second, path, depth + 1);
        } else if (additional_schema != nullptr) {
          Check(*additional_schema, entry.second, path, depth + 1);
        } else if (!open) {
          AddError(path, "unknown field");
        }
      }
      path.resize(base);
    }

    const JsonValue* required = Member(schema, "required");
    if (required == nullptr || !required->IsArray()) return;
    for (const JsonValue& name : required->GetArray()) {
      if (!name.IsString() || present.contains(std::string(View(name))))
        continue;
      AppendKey(path, View(name));
      AddError(path, "missing required field");
      path.resize(base);
    }
  }

  void CheckArray(const JsonValue& schema, const YAML::Node& node,
                  std::string& path, int depth) {
    if (!node.IsSequence()) {
      Mismatch(path, "array", node);
      return;
    }
    const JsonValue* items = Member(schema, "items");
    if (items == nullptr || !items->IsObject()) return;
    const size_t base = path.size();
    size_t i = 0;
    for (const YAML::Node& item : node) {
      path += '[';
      path += std::to_string(i++);
      path += ']';
      Check(*items, item, path, depth + 1);
      path.resize(base);
    }
  }

  void CheckScalar(const JsonValue& schema, std::string_view type,
                   const YAML::Node& node, const std::string& path) {
    if (!node.IsScalar()) {
      Mismatch(path, type, node);
      return;
    }
    const Scalar scalar = ResolveScalar(node);
    const std::string_view format = StringMember(schema, "format");
    if (type == "string") {
      if (scalar.kind != Scalar::Kind::kString) {
        Mismatch(path, "string", node);
      } else if (format == "byte" && !IsStdBase64(node.Scalar())) {
        AddError(path, "invalid base64 data");
      }
    } else if (type == "boolean") {
      if (scalar.kind != Scalar::Kind::kBool) Mismatch(path, "boolean", node);
    } else if (type == "number") {
      if (scalar.kind == Scalar::Kind::kFloat &&
          !std::isfinite(scalar.float_value)) {
        AddError(path, "JSON has no " + Shorten(node.Scalar()));
      } else if (scalar.kind != Scalar::Kind::kInt &&
                 scalar.kind != Scalar::Kind::kFloat) {
        Mismatch(path, "number", node);
      }
    } else {  // integer
      CheckInteger(scalar, format, node, path, "integer");
    }
  }

  void CheckInteger(const Scalar& scalar, std::string_view format,
                    const YAML::Node& node, const std::string& path,
                    std::string_view expected) {
    const std::optional<Int128> value = AsInteger(scalar);
    if (!value) {
      Mismatch(path, expected, node);
      return;
    }
    const bool int32 = format == "int32";
    const Int128 low = int32 ? std::numeric_limits<int32_t>::min()
                             : std::numeric_limits<int64_t>::min();
    const Int128 high = int32 ? std::numeric_limits<int32_t>::max()
                              : std::numeric_limits<int64_t>::max();
    if (*value < low || *value > high) {
      AddError(path, "integer " + Shorten(node.Scalar()) +
                         " out of range for " + (int32 ? "int32" : "int64"));
    }
  }

  void CheckQuantity(const YAML::Node& node, const std::string& path) {
    if (!node.IsScalar()) {
      Mismatch(path, "quantity (string or number)", node);
      return;
    }
    const Scalar scalar = ResolveScalar(node);
    switch (scalar.kind) {
      case Scalar::Kind::kNull:
      case Scalar::Kind::kInt:
        return;
      case Scalar::Kind::kFloat:
        if (!std::isfinite(scalar.float_value)) {
          AddError(path, "JSON has no " + Shorten(node.Scalar()));
        }
        return;
      case Scalar::Kind::kBool:
        Mismatch(path, "quantity (string or number)", node);
        return;
      case Scalar::Kind::kString:
        // Quantity.UnmarshalJSON trims spaces before parsing.
        if (!api::Quantity::Parse(TrimSpace(node.Scalar())).ok()) {
          AddError(path, "invalid quantity \"" + Shorten(node.Scalar()) + "\"");
        }
        return;
    }
  }

  void CheckIntOrString(const YAML::Node& node, const std::string& path) {
    if (!node.IsScalar()) {
      Mismatch(path, "integer or string", node);
      return;
    }
    const Scalar scalar = ResolveScalar(node);
    if (scalar.kind == Scalar::Kind::kString) return;
    // IntOrString holds an int32.
    CheckInteger(scalar, "int32", node, path, "integer or string");
  }

  const SchemaIndex& index_;
  std::vector<std::string>& errors_;
};

// apiVersion or kind: present, and a string once YAML has resolved it.
std::optional<std::string> TypeMetaField(const YAML::Node& object,
                                         const char* name,
                                         Validator& validator) {
  const YAML::Node value = object[name];
  if (!value.IsDefined() || value.IsNull()) {
    validator.AddError(name, "missing required field");
    return std::nullopt;
  }
  if (!value.IsScalar() || ResolveScalar(value).kind != Scalar::Kind::kString) {
    validator.AddError(name, "expected string, got " + Describe(value));
    return std::nullopt;
  }
  return value.Scalar();
}

}  // namespace

struct OpenApiSchema::Index {
  rapidjson::Document document;
  SchemaIndex schemas;
};

OpenApiSchema::OpenApiSchema(std::unique_ptr<Index> index)
    : index_(std::move(index)) {}
OpenApiSchema::OpenApiSchema(OpenApiSchema&&) noexcept = default;
OpenApiSchema& OpenApiSchema::operator=(OpenApiSchema&&) noexcept = default;
OpenApiSchema::~OpenApiSchema() = default;

util::Result<OpenApiSchema> OpenApiSchema::LoadGzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    return util::Error("open " + path + ": " +
                       (errno != 0 ? std::strerror(errno) : "out of memory"));
  }
  const std::unique_ptr<gzFile_s, decltype(&gzclose)> closer(file, &gzclose);
  gzbuffer(file, 1 << 17);

  std::string text;
  std::string chunk(1 << 18, '\0');
  for (;;) {
    const int n =
        gzread(file, chunk.data(), static_cast<unsigned>(chunk.size()));
    if (n < 0) {
      int code = 0;
      const char* message = gzerror(file, &code);
      return util::Error("read " + path + ": " + message);
    }
    if (n == 0) break;
    text.append(chunk.data(), static_cast<size_t>(n));
  }

  auto index = std::make_unique<Index>();
  try {
    index->document.Parse(text.data(), text.size());
    if (index->document.HasParseError()) {
      return util::Error(
          "parse " + path + ": " +
          rapidjson::GetParseError_En(index->document.GetParseError()) +
          " at offset " + std::to_string(index->document.GetErrorOffset()));
    }
    util::Result<SchemaIndex> schemas = BuildIndex(index->document);
    if (!schemas.ok()) return schemas.error().Wrap(path);
    index->schemas = std::move(schemas).value();
  } catch (const std::exception& e) {
    // RAPIDJSON_ASSERT (pkg/util/json.h) throws on a misread document.
    return util::Error(path + ": " + e.what());
  }
  return OpenApiSchema(std::move(index));
}

size_t OpenApiSchema::definition_count() const {
  return index_->schemas.definitions.size();
}

std::vector<std::string> OpenApiSchema::Validate(
    const YAML::Node& object) const {
  std::vector<std::string> errors;
  Validator validator(index_->schemas, errors);
  if (!object.IsMap()) {
    validator.AddError(
        "", "expected an object at the top level, got " + Describe(object));
    return errors;
  }
  const std::optional<std::string> api_version =
      TypeMetaField(object, "apiVersion", validator);
  const std::optional<std::string> kind =
      TypeMetaField(object, "kind", validator);
  if (!api_version || !kind) return errors;

  // "v1" is the core group; "apps/v1" is group "apps", version "v1".
  std::string_view group;
  std::string_view version = *api_version;
  if (const size_t slash = version.find('/'); slash != std::string::npos) {
    group = version.substr(0, slash);
    version = version.substr(slash + 1);
  }
  const auto it =
      version.find('/') == std::string_view::npos
          ? index_->schemas.by_gvk.find(GvkKey(group, version, *kind))
          : index_->schemas.by_gvk.end();
  if (it == index_->schemas.by_gvk.end()) {
    validator.AddError(
        "", "no schema for apiVersion " + *api_version + ", kind " + *kind);
    return errors;
  }
  std::string path;
  validator.Check(*it->second, object, path, 0);
  return errors;
}

}  // namespace ksched::testing::deploy

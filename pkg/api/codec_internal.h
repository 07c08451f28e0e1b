// The machinery behind codec.h: a decoder that tracks the JSON path for its
// error messages, and the per-type Read/Write overloads driven by each type's
// Fields() list (fields.h).
//
// Kept in a header so other components with their own JSON/YAML documents
// (the KubeSchedulerConfiguration, extender wire types) decode the same way,
// with the same messages and the same strictness switches.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pkg/api/box.h"
#include "pkg/api/quantity.h"
#include "pkg/api/string_map.h"
#include "pkg/api/time.h"
#include "pkg/util/json.h"
#include "pkg/util/result.h"

namespace ksched::api::codec {

using JsonValue = rapidjson::Value;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

struct DecodeOptions {
  // YAML input: a plain scalar that YAML typed as a number or bool is
  // accepted where a string is expected, as kubectl's YAML-to-JSON step does
  // with the target type in hand ("version: 2" as a label).
  bool lenient_scalars = false;
  // Strict decoding, as kube-scheduler decodes its configuration: a field
  // the type does not declare is an error instead of being ignored.
  bool reject_unknown_fields = false;
};

// Renders the path being decoded, "spec.containers[1].resources", only when
// an error needs it; pushing a segment costs no allocation beyond the stack.
class Decoder {
 public:
  explicit Decoder(DecodeOptions options = {}, std::string base_path = "")
      : options_(options), base_path_(std::move(base_path)) {}

  const DecodeOptions& options() const { return options_; }
  bool ok() const { return !failed_; }

  // Records "<path>: <what>" unless an error was already recorded: the first
  // error is the one worth reading.
  void Fail(std::string_view what);
  util::Error error() const { return util::Error(message_); }

  // Scoped path segments.
  class KeyScope {
   public:
    KeyScope(Decoder& d, std::string_view key) : d_(d) {
      d_.segments_.push_back({key, -1});
    }
    ~KeyScope() { d_.segments_.pop_back(); }
    KeyScope(const KeyScope&) = delete;
    KeyScope& operator=(const KeyScope&) = delete;

   private:
    Decoder& d_;
  };
  class IndexScope {
   public:
    IndexScope(Decoder& d, size_t index) : d_(d) {
      d_.segments_.push_back({{}, static_cast<int64_t>(index)});
    }
    ~IndexScope() { d_.segments_.pop_back(); }
    IndexScope(const IndexScope&) = delete;
    IndexScope& operator=(const IndexScope&) = delete;

   private:
    Decoder& d_;
  };

  std::string Path() const;

 private:
  struct Segment {
    std::string_view key;
    int64_t index;  // -1 for a key segment
  };
  DecodeOptions options_;
  std::string base_path_;
  std::vector<Segment> segments_;
  bool failed_ = false;
  std::string message_;
};

// Whether an encoder writes a field that holds its zero value. Most API
// fields are `omitempty`; kAlways marks the ones Kubernetes always writes.
enum class Emit : uint8_t { kOmitEmpty, kAlways };

// EnumTraits<E>::kNames lists {value, "JSON string"}; unknown strings decode
// to E::kOther and such a value is omitted on encode.
template <typename E>
struct EnumTraits;

template <typename E>
concept KnownEnum = std::is_enum_v<E> && requires {
  EnumTraits<E>::kNames;
};

// A type whose members are listed by an ADL-visible Fields(visitor, obj).
class ObjectReader;
template <typename T>
concept HasFields = requires(ObjectReader& v, T& t) {
  Fields(v, t);
};

// ---- Read: JSON value -> C++ value. Leaves *out unchanged on error. ----

void Read(Decoder& d, const JsonValue& v, std::string* out);
void Read(Decoder& d, const JsonValue& v, bool* out);
void Read(Decoder& d, const JsonValue& v, int32_t* out);
void Read(Decoder& d, const JsonValue& v, int64_t* out);
void Read(Decoder& d, const JsonValue& v, double* out);
void Read(Decoder& d, const JsonValue& v, Quantity* out);
void Read(Decoder& d, const JsonValue& v, Time* out);
void Read(Decoder& d, const JsonValue& v, MicroTime* out);
template <typename T>
void Read(Decoder& d, const JsonValue& v, std::optional<T>* out);
template <typename T>
void Read(Decoder& d, const JsonValue& v, Box<T>* out);
template <typename T>
void Read(Decoder& d, const JsonValue& v, std::vector<T>* out);
template <typename V>
void Read(Decoder& d, const JsonValue& v, FlatMap<V>* out);
template <KnownEnum E>
void Read(Decoder& d, const JsonValue& v, E* out);
template <HasFields T>
void Read(Decoder& d, const JsonValue& v, T* out);

// ---- Write: C++ value -> JSON. ----

void Write(JsonWriter& w, const std::string& value);
void Write(JsonWriter& w, bool value);
void Write(JsonWriter& w, int32_t value);
void Write(JsonWriter& w, int64_t value);
void Write(JsonWriter& w, double value);
void Write(JsonWriter& w, const Quantity& value);
void Write(JsonWriter& w, const Time& value);
void Write(JsonWriter& w, const MicroTime& value);
template <typename T>
void Write(JsonWriter& w, const std::optional<T>& value);
template <typename T>
void Write(JsonWriter& w, const Box<T>& value);
template <typename T>
void Write(JsonWriter& w, const std::vector<T>& value);
template <typename V>
void Write(JsonWriter& w, const FlatMap<V>& value);
template <KnownEnum E>
void Write(JsonWriter& w, E value);
template <HasFields T>
void Write(JsonWriter& w, const T& value);

// ---- IsEmpty: Go's omitempty. Structs are never empty, as in Go. ----

inline bool IsEmpty(const std::string& v) { return v.empty(); }
inline bool IsEmpty(bool v) { return !v; }
inline bool IsEmpty(int32_t v) { return v == 0; }
inline bool IsEmpty(int64_t v) { return v == 0; }
inline bool IsEmpty(double v) { return v == 0; }
inline bool IsEmpty(const Quantity&) { return false; }
inline bool IsEmpty(const Time& v) { return v.IsZero(); }
inline bool IsEmpty(const MicroTime& v) { return v.IsZero(); }
template <typename T>
bool IsEmpty(const std::optional<T>& v) {
  return !v.has_value();
}
template <typename T>
bool IsEmpty(const Box<T>& v) {
  return !v.has_value();
}
template <typename T>
bool IsEmpty(const std::vector<T>& v) {
  return v.empty();
}
template <typename V>
bool IsEmpty(const FlatMap<V>& v) {
  return v.empty();
}
template <KnownEnum E>
bool IsEmpty(E value);
template <HasFields T>
bool IsEmpty(const T&) {
  return false;
}

// ---- Visitors handed to Fields(). ----

// Reads the listed members of one JSON object.
class ObjectReader {
 public:
  ObjectReader(Decoder& d, const JsonValue& object) : d_(d), object_(object) {}

  template <typename T>
  void operator()(std::string_view key, T& field, Emit = Emit::kOmitEmpty) {
    if (d_.options().reject_unknown_fields) known_.push_back(key);
    if (!d_.ok()) return;
    auto it = object_.FindMember(
        JsonValue(rapidjson::StringRef(key.data(), key.size())));
    if (it == object_.MemberEnd() || it->value.IsNull()) return;
    Decoder::KeyScope scope(d_, key);
    Read(d_, it->value, &field);
  }

  // Strict mode: fails on the first member no Fields() entry claimed.
  void CheckNoUnknownFields();

 private:
  Decoder& d_;
  const JsonValue& object_;
  std::vector<std::string_view> known_;
};

// Writes the non-empty listed members of one object.
class ObjectWriter {
 public:
  explicit ObjectWriter(JsonWriter& w) : w_(w) {}

  template <typename T>
  void operator()(std::string_view key, const T& field,
                  Emit emit = Emit::kOmitEmpty) {
    if (emit == Emit::kOmitEmpty && IsEmpty(field)) return;
    w_.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    Write(w_, field);
  }

 private:
  JsonWriter& w_;
};

std::string_view TypeName(const JsonValue& v);

// ---- Template definitions. ----

template <typename T>
void Read(Decoder& d, const JsonValue& v, std::optional<T>* out) {
  T value{};
  Read(d, v, &value);
  if (d.ok()) *out = std::move(value);
}

template <typename T>
void Read(Decoder& d, const JsonValue& v, Box<T>* out) {
  T value{};
  Read(d, v, &value);
  if (d.ok()) *out = Box<T>(std::move(value));
}

template <typename T>
void Read(Decoder& d, const JsonValue& v, std::vector<T>* out) {
  if (!v.IsArray()) {
    d.Fail("expected array, got " + std::string(TypeName(v)));
    return;
  }
  std::vector<T> items;
  items.reserve(v.Size());
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    Decoder::IndexScope scope(d, i);
    T item{};
    if (!v[i].IsNull()) Read(d, v[i], &item);
    if (!d.ok()) return;
    items.push_back(std::move(item));
  }
  *out = std::move(items);
}

template <typename V>
void Read(Decoder& d, const JsonValue& v, FlatMap<V>* out) {
  if (!v.IsObject()) {
    d.Fail("expected object, got " + std::string(TypeName(v)));
    return;
  }
  FlatMap<V> map;
  map.reserve(v.MemberCount());
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    std::string_view key(it->name.GetString(), it->name.GetStringLength());
    Decoder::KeyScope scope(d, key);
    V value{};
    if (!it->value.IsNull()) Read(d, it->value, &value);
    if (!d.ok()) return;
    map.Set(key, std::move(value));
  }
  *out = std::move(map);
}

template <KnownEnum E>
void Read(Decoder& d, const JsonValue& v, E* out) {
  std::string text;
  Read(d, v, &text);
  if (!d.ok()) return;
  for (const auto& [value, name] : EnumTraits<E>::kNames) {
    if (name == text) {
      *out = value;
      return;
    }
  }
  *out = E::kOther;
}

template <HasFields T>
void Read(Decoder& d, const JsonValue& v, T* out) {
  if (!v.IsObject()) {
    d.Fail("expected object, got " + std::string(TypeName(v)));
    return;
  }
  ObjectReader reader(d, v);
  Fields(reader, *out);
  if (d.ok() && d.options().reject_unknown_fields) {
    reader.CheckNoUnknownFields();
  }
}

template <typename T>
void Write(JsonWriter& w, const std::optional<T>& value) {
  if (value) {
    Write(w, *value);
  } else {
    w.Null();
  }
}

template <typename T>
void Write(JsonWriter& w, const Box<T>& value) {
  if (value) {
    Write(w, *value);
  } else {
    w.Null();
  }
}

template <typename T>
void Write(JsonWriter& w, const std::vector<T>& value) {
  w.StartArray();
  for (const auto& item : value) Write(w, item);
  w.EndArray();
}

template <typename V>
void Write(JsonWriter& w, const FlatMap<V>& value) {
  w.StartObject();
  for (const auto& [key, item] : value) {
    w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    Write(w, item);
  }
  w.EndObject();
}

template <KnownEnum E>
std::string_view EnumName(E value) {
  for (const auto& [v, name] : EnumTraits<E>::kNames) {
    if (v == value) return name;
  }
  return {};
}

template <KnownEnum E>
bool IsEmpty(E value) {
  return EnumName(value).empty();
}

template <KnownEnum E>
void Write(JsonWriter& w, E value) {
  std::string_view name = EnumName(value);
  w.String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
}

template <HasFields T>
void Write(JsonWriter& w, const T& value) {
  w.StartObject();
  ObjectWriter writer(w);
  // Fields() takes a mutable reference so one list serves both directions;
  // the writer only reads.
  Fields(writer, const_cast<T&>(value));
  w.EndObject();
}

// Parses text into a document without recursion (deeply nested input cannot
// exhaust the stack); the error names the offset.
util::Result<rapidjson::Document> ParseDocument(std::string_view text);

// Decodes a JSON value into T; the error names the JSON path.
template <typename T>
util::Result<T> DecodeValue(const JsonValue& v, const DecodeOptions& options,
                            std::string base_path = "") {
  Decoder d(options, std::move(base_path));
  T out{};
  Read(d, v, &out);
  if (!d.ok()) return d.error();
  return out;
}

}  // namespace ksched::api::codec

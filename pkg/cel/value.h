// CEL runtime values.
//
// A Value is a small tagged union: scalars inline, strings and bytes as a view
// that either borrows (the activation outlives the evaluation) or shares an
// owned buffer, and lists, maps, optionals, quantities and semvers behind a
// pointer that again borrows or shares. Borrowing is what lets a selector such
// as `device.attributes["gpu.example.com"].model == "h100"` run without one
// allocation: every step hands on a view into the activation or the program.
//
// Errors are values too, as in cel-go: they propagate through strict
// functions and are absorbed by `&&`, `||` and `?:` when the other side
// decides.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/quantity.h"
#include "pkg/cel/net_values.h"
#include "pkg/cel/time.h"

namespace ksched::cel {

enum class Kind : uint8_t {
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kType,
  kOptional,
  kQuantity,
  kSemver,
  kIp,         // Kubernetes' net.IP
  kCidr,       // net.CIDR
  kUrl,        // kubernetes.URL
  kFormat,     // kubernetes.NamedFormat
  kTimestamp,  // google.protobuf.Timestamp
  kDuration,   // google.protobuf.Duration (nanoseconds, as Go's)
  kError,
};

class Value;
class ListValue;
class MapValue;

// A semantic version as blang/semver keeps it (Kubernetes' Semver type).
struct Semver {
  uint64_t major = 0;
  uint64_t minor = 0;
  uint64_t patch = 0;
  // Dot-separated pre-release identifiers; numeric ones compare as numbers.
  std::vector<std::string> pre;
  std::vector<std::string> build;

  std::string ToString() const;
  // blang/semver's Compare: build metadata does not take part.
  int Compare(const Semver& other) const;
};

class Value {
 public:
  Value() = default;  // null

  static Value Null() { return Value(); }
  static Value Bool(bool b) {
    Value v(Kind::kBool);
    v.scalar_.b = b;
    return v;
  }
  static Value Int(int64_t i) {
    Value v(Kind::kInt);
    v.scalar_.i = i;
    return v;
  }
  static Value Uint(uint64_t u) {
    Value v(Kind::kUint);
    v.scalar_.u = u;
    return v;
  }
  static Value Double(double d) {
    Value v(Kind::kDouble);
    v.scalar_.d = d;
    return v;
  }
  // Owned copies.
  static Value String(std::string s);
  static Value Bytes(std::string s);
  // Borrowed views: the caller keeps the characters alive while the value
  // (and anything derived from it) is used.
  static Value StringView(std::string_view s) {
    Value v(Kind::kString);
    v.text_ = s;
    return v;
  }
  static Value BytesView(std::string_view s) {
    Value v(Kind::kBytes);
    v.text_ = s;
    return v;
  }
  static Value List(std::shared_ptr<const ListValue> list);
  static Value ListRef(const ListValue* list) {
    Value v(Kind::kList);
    v.scalar_.ptr = list;
    return v;
  }
  static Value Map(std::shared_ptr<const MapValue> map);
  static Value MapRef(const MapValue* map) {
    Value v(Kind::kMap);
    v.scalar_.ptr = map;
    return v;
  }
  // A type value carries the runtime type's name ("int", "list",
  // "kubernetes.Quantity"); name must outlive the value unless owned.
  static Value TypeRef(std::string_view name) {
    Value v(Kind::kType);
    v.text_ = name;
    return v;
  }
  static Value OptionalOf(Value inner);
  static Value OptionalNone();
  static Value Quantity(const api::Quantity& q);
  static Value QuantityRef(const api::Quantity* q) {
    Value v(Kind::kQuantity);
    v.scalar_.ptr = q;
    return v;
  }
  static Value SemverOf(Semver s);
  static Value SemverRef(const Semver* s) {
    Value v(Kind::kSemver);
    v.scalar_.ptr = s;
    return v;
  }
  static Value IpOf(IpAddress ip);
  static Value CidrOf(IpPrefix prefix);
  static Value UrlOf(Url url);
  // Named formats live in the format library's static table.
  static Value FormatRef(const NamedFormat* f) {
    Value v(Kind::kFormat);
    v.scalar_.ptr = f;
    return v;
  }
  static Value TimestampOf(TimestampValue t);
  static Value Duration(int64_t nanos) {
    Value v(Kind::kDuration);
    v.scalar_.i = nanos;
    return v;
  }
  static Value Error(std::string message);

  Kind kind() const { return kind_; }
  bool is_error() const { return kind_ == Kind::kError; }

  bool bool_value() const { return scalar_.b; }
  int64_t int_value() const { return scalar_.i; }
  uint64_t uint_value() const { return scalar_.u; }
  double double_value() const { return scalar_.d; }
  std::string_view string_value() const { return text_; }
  std::string_view bytes_value() const { return text_; }
  std::string_view type_name() const { return text_; }
  std::string_view error_message() const { return text_; }
  const ListValue& list() const {
    return *static_cast<const ListValue*>(scalar_.ptr);
  }
  const MapValue& map() const {
    return *static_cast<const MapValue*>(scalar_.ptr);
  }
  const api::Quantity& quantity() const {
    return *static_cast<const api::Quantity*>(scalar_.ptr);
  }
  const Semver& semver() const {
    return *static_cast<const Semver*>(scalar_.ptr);
  }
  const IpAddress& ip() const {
    return *static_cast<const IpAddress*>(scalar_.ptr);
  }
  const IpPrefix& cidr() const {
    return *static_cast<const IpPrefix*>(scalar_.ptr);
  }
  const Url& url() const { return *static_cast<const Url*>(scalar_.ptr); }
  const NamedFormat& format() const {
    return *static_cast<const NamedFormat*>(scalar_.ptr);
  }
  const TimestampValue& timestamp() const {
    return *static_cast<const TimestampValue*>(scalar_.ptr);
  }
  int64_t duration_nanos() const { return scalar_.i; }
  // Optional: has_value() and the wrapped value (optional.none() is empty).
  bool optional_has_value() const { return scalar_.ptr != nullptr; }
  const Value& optional_value() const {
    return *static_cast<const Value*>(scalar_.ptr);
  }

  // The runtime type's name, as `type(x)` reports it.
  std::string_view TypeName() const;

  // Makes a borrowed value self-contained (copies views into owned storage).
  Value Owned() const;

  // CEL's debug form: 1, 2u, 1.5, "s", b"\x00", [1, 2], {"k": v}, int,
  // optional.of(1), quantity("1Mi"), semver("1.0.0").
  std::string DebugString() const;

 private:
  explicit Value(Kind kind) : kind_(kind) {}

  Kind kind_ = Kind::kNull;
  union Scalar {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    const void* ptr;
  } scalar_{.i = 0};
  std::string_view text_;
  // Keeps owned payloads (strings, lists, maps, ...) alive; null when the
  // value borrows.
  std::shared_ptr<const void> owner_;
};

class ListValue {
 public:
  virtual ~ListValue() = default;
  virtual size_t size() const = 0;
  virtual Value at(size_t index) const = 0;
};

class MapValue {
 public:
  virtual ~MapValue() = default;
  virtual size_t size() const = 0;
  // Looks key up as cel-go does: the key of the same kind and value first,
  // then a double, int or uint key converted losslessly to int, then uint
  // (so 1.0 finds 1, and 1 finds 1u). Returns nullopt when absent.
  virtual std::optional<Value> Find(const Value& key) const = 0;
  // Whether the map holds key (`in`). Differs from Find only for maps that
  // answer a default for any key (Kubernetes' DRA attribute maps).
  virtual bool Contains(const Value& key) const {
    return Find(key).has_value();
  }
  // Keys in iteration order.
  virtual Value KeyAt(size_t index) const = 0;
};

// A list held in a vector.
class VectorList final : public ListValue {
 public:
  explicit VectorList(std::vector<Value> items) : items_(std::move(items)) {}
  size_t size() const override { return items_.size(); }
  Value at(size_t index) const override { return items_[index]; }
  const std::vector<Value>& items() const { return items_; }

 private:
  std::vector<Value> items_;
};

// A map kept as insertion-ordered entries; lookups compare keys with CEL's
// numeric key equivalence. Small maps (what expressions build) are fastest
// scanned.
class VectorMap final : public MapValue {
 public:
  struct Entry {
    Value key;
    Value value;
  };
  explicit VectorMap(std::vector<Entry> entries)
      : entries_(std::move(entries)) {}
  size_t size() const override { return entries_.size(); }
  std::optional<Value> Find(const Value& key) const override;
  Value KeyAt(size_t index) const override { return entries_[index].key; }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

Value MakeList(std::vector<Value> items);
Value MakeMap(std::vector<VectorMap::Entry> entries);

// Adds an entry as cel-go's map literals do (a Go map underneath): a key
// equal in kind and value to an earlier one replaces its value, in place.
void PutEntry(std::vector<VectorMap::Entry>& entries, Value key, Value value);
// Removes the entry of exactly this key, if any (an absent optional entry
// `{?k: optional.none()}` does that in cel-go).
void EraseEntry(std::vector<VectorMap::Entry>& entries, const Value& key);

// cel-go's heterogeneous equality: numbers compare across int, uint and
// double; other kinds are equal only to their own kind; lists and maps
// compare element-wise. An error inside a list or map comparison is the
// result.
Value Equal(const Value& a, const Value& b);
// Strict identity for tests: same kind and value, NaN equal to NaN.
bool Identical(const Value& a, const Value& b);
// Whether a value may be a map key (bool, int, uint, string).
bool IsKeyKind(Kind kind);
// Whether two map keys name the same entry (numeric keys across kinds).
bool KeysEqual(const Value& a, const Value& b);

// Number of elements, bytes or code points, as cel-go's Sizer reports it
// (for the cost tracker): strings count code points; Kubernetes' IP and
// CIDR values count the bytes of the address or of the prefix.
uint64_t ActualSize(const Value& v);

}  // namespace ksched::cel

#include "pkg/cel/value.h"

#include <cmath>
#include <cstdio>

namespace ksched::cel {
namespace {

// Owned string payload: the view points into it.
struct OwnedText {
  std::string text;
};

std::string QuoteString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
  out += '"';
  return out;
}

std::string QuoteBytes(std::string_view s) {
  std::string out = "b\"";
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  out += '"';
  return out;
}

bool NumericKind(Kind k) {
  return k == Kind::kInt || k == Kind::kUint || k == Kind::kDouble;
}

// Compares two numbers of any numeric kinds for equality as cel-go does.
bool NumbersEqual(const Value& a, const Value& b) {
  switch (a.kind()) {
    case Kind::kInt:
      switch (b.kind()) {
        case Kind::kInt:
          return a.int_value() == b.int_value();
        case Kind::kUint:
          return a.int_value() >= 0 &&
                 static_cast<uint64_t>(a.int_value()) == b.uint_value();
        default: {
          double d = b.double_value();
          if (std::isnan(d) || d < -9223372036854775808.0 ||
              d >= 9223372036854775808.0)
            return false;
          return static_cast<double>(a.int_value()) == d &&
                 static_cast<int64_t>(d) == a.int_value();
        }
      }
    case Kind::kUint:
      switch (b.kind()) {
        case Kind::kUint:
          return a.uint_value() == b.uint_value();
        case Kind::kInt:
          return NumbersEqual(b, a);
        default: {
          double d = b.double_value();
          if (std::isnan(d) || d < 0 || d >= 18446744073709551616.0)
            return false;
          return static_cast<double>(a.uint_value()) == d &&
                 static_cast<uint64_t>(d) == a.uint_value();
        }
      }
    default:
      if (b.kind() == Kind::kDouble)
        return a.double_value() == b.double_value();
      return NumbersEqual(b, a);
  }
}

}  // namespace

Value Value::String(std::string s) {
  auto owned = std::make_shared<OwnedText>(OwnedText{std::move(s)});
  Value v(Kind::kString);
  v.text_ = owned->text;
  v.owner_ = std::move(owned);
  return v;
}

Value Value::Bytes(std::string s) {
  Value v = String(std::move(s));
  v.kind_ = Kind::kBytes;
  return v;
}

Value Value::Error(std::string message) {
  Value v = String(std::move(message));
  v.kind_ = Kind::kError;
  return v;
}

Value Value::List(std::shared_ptr<const ListValue> list) {
  Value v(Kind::kList);
  v.scalar_.ptr = list.get();
  v.owner_ = std::move(list);
  return v;
}

Value Value::Map(std::shared_ptr<const MapValue> map) {
  Value v(Kind::kMap);
  v.scalar_.ptr = map.get();
  v.owner_ = std::move(map);
  return v;
}

Value Value::OptionalOf(Value inner) {
  auto owned = std::make_shared<const Value>(std::move(inner));
  Value v(Kind::kOptional);
  v.scalar_.ptr = owned.get();
  v.owner_ = std::move(owned);
  return v;
}

Value Value::OptionalNone() {
  Value v(Kind::kOptional);
  v.scalar_.ptr = nullptr;
  return v;
}

Value Value::Quantity(const api::Quantity& q) {
  auto owned = std::make_shared<const api::Quantity>(q);
  Value v(Kind::kQuantity);
  v.scalar_.ptr = owned.get();
  v.owner_ = std::move(owned);
  return v;
}

Value Value::SemverOf(Semver s) {
  auto owned = std::make_shared<const Semver>(std::move(s));
  Value v(Kind::kSemver);
  v.scalar_.ptr = owned.get();
  v.owner_ = std::move(owned);
  return v;
}

Value Value::IpOf(IpAddress ip) {
  auto owned = std::make_shared<const IpAddress>(ip);
  Value v(Kind::kIp);
  v.scalar_.ptr = owned.get();
  v.owner_ = std::move(owned);
  return v;
}

Value Value::CidrOf(IpPrefix prefix) {
  auto owned = std::make_shared<const IpPrefix>(prefix);
  Value v(Kind::kCidr);
  v.scalar_.ptr = owned.get();
  v.owner_ = std::move(owned);
  return v;
}

Value Value::UrlOf(Url url) {
  auto owned = std::make_shared<const Url>(std::move(url));
  Value v(Kind::kUrl);
  v.scalar_.ptr = owned.get();
  v.owner_ = std::move(owned);
  return v;
}

Value Value::TimestampOf(TimestampValue t) {
  auto owned = std::make_shared<const TimestampValue>(t);
  Value v(Kind::kTimestamp);
  v.scalar_.ptr = owned.get();
  v.owner_ = std::move(owned);
  return v;
}

std::string_view Value::TypeName() const {
  switch (kind_) {
    case Kind::kNull:
      return "null_type";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kUint:
      return "uint";
    case Kind::kDouble:
      return "double";
    case Kind::kString:
      return "string";
    case Kind::kBytes:
      return "bytes";
    case Kind::kList:
      return "list";
    case Kind::kMap:
      return "map";
    case Kind::kType:
      return "type";
    case Kind::kOptional:
      return "optional_type";
    case Kind::kQuantity:
      return "kubernetes.Quantity";
    case Kind::kSemver:
      return "kubernetes.Semver";
    case Kind::kIp:
      return "net.IP";
    case Kind::kCidr:
      return "net.CIDR";
    case Kind::kUrl:
      return "kubernetes.URL";
    case Kind::kFormat:
      return "kubernetes.NamedFormat";
    case Kind::kTimestamp:
      return "google.protobuf.Timestamp";
    case Kind::kDuration:
      return "google.protobuf.Duration";
    case Kind::kError:
      return "error";
  }
  return "error";
}

Value Value::Owned() const {
  switch (kind_) {
    case Kind::kString:
      return owner_ ? *this : String(std::string(text_));
    case Kind::kBytes:
      return owner_ ? *this : Bytes(std::string(text_));
    case Kind::kType: {
      if (owner_) return *this;
      // A type name may point into the program that produced it.
      Value v = String(std::string(text_));
      v.kind_ = Kind::kType;
      return v;
    }
    case Kind::kList: {
      if (owner_) return *this;
      std::vector<Value> items;
      for (size_t i = 0; i < list().size(); ++i)
        items.push_back(list().at(i).Owned());
      return MakeList(std::move(items));
    }
    case Kind::kMap: {
      if (owner_) return *this;
      std::vector<VectorMap::Entry> entries;
      for (size_t i = 0; i < map().size(); ++i) {
        Value k = map().KeyAt(i);
        entries.push_back({k.Owned(), map().Find(k)->Owned()});
      }
      return MakeMap(std::move(entries));
    }
    case Kind::kOptional:
      if (!optional_has_value()) return *this;
      return OptionalOf(optional_value().Owned());
    case Kind::kQuantity:
      return owner_ ? *this : Quantity(quantity());
    case Kind::kSemver:
      return owner_ ? *this : SemverOf(semver());
    default:
      return *this;
  }
}

std::string Value::DebugString() const {
  switch (kind_) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return scalar_.b ? "true" : "false";
    case Kind::kInt:
      return std::to_string(scalar_.i);
    case Kind::kUint:
      return std::to_string(scalar_.u) + "u";
    case Kind::kDouble: {
      double d = scalar_.d;
      if (std::isnan(d)) return "double(\"NaN\")";
      if (std::isinf(d))
        return d > 0 ? "double(\"Infinity\")" : "double(\"-Infinity\")";
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.17g", d);
      std::string s = buf;
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
      return s;
    }
    case Kind::kString:
      return QuoteString(text_);
    case Kind::kBytes:
      return QuoteBytes(text_);
    case Kind::kList: {
      std::string out = "[";
      for (size_t i = 0; i < list().size(); ++i) {
        if (i) out += ", ";
        out += list().at(i).DebugString();
      }
      return out + "]";
    }
    case Kind::kMap: {
      std::string out = "{";
      for (size_t i = 0; i < map().size(); ++i) {
        if (i) out += ", ";
        Value k = map().KeyAt(i);
        out += k.DebugString() + ": " + map().Find(k)->DebugString();
      }
      return out + "}";
    }
    case Kind::kType:
      return std::string(text_);
    case Kind::kOptional:
      return optional_has_value()
                 ? "optional.of(" + optional_value().DebugString() + ")"
                 : "optional.none()";
    case Kind::kQuantity:
      return "quantity(\"" + quantity().ToString() + "\")";
    case Kind::kSemver:
      return "semver(\"" + semver().ToString() + "\")";
    case Kind::kIp:
      return "ip(\"" + ip().ToString() + "\")";
    case Kind::kCidr:
      return "cidr(\"" + cidr().ToString() + "\")";
    case Kind::kUrl:
      return "url(\"" + url().ToString() + "\")";
    case Kind::kFormat:
      return "format." + std::string(format().key) + "()";
    case Kind::kTimestamp: {
      // cel-go's debug form prints the instant in UTC.
      TimestampValue utc = timestamp();
      utc.utc_offset = 0;
      return "timestamp(\"" + gotime::FormatRfc3339Nano(utc) + "\")";
    }
    case Kind::kDuration:
      return "duration(\"" + gotime::FormatDurationSeconds(duration_nanos()) +
             "\")";
    case Kind::kError:
      return "error(" + QuoteString(text_) + ")";
  }
  return "?";
}

namespace {

// Whether two keys are one key of a Go map of CEL values: same kind, same
// value (NaN never equal; lists and maps only to themselves).
bool SameKey(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::kNull:
      return true;
    case Kind::kBool:
      return a.bool_value() == b.bool_value();
    case Kind::kInt:
      return a.int_value() == b.int_value();
    case Kind::kUint:
      return a.uint_value() == b.uint_value();
    case Kind::kDouble:
      return a.double_value() == b.double_value();
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kType:
      return a.string_value() == b.string_value();
    case Kind::kList:
      return &a.list() == &b.list();
    case Kind::kMap:
      return &a.map() == &b.map();
    default: {
      Value eq = Equal(a, b);
      return !eq.is_error() && eq.bool_value();
    }
  }
}

}  // namespace

std::optional<Value> VectorMap::Find(const Value& key) const {
  auto exact = [&](const Value& k) -> std::optional<Value> {
    for (const Entry& e : entries_)
      if (SameKey(e.key, k)) return e.value;
    return std::nullopt;
  };
  if (auto v = exact(key)) return v;
  switch (key.kind()) {
    case Kind::kDouble: {
      double d = key.double_value();
      if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
          static_cast<double>(static_cast<int64_t>(d)) == d) {
        if (auto v = exact(Value::Int(static_cast<int64_t>(d)))) return v;
      }
      if (d >= 0 && d < 18446744073709551616.0 &&
          static_cast<double>(static_cast<uint64_t>(d)) == d) {
        return exact(Value::Uint(static_cast<uint64_t>(d)));
      }
      return std::nullopt;
    }
    case Kind::kInt:
      if (key.int_value() >= 0)
        return exact(Value::Uint(static_cast<uint64_t>(key.int_value())));
      return std::nullopt;
    case Kind::kUint:
      if (key.uint_value() <= static_cast<uint64_t>(INT64_MAX))
        return exact(Value::Int(static_cast<int64_t>(key.uint_value())));
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

void PutEntry(std::vector<VectorMap::Entry>& entries, Value key, Value value) {
  for (VectorMap::Entry& e : entries) {
    if (SameKey(e.key, key)) {
      e.value = std::move(value);
      return;
    }
  }
  entries.push_back({std::move(key), std::move(value)});
}

void EraseEntry(std::vector<VectorMap::Entry>& entries, const Value& key) {
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (SameKey(it->key, key)) {
      entries.erase(it);
      return;
    }
  }
}

Value MakeList(std::vector<Value> items) {
  return Value::List(std::make_shared<const VectorList>(std::move(items)));
}

Value MakeMap(std::vector<VectorMap::Entry> entries) {
  return Value::Map(std::make_shared<const VectorMap>(std::move(entries)));
}

bool IsKeyKind(Kind kind) {
  return kind == Kind::kBool || kind == Kind::kInt || kind == Kind::kUint ||
         kind == Kind::kString;
}

bool KeysEqual(const Value& a, const Value& b) {
  if (NumericKind(a.kind()) && NumericKind(b.kind())) {
    return NumbersEqual(a, b);
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::kBool:
      return a.bool_value() == b.bool_value();
    case Kind::kString:
      return a.string_value() == b.string_value();
    default:
      return false;
  }
}

Value Equal(const Value& a, const Value& b) {
  if (a.is_error()) return a;
  if (b.is_error()) return b;
  if (NumericKind(a.kind()) && NumericKind(b.kind())) {
    return Value::Bool(NumbersEqual(a, b));
  }
  if (a.kind() != b.kind()) return Value::Bool(false);
  switch (a.kind()) {
    case Kind::kNull:
      return Value::Bool(true);
    case Kind::kBool:
      return Value::Bool(a.bool_value() == b.bool_value());
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kType:
      return Value::Bool(a.string_value() == b.string_value());
    case Kind::kList: {
      const ListValue& x = a.list();
      const ListValue& y = b.list();
      if (x.size() != y.size()) return Value::Bool(false);
      Value result = Value::Bool(true);
      for (size_t i = 0; i < x.size(); ++i) {
        Value e = Equal(x.at(i), y.at(i));
        if (e.is_error()) {
          result = e;
        } else if (!e.bool_value()) {
          return Value::Bool(false);
        }
      }
      return result;
    }
    case Kind::kMap: {
      const MapValue& x = a.map();
      const MapValue& y = b.map();
      if (x.size() != y.size()) return Value::Bool(false);
      Value result = Value::Bool(true);
      for (size_t i = 0; i < x.size(); ++i) {
        Value k = x.KeyAt(i);
        std::optional<Value> other = y.Find(k);
        if (!other) return Value::Bool(false);
        Value e = Equal(*x.Find(k), *other);
        if (e.is_error()) {
          result = e;
        } else if (!e.bool_value()) {
          return Value::Bool(false);
        }
      }
      return result;
    }
    case Kind::kOptional:
      if (a.optional_has_value() != b.optional_has_value())
        return Value::Bool(false);
      if (!a.optional_has_value()) return Value::Bool(true);
      return Equal(a.optional_value(), b.optional_value());
    case Kind::kQuantity:
      return Value::Bool(a.quantity() == b.quantity());
    case Kind::kSemver:
      return Value::Bool(a.semver().Compare(b.semver()) == 0);
    case Kind::kIp:
      return Value::Bool(a.ip() == b.ip());
    case Kind::kCidr:
      return Value::Bool(a.cidr() == b.cidr());
    case Kind::kUrl:
      return Value::Bool(a.url().ToString() == b.url().ToString());
    case Kind::kFormat:
      return Value::Bool(a.format().name == b.format().name);
    case Kind::kTimestamp:
      return Value::Bool(a.timestamp().seconds == b.timestamp().seconds &&
                         a.timestamp().nanos == b.timestamp().nanos);
    case Kind::kDuration:
      return Value::Bool(a.duration_nanos() == b.duration_nanos());
    default:
      return Value::Bool(false);
  }
}

bool Identical(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::kDouble: {
      double x = a.double_value(), y = b.double_value();
      if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
      return x == y && std::signbit(x) == std::signbit(y);
    }
    case Kind::kList: {
      if (a.list().size() != b.list().size()) return false;
      for (size_t i = 0; i < a.list().size(); ++i)
        if (!Identical(a.list().at(i), b.list().at(i))) return false;
      return true;
    }
    case Kind::kMap: {
      if (a.map().size() != b.map().size()) return false;
      for (size_t i = 0; i < a.map().size(); ++i) {
        Value k = a.map().KeyAt(i);
        // Keys must match in kind too.
        bool found = false;
        for (size_t j = 0; j < b.map().size(); ++j) {
          Value k2 = b.map().KeyAt(j);
          if (Identical(k, k2)) {
            if (!Identical(*a.map().Find(k), *b.map().Find(k2))) return false;
            found = true;
            break;
          }
        }
        if (!found) return false;
      }
      return true;
    }
    case Kind::kOptional:
      if (a.optional_has_value() != b.optional_has_value()) return false;
      return !a.optional_has_value() ||
             Identical(a.optional_value(), b.optional_value());
    case Kind::kError:
      return a.error_message() == b.error_message();
    case Kind::kQuantity:
      return a.quantity() == b.quantity();
    default: {
      Value e = Equal(a, b);
      return !e.is_error() && e.bool_value();
    }
  }
}

uint64_t ActualSize(const Value& v) {
  switch (v.kind()) {
    case Kind::kString: {
      uint64_t n = 0;
      for (unsigned char c : v.string_value())
        if ((c & 0xC0) != 0x80) ++n;
      return n;
    }
    case Kind::kBytes:
      return v.bytes_value().size();
    case Kind::kList:
      return v.list().size();
    case Kind::kMap:
      return v.map().size();
    case Kind::kIp:
      return static_cast<uint64_t>(v.ip().BitLen() / 8);
    case Kind::kCidr:
      return static_cast<uint64_t>((v.cidr().bits + 7) / 8);
    default:
      return 1;
  }
}

}  // namespace ksched::cel

#include "pkg/config/field_errors.h"

#include <set>

#include "pkg/util/long_values.h"

namespace ksched::config {

FieldPath FieldPath::Child(std::string_view name) const {
  FieldPath p = *this;
  if (!p.text_.empty()) p.text_ += '.';
  p.text_ += name;
  return p;
}

FieldPath FieldPath::Index(size_t index) const {
  FieldPath p = *this;
  p.text_ += '[' + std::to_string(index) + ']';
  return p;
}

FieldPath FieldPath::Key(std::string_view key) const {
  FieldPath p = *this;
  p.text_ += '[';
  p.text_ += key;
  p.text_ += ']';
  return p;
}

std::string GoQuote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
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
      case '\v':
        out += "\\v";
        break;
      default:
        // UTF-8 text is printable in Go's sense and kept as is.
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string GoValue(int64_t v) { return std::to_string(v); }

std::string GoQuotedList(const std::vector<std::string>& values) {
  // An absent list decodes to nil, which %#v prints so.
  if (values.empty()) return "[]string(nil)";
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += GoQuote(values[i]);
  }
  return out + "}";
}

std::string FieldError::String() const {
  std::string body;
  // A value of absurd length (a 10 MB name) is cut: every value kube
  // accepts is far shorter and stays whole.
  std::optional<std::string> value = this->value;
  if (value && value->size() > util::kLongValueBytes) {
    // A quoted string keeps its quotes; its length is the string's own.
    const bool quoted =
        value->size() >= 2 && value->front() == '"' && value->back() == '"';
    value = quoted ? "\"" +
                         util::ElideLongValue(std::string_view(*value).substr(
                             1, value->size() - 2)) +
                         "\""
                   : util::ElideLongValue(*value);
  }
  switch (type) {
    case Type::kRequired:
      body = "Required value";
      break;
    case Type::kForbidden:
      body = "Forbidden";
      break;
    case Type::kInvalid:
      body = "Invalid value: " + value.value_or("null");
      break;
    case Type::kDuplicate:
      body = "Duplicate value: " + value.value_or("null");
      break;
    case Type::kNotSupported:
      body = "Unsupported value: " + value.value_or("null");
      break;
    case Type::kTooLong:
      body = "Too long";
      break;
    case Type::kTooMany:
      body = "Too many: " + value.value_or("null");
      break;
    case Type::kNotFound:
      body = "Not found: " + value.value_or("null");
      break;
    case Type::kInternal:
      body = "Internal error";
      break;
  }
  if (!detail.empty()) body += ": " + detail;
  return field + ": " + body;
}

FieldError Required(const FieldPath& path, std::string_view detail) {
  return {FieldError::Type::kRequired, path.String(), std::nullopt,
          std::string(detail)};
}

FieldError Forbidden(const FieldPath& path, std::string_view detail) {
  return {FieldError::Type::kForbidden, path.String(), std::nullopt,
          std::string(detail)};
}

FieldError Invalid(const FieldPath& path, std::string value,
                   std::string_view detail) {
  return {FieldError::Type::kInvalid, path.String(), std::move(value),
          std::string(detail)};
}

FieldError Duplicate(const FieldPath& path, std::string value) {
  return {FieldError::Type::kDuplicate, path.String(), std::move(value), ""};
}

FieldError NotSupported(const FieldPath& path, std::string value,
                        const std::vector<std::string>& supported) {
  std::string detail;
  if (!supported.empty()) {
    detail = "supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += GoQuote(supported[i]);
    }
  }
  return {FieldError::Type::kNotSupported, path.String(), std::move(value),
          std::move(detail)};
}

FieldError TooLong(const FieldPath& path, int64_t max_length) {
  std::string detail = "value is too long";
  if (max_length >= 0) {
    detail = "may not be more than " + std::to_string(max_length) +
             (max_length == 1 ? " byte" : " bytes");
  }
  return {FieldError::Type::kTooLong, path.String(), std::nullopt,
          std::move(detail)};
}

FieldError TooMany(const FieldPath& path, int64_t actual, int64_t max_items) {
  std::string detail = "has too many items";
  if (max_items >= 0) {
    detail = "must have at most " + std::to_string(max_items) +
             (max_items == 1 ? " item" : " items");
  }
  return {FieldError::Type::kTooMany, path.String(), std::to_string(actual),
          std::move(detail)};
}

FieldError NotFound(const FieldPath& path, std::string value) {
  return {FieldError::Type::kNotFound, path.String(), std::move(value), ""};
}

FieldError InternalError(const FieldPath& path, std::string_view error) {
  return {FieldError::Type::kInternal, path.String(), std::nullopt,
          std::string(error)};
}

std::string AggregateMessage(const FieldErrors& errors) {
  if (errors.empty()) return "";
  if (errors.size() == 1) return errors[0].String();
  std::set<std::string> seen;
  std::string joined;
  for (const FieldError& e : errors) {
    std::string message = e.String();
    if (!seen.insert(message).second) continue;
    if (seen.size() > 1) joined += ", ";
    joined += message;
  }
  if (seen.size() == 1) return joined;
  return "[" + joined + "]";
}

}  // namespace ksched::config

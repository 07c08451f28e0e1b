#include "pkg/api/label_selector.h"

#include <algorithm>
#include <charconv>

#include "pkg/api/key_encoding.h"
#include "pkg/api/validation.h"

namespace ksched::api {
namespace {

bool ParseInt64(std::string_view text, int64_t* out) {
  // strconv.ParseInt accepts an optional sign.
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return false;
  uint64_t magnitude = 0;
  auto [ptr, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return false;
  if (negative) {
    if (magnitude > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *out = static_cast<int64_t>(0 - magnitude);
  } else {
    if (magnitude > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(magnitude);
  }
  return true;
}

std::string Quote(std::string_view s) {
  // Built by appends: GCC 12 at -O3 misreports "\"" + s + "\"" as an
  // overlapping memcpy (GCC bug 105329).
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  out.append(s);
  out.push_back('"');
  return out;
}

}  // namespace

bool Selector::Requirement::Matches(const StringMap& labels) const {
  const std::string* value = labels.Find(key);
  switch (op) {
    case Op::kIn:
      return value != nullptr &&
             std::find(values.begin(), values.end(), *value) != values.end();
    case Op::kNotIn:
      return value == nullptr ||
             std::find(values.begin(), values.end(), *value) == values.end();
    case Op::kExists:
      return value != nullptr;
    case Op::kDoesNotExist:
      return value == nullptr;
    case Op::kGt:
    case Op::kLt: {
      int64_t n;
      if (value == nullptr || !ParseInt64(*value, &n)) return false;
      return op == Op::kGt ? n > number : n < number;
    }
  }
  return false;
}

util::Result<void> Selector::Add(std::string key, Op op,
                                 std::vector<std::string> values) {
  if (!IsQualifiedName(key)) {
    return util::Error("key: Invalid value: " + Quote(key) +
                       ": name part must consist of alphanumeric characters, "
                       "'-', '_' or '.', and must start and end with an "
                       "alphanumeric character");
  }
  Requirement r{std::move(key), op, std::move(values), 0};
  switch (op) {
    case Op::kIn:
    case Op::kNotIn:
      if (r.values.empty()) {
        return util::Error(
            "values: Invalid value: []: for 'in', 'notin' operators, values "
            "set can't be empty");
      }
      break;
    case Op::kExists:
    case Op::kDoesNotExist:
      if (!r.values.empty()) {
        return util::Error(
            "values: Invalid value: values set must be empty for exists and "
            "does not exist");
      }
      break;
    case Op::kGt:
    case Op::kLt:
      if (r.values.size() != 1) {
        return util::Error(
            "values: Invalid value: for 'Gt', 'Lt' operators, exactly one "
            "value is required");
      }
      if (!ParseInt64(r.values[0], &r.number)) {
        return util::Error("values[0]: Invalid value: " + Quote(r.values[0]) +
                           ": for 'Gt', 'Lt' operators, the value must be an "
                           "integer");
      }
      break;
  }
  for (size_t i = 0; i < r.values.size(); ++i) {
    if (!IsValidLabelValue(r.values[i])) {
      return util::Error("values[" + std::to_string(i) +
                         "]: Invalid value: " + Quote(r.values[i]) +
                         ": a valid label must be an empty string or consist "
                         "of alphanumeric characters, '-', '_' or '.', and "
                         "must start and end with an alphanumeric character");
    }
  }
  requirements_.push_back(std::move(r));
  return {};
}

util::Result<Selector> Selector::FromLabelSelector(const LabelSelector* s) {
  if (s == nullptr) return Nothing();
  Selector selector;
  for (const auto& [key, value] : s->match_labels) {
    if (auto r = selector.Add(key, Op::kIn, {value}); !r.ok()) return r.error();
  }
  for (const auto& expr : s->match_expressions) {
    Op op;
    switch (expr.op) {
      case LabelSelectorOperator::kIn:
        op = Op::kIn;
        break;
      case LabelSelectorOperator::kNotIn:
        op = Op::kNotIn;
        break;
      case LabelSelectorOperator::kExists:
        op = Op::kExists;
        break;
      case LabelSelectorOperator::kDoesNotExist:
        op = Op::kDoesNotExist;
        break;
      default:
        return util::Error("not a valid label selector operator");
    }
    if (auto r = selector.Add(expr.key, op, expr.values); !r.ok()) {
      return r.error();
    }
  }
  return selector;
}

bool Selector::Matches(const StringMap& labels) const {
  if (nothing_) return false;
  for (const Requirement& r : requirements_) {
    if (!r.Matches(labels)) return false;
  }
  return true;
}

void Selector::AppendKey(std::string* out) const {
  // Every string is length-prefixed, so no choice of label keys or values
  // can make two selectors encode alike.
  auto append = [out](std::string_view s) { AppendKeyField(out, s); };
  out->append(nothing_ ? "N" : "S");
  out->append(std::to_string(requirements_.size()));
  for (const Requirement& r : requirements_) {
    out->push_back('|');
    append(r.key);
    out->append(std::to_string(static_cast<int>(r.op)));
    out->push_back(',');
    out->append(std::to_string(r.number));
    out->push_back(',');
    out->append(std::to_string(r.values.size()));
    for (const std::string& v : r.values) append(v);
  }
}

}  // namespace ksched::api

// Kubernetes' regex library (apiserver/pkg/cel/library/regex.go): find and
// findAll with Go's regexp semantics (RE2 syntax, leftmost-first matching),
// run on RE2.

#include <re2/re2.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/cel/function.h"
#include "pkg/cel/lib_internal.h"
#include "pkg/cel/libraries.h"
#include "pkg/cel/regex.h"

namespace ksched::cel {
// Named so that unity builds keep these helpers apart from other files'.
namespace k8s_regex {
namespace {

// Compiles pattern; on failure returns the error value Kubernetes' library
// reports.
std::shared_ptr<const RE2> Compile(std::string_view pattern, Value* error) {
  std::string message;
  std::shared_ptr<const RE2> re = CompileRegex(pattern, &message);
  if (!re) *error = Value::Error("Illegal regex: " + message);
  return re;
}

// Go's Regexp.FindAllString(s, n): successive non-overlapping matches; an
// empty match right after the previous match is skipped.
std::vector<std::string> FindAll(const RE2& re, std::string_view s, int64_t n) {
  std::vector<std::string> out;
  if (n < 0) n = static_cast<int64_t>(s.size()) + 1;
  const re2::StringPiece text(s.data(), s.size());
  size_t pos = 0;
  int64_t found = 0;
  int64_t prev_match_end = -1;
  while (found < n && pos <= s.size()) {
    re2::StringPiece match;
    if (!re.Match(text, pos, s.size(), RE2::UNANCHORED, &match, 1)) break;
    const auto begin = static_cast<size_t>(match.data() - s.data());
    const size_t end = begin + match.size();
    bool accept = true;
    if (end == pos) {
      // An empty match.
      if (static_cast<int64_t>(begin) == prev_match_end) accept = false;
      size_t width = 0;
      if (pos < s.size()) lib::DecodeRune(s.substr(pos), &width);
      pos = width > 0 ? pos + width : s.size() + 1;
    } else {
      pos = end;
    }
    prev_match_end = static_cast<int64_t>(end);
    if (accept) {
      out.emplace_back(s.substr(begin, end - begin));
      ++found;
    }
  }
  return out;
}

Value Find(std::string_view str, std::string_view pattern) {
  Value error;
  const std::shared_ptr<const RE2> re = Compile(pattern, &error);
  if (!re) return error;
  re2::StringPiece match;
  if (!re->Match(re2::StringPiece(str.data(), str.size()), 0, str.size(),
                 RE2::UNANCHORED, &match, 1)) {
    return Value::String("");
  }
  return Value::String(std::string(match.data(), match.size()));
}

Value FindAllValue(std::string_view str, std::string_view pattern, int64_t n) {
  Value error;
  const std::shared_ptr<const RE2> re = Compile(pattern, &error);
  if (!re) return error;
  return lib::MakeStringList(FindAll(*re, str, n));
}

std::optional<uint64_t> RegexCost(std::span<const Value> args, const Value&) {
  const uint64_t str_cost =
      lib::CeilCost((1.0 + static_cast<double>(lib::SizerSize(args[0]))) * 0.1);
  const uint64_t regex_cost =
      lib::CeilCost(static_cast<double>(lib::SizerSize(args[1])) * 0.25);
  return str_cost * regex_cost;
}

}  // namespace

void Register(FunctionRegistry& r) {
  const Type s = Type::String();
  r.Add("find", Member(
                    "string_find_string", {s, s}, s,
                    [](std::span<const Value> a) {
                      return Find(a[0].string_value(), a[1].string_value());
                    },
                    RegexCost));
  r.Add("findAll", Member(
                       "string_find_all_string", {s, s}, Type::List(s),
                       [](std::span<const Value> a) {
                         return FindAllValue(a[0].string_value(),
                                             a[1].string_value(), -1);
                       },
                       RegexCost));
  r.Add("findAll",
        Member(
            "string_find_all_string_int", {s, s, Type::Int()}, Type::List(s),
            [](std::span<const Value> a) {
              return FindAllValue(a[0].string_value(), a[1].string_value(),
                                  a[2].int_value());
            },
            RegexCost));
}

}  // namespace k8s_regex

void RegisterKubernetesRegex(FunctionRegistry& r) { k8s_regex::Register(r); }

}  // namespace ksched::cel

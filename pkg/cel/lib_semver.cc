// Kubernetes' semver library (apiserver/pkg/cel/library/semverlib.go) at
// version 1, with blang/semver v4's parsing, printing and ordering.

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/cel/function.h"
#include "pkg/cel/lib_internal.h"
#include "pkg/cel/libraries.h"
#include "pkg/util/result.h"

namespace ksched::cel {
// Named so that unity builds keep these helpers apart from other files'.
namespace semver_lib {
namespace {

constexpr std::string_view kNumbers = "0123456789";
constexpr std::string_view kAlphanum =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789";

bool ContainsOnly(std::string_view s, std::string_view set) {
  return s.find_first_not_of(set) == std::string_view::npos;
}

bool HasLeadingZeroes(std::string_view s) {
  return s.size() > 1 && s[0] == '0';
}

std::vector<std::string_view> SplitView(std::string_view s, char sep,
                                        int limit) {
  std::vector<std::string_view> parts;
  while (limit < 0 || static_cast<int>(parts.size()) < limit - 1) {
    const size_t at = s.find(sep);
    if (at == std::string_view::npos) break;
    parts.push_back(s.substr(0, at));
    s.remove_prefix(at + 1);
  }
  parts.push_back(s);
  return parts;
}

// strconv.ParseUint(s, 10, 64) for a string of digits (possibly empty).
util::Result<uint64_t> ParseUint(std::string_view s) {
  uint64_t v = 0;
  if (s.empty()) {
    return util::Error("strconv.ParseUint: parsing " + lib::GoQuote(s) +
                       ": invalid syntax");
  }
  const auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  if (res.ec != std::errc() || res.ptr != s.data() + s.size()) {
    return util::Error("strconv.ParseUint: parsing " + lib::GoQuote(s) +
                       ": value out of range");
  }
  return v;
}

util::Result<uint64_t> ParseNumber(std::string_view s, std::string_view what) {
  if (!ContainsOnly(s, kNumbers)) {
    return util::Error("Invalid character(s) found in " + std::string(what) +
                       " number " + lib::GoQuote(s));
  }
  if (HasLeadingZeroes(s)) {
    std::string capital(what);
    capital[0] = static_cast<char>(capital[0] - 'a' + 'A');
    return util::Error(capital + " number must not contain leading zeroes " +
                       lib::GoQuote(s));
  }
  return ParseUint(s);
}

// blang/semver's Parse.
util::Result<Semver> ParseSemver(std::string_view s) {
  if (s.empty()) return util::Error("Version string empty");
  const std::vector<std::string_view> parts = SplitView(s, '.', 3);
  if (parts.size() != 3) {
    return util::Error("No Major.Minor.Patch elements found");
  }
  Semver v;
  util::Result<uint64_t> major = ParseNumber(parts[0], "major");
  if (!major.ok()) return major.error();
  util::Result<uint64_t> minor = ParseNumber(parts[1], "minor");
  if (!minor.ok()) return minor.error();
  v.major = *major;
  v.minor = *minor;

  std::string_view patch = parts[2];
  std::vector<std::string_view> build;
  std::vector<std::string_view> prerelease;
  if (const size_t at = patch.find('+'); at != std::string_view::npos) {
    build = SplitView(patch.substr(at + 1), '.', -1);
    patch = patch.substr(0, at);
  }
  if (const size_t at = patch.find('-'); at != std::string_view::npos) {
    prerelease = SplitView(patch.substr(at + 1), '.', -1);
    patch = patch.substr(0, at);
  }
  util::Result<uint64_t> patch_num = ParseNumber(patch, "patch");
  if (!patch_num.ok()) return patch_num.error();
  v.patch = *patch_num;

  for (std::string_view pr : prerelease) {
    if (pr.empty()) return util::Error("Prerelease is empty");
    if (ContainsOnly(pr, kNumbers)) {
      if (HasLeadingZeroes(pr)) {
        return util::Error(
            "Numeric PreRelease version must not contain leading zeroes " +
            lib::GoQuote(pr));
      }
      util::Result<uint64_t> num = ParseUint(pr);
      if (!num.ok()) return num.error();
      v.pre.push_back(std::to_string(*num));
    } else if (ContainsOnly(pr, kAlphanum)) {
      v.pre.emplace_back(pr);
    } else {
      return util::Error("Invalid character(s) found in prerelease " +
                         lib::GoQuote(pr));
    }
  }
  for (std::string_view b : build) {
    if (b.empty()) return util::Error("Build meta data is empty");
    if (!ContainsOnly(b, kAlphanum)) {
      return util::Error("Invalid character(s) found in build meta data " +
                         lib::GoQuote(b));
    }
    v.build.emplace_back(b);
  }
  return v;
}

// Kubernetes' normalizeAndParse: an optional "v", leading zeroes dropped,
// missing minor and patch filled with 0.
util::Result<Semver> NormalizeAndParse(std::string_view input) {
  if (!input.empty() && input[0] == 'v') input.remove_prefix(1);
  std::vector<std::string> parts;
  for (std::string_view p : SplitView(input, '.', 3)) {
    std::string part(p);
    if (part.size() > 1) {
      const size_t first = part.find_first_not_of('0');
      part = first == std::string::npos ? "" : part.substr(first);
      if (part.empty() || part[0] < '0' || part[0] > '9') part = "0" + part;
    }
    parts.push_back(std::move(part));
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      return util::Error(
          "short version cannot contain PreRelease/Build meta data");
    }
    while (parts.size() < 3) parts.emplace_back("0");
  }
  return ParseSemver(parts[0] + "." + parts[1] + "." + parts[2]);
}

Value ToSemver(std::string_view s, bool normalize) {
  util::Result<Semver> v = normalize ? NormalizeAndParse(s) : ParseSemver(s);
  if (!v.ok()) return Value::Error(v.error().message());
  return Value::SemverOf(std::move(*v));
}

Value IsSemver(std::string_view s, bool normalize) {
  return Value::Bool(normalize ? NormalizeAndParse(s).ok()
                               : ParseSemver(s).ok());
}

std::optional<uint64_t> ParseCost(std::span<const Value> args, const Value&) {
  return lib::CeilCost(static_cast<double>(lib::SizerSize(args[0])) * 0.1);
}

std::optional<uint64_t> UnitCost(std::span<const Value>, const Value&) {
  return 1;
}

bool IsNumeric(const std::string& s) {
  return !s.empty() && ContainsOnly(s, kNumbers);
}

// blang's PRVersion.Compare.
int ComparePre(const std::string& a, const std::string& b) {
  const bool an = IsNumeric(a);
  const bool bn = IsNumeric(b);
  if (an && !bn) return -1;
  if (!an && bn) return 1;
  if (an && bn) {
    uint64_t x = 0;
    uint64_t y = 0;
    std::from_chars(a.data(), a.data() + a.size(), x);
    std::from_chars(b.data(), b.data() + b.size(), y);
    return x == y ? 0 : (x > y ? 1 : -1);
  }
  return a == b ? 0 : (a > b ? 1 : -1);
}

}  // namespace
}  // namespace semver_lib

std::string Semver::ToString() const {
  std::string out = std::to_string(major) + "." + std::to_string(minor) + "." +
                    std::to_string(patch);
  for (size_t i = 0; i < pre.size(); ++i) {
    out += i == 0 ? '-' : '.';
    out += pre[i];
  }
  for (size_t i = 0; i < build.size(); ++i) {
    out += i == 0 ? '+' : '.';
    out += build[i];
  }
  return out;
}

int Semver::Compare(const Semver& o) const {
  if (major != o.major) return major > o.major ? 1 : -1;
  if (minor != o.minor) return minor > o.minor ? 1 : -1;
  if (patch != o.patch) return patch > o.patch ? 1 : -1;
  if (pre.empty() && o.pre.empty()) return 0;
  if (pre.empty()) return 1;
  if (o.pre.empty()) return -1;
  size_t i = 0;
  for (; i < pre.size() && i < o.pre.size(); ++i) {
    const int c = semver_lib::ComparePre(pre[i], o.pre[i]);
    if (c != 0) return c;
  }
  if (i == pre.size() && i == o.pre.size()) return 0;
  if (i == pre.size()) return -1;
  return 1;
}

namespace semver_lib {

void Register(FunctionRegistry& r) {
  const Type semver = Type::Opaque("kubernetes.Semver");
  const Type s = Type::String();
  const Type b = Type::Bool();
  r.Add("semver", Global(
                      "string_to_semver", {s}, semver,
                      [](std::span<const Value> a) {
                        return ToSemver(a[0].string_value(), false);
                      },
                      ParseCost));
  r.Add("semver", Global(
                      "string_bool_to_semver", {s, b}, semver,
                      [](std::span<const Value> a) {
                        return ToSemver(a[0].string_value(), a[1].bool_value());
                      },
                      ParseCost));
  r.Add("isSemver", Global(
                        "is_semver_string", {s}, b,
                        [](std::span<const Value> a) {
                          return IsSemver(a[0].string_value(), false);
                        },
                        ParseCost));
  r.Add("isSemver", Global(
                        "is_semver_string_bool", {s, b}, b,
                        [](std::span<const Value> a) {
                          return IsSemver(a[0].string_value(),
                                          a[1].bool_value());
                        },
                        ParseCost));
  r.Add("isGreaterThan",
        Member(
            "semver_is_greater_than", {semver, semver}, b,
            [](std::span<const Value> a) {
              return Value::Bool(a[0].semver().Compare(a[1].semver()) == 1);
            },
            UnitCost));
  r.Add("isLessThan",
        Member(
            "semver_is_less_than", {semver, semver}, b,
            [](std::span<const Value> a) {
              return Value::Bool(a[0].semver().Compare(a[1].semver()) == -1);
            },
            UnitCost));
  r.Add("compareTo",
        Member(
            "semver_compare_to", {semver, semver}, Type::Int(),
            [](std::span<const Value> a) {
              return Value::Int(a[0].semver().Compare(a[1].semver()));
            },
            UnitCost));
  // Go converts the uint64 parts with int64(v): large parts wrap.
  r.Add("major",
        Member(
            "semver_major", {semver}, Type::Int(),
            [](std::span<const Value> a) {
              return Value::Int(static_cast<int64_t>(a[0].semver().major));
            },
            UnitCost));
  r.Add("minor",
        Member(
            "semver_minor", {semver}, Type::Int(),
            [](std::span<const Value> a) {
              return Value::Int(static_cast<int64_t>(a[0].semver().minor));
            },
            UnitCost));
  r.Add("patch",
        Member(
            "semver_patch", {semver}, Type::Int(),
            [](std::span<const Value> a) {
              return Value::Int(static_cast<int64_t>(a[0].semver().patch));
            },
            UnitCost));
}

}  // namespace semver_lib

void RegisterSemver(FunctionRegistry& r) { semver_lib::Register(r); }

util::Result<Semver> ParseSemver(std::string_view text) {
  return semver_lib::ParseSemver(text);
}

}  // namespace ksched::cel

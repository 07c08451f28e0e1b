#include "pkg/plugins/nodedeclaredfeatures/version.h"

#include <charconv>
#include <vector>

namespace ksched::plugins::nodedeclaredfeatures {
namespace {

// A decimal number without sign or leading zeros (semver's numeric
// identifier), or nullopt.
std::optional<uint64_t> Number(std::string_view s) {
  if (s.empty() || (s.size() > 1 && s.front() == '0')) return std::nullopt;
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string_view::npos
                                        ? std::string_view::npos
                                        : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

bool IsIdentifier(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                    (c >= 'A' && c <= 'Z') || c == '-';
    if (!ok) return false;
  }
  return true;
}

// A pre-release identifier read as a number the way kube's comparison does
// (strconv.ParseUint: leading zeros allowed).
std::optional<uint64_t> AnyNumber(std::string_view s) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
    return std::nullopt;
  }
  return n;
}

int Sign(uint64_t a, uint64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

}  // namespace

std::optional<SemanticVersion> SemanticVersion::Parse(std::string_view text) {
  if (text.starts_with('v')) text.remove_prefix(1);
  if (size_t plus = text.find('+'); plus != std::string_view::npos) {
    for (std::string_view id : Split(text.substr(plus + 1), '.')) {
      if (!IsIdentifier(id)) return std::nullopt;
    }
    text = text.substr(0, plus);
  }
  SemanticVersion v;
  if (size_t dash = text.find('-'); dash != std::string_view::npos) {
    std::string_view pre = text.substr(dash + 1);
    for (std::string_view id : Split(pre, '.')) {
      if (!IsIdentifier(id)) return std::nullopt;
    }
    v.pre_release = std::string(pre);
    text = text.substr(0, dash);
  }
  std::vector<std::string_view> parts = Split(text, '.');
  if (parts.size() != 3) return std::nullopt;
  std::optional<uint64_t> major = Number(parts[0]);
  std::optional<uint64_t> minor = Number(parts[1]);
  std::optional<uint64_t> patch = Number(parts[2]);
  if (!major || !minor || !patch) return std::nullopt;
  v.major = *major;
  v.minor = *minor;
  v.patch = *patch;
  return v;
}

int SemanticVersion::Compare(const SemanticVersion& other) const {
  if (int c = Sign(major, other.major)) return c;
  if (int c = Sign(minor, other.minor)) return c;
  if (int c = Sign(patch, other.patch)) return c;
  if (pre_release == other.pre_release) return 0;
  if (pre_release.empty()) return 1;
  if (other.pre_release.empty()) return -1;
  std::vector<std::string_view> mine = Split(pre_release, '.');
  std::vector<std::string_view> theirs = Split(other.pre_release, '.');
  for (size_t i = 0; i < mine.size() && i < theirs.size(); ++i) {
    std::optional<uint64_t> a = AnyNumber(mine[i]);
    std::optional<uint64_t> b = AnyNumber(theirs[i]);
    if (a && b) {
      if (int c = Sign(*a, *b)) return c;
      continue;
    }
    if (int c = mine[i].compare(theirs[i])) return c < 0 ? -1 : 1;
  }
  return Sign(mine.size(), theirs.size());
}

}  // namespace ksched::plugins::nodedeclaredfeatures

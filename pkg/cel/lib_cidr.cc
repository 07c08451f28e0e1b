// Kubernetes' CIDR library (apiserver/pkg/cel/library/cidr.go) over the
// net.CIDR value type (apiserver/pkg/cel/cidr.go), with Go's
// netip.ParsePrefix rules and netip.Prefix's Contains and Overlaps.

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/cel/function.h"
#include "pkg/cel/lib_internal.h"
#include "pkg/cel/lib_net.h"
#include "pkg/cel/libraries.h"

namespace ksched::cel {
namespace netip {

util::Result<IpPrefix> ParsePrefix(std::string_view s) {
  auto error = [&](std::string_view msg) {
    return util::Error("netip.ParsePrefix(" + lib::GoQuote(s) +
                       "): " + std::string(msg));
  };
  const size_t slash = s.rfind('/');
  if (slash == std::string_view::npos) return error("no '/'");
  util::Result<ParsedAddr> addr = ParseAddr(s.substr(0, slash));
  if (!addr.ok()) return error(addr.error().message());
  if (!addr->zone.empty()) {
    return error("IPv6 zones cannot be present in a prefix");
  }
  const std::string_view bits_text = s.substr(slash + 1);
  const std::string bad = "bad bits after slash: " + lib::GoQuote(bits_text);
  // strconv.Atoi would take a sign and leading zeros; Go refuses both.
  if (bits_text.size() > 1 && (bits_text[0] < '1' || bits_text[0] > '9')) {
    return error(bad);
  }
  // What is left for Atoi: digits, or a lone sign (an error); a number
  // beyond int64 is an Atoi error too.
  int64_t bits = 0;
  const auto [end, ec] = std::from_chars(
      bits_text.data(), bits_text.data() + bits_text.size(), bits);
  if (bits_text.empty() || ec != std::errc() ||
      end != bits_text.data() + bits_text.size() || bits_text[0] == '-') {
    return error(bad);
  }
  if (bits > addr->addr.BitLen()) return error("prefix length out of range");
  return IpPrefix{addr->addr, static_cast<int>(bits)};
}

}  // namespace netip

namespace cidr_lib {
namespace {

// Kubernetes' parseCIDR: netip.ParsePrefix without IPv4-mapped addresses.
util::Result<IpPrefix> ParseCidr(std::string_view raw) {
  util::Result<IpPrefix> prefix = netip::ParsePrefix(raw);
  if (!prefix.ok()) {
    return util::Error(
        "network address parse error during conversion from string: " +
        prefix.error().message());
  }
  if (netip::Is4In6(prefix->addr)) {
    return util::Error("IPv4-mapped IPv6 address " + lib::GoQuote(raw) +
                       " is not allowed");
  }
  return *prefix;
}

// stringToCIDR wraps parseCIDR's message in the same words again.
Value StringToCidr(std::string_view s) {
  util::Result<IpPrefix> prefix = ParseCidr(s);
  if (!prefix.ok()) {
    return Value::Error(
        "network address parse error during conversion from string: " +
        prefix.error().message());
  }
  return Value::CidrOf(*prefix);
}

// Prefix.Contains: same family and the first bits bits agree.
bool Contains(const IpPrefix& p, const IpAddress& ip) {
  if (p.addr.is4 != ip.is4) return false;
  return netip::Masked(p.addr, p.bits) == netip::Masked(ip, p.bits);
}

// Prefix.Overlaps.
bool Overlaps(const IpPrefix& p, const IpPrefix& o) {
  if (p == o) return true;
  if (p.addr.is4 != o.addr.is4) return false;
  const int min_bits = p.bits < o.bits ? p.bits : o.bits;
  if (min_bits == 0) return true;
  return netip::Masked(p.addr, min_bits) == netip::Masked(o.addr, min_bits);
}

// cidrContainsIP with string or IP argument; a parse error is the result.
Value ContainsIp(const IpPrefix& cidr, const Value& other) {
  if (other.kind() == Kind::kIp) {
    return Value::Bool(Contains(cidr, other.ip()));
  }
  // Kubernetes parses the string as ip() does.
  util::Result<IpAddress> ip = netip::ParseKubernetesIp(other.string_value());
  if (!ip.ok()) return Value::Error(ip.error().message());
  return Value::Bool(Contains(cidr, *ip));
}

Value ContainsCidr(const IpPrefix& cidr, const Value& other) {
  if (other.kind() == Kind::kString) {
    Value parsed = StringToCidr(other.string_value());
    if (parsed.is_error()) return parsed;
    return ContainsCidr(cidr, parsed);
  }
  const IpPrefix& o = other.cidr();
  return Value::Bool(Overlaps(cidr, o) && cidr.bits <= o.bits);
}

std::optional<uint64_t> ParseCost(std::span<const Value> args, const Value&) {
  return lib::CeilCost(static_cast<double>(lib::SizerSize(args[0])) * 0.1);
}

std::optional<uint64_t> UnitCost(std::span<const Value>, const Value&) {
  return 1;
}

// Comparing the prefix bytes of the two addresses; a string argument is
// parsed first (one more traversal).
std::optional<uint64_t> ContainsIpCost(std::span<const Value> args,
                                       const Value&) {
  const auto cidr_size = static_cast<double>(lib::SizerSize(args[0]));
  uint64_t cost = lib::CeilCost((cidr_size + cidr_size) * 0.1);
  if (args[1].kind() == Kind::kString) {
    cost += lib::CeilCost(static_cast<double>(lib::SizerSize(args[1])) * 0.1);
  }
  return cost;
}

// As containsIP, plus masking the base prefix and comparing the lengths.
std::optional<uint64_t> ContainsCidrCost(std::span<const Value> args,
                                         const Value&) {
  const auto cidr_size = static_cast<double>(lib::SizerSize(args[0]));
  uint64_t cost = lib::CeilCost((cidr_size + cidr_size) * 0.1);
  cost += lib::CeilCost(cidr_size * 0.1) + 1;
  if (args[1].kind() == Kind::kString) {
    cost += lib::CeilCost(static_cast<double>(lib::SizerSize(args[1])) * 0.1);
  }
  return cost;
}

}  // namespace

void Register(FunctionRegistry& r) {
  const Type cidr = Type::Opaque("net.CIDR");
  const Type ip = Type::Opaque("net.IP");
  const Type s = Type::String();
  const Type b = Type::Bool();
  r.Add("cidr", Global(
                    "string_to_cidr", {s}, cidr,
                    [](std::span<const Value> a) {
                      return StringToCidr(a[0].string_value());
                    },
                    ParseCost));
  r.Add("isCIDR", Global(
                      "is_cidr", {s}, b,
                      [](std::span<const Value> a) {
                        return Value::Bool(ParseCidr(a[0].string_value()).ok());
                      },
                      ParseCost));
  auto contains_ip = [](std::span<const Value> a) {
    return ContainsIp(a[0].cidr(), a[1]);
  };
  r.Add("containsIP", Member("cidr_contains_ip_string", {cidr, s}, b,
                             contains_ip, ContainsIpCost));
  r.Add("containsIP", Member("cidr_contains_ip_ip", {cidr, ip}, b, contains_ip,
                             ContainsIpCost));
  auto contains_cidr = [](std::span<const Value> a) {
    return ContainsCidr(a[0].cidr(), a[1]);
  };
  r.Add("containsCIDR", Member("cidr_contains_cidr_string", {cidr, s}, b,
                               contains_cidr, ContainsCidrCost));
  r.Add("containsCIDR", Member("cidr_contains_cidr", {cidr, cidr}, b,
                               contains_cidr, ContainsCidrCost));
  // The address of a prefix is a field access: nominal cost.
  r.Add("ip", Member(
                  "cidr_ip", {cidr}, ip,
                  [](std::span<const Value> a) {
                    return Value::IpOf(a[0].cidr().addr);
                  },
                  UnitCost));
  r.Add("prefixLength", Member(
                            "cidr_prefix_length", {cidr}, Type::Int(),
                            [](std::span<const Value> a) {
                              return Value::Int(a[0].cidr().bits);
                            },
                            UnitCost));
  r.Add("masked", Member(
                      "cidr_masked", {cidr}, cidr,
                      [](std::span<const Value> a) {
                        const IpPrefix& p = a[0].cidr();
                        return Value::CidrOf(
                            IpPrefix{netip::Masked(p.addr, p.bits), p.bits});
                      },
                      UnitCost));
  // string(cidr) has no estimator entry: cel-go's default cost.
  r.Add("string",
        Global("cidr_to_string", {cidr}, s, [](std::span<const Value> a) {
          return Value::String(a[0].cidr().ToString());
        }));
}

}  // namespace cidr_lib

std::string IpPrefix::ToString() const {
  return addr.ToString() + "/" + std::to_string(bits);
}

void RegisterCidr(FunctionRegistry& r) { cidr_lib::Register(r); }

}  // namespace ksched::cel

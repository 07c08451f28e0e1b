// Kubernetes' IP library (apiserver/pkg/cel/library/ip.go) over the net.IP
// value type (apiserver/pkg/cel/ip.go), with Go's netip.ParseAddr rules and
// error messages.

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
// Named so that unity builds keep these helpers apart from other files'.
namespace ip_parse {
namespace {

// parseAddrError.Error: the input, the reason and, when known, the text
// the parser stopped at.
util::Error AddrError(std::string_view in, std::string_view msg,
                      std::string_view at = {}) {
  std::string out = "ParseAddr(" + lib::GoQuote(in) + "): " + std::string(msg);
  if (!at.empty()) out += " (at " + lib::GoQuote(at) + ")";
  return util::Error(std::move(out));
}

// parseIPv4Fields: the dotted quad in in[off, end) into fields[0..3].
// Errors name the whole input, as Go's do for an embedded IPv4 part.
std::optional<util::Error> ParseIpv4Fields(std::string_view in, size_t off,
                                           size_t end, uint8_t* fields) {
  const std::string_view s = in.substr(off, end - off);
  int val = 0;
  int pos = 0;
  int digits = 0;  // in the current octet
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits == 1 && val == 0) {
        return AddrError(in, "IPv4 field has octet with leading zero");
      }
      val = val * 10 + (c - '0');
      ++digits;
      if (val > 255) return AddrError(in, "IPv4 field has value >255");
    } else if (c == '.') {
      // .1.2.3, 1.2.3. and 1..2.3
      if (i == 0 || i == s.size() - 1 || s[i - 1] == '.') {
        return AddrError(in, "IPv4 field must have at least one digit",
                         s.substr(i));
      }
      if (pos == 3) return AddrError(in, "IPv4 address too long");
      fields[pos++] = static_cast<uint8_t>(val);
      val = 0;
      digits = 0;
    } else {
      return AddrError(in, "unexpected character", s.substr(i));
    }
  }
  if (pos < 3) return AddrError(in, "IPv4 address too short");
  fields[3] = static_cast<uint8_t>(val);
  return std::nullopt;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// parseIPv6, zone included.
util::Result<ParsedAddr> ParseIpv6(std::string_view in) {
  std::string_view s = in;
  ParsedAddr out;
  if (const size_t pct = s.find('%'); pct != std::string_view::npos) {
    out.zone = std::string(s.substr(pct + 1));
    s = s.substr(0, pct);
    if (out.zone.empty()) {
      return AddrError(in, "zone must be a non-empty string");
    }
  }
  // Where the address part ends in `in` (before any zone).
  const size_t end = s.size();
  std::array<uint8_t, 16>& ip = out.addr.bytes;
  int ellipsis = -1;  // byte position of "::"
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return out;  // "::"
  }
  int i = 0;
  while (i < 16) {
    size_t off = 0;
    uint32_t acc = 0;
    for (; off < s.size(); ++off) {
      const int h = HexValue(s[off]);
      if (h < 0) break;
      acc = (acc << 4) + static_cast<uint32_t>(h);
      if (off > 3) {
        return AddrError(in, "each group must have 4 or less digits", s);
      }
      if (acc > 0xffff) {
        return AddrError(in, "IPv6 field has value >=2^16", s);
      }
    }
    if (off == 0) {
      return AddrError(
          in, "each colon-separated field must have at least one digit", s);
    }
    if (off < s.size() && s[off] == '.') {
      // A trailing embedded IPv4 address.
      if (ellipsis < 0 && i != 12) {
        return AddrError(in,
                         "embedded IPv4 address must replace the final 2 "
                         "fields of the address",
                         s);
      }
      if (i + 4 > 16) {
        return AddrError(in,
                         "too many hex fields to fit an embedded IPv4 at the "
                         "end of the address",
                         s);
      }
      if (auto err = ParseIpv4Fields(in, end - s.size(), end, &ip[i])) {
        return *err;
      }
      s = {};
      i += 4;
      break;
    }
    ip[i] = static_cast<uint8_t>(acc >> 8);
    ip[i + 1] = static_cast<uint8_t>(acc);
    i += 2;
    s.remove_prefix(off);
    if (s.empty()) break;
    if (s[0] != ':') {
      return AddrError(in, "unexpected character, want colon", s);
    }
    if (s.size() == 1) {
      return AddrError(in, "colon must be followed by more characters", s);
    }
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) return AddrError(in, "multiple :: in address", s);
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) {
    return AddrError(in, "trailing garbage after address", s);
  }
  if (i < 16) {
    if (ellipsis < 0) return AddrError(in, "address string too short");
    // Move the groups after "::" to the end and zero the gap.
    const int n = 16 - i;
    for (int j = i - 1; j >= ellipsis; --j) ip[j + n] = ip[j];
    for (int j = ellipsis + n - 1; j >= ellipsis; --j) ip[j] = 0;
  } else if (ellipsis >= 0) {
    return AddrError(in, "the :: must expand to at least one field of zeros");
  }
  return out;
}

}  // namespace
}  // namespace ip_parse

util::Result<ParsedAddr> ParseAddr(std::string_view s) {
  for (const char c : s) {
    switch (c) {
      case '.': {
        ParsedAddr out;
        out.addr.is4 = true;
        if (auto err = ip_parse::ParseIpv4Fields(s, 0, s.size(),
                                                 out.addr.bytes.data())) {
          return *err;
        }
        return out;
      }
      case ':':
        return ip_parse::ParseIpv6(s);
      case '%':
        // Probably an IPv6 address with a zone but no address.
        return ip_parse::AddrError(s, "missing IPv6 address");
      default:
        break;
    }
  }
  return ip_parse::AddrError(s, "unable to parse IP");
}

bool Is4In6(const IpAddress& ip) {
  if (ip.is4) return false;
  for (int i = 0; i < 10; ++i) {
    if (ip.bytes[i] != 0) return false;
  }
  return ip.bytes[10] == 0xff && ip.bytes[11] == 0xff;
}

IpAddress Masked(const IpAddress& ip, int bits) {
  IpAddress out = ip;
  const int len = ip.BitLen() / 8;
  for (int i = 0; i < len; ++i) {
    const int keep = bits - i * 8;  // bits of this byte that stay
    if (keep >= 8) continue;
    out.bytes[i] =
        keep <= 0 ? 0
                  : static_cast<uint8_t>(out.bytes[i] & (0xff << (8 - keep)));
  }
  return out;
}

}  // namespace netip

namespace ip_lib {
namespace {

uint16_t Group(const IpAddress& ip, int i) {
  return static_cast<uint16_t>(ip.bytes[2 * i] << 8 | ip.bytes[2 * i + 1]);
}

std::string Dotted(const uint8_t* b) {
  return std::to_string(b[0]) + "." + std::to_string(b[1]) + "." +
         std::to_string(b[2]) + "." + std::to_string(b[3]);
}

}  // namespace
}  // namespace ip_lib

namespace netip {

util::Result<IpAddress> ParseKubernetesIp(std::string_view raw) {
  util::Result<netip::ParsedAddr> parsed = netip::ParseAddr(raw);
  if (!parsed.ok()) {
    return util::Error("IP Address " + lib::GoQuote(raw) +
                       " parse error during conversion from string: " +
                       parsed.error().message());
  }
  if (!parsed->zone.empty()) {
    return util::Error("IP address " + lib::GoQuote(raw) +
                       " with zone value is not allowed");
  }
  if (netip::Is4In6(parsed->addr)) {
    return util::Error("IPv4-mapped IPv6 address " + lib::GoQuote(raw) +
                       " is not allowed");
  }
  return parsed->addr;
}

}  // namespace netip

namespace ip_lib {
namespace {

using netip::ParseKubernetesIp;

bool IsLoopback(const IpAddress& ip) {
  if (ip.is4) return ip.bytes[0] == 127;
  if (netip::Is4In6(ip)) return ip.bytes[12] == 127;
  for (int i = 0; i < 15; ++i) {
    if (ip.bytes[i] != 0) return false;
  }
  return ip.bytes[15] == 1;
}

bool IsMulticast(const IpAddress& ip) {
  if (ip.is4) return (ip.bytes[0] & 0xf0) == 0xe0;
  if (netip::Is4In6(ip)) return (ip.bytes[12] & 0xf0) == 0xe0;
  return ip.bytes[0] == 0xff;
}

bool IsLinkLocalUnicast(const IpAddress& ip) {
  if (ip.is4) return ip.bytes[0] == 169 && ip.bytes[1] == 254;
  if (netip::Is4In6(ip)) return ip.bytes[12] == 169 && ip.bytes[13] == 254;
  return (Group(ip, 0) & 0xffc0) == 0xfe80;
}

bool IsLinkLocalMulticast(const IpAddress& ip) {
  if (ip.is4) return ip.bytes[0] == 224 && ip.bytes[1] == 0 && ip.bytes[2] == 0;
  if (netip::Is4In6(ip)) {
    return ip.bytes[12] == 224 && ip.bytes[13] == 0 && ip.bytes[14] == 0;
  }
  return (Group(ip, 0) & 0xff0f) == 0xff02;
}

bool AllZero(const IpAddress& ip) {
  for (const uint8_t b : ip.bytes) {
    if (b != 0) return false;
  }
  return true;
}

// netip's IsUnspecified: exactly 0.0.0.0 or ::.
bool IsUnspecified(const IpAddress& ip) { return AllZero(ip); }

// netip's IsGlobalUnicast, which follows package net: private IPv4 and ULA
// IPv6 addresses count as global.
bool IsGlobalUnicast(const IpAddress& ip) {
  IpAddress v = ip;
  if (netip::Is4In6(ip)) {
    v = IpAddress{};
    v.is4 = true;
    for (int i = 0; i < 4; ++i) v.bytes[i] = ip.bytes[12 + i];
  }
  if (v.is4) {
    const bool broadcast = v.bytes[0] == 255 && v.bytes[1] == 255 &&
                           v.bytes[2] == 255 && v.bytes[3] == 255;
    if (AllZero(v) || broadcast) return false;
  } else if (AllZero(v)) {
    return false;
  }
  return !IsLoopback(v) && !IsMulticast(v) && !IsLinkLocalUnicast(v);
}

std::optional<uint64_t> ParseCost(std::span<const Value> args, const Value&) {
  return lib::CeilCost(static_cast<double>(lib::SizerSize(args[0])) * 0.1);
}

// ip.isCanonical parses and then compares with the input: twice the parse.
std::optional<uint64_t> CanonicalCost(std::span<const Value> args,
                                      const Value&) {
  return lib::CeilCost(static_cast<double>(lib::SizerSize(args[0])) * 2 * 0.1);
}

std::optional<uint64_t> UnitCost(std::span<const Value>, const Value&) {
  return 1;
}

Overload IpPredicate(std::string id, const Type& ip,
                     bool (*test)(const IpAddress&)) {
  return Member(
      std::move(id), {ip}, Type::Bool(),
      [test](std::span<const Value> a) { return Value::Bool(test(a[0].ip())); },
      UnitCost);
}

}  // namespace

void Register(FunctionRegistry& r) {
  const Type ip = Type::Opaque("net.IP");
  const Type s = Type::String();
  r.Add("ip", Global(
                  "string_to_ip", {s}, ip,
                  [](std::span<const Value> a) {
                    util::Result<IpAddress> addr =
                        ParseKubernetesIp(a[0].string_value());
                    if (!addr.ok()) return Value::Error(addr.error().message());
                    return Value::IpOf(*addr);
                  },
                  ParseCost));
  r.Add("isIP",
        Global(
            "is_ip", {s}, Type::Bool(),
            [](std::span<const Value> a) {
              return Value::Bool(ParseKubernetesIp(a[0].string_value()).ok());
            },
            ParseCost));
  r.Add("ip.isCanonical",
        Global(
            "ip_is_canonical", {s}, Type::Bool(),
            [](std::span<const Value> a) {
              util::Result<IpAddress> addr =
                  ParseKubernetesIp(a[0].string_value());
              if (!addr.ok()) return Value::Error(addr.error().message());
              // String() is the one canonical form of an address.
              return Value::Bool(addr->ToString() == a[0].string_value());
            },
            CanonicalCost));
  // string(ip) has no estimator entry: cel-go's default cost.
  r.Add("string", Global("ip_to_string", {ip}, s, [](std::span<const Value> a) {
          return Value::String(a[0].ip().ToString());
        }));
  r.Add("family", Member(
                      "ip_family", {ip}, Type::Int(),
                      [](std::span<const Value> a) {
                        return Value::Int(a[0].ip().is4 ? 4 : 6);
                      },
                      UnitCost));
  r.Add("isUnspecified", IpPredicate("ip_is_unspecified", ip, IsUnspecified));
  r.Add("isLoopback", IpPredicate("ip_is_loopback", ip, IsLoopback));
  r.Add("isLinkLocalMulticast",
        IpPredicate("ip_is_link_local_multicast", ip, IsLinkLocalMulticast));
  r.Add("isLinkLocalUnicast",
        IpPredicate("ip_is_link_local_unicast", ip, IsLinkLocalUnicast));
  r.Add("isGlobalUnicast",
        IpPredicate("ip_is_global_unicast", ip, IsGlobalUnicast));
}

}  // namespace ip_lib

std::string IpAddress::ToString() const {
  if (is4) return ip_lib::Dotted(bytes.data());
  if (netip::Is4In6(*this)) return "::ffff:" + ip_lib::Dotted(&bytes[12]);
  // The longest run of at least two zero groups (the first of equal runs)
  // becomes "::"; groups print in lower-case hex without leading zeros.
  int zero_start = -1;
  int zero_len = 1;
  for (int i = 0; i < 8; ++i) {
    int j = i;
    while (j < 8 && ip_lib::Group(*this, j) == 0) ++j;
    if (j - i > zero_len) {
      zero_start = i;
      zero_len = j - i;
    }
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i == zero_start) {
      out += "::";
      i += zero_len - 1;
      continue;
    }
    if (i > 0 && i != zero_start + zero_len) out += ':';
    const uint16_t g = ip_lib::Group(*this, i);
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const int digit = (g >> shift) & 0xf;
      if (digit != 0 || started || shift == 0) {
        out += kHex[digit];
        started = true;
      }
    }
  }
  return out;
}

void RegisterIp(FunctionRegistry& r) { ip_lib::Register(r); }

}  // namespace ksched::cel

// The payloads of Kubernetes' network, URL and format CEL values
// (apiserver/pkg/cel/ip.go, cidr.go, url.go, format.go), carried by Value
// kinds kIp, kCidr, kUrl and kFormat. They hold what Go's netip.Addr,
// netip.Prefix and url.URL hold, so that printing and comparing give Go's
// answers.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::cel {

// netip.Addr without a zone (Kubernetes rejects zones before a value is
// made). Two addresses are equal when family and bytes are, as in Go, so
// 1.2.3.4 differs from ::ffff:1.2.3.4.
struct IpAddress {
  bool is4 = false;
  // IPv4 addresses use the first 4 bytes; the rest stay zero.
  std::array<uint8_t, 16> bytes{};

  // netip.Addr.String: dotted decimal, or IPv6 with the longest run of
  // zero groups compressed ("2001:db8::68"), ::ffff:a.b.c.d when mapped.
  std::string ToString() const;
  int BitLen() const { return is4 ? 32 : 128; }
  bool operator==(const IpAddress&) const = default;
};

// netip.Prefix: the address as written (masked only by Masked()) and the
// prefix length.
struct IpPrefix {
  IpAddress addr;
  int bits = 0;

  std::string ToString() const;  // "192.168.0.0/24"
  bool operator==(const IpPrefix&) const = default;
};

// url.URL's fields.
struct Url {
  std::string scheme;
  std::string opaque;
  bool has_user = false;
  std::string username;
  bool has_password = false;
  std::string password;
  std::string host;  // host or host:port
  std::string path;  // decoded
  std::string raw_path;
  bool omit_host = false;
  bool force_query = false;
  std::string raw_query;
  std::string fragment;  // decoded
  std::string raw_fragment;

  // url.URL.String; Kubernetes compares URLs by it.
  std::string ToString() const;
};

// One of Kubernetes' named formats (library.ConstantFormats). The library
// keeps them in a static table; values point into it.
struct NamedFormat {
  std::string_view key;   // the name format.named() takes: "dns1123Label"
  std::string_view name;  // Format.Name, what equality compares
  // Size of the (estimated) regular expression, for the cost of validate.
  int max_regex_size = 0;
  // The validation messages for s; empty when s is valid.
  std::vector<std::string> (*validate)(std::string_view s) = nullptr;
};

}  // namespace ksched::cel

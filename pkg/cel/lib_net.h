// Go's net/netip parsing, shared by the IP, CIDR and URL libraries
// (lib_ip.cc, lib_cidr.cc, lib_url.cc); not a public API. Error messages are
// Go's, word for word, because Kubernetes passes them on to the user.
#pragma once

#include <string>
#include <string_view>

#include "pkg/cel/net_values.h"
#include "pkg/util/result.h"

namespace ksched::cel::netip {

// An address as netip.ParseAddr returns it: the zone is kept apart, since
// IpAddress has none (Kubernetes rejects zoned addresses).
struct ParsedAddr {
  IpAddress addr;
  std::string zone;
};

// netip.ParseAddr: "ParseAddr(\"1.2.3\"): IPv4 address too short".
util::Result<ParsedAddr> ParseAddr(std::string_view s);
// netip.ParsePrefix: "netip.ParsePrefix(\"1.2.3.4/\"): bad bits after
// slash: \"\"". Zoned addresses are rejected, as Go does.
util::Result<IpPrefix> ParsePrefix(std::string_view s);

// Kubernetes' parseIPAddr (library/ip.go): netip.ParseAddr, refusing
// zones and IPv4-mapped IPv6 addresses, with Kubernetes' messages.
util::Result<IpAddress> ParseKubernetesIp(std::string_view raw);

// Addr.Is4In6: an IPv6 address of the form ::ffff:a.b.c.d.
bool Is4In6(const IpAddress& ip);
// Addr.Prefix(bits).Addr(): ip with all but its first bits bits cleared.
IpAddress Masked(const IpAddress& ip, int bits);

}  // namespace ksched::cel::netip

namespace ksched::cel::neturl {

// url.Parse and url.ParseRequestURI; the error is url.Error's text,
// `parse "<input>": <reason>`.
util::Result<Url> Parse(std::string_view raw);
util::Result<Url> ParseRequestUri(std::string_view raw);

}  // namespace ksched::cel::neturl

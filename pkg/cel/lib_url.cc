// Kubernetes' URLs library (apiserver/pkg/cel/library/urls.go) over the
// kubernetes.URL value type (apiserver/pkg/cel/url.go), with Go's net/url
// parsing (Parse, ParseRequestURI), escaping and printing.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/cel/function.h"
#include "pkg/cel/lib_internal.h"
#include "pkg/cel/lib_net.h"
#include "pkg/cel/libraries.h"

namespace ksched::cel {
namespace neturl {
// Named so that unity builds keep these helpers apart from other files'.
namespace url_parse {
namespace {

// net/url's encoding modes: which bytes a URL part keeps unescaped.
enum class Mode {
  kPath,
  kPathSegment,
  kHost,
  kZone,
  kUserPassword,
  kQueryComponent,
  kFragment,
};

bool IsAlnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

// url.shouldEscape (RFC 3986 with net/url's choices per part).
bool ShouldEscape(unsigned char c, Mode mode) {
  if (IsAlnum(c)) return false;
  if (mode == Mode::kHost || mode == Mode::kZone) {
    // Sub-delims, ':' for the port, brackets for IPv6 literals, and the
    // few characters hosts cannot %-encode.
    switch (c) {
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case ':':
      case '[':
      case ']':
      case '<':
      case '>':
      case '"':
        return false;
      default:
        break;
    }
  }
  switch (c) {
    case '-':
    case '_':
    case '.':
    case '~':
      return false;
    case '$':
    case '&':
    case '+':
    case ',':
    case '/':
    case ':':
    case ';':
    case '=':
    case '?':
    case '@':
      switch (mode) {
        case Mode::kPath:
          return c == '?';
        case Mode::kPathSegment:
          return c == '/' || c == ';' || c == ',' || c == '?';
        case Mode::kUserPassword:
          return c == '@' || c == '/' || c == '?' || c == ':';
        case Mode::kQueryComponent:
          return true;
        case Mode::kFragment:
          return false;
        default:
          break;
      }
      break;
    default:
      break;
  }
  if (mode == Mode::kFragment) {
    switch (c) {
      case '!':
      case '(':
      case ')':
      case '*':
        return false;
      default:
        break;
    }
  }
  return true;
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

int Unhex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// url.unescape: %XX decoding with the host and zone restrictions, and
// '+' as space in query components.
util::Result<std::string> Unescape(std::string_view s, Mode mode) {
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size() || !IsHex(s[i + 1]) || !IsHex(s[i + 2])) {
        return util::Error("invalid URL escape " +
                           lib::GoQuote(s.substr(i, 3)));
      }
      const std::string_view triple = s.substr(i, 3);
      // Hosts may %-encode only non-ASCII bytes, except %25 before a zone.
      if (mode == Mode::kHost && Unhex(s[i + 1]) < 8 && triple != "%25") {
        return util::Error("invalid URL escape " + lib::GoQuote(triple));
      }
      if (mode == Mode::kZone) {
        const auto v =
            static_cast<unsigned char>(Unhex(s[i + 1]) << 4 | Unhex(s[i + 2]));
        if (triple != "%25" && v != ' ' && ShouldEscape(v, Mode::kHost)) {
          return util::Error("invalid URL escape " + lib::GoQuote(triple));
        }
      }
      i += 3;
      continue;
    }
    if ((mode == Mode::kHost || mode == Mode::kZone) &&
        static_cast<unsigned char>(c) < 0x80 &&
        ShouldEscape(static_cast<unsigned char>(c), mode)) {
      return util::Error("invalid character " + lib::GoQuote(s.substr(i, 1)) +
                         " in host name");
    }
    ++i;
  }
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      out += static_cast<char>(Unhex(s[i + 1]) << 4 | Unhex(s[i + 2]));
      i += 2;
    } else if (s[i] == '+' && mode == Mode::kQueryComponent) {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

// url.escape.
std::string Escape(std::string_view s, Mode mode) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' && mode == Mode::kQueryComponent) {
      out += '+';
    } else if (ShouldEscape(c, mode)) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

// url.validEncoded: s needs no escaping beyond what it has.
bool ValidEncoded(std::string_view s, Mode mode) {
  for (const char ch : s) {
    switch (ch) {
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case ':':
      case '@':
      case '[':
      case ']':
      case '%':
        break;
      default:
        if (ShouldEscape(static_cast<unsigned char>(ch), mode)) return false;
    }
  }
  return true;
}

// url.validOptionalPort: empty, or ':' and digits.
bool ValidOptionalPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  return port.find_first_not_of("0123456789", 1) == std::string_view::npos;
}

// url.validUserinfo: RFC 3986's userinfo characters (ASCII only).
bool ValidUserinfo(std::string_view s) {
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsAlnum(c)) continue;
    if (std::string_view("-._:~!$&'()*+,;=%@").find(ch) ==
        std::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool ContainsCtlByte(std::string_view s) {
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

// url.getScheme: a leading [A-Za-z][A-Za-z0-9+-.]* before ':'.
util::Result<std::pair<std::string, std::string_view>> GetScheme(
    std::string_view raw) {
  for (size_t i = 0; i < raw.size(); ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (i == 0) return std::pair<std::string, std::string_view>{"", raw};
      continue;
    }
    if (c == ':') {
      if (i == 0) return util::Error("missing protocol scheme");
      return std::pair<std::string, std::string_view>{
          std::string(raw.substr(0, i)), raw.substr(i + 1)};
    }
    // Not a scheme character: there is no scheme.
    return std::pair<std::string, std::string_view>{"", raw};
  }
  return std::pair<std::string, std::string_view>{"", raw};
}

util::Error InvalidPort(std::string_view port) {
  return util::Error("invalid port " + lib::GoQuote(port) + " after host");
}

// url.parseHost, with the IP-literal checks of current Go: a bracketed
// host must be an IPv6 address.
util::Result<std::string> ParseHost(std::string_view host) {
  if (const size_t open = host.rfind('['); open != std::string_view::npos) {
    if (open > 0) return util::Error("invalid IP-literal");
    const size_t close = host.rfind(']');
    if (close == std::string_view::npos) {
      return util::Error("missing ']' in host");
    }
    const std::string_view colon_port = host.substr(close + 1);
    if (!ValidOptionalPort(colon_port)) return InvalidPort(colon_port);
    util::Result<std::string> port = Unescape(colon_port, Mode::kHost);
    if (!port.ok()) return port.error();
    // RFC 6874: %25 starts a zone, which may use any %-encoding.
    const std::string_view literal = host.substr(1, close - 1);
    std::string address;
    if (const size_t zone = literal.find("%25");
        zone != std::string_view::npos) {
      util::Result<std::string> a =
          Unescape(literal.substr(0, zone), Mode::kHost);
      if (!a.ok()) return a.error();
      util::Result<std::string> z = Unescape(literal.substr(zone), Mode::kZone);
      if (!z.ok()) return z.error();
      address = *a + *z;
    } else {
      util::Result<std::string> a = Unescape(literal, Mode::kHost);
      if (!a.ok()) return a.error();
      address = *a;
    }
    util::Result<netip::ParsedAddr> ip = netip::ParseAddr(address);
    if (!ip.ok()) return util::Error("invalid host: " + ip.error().message());
    if (ip->addr.is4) return util::Error("invalid IP-literal");
    return "[" + address + "]" + *port;
  }
  if (const size_t colon = host.find(':'); colon != std::string_view::npos) {
    const std::string_view colon_port = host.substr(colon);
    if (!ValidOptionalPort(colon_port)) return InvalidPort(colon_port);
  }
  return Unescape(host, Mode::kHost);
}

// url.parseAuthority: [userinfo@]host.
std::optional<util::Error> ParseAuthority(std::string_view authority,
                                          Url& url) {
  const size_t at = authority.rfind('@');
  util::Result<std::string> host = ParseHost(
      at == std::string_view::npos ? authority : authority.substr(at + 1));
  if (!host.ok()) return host.error();
  url.host = *host;
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view userinfo = authority.substr(0, at);
  if (!ValidUserinfo(userinfo)) {
    return util::Error("net/url: invalid userinfo");
  }
  url.has_user = true;
  const size_t colon = userinfo.find(':');
  util::Result<std::string> name =
      Unescape(userinfo.substr(0, colon), Mode::kUserPassword);
  if (!name.ok()) return name.error();
  url.username = *name;
  if (colon != std::string_view::npos) {
    util::Result<std::string> password =
        Unescape(userinfo.substr(colon + 1), Mode::kUserPassword);
    if (!password.ok()) return password.error();
    url.has_password = true;
    url.password = *password;
  }
  return std::nullopt;
}

// URL.setPath: RawPath is kept only when it differs from Path's default
// escaping.
std::optional<util::Error> SetPath(std::string_view p, Url& url) {
  util::Result<std::string> path = Unescape(p, Mode::kPath);
  if (!path.ok()) return path.error();
  url.path = *path;
  url.raw_path = Escape(url.path, Mode::kPath) == p ? "" : std::string(p);
  return std::nullopt;
}

// url.parse; errors are the bare reasons.
util::Result<Url> ParseReference(std::string_view raw, bool via_request) {
  if (ContainsCtlByte(raw)) {
    return util::Error("net/url: invalid control character in URL");
  }
  if (raw.empty() && via_request) return util::Error("empty url");
  Url url;
  if (raw == "*") {
    url.path = "*";
    return url;
  }
  auto scheme = GetScheme(raw);
  if (!scheme.ok()) return scheme.error();
  url.scheme = scheme->first;
  for (char& c : url.scheme) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  std::string_view rest = scheme->second;
  if (!rest.empty() && rest.back() == '?' &&
      rest.find('?') == rest.size() - 1) {
    url.force_query = true;
    rest.remove_suffix(1);
  } else if (const size_t q = rest.find('?'); q != std::string_view::npos) {
    url.raw_query = std::string(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  if (!rest.starts_with('/')) {
    if (!url.scheme.empty()) {
      // A rootless path after a scheme is opaque (RFC 3986).
      url.opaque = std::string(rest);
      return url;
    }
    if (via_request) return util::Error("invalid URI for request");
    // A colon in the first segment of a relative path would read as a
    // scheme (golang.org/issue/16822).
    if (rest.substr(0, rest.find('/')).find(':') != std::string_view::npos) {
      return util::Error("first path segment in URL cannot contain colon");
    }
  }
  if ((!url.scheme.empty() || (!via_request && !rest.starts_with("///"))) &&
      rest.starts_with("//")) {
    std::string_view authority = rest.substr(2);
    rest = {};
    if (const size_t slash = authority.find('/');
        slash != std::string_view::npos) {
      rest = authority.substr(slash);
      authority = authority.substr(0, slash);
    }
    if (auto err = ParseAuthority(authority, url)) return *err;
  } else if (!url.scheme.empty() && rest.starts_with('/')) {
    url.omit_host = true;
  }
  if (auto err = SetPath(rest, url)) return *err;
  return url;
}

util::Error UrlError(std::string_view raw, const util::Error& err) {
  return util::Error("parse " + lib::GoQuote(raw) + ": " + err.message());
}

// url.splitHostPort: the port after the last colon when it is digits; the
// brackets of an IPv6 literal dropped.
std::pair<std::string_view, std::string_view> SplitHostPort(
    std::string_view host_port) {
  std::string_view host = host_port;
  std::string_view port;
  if (const size_t colon = host.rfind(':');
      colon != std::string_view::npos &&
      ValidOptionalPort(host.substr(colon))) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.starts_with('[') && host.ends_with(']')) {
    host = host.substr(1, host.size() - 2);
  }
  return {host, port};
}

// URL.EscapedPath: RawPath when it is a valid encoding of Path.
std::string EscapedPath(const Url& url) {
  if (!url.raw_path.empty() && ValidEncoded(url.raw_path, Mode::kPath)) {
    util::Result<std::string> p = Unescape(url.raw_path, Mode::kPath);
    if (p.ok() && *p == url.path) return url.raw_path;
  }
  if (url.path == "*") return "*";
  return Escape(url.path, Mode::kPath);
}

std::string EscapedFragment(const Url& url) {
  if (!url.raw_fragment.empty() &&
      ValidEncoded(url.raw_fragment, Mode::kFragment)) {
    util::Result<std::string> f = Unescape(url.raw_fragment, Mode::kFragment);
    if (f.ok() && *f == url.fragment) return url.raw_fragment;
  }
  return Escape(url.fragment, Mode::kFragment);
}

}  // namespace
}  // namespace url_parse

util::Result<Url> Parse(std::string_view raw) {
  using namespace url_parse;  // NOLINT: this file's own helpers
  const size_t hash = raw.find('#');
  const std::string_view u = raw.substr(0, hash);
  util::Result<Url> url = ParseReference(u, false);
  if (!url.ok()) return UrlError(u, url.error());
  if (hash == std::string_view::npos) return url;
  const std::string_view frag = raw.substr(hash + 1);
  if (frag.empty()) return url;
  // URL.setFragment.
  util::Result<std::string> fragment = Unescape(frag, Mode::kFragment);
  if (!fragment.ok()) return UrlError(raw, fragment.error());
  url->fragment = *fragment;
  url->raw_fragment =
      Escape(url->fragment, Mode::kFragment) == frag ? "" : std::string(frag);
  return url;
}

util::Result<Url> ParseRequestUri(std::string_view raw) {
  util::Result<Url> url = url_parse::ParseReference(raw, true);
  if (!url.ok()) return url_parse::UrlError(raw, url.error());
  return url;
}

}  // namespace neturl

namespace url_lib {
namespace {

using neturl::url_parse::Mode;

Value StringToUrl(std::string_view s) {
  // ParseRequestURI checks the URL (absolute, as OpenAPI's 'uri' format
  // wants); Parse then reads it, since ParseRequestURI would put a
  // fragment into the path or query.
  util::Result<Url> checked = neturl::ParseRequestUri(s);
  if (!checked.ok()) {
    return Value::Error("URL parse error during conversion from string: " +
                        checked.error().message());
  }
  util::Result<Url> url = neturl::Parse(s);
  if (!url.ok()) {
    return Value::Error("URL parse error during conversion from string: " +
                        url.error().message());
  }
  return Value::UrlOf(std::move(*url));
}

// URL.Query: url.ParseQuery's values, its errors ignored; keys keep the
// order they first appear in.
Value Query(const Url& url) {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;
  std::string_view query = url.raw_query;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view()
                                          : query.substr(amp + 1);
    if (part.find(';') != std::string_view::npos || part.empty()) continue;
    const size_t eq = part.find('=');
    util::Result<std::string> key =
        neturl::url_parse::Unescape(part.substr(0, eq), Mode::kQueryComponent);
    if (!key.ok()) continue;
    util::Result<std::string> value = neturl::url_parse::Unescape(
        eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1),
        Mode::kQueryComponent);
    if (!value.ok()) continue;
    size_t i = 0;
    while (i < keys.size() && keys[i] != *key) ++i;
    if (i == keys.size()) {
      keys.push_back(*key);
      values.emplace_back();
    }
    values[i].push_back(*value);
  }
  std::vector<VectorMap::Entry> entries;
  for (size_t i = 0; i < keys.size(); ++i) {
    entries.push_back({Value::String(keys[i]), lib::MakeStringList(values[i])});
  }
  return MakeMap(std::move(entries));
}

std::optional<uint64_t> ParseCost(std::span<const Value> args, const Value&) {
  return lib::CeilCost(static_cast<double>(lib::SizerSize(args[0])) * 0.1);
}

std::optional<uint64_t> UnitCost(std::span<const Value>, const Value&) {
  return 1;
}

Overload Accessor(std::string id, const Type& url, Type result,
                  Value (*get)(const Url&)) {
  return Member(
      std::move(id), {url}, std::move(result),
      [get](std::span<const Value> a) { return get(a[0].url()); }, UnitCost);
}

}  // namespace

void Register(FunctionRegistry& r) {
  const Type url = Type::Opaque("kubernetes.URL");
  const Type s = Type::String();
  r.Add("url", Global(
                   "string_to_url", {s}, url,
                   [](std::span<const Value> a) {
                     return StringToUrl(a[0].string_value());
                   },
                   ParseCost));
  // isURL has no estimator entry: cel-go's default cost.
  r.Add(
      "isURL",
      Global("is_url_string", {s}, Type::Bool(), [](std::span<const Value> a) {
        return Value::Bool(neturl::ParseRequestUri(a[0].string_value()).ok());
      }));
  r.Add("getScheme", Accessor("url_get_scheme", url, s, [](const Url& u) {
          return Value::String(u.scheme);
        }));
  r.Add("getHost", Accessor("url_get_host", url, s, [](const Url& u) {
          return Value::String(u.host);
        }));
  r.Add("getHostname", Accessor("url_get_hostname", url, s, [](const Url& u) {
          return Value::String(
              std::string(neturl::url_parse::SplitHostPort(u.host).first));
        }));
  r.Add("getPort", Accessor("url_get_port", url, s, [](const Url& u) {
          return Value::String(
              std::string(neturl::url_parse::SplitHostPort(u.host).second));
        }));
  r.Add("getEscapedPath",
        Accessor("url_get_escaped_path", url, s, [](const Url& u) {
          return Value::String(neturl::url_parse::EscapedPath(u));
        }));
  r.Add("getQuery",
        Accessor("url_get_query", url, Type::Map(s, Type::List(s)), Query));
}

}  // namespace url_lib

std::string Url::ToString() const {
  using neturl::url_parse::Escape;
  using neturl::url_parse::Mode;
  std::string out;
  if (!scheme.empty()) out += scheme + ":";
  if (!opaque.empty()) {
    out += opaque;
  } else {
    if ((!scheme.empty() || !host.empty() || has_user) &&
        !(omit_host && host.empty() && !has_user)) {
      if (!host.empty() || !path.empty() || has_user) out += "//";
      if (has_user) {
        out += Escape(username, Mode::kUserPassword);
        if (has_password) out += ":" + Escape(password, Mode::kUserPassword);
        out += "@";
      }
      if (!host.empty()) out += Escape(host, Mode::kHost);
    }
    const std::string p = neturl::url_parse::EscapedPath(*this);
    if (!p.empty() && p[0] != '/' && !host.empty()) out += '/';
    if (out.empty()) {
      // A colon in the first segment would read as a scheme: "./" first.
      if (p.substr(0, p.find('/')).find(':') != std::string::npos) {
        out += "./";
      }
    }
    out += p;
  }
  if (force_query || !raw_query.empty()) out += "?" + raw_query;
  if (!fragment.empty()) {
    out += "#" + neturl::url_parse::EscapedFragment(*this);
  }
  return out;
}

void RegisterUrls(FunctionRegistry& r) { url_lib::Register(r); }

}  // namespace ksched::cel

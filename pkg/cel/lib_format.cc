// Kubernetes' format library (apiserver/pkg/cel/library/format.go): named
// string formats (apiserver/pkg/cel/format.go) whose validate() returns the
// messages of apimachinery's validators (util/validation, api/validate/
// content) or kube-openapi's strfmt checks.

#include <re2/re2.h>

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
// Named so that unity builds keep these helpers apart from other files'.
namespace format_lib {
namespace {

using Messages = std::vector<std::string>;

constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kLabelKeyFmt =
    "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelValueFmt =
    "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

constexpr std::string_view kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric "
    "character";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character";
constexpr std::string_view kDns1035LabelErrMsg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or "
    "'-', start with an alphabetic character, and end with an alphanumeric "
    "character";
constexpr std::string_view kLabelKeyErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";

// kube-openapi's strfmt patterns; their lengths also size the cost.
constexpr std::string_view kUuidPattern =
    "(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
constexpr std::string_view kDateTimePattern =
    "^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$";
constexpr std::string_view kBase64Pattern =
    "^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|"
    "[A-Za-z0-9+\\/]{4})$";

// The expressions above, compiled once (thread-safe static
// initialization: programs evaluate concurrently).
enum class Pattern {
  kDns1123Label,
  kDns1123Subdomain,
  kDns1035Label,
  kLabelKey,
  kLabelValue,
  kUuid,
  kBase64,
};

const RE2& Compiled(Pattern p) {
  static const std::vector<const RE2*>* res = [] {
    auto anchored = [](std::string_view fmt) {
      return new RE2("^" + std::string(fmt) + "$");
    };
    return new std::vector<const RE2*>{
        anchored(kDns1123LabelFmt),
        anchored(kDns1123SubdomainFmt),
        anchored(kDns1035LabelFmt),
        anchored(kLabelKeyFmt),
        anchored(kLabelValueFmt),
        new RE2(std::string(kUuidPattern)),
        new RE2(std::string(kBase64Pattern)),
    };
  }();
  return *(*res)[static_cast<size_t>(p)];
}

// Go's regexp.MatchString for these ^...$ expressions.
bool Matches(Pattern p, std::string_view s) {
  return RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), Compiled(p));
}

// validation.RegexError: the message, examples and the expression.
std::string RegexError(std::string_view msg, std::string_view fmt,
                       std::vector<std::string_view> examples) {
  std::string out(msg);
  if (examples.empty()) {
    return out + " (regex used for validation is '" + std::string(fmt) + "')";
  }
  out += " (e.g. ";
  for (size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) out += " or ";
    out += "'" + std::string(examples[i]) + "', ";
  }
  return out + "regex used for validation is '" + std::string(fmt) + "')";
}

// util/validation words length limits in characters, api/validate/content
// in bytes.
std::string MaxLenError(int length, bool bytes) {
  return "must be no more than " + std::to_string(length) +
         (bytes ? " bytes" : " characters");
}

// validation.IsDNS1123Label.
Messages IsDns1123Label(std::string_view value) {
  Messages errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63, false));
  if (!Matches(Pattern::kDns1123Label, value)) {
    if (Matches(Pattern::kDns1123Subdomain, value)) {
      // A valid subdomain of valid length: it has dots.
      errs.emplace_back("must not contain dots");
    } else {
      errs.push_back(RegexError(kDns1123LabelErrMsg, kDns1123LabelFmt,
                                {"my-name", "123-abc"}));
    }
  }
  return errs;
}

// validation.IsDNS1123Subdomain (characters) and content's (bytes).
Messages IsDns1123Subdomain(std::string_view value, bool bytes) {
  Messages errs;
  if (value.size() > 253) errs.push_back(MaxLenError(253, bytes));
  if (!Matches(Pattern::kDns1123Subdomain, value)) {
    errs.push_back(RegexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt,
                              {"example.com"}));
  }
  return errs;
}

// validation.IsDNS1035Label.
Messages IsDns1035Label(std::string_view value) {
  Messages errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63, false));
  if (!Matches(Pattern::kDns1035Label, value)) {
    errs.push_back(RegexError(kDns1035LabelErrMsg, kDns1035LabelFmt,
                              {"my-name", "abc-123"}));
  }
  return errs;
}

// apimachinery's maskTrailingDash, exactly: a trailing dash of a prefix
// name is replaced, together with the character before it, by "a".
std::string MaskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') {
    return std::string(name.substr(0, name.size() - 2)) + "a";
  }
  return std::string(name);
}

// content.IsLabelKey (validation.IsQualifiedName).
Messages IsQualifiedName(std::string_view value) {
  Messages errs;
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t slash = value.find('/', start);
    parts.push_back(value.substr(start, slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  std::string_view name;
  if (parts.size() == 1) {
    name = parts[0];
  } else if (parts.size() == 2) {
    const std::string_view prefix = parts[0];
    name = parts[1];
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else {
      for (const std::string& msg : IsDns1123Subdomain(prefix, true)) {
        errs.push_back("prefix part " + msg);
      }
    }
  } else {
    errs.push_back("a valid label key " +
                   RegexError(kLabelKeyErrMsg, kLabelKeyFmt,
                              {"MyName", "my.name", "123-abc"}) +
                   " with an optional DNS subdomain prefix and '/' (e.g. "
                   "'example.com/MyName')");
    return errs;
  }
  if (name.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part " + MaxLenError(63, true));
  }
  if (!Matches(Pattern::kLabelKey, name)) {
    errs.push_back("name part " + RegexError(kLabelKeyErrMsg, kLabelKeyFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

// content.IsLabelValue (validation.IsValidLabelValue).
Messages IsLabelValue(std::string_view value) {
  Messages errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63, true));
  if (!Matches(Pattern::kLabelValue, value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, kLabelValueFmt,
                              {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// time.Parse("2006-01-02", s) succeeding: four digits, '-', two digits for
// a month 1-12, '-', two digits for a day of that month, nothing more.
bool IsDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (const size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!IsDigit(s[i])) return false;
  }
  auto number = [&](size_t at, size_t len) {
    int n = 0;
    for (size_t i = at; i < at + len; ++i) n = n * 10 + (s[i] - '0');
    return n;
  };
  const int year = number(0, 4);
  const int month = number(5, 2);
  const int day = number(8, 2);
  if (month < 1 || month > 12) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
  int days = kDays[month - 1];
  if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) {
    days = 29;
  }
  return day >= 1 && day <= days;
}

// strfmt.IsDateTime: a date, 't' (any case), and a time matching
// DateTimePattern with hours, minutes and seconds in range. Only the text
// between the first and a second 't' is looked at, as strfmt does.
bool IsDateTime(std::string_view str) {
  if (str.size() < 4) return false;
  std::string lower(str);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  const size_t t = lower.find('t');
  if (t == std::string::npos) return false;
  if (!IsDate(std::string_view(lower).substr(0, t))) return false;
  std::string_view time = std::string_view(lower).substr(t + 1);
  time = time.substr(0, time.find('t'));
  static const RE2* re = new RE2(std::string(kDateTimePattern));
  std::string hours;
  std::string minutes;
  std::string seconds;
  if (!RE2::PartialMatch(re2::StringPiece(time.data(), time.size()), *re,
                         &hours, &minutes, &seconds)) {
    return false;
  }
  return hours <= "23" && minutes <= "59" && seconds <= "59";
}

Messages ValidateDns1123Label(std::string_view s) { return IsDns1123Label(s); }
Messages ValidateDns1123Subdomain(std::string_view s) {
  return IsDns1123Subdomain(s, false);
}
Messages ValidateDns1035Label(std::string_view s) { return IsDns1035Label(s); }
Messages ValidateDns1123LabelPrefix(std::string_view s) {
  return IsDns1123Label(MaskTrailingDash(s));
}
Messages ValidateDns1123SubdomainPrefix(std::string_view s) {
  return IsDns1123Subdomain(MaskTrailingDash(s), false);
}
Messages ValidateDns1035LabelPrefix(std::string_view s) {
  return IsDns1035Label(MaskTrailingDash(s));
}
Messages ValidateUri(std::string_view s) {
  util::Result<Url> url = neturl::ParseRequestUri(s);
  if (!url.ok()) return {url.error().message()};
  return {};
}
Messages ValidateUuid(std::string_view s) {
  if (!Matches(Pattern::kUuid, s)) return {"does not match the UUID format"};
  return {};
}
Messages ValidateByte(std::string_view s) {
  if (!Matches(Pattern::kBase64, s)) return {"invalid base64"};
  return {};
}
Messages ValidateDate(std::string_view s) {
  if (!IsDate(s)) return {"invalid date"};
  return {};
}
Messages ValidateDateTime(std::string_view s) {
  if (!IsDateTime(s)) return {"invalid datetime"};
  return {};
}

// library.ConstantFormats. The regex sizes estimate the validation cost:
// govalidator's base64 (84) and URL (1103) expressions, strfmt's patterns.
const NamedFormat kFormats[] = {
    {"dns1123Label", "DNS1123Label", 30, ValidateDns1123Label},
    {"dns1123Subdomain", "DNS1123Subdomain", 60, ValidateDns1123Subdomain},
    {"dns1035Label", "DNS1035Label", 30, ValidateDns1035Label},
    {"qualifiedName", "QualifiedName", 60, IsQualifiedName},
    {"dns1123LabelPrefix", "DNS1123LabelPrefix", 30,
     ValidateDns1123LabelPrefix},
    {"dns1123SubdomainPrefix", "DNS1123SubdomainPrefix", 60,
     ValidateDns1123SubdomainPrefix},
    {"dns1035LabelPrefix", "DNS1035LabelPrefix", 30,
     ValidateDns1035LabelPrefix},
    {"labelValue", "LabelValue", 40, IsLabelValue},
    {"uri", "URI", 1103, ValidateUri},
    {"uuid", "uuid", static_cast<int>(kUuidPattern.size()), ValidateUuid},
    {"byte", "byte", 84, ValidateByte},
    {"date", "date", static_cast<int>(kDateTimePattern.size()), ValidateDate},
    {"datetime", "datetime", static_cast<int>(kDateTimePattern.size()),
     ValidateDateTime},
};

// A regular expression match over the string, with the format's estimated
// expression size (Kubernetes' CallCost for validate).
std::optional<uint64_t> ValidateCost(std::span<const Value> args,
                                     const Value&) {
  const uint64_t str_cost =
      lib::CeilCost((1.0 + static_cast<double>(lib::SizerSize(args[1]))) * 0.1);
  const uint64_t regex_cost = lib::CeilCost(
      static_cast<double>(args[0].format().max_regex_size) * 0.25);
  return str_cost * regex_cost;
}

std::optional<uint64_t> UnitCost(std::span<const Value>, const Value&) {
  return 1;
}

}  // namespace

void Register(FunctionRegistry& r) {
  const Type format = Type::Opaque("kubernetes.NamedFormat");
  const Type s = Type::String();
  r.Add("validate",
        Member(
            "format-validate", {format, s}, Type::Optional(Type::List(s)),
            [](std::span<const Value> a) {
              Messages errs = a[0].format().validate(a[1].string_value());
              if (errs.empty()) return Value::OptionalNone();
              return Value::OptionalOf(lib::MakeStringList(errs));
            },
            ValidateCost));
  r.Add("format.named",
        Global(
            "format-named", {s}, Type::Optional(format),
            [](std::span<const Value> a) {
              for (const NamedFormat& f : kFormats) {
                if (f.key == a[0].string_value()) {
                  return Value::OptionalOf(Value::FormatRef(&f));
                }
              }
              return Value::OptionalNone();
            },
            UnitCost));
  // format.<name>(): no estimator entry, so cel-go's default cost.
  for (const NamedFormat& f : kFormats) {
    const std::string name = "format." + std::string(f.key);
    const NamedFormat* ptr = &f;
    r.Add(name, Global(name, {}, format, [ptr](std::span<const Value>) {
            return Value::FormatRef(ptr);
          }));
  }
}

}  // namespace format_lib

void RegisterFormat(FunctionRegistry& r) { format_lib::Register(r); }

}  // namespace ksched::cel

#include "pkg/config/name_validation.h"

namespace ksched::config {
namespace {

constexpr std::string_view kQualifiedNameFmt =
    "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character";
constexpr size_t kQualifiedNameMaxLength = 63;

constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric "
    "character";
constexpr size_t kDns1123LabelMaxLength = 63;

constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character";
constexpr size_t kDns1123SubdomainMaxLength = 253;

constexpr std::string_view kLabelValueFmt =
    "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr size_t kLabelValueMaxLength = 63;

// validation.RegexError, examples and all (the doubled space is Go's).
std::string RegexError(std::string_view msg, std::string_view fmt,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  out += " (e.g. ";
  bool first = true;
  for (std::string_view example : examples) {
    if (!first) out += " or ";
    first = false;
    out += "'";
    out += example;
    out += "', ";
  }
  out += "regex used for validation is '";
  out += fmt;
  out += "')";
  return out;
}

std::string MaxLenError(size_t length, Wording wording = Wording::kV1_32) {
  return "must be no more than " + std::to_string(length) +
         (wording == Wording::kV1_32 ? " characters" : " bytes");
}

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

// kQualifiedNameFmt, matched by hand (std::regex is slow and trips GCC's
// maybe-uninitialized warning).
bool MatchesQualifiedNamePart(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// kDns1123LabelFmt: lower-case alphanumerics with '-' inside.
bool MatchesDns1123Label(std::string_view label) {
  auto lower_alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  if (label.empty() || !lower_alnum(label.front()) ||
      !lower_alnum(label.back())) {
    return false;
  }
  for (char c : label) {
    if (!lower_alnum(c) && c != '-') return false;
  }
  return true;
}

// kDns1123SubdomainFmt: dot-separated lower-case labels.
bool MatchesDns1123Subdomain(std::string_view s) {
  while (true) {
    size_t dot = s.find('.');
    if (!MatchesDns1123Label(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

std::vector<std::string> SubdomainErrors(std::string_view value,
                                         Wording wording) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123SubdomainMaxLength) {
    errs.push_back(MaxLenError(kDns1123SubdomainMaxLength, wording));
  }
  if (!MatchesDns1123Subdomain(value)) {
    errs.push_back(RegexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt,
                              {"example.com"}));
  }
  return errs;
}

}  // namespace

std::vector<std::string> Dns1123SubdomainErrors(std::string_view value) {
  // util/validation keeps its own subdomain check, still in characters.
  return SubdomainErrors(value, Wording::kV1_32);
}

std::vector<std::string> Dns1123LabelErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123LabelMaxLength) {
    errs.push_back(MaxLenError(kDns1123LabelMaxLength));
  }
  if (!MatchesDns1123Label(value)) {
    if (MatchesDns1123Subdomain(value)) {
      errs.push_back("must not contain dots");
    } else {
      errs.push_back(RegexError(kDns1123LabelErrMsg, kDns1123LabelFmt,
                                {"my-name", "123-abc"}));
    }
  }
  return errs;
}

std::vector<std::string> QualifiedNameErrors(std::string_view value,
                                             Wording wording) {
  std::vector<std::string> errs;
  std::string_view name = value;
  size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back((wording == Wording::kV1_32 ? "a qualified name "
                                                 : "a valid label key ") +
                     RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                {"MyName", "my.name", "123-abc"}) +
                     " with an optional DNS subdomain prefix and '/' (e.g. "
                     "'example.com/MyName')");
      return errs;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& msg : SubdomainErrors(prefix, wording)) {
        errs.push_back("prefix part " + msg);
      }
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > kQualifiedNameMaxLength) {
    errs.push_back("name part " +
                   MaxLenError(kQualifiedNameMaxLength, wording));
  }
  if (!MatchesQualifiedNamePart(name)) {
    errs.push_back("name part " + RegexError(kQualifiedNameErrMsg,
                                             kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> LabelValueErrors(std::string_view value,
                                          Wording wording) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) {
    errs.push_back(MaxLenError(kLabelValueMaxLength, wording));
  }
  if (!value.empty() && !MatchesQualifiedNamePart(value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, kLabelValueFmt,
                              {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

}  // namespace ksched::config

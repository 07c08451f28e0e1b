#include "pkg/cel/regex.h"

namespace ksched::cel {
namespace regex_detail {
namespace {

// Go's regexp/syntax error text for RE2's error codes.
std::string_view GoErrorCode(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadEscape:
      return "invalid escape sequence";
    case RE2::ErrorBadCharClass:
      return "invalid character class";
    case RE2::ErrorBadCharRange:
      return "invalid character class range";
    case RE2::ErrorMissingBracket:
      return "missing closing ]";
    case RE2::ErrorMissingParen:
      return "missing closing )";
    case RE2::ErrorUnexpectedParen:
      return "unexpected )";
    case RE2::ErrorTrailingBackslash:
      return "trailing backslash at end of expression";
    case RE2::ErrorRepeatArgument:
      return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize:
      return "invalid repeat count";
    case RE2::ErrorRepeatOp:
      return "invalid nested repetition operator";
    case RE2::ErrorBadPerlOp:
      return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture:
      return "invalid named capture";
    case RE2::ErrorPatternTooLarge:
      return "expression too large";
    default:
      return "regexp/syntax: internal error";
  }
}

RE2::Options GoOptions() {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_encoding(RE2::Options::EncodingUTF8);
  options.set_longest_match(false);
  return options;
}

}  // namespace
}  // namespace regex_detail

std::shared_ptr<const RE2> CompileRegex(std::string_view pattern,
                                        std::string* error) {
  auto re = std::make_shared<const RE2>(
      re2::StringPiece(pattern.data(), pattern.size()),
      regex_detail::GoOptions());
  if (!re->ok()) {
    *error = "error parsing regexp: ";
    *error += regex_detail::GoErrorCode(re->error_code());
    *error += ": `";
    *error += re->error_arg();
    *error += "`";
    return nullptr;
  }
  return re;
}

}  // namespace ksched::cel

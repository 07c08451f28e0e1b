// CEL's tokens (google/cel-spec doc/langdef.md, lexical structure), read
// the way cel-go's ANTLR lexer reads them: identifiers and reserved words,
// int/uint/double literals, quoted, raw, triple-quoted and bytes strings with
// their escapes, operators, comments.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ksched::cel {

enum class Tok : uint8_t {
  kEof,
  kIdent,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kTrue,
  kFalse,
  kNull,
  kIn,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kDot,
  kComma,
  kColon,
  kQuestion,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kNot,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
  kEscapedIdent,  // `field name`
  kError,
};

struct Token {
  Tok kind = Tok::kEof;
  int32_t offset = 0;
  std::string_view text;  // source text of the token
  std::string value;      // decoded string/bytes, identifier, error message
};

// Reads tokens one by one; copyable, so the parser can look ahead and come
// back.
class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}
  Token Next();

 private:
  void SkipSpaceAndComments();
  void LexIdentOrPrefixedString(Token& t);
  void LexEscapedIdent(Token& t);
  void LexNumber(Token& t);
  // Reads a quoted literal starting at pos_ (the quote).
  void LexString(Token& t, bool raw, bool bytes);
  void SkipToClose(char q, bool triple);

  std::string_view src_;
  size_t pos_ = 0;
};

}  // namespace ksched::cel

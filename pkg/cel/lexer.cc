#include "pkg/cel/lexer.h"

namespace ksched::cel {
namespace lexer_detail {
namespace {

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace
}  // namespace lexer_detail

using namespace lexer_detail;  // NOLINT: this file's own helpers

Token Lexer::Next() {
  SkipSpaceAndComments();
  Token t;
  t.offset = static_cast<int32_t>(pos_);
  if (pos_ >= src_.size()) {
    t.kind = Tok::kEof;
    return t;
  }
  size_t start = pos_;
  char c = src_[pos_];
  auto single = [&](Tok k) {
    ++pos_;
    t.kind = k;
  };
  auto pair = [&](char next, Tok two, Tok one) {
    if (pos_ + 1 < src_.size() && src_[pos_ + 1] == next) {
      pos_ += 2;
      t.kind = two;
    } else {
      ++pos_;
      t.kind = one;
    }
  };
  switch (c) {
    case '(':
      single(Tok::kLParen);
      break;
    case ')':
      single(Tok::kRParen);
      break;
    case '[':
      single(Tok::kLBracket);
      break;
    case ']':
      single(Tok::kRBracket);
      break;
    case '{':
      single(Tok::kLBrace);
      break;
    case '}':
      single(Tok::kRBrace);
      break;
    case ',':
      single(Tok::kComma);
      break;
    case ':':
      single(Tok::kColon);
      break;
    case '?':
      single(Tok::kQuestion);
      break;
    case '+':
      single(Tok::kPlus);
      break;
    case '-':
      single(Tok::kMinus);
      break;
    case '*':
      single(Tok::kStar);
      break;
    case '/':
      single(Tok::kSlash);
      break;
    case '%':
      single(Tok::kPercent);
      break;
    case '!':
      pair('=', Tok::kNe, Tok::kNot);
      break;
    case '<':
      pair('=', Tok::kLe, Tok::kLt);
      break;
    case '>':
      pair('=', Tok::kGe, Tok::kGt);
      break;
    case '=':
      if (pos_ + 1 < src_.size() && src_[pos_ + 1] == '=') {
        pos_ += 2;
        t.kind = Tok::kEq;
      } else {
        ++pos_;
        t.kind = Tok::kError;
        t.value = "token recognition error at: '='";
      }
      break;
    case '&':
      if (pos_ + 1 < src_.size() && src_[pos_ + 1] == '&') {
        pos_ += 2;
        t.kind = Tok::kAnd;
      } else {
        ++pos_;
        t.kind = Tok::kError;
        t.value = "token recognition error at: '&'";
      }
      break;
    case '|':
      if (pos_ + 1 < src_.size() && src_[pos_ + 1] == '|') {
        pos_ += 2;
        t.kind = Tok::kOr;
      } else {
        ++pos_;
        t.kind = Tok::kError;
        t.value = "token recognition error at: '|'";
      }
      break;
    case '.':
      if (pos_ + 1 < src_.size() && IsDigit(src_[pos_ + 1])) {
        LexNumber(t);
      } else {
        single(Tok::kDot);
      }
      break;
    case '`':
      LexEscapedIdent(t);
      break;
    case '"':
    case '\'':
      LexString(t, false, false);
      break;
    default:
      if (IsDigit(c)) {
        LexNumber(t);
      } else if (IsIdentStart(c)) {
        LexIdentOrPrefixedString(t);
      } else {
        // One whole UTF-8 character in the message.
        size_t len = 1;
        unsigned char u = static_cast<unsigned char>(c);
        if (u >= 0xF0) {
          len = 4;
        } else if (u >= 0xE0) {
          len = 3;
        } else if (u >= 0xC0) {
          len = 2;
        }
        len = std::min(len, src_.size() - pos_);
        t.kind = Tok::kError;
        t.value = "token recognition error at: '" +
                  std::string(src_.substr(pos_, len)) + "'";
        pos_ += len;
      }
  }
  t.text = src_.substr(start, pos_ - start);
  return t;
}

void Lexer::SkipSpaceAndComments() {
  while (pos_ < src_.size()) {
    char c = src_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '/') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

void Lexer::LexIdentOrPrefixedString(Token& t) {
  size_t start = pos_;
  // String prefixes: r, b, rb, br in any case, directly before a quote.
  size_t p = pos_;
  bool raw = false, bytes = false;
  for (int i = 0; i < 2 && p < src_.size(); ++i) {
    char c = src_[p];
    if ((c == 'r' || c == 'R') && !raw) {
      raw = true;
      ++p;
    } else if ((c == 'b' || c == 'B') && !bytes) {
      bytes = true;
      ++p;
    } else {
      break;
    }
  }
  if (p > pos_ && p < src_.size() && (src_[p] == '"' || src_[p] == '\'')) {
    pos_ = p;
    LexString(t, raw, bytes);
    return;
  }
  while (pos_ < src_.size() &&
         (IsIdentStart(src_[pos_]) || IsDigit(src_[pos_])))
    ++pos_;
  std::string_view word = src_.substr(start, pos_ - start);
  if (word == "true") {
    t.kind = Tok::kTrue;
  } else if (word == "false") {
    t.kind = Tok::kFalse;
  } else if (word == "null") {
    t.kind = Tok::kNull;
  } else if (word == "in") {
    t.kind = Tok::kIn;
  } else {
    t.kind = Tok::kIdent;
    t.value = std::string(word);
  }
}

void Lexer::LexEscapedIdent(Token& t) {
  size_t start = pos_++;
  while (pos_ < src_.size() && src_[pos_] != '`') {
    char c = src_[pos_];
    bool ok = IsIdentStart(c) || IsDigit(c) || c == '.' || c == '-' ||
              c == '/' || c == ' ';
    if (!ok) break;
    ++pos_;
  }
  if (pos_ >= src_.size() || src_[pos_] != '`') {
    t.kind = Tok::kError;
    t.value = "token recognition error at: '" +
              std::string(src_.substr(start, pos_ - start + 1)) + "'";
    if (pos_ < src_.size()) ++pos_;
    return;
  }
  t.kind = Tok::kEscapedIdent;
  t.value = std::string(src_.substr(start + 1, pos_ - start - 1));
  ++pos_;
}

void Lexer::LexNumber(Token& t) {
  size_t start = pos_;
  bool is_double = false;
  if (src_[pos_] == '0' && pos_ + 1 < src_.size() &&
      (src_[pos_ + 1] == 'x' || src_[pos_ + 1] == 'X')) {
    pos_ += 2;
    while (pos_ < src_.size() && IsHex(src_[pos_])) ++pos_;
  } else {
    while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
    if (pos_ + 1 < src_.size() && src_[pos_] == '.' &&
        IsDigit(src_[pos_ + 1])) {
      is_double = true;
      ++pos_;
      while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
      if (p < src_.size() && IsDigit(src_[p])) {
        is_double = true;
        pos_ = p;
        while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
      }
    }
  }
  if (is_double) {
    t.kind = Tok::kDouble;
  } else if (pos_ < src_.size() && (src_[pos_] == 'u' || src_[pos_] == 'U')) {
    ++pos_;
    t.kind = Tok::kUint;
  } else {
    t.kind = Tok::kInt;
  }
  t.value = std::string(src_.substr(start, pos_ - start));
}

void Lexer::LexString(Token& t, bool raw, bool bytes) {
  char q = src_[pos_];
  bool triple =
      pos_ + 2 < src_.size() && src_[pos_ + 1] == q && src_[pos_ + 2] == q;
  size_t start = pos_;
  pos_ += triple ? 3 : 1;
  std::string out;
  auto fail = [&](const std::string& msg) {
    t.kind = Tok::kError;
    t.value = msg;
  };
  while (true) {
    if (pos_ >= src_.size()) {
      // cel-go's lexer reports the unmatched quote.
      pos_ = start + 1;
      fail("token recognition error at: '" +
           std::string(src_.substr(start, 1)) + "'");
      return;
    }
    char c = src_[pos_];
    if (triple) {
      if (c == q && pos_ + 2 < src_.size() && src_[pos_ + 1] == q &&
          src_[pos_ + 2] == q) {
        pos_ += 3;
        break;
      }
    } else {
      if (c == q) {
        ++pos_;
        break;
      }
      if (c == '\n' || c == '\r') {
        pos_ = start + 1;
        fail("token recognition error at: '" +
             std::string(src_.substr(start, 1)) + "'");
        return;
      }
    }
    if (c == '\\' && !raw) {
      if (pos_ + 1 >= src_.size()) {
        pos_ = start + 1;
        fail("token recognition error at: '" +
             std::string(src_.substr(start, 1)) + "'");
        return;
      }
      char e = src_[pos_ + 1];
      pos_ += 2;
      switch (e) {
        case 'a':
          out += '\a';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'v':
          out += '\v';
          break;
        case '\\':
        case '\'':
        case '"':
        case '`':
        case '?':
          out += e;
          break;
        case 'x':
        case 'X': {
          if (pos_ + 2 > src_.size() || !IsHex(src_[pos_]) ||
              !IsHex(src_[pos_ + 1])) {
            fail("invalid escape sequence");
            SkipToClose(q, triple);
            return;
          }
          uint32_t v = HexValue(src_[pos_]) * 16 + HexValue(src_[pos_ + 1]);
          pos_ += 2;
          if (bytes) {
            out += static_cast<char>(v);
          } else {
            AppendUtf8(out, v);
          }
          break;
        }
        case 'u':
        case 'U': {
          int n = e == 'u' ? 4 : 8;
          uint32_t v = 0;
          for (int i = 0; i < n; ++i) {
            if (pos_ >= src_.size() || !IsHex(src_[pos_])) {
              fail("invalid escape sequence");
              SkipToClose(q, triple);
              return;
            }
            v = v * 16 + HexValue(src_[pos_++]);
          }
          if ((v >= 0xD800 && v < 0xE000) || v > 0x10FFFF) {
            fail("invalid unicode code point");
            SkipToClose(q, triple);
            return;
          }
          AppendUtf8(out, v);
          break;
        }
        default:
          if (e >= '0' && e <= '3') {
            if (pos_ + 2 > src_.size() || src_[pos_] < '0' ||
                src_[pos_] > '7' || src_[pos_ + 1] < '0' ||
                src_[pos_ + 1] > '7') {
              fail("invalid escape sequence");
              SkipToClose(q, triple);
              return;
            }
            uint32_t v = (e - '0') * 64 + (src_[pos_] - '0') * 8 +
                         (src_[pos_ + 1] - '0');
            pos_ += 2;
            if (bytes) {
              out += static_cast<char>(v);
            } else {
              AppendUtf8(out, v);
            }
          } else {
            fail("token recognition error at: '" +
                 std::string(src_.substr(pos_ - 2, 2)) + "'");
            SkipToClose(q, triple);
            return;
          }
      }
      continue;
    }
    out += c;
    ++pos_;
  }
  t.kind = bytes ? Tok::kBytes : Tok::kString;
  t.value = std::move(out);
}

void Lexer::SkipToClose(char q, bool triple) {
  while (pos_ < src_.size()) {
    if (src_[pos_] == '\\') {
      pos_ += 2;
      continue;
    }
    if (src_[pos_] == q) {
      if (!triple) {
        ++pos_;
        return;
      }
      if (pos_ + 2 < src_.size() && src_[pos_ + 1] == q &&
          src_[pos_ + 2] == q) {
        pos_ += 3;
        return;
      }
    }
    ++pos_;
  }
}

}  // namespace ksched::cel

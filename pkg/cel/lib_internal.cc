#include "pkg/cel/lib_internal.h"

#include <memory>

namespace ksched::cel::lib {

char32_t DecodeRune(std::string_view s, size_t* width) {
  if (s.empty()) {
    *width = 0;
    return 0xFFFD;
  }
  const auto b0 = static_cast<unsigned char>(s[0]);
  *width = 1;
  if (b0 < 0x80) return b0;
  size_t need;
  char32_t r;
  char32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
    r = b0 & 0x1F;
    min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    r = b0 & 0x0F;
    min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    r = b0 & 0x07;
    min = 0x10000;
  } else {
    return 0xFFFD;
  }
  if (s.size() < need + 1) return 0xFFFD;
  for (size_t i = 1; i <= need; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b & 0xC0) != 0x80) return 0xFFFD;
    r = (r << 6) | (b & 0x3F);
  }
  if (r < min || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) return 0xFFFD;
  *width = need + 1;
  return r;
}

std::vector<char32_t> ToRunes(std::string_view s) {
  std::vector<char32_t> runes;
  runes.reserve(s.size());
  while (!s.empty()) {
    size_t width;
    runes.push_back(DecodeRune(s, &width));
    s.remove_prefix(width);
  }
  return runes;
}

void AppendRune(std::string& out, char32_t r) {
  if (r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) r = 0xFFFD;
  if (r < 0x80) {
    out += static_cast<char>(r);
  } else if (r < 0x800) {
    out += static_cast<char>(0xC0 | (r >> 6));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xE0 | (r >> 12));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (r >> 18));
    out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  }
}

std::string FromRunes(const std::vector<char32_t>& runes, size_t begin,
                      size_t end) {
  std::string out;
  out.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) AppendRune(out, runes[i]);
  return out;
}

size_t RuneCount(std::string_view s) {
  size_t n = 0;
  while (!s.empty()) {
    size_t width;
    DecodeRune(s, &width);
    s.remove_prefix(width);
    ++n;
  }
  return n;
}

uint64_t SizerSize(const Value& v) {
  switch (v.kind()) {
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kList:
    case Kind::kMap:
    case Kind::kIp:  // Kubernetes' IP and CIDR are Sizers too
    case Kind::kCidr:
      return ActualSize(v);
    default:
      return 1;
  }
}

namespace {

// An approximation of Go's unicode.IsPrint for runes outside ASCII: every
// assigned-looking rune prints except the C1 controls, the Latin-1 soft
// hyphen, formatting and separator characters, surrogates and
// noncharacters.
bool GoIsPrint(char32_t r) {
  if (r < 0x20 || r == 0x7F) return false;
  if (r < 0x7F) return true;
  if (r >= 0x80 && r <= 0xA0) return false;
  if (r == 0xAD) return false;
  if (r >= 0x2000 && r <= 0x200F) return false;
  if (r >= 0x2028 && r <= 0x202F) return false;
  if (r >= 0x205F && r <= 0x206F) return false;
  if (r == 0x3000 || r == 0xFEFF || r == 0x1680) return false;
  if (r >= 0xFFF9 && r <= 0xFFFB) return false;
  if (r >= 0xFFFE && r <= 0xFFFF) return false;
  if (r >= 0xE000 && r <= 0xF8FF) return false;  // private use
  if (r >= 0xF0000) return false;
  return true;
}

}  // namespace

std::string GoQuote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  while (!s.empty()) {
    size_t width;
    const char32_t r = DecodeRune(s, &width);
    if (r == 0xFFFD && width == 1 &&
        !(s.size() >= 3 && s.substr(0, 3) == "\xEF\xBF\xBD")) {
      const auto b = static_cast<unsigned char>(s[0]);
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xF];
      s.remove_prefix(1);
      continue;
    }
    s.remove_prefix(width);
    switch (r) {
      case '\a':
        out += "\\a";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\v':
        out += "\\v";
        continue;
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      default:
        break;
    }
    if (GoIsPrint(r)) {
      AppendRune(out, r);
    } else if (r < 0x80) {
      out += "\\x";
      out += kHex[r >> 4];
      out += kHex[r & 0xF];
    } else if (r < 0x10000) {
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4)
        out += kHex[(r >> shift) & 0xF];
    } else {
      out += "\\U";
      for (int shift = 28; shift >= 0; shift -= 4)
        out += kHex[(r >> shift) & 0xF];
    }
  }
  out += '"';
  return out;
}

Value MakeStringList(const std::vector<std::string>& items) {
  std::vector<Value> values;
  values.reserve(items.size());
  for (const std::string& s : items) values.push_back(Value::String(s));
  return MakeList(std::move(values));
}

}  // namespace ksched::cel::lib

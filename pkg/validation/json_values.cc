#include <charconv>

#include "pkg/api/json_stream.h"
#include "pkg/validation/internal.h"

namespace ksched::validation::internal {
namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is not a
// valid one (encoding/json then writes U+FFFD).
size_t Utf8SequenceLength(std::string_view s, size_t i, uint32_t* rune) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t n;
  uint32_t r;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    r = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    r = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    r = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    r = (r << 6) | (byte(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are invalid.
  if ((n == 3 && r < 0x800) || (n == 4 && (r < 0x10000 || r > 0x10FFFF)) ||
      (r >= 0xD800 && r <= 0xDFFF)) {
    return 0;
  }
  *rune = r;
  return n;
}

}  // namespace

const Json* Field(const Json& obj, std::string_view name) {
  if (!obj.IsObject()) return nullptr;
  // A Value key compares by length; the const char* overload would read
  // up to a terminating NUL that a string_view need not have.
  const Json key(rapidjson::StringRef(
      name.data(), static_cast<rapidjson::SizeType>(name.size())));
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

const Json* ObjectField(const Json& obj, std::string_view name) {
  const Json* v = Field(obj, name);
  return v != nullptr && v->IsObject() ? v : nullptr;
}

const Json* ArrayField(const Json& obj, std::string_view name) {
  const Json* v = Field(obj, name);
  return v != nullptr && v->IsArray() ? v : nullptr;
}

std::optional<std::string> ScalarText(const Json& v) {
  if (v.IsString()) return std::string(v.GetString(), v.GetStringLength());
  if (v.IsBool()) return std::string(v.GetBool() ? "true" : "false");
  if (v.IsNumber()) return api::JsonNumberText(v);
  return std::nullopt;
}

std::string StringField(const Json& obj, std::string_view name) {
  const Json* v = Field(obj, name);
  if (v == nullptr) return "";
  return ScalarText(*v).value_or("");
}

std::vector<std::string> ScalarList(const Json& obj, std::string_view name) {
  std::vector<std::string> out;
  if (const Json* list = ArrayField(obj, name)) {
    for (const Json& v : list->GetArray()) {
      if (std::optional<std::string> text = ScalarText(v)) {
        out.push_back(std::move(*text));
      }
    }
  }
  return out;
}

std::optional<int64_t> IntValue(const Json& v) {
  if (v.IsInt64()) return v.GetInt64();
  if (!v.IsString()) return std::nullopt;
  std::string_view text(v.GetString(), v.GetStringLength());
  int64_t value = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<int64_t> IntField(const Json& obj, std::string_view name,
                                bool* present) {
  const Json* v = Field(obj, name);
  if (present != nullptr) *present = v != nullptr;
  if (v == nullptr) return std::nullopt;
  return IntValue(*v);
}

bool BoolField(const Json& obj, std::string_view name) {
  const Json* v = Field(obj, name);
  return v != nullptr && v->IsBool() && v->GetBool();
}

std::optional<api::Quantity> QuantityValue(const Json& v) {
  std::string text;
  if (v.IsString()) {
    text.assign(v.GetString(), v.GetStringLength());
  } else if (v.IsNumber()) {
    text = api::JsonNumberText(v);
  } else {
    return std::nullopt;
  }
  // Quantity.UnmarshalJSON trims surrounding spaces before parsing.
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::nullopt;
  size_t last = text.find_last_not_of(" \t\r\n");
  auto parsed = api::Quantity::Parse(
      std::string_view(text).substr(first, last - first + 1));
  if (!parsed.ok()) return std::nullopt;
  // SetDefaults_ResourceList rounds every quantity up to milli-units (away
  // from zero), so the API server validates and prints "1m" for "0.1m".
  constexpr __int128 kNanoPerMilli = 1'000'000;
  __int128 nano = parsed->NanoValue();
  __int128 rest = nano % kNanoPerMilli;
  if (rest == 0) return *parsed;
  // A value at the end of the range (Parse saturates) is left as it is:
  // rounding it would overflow.
  constexpr __int128 kLargest =
      static_cast<__int128>(~static_cast<unsigned __int128>(0) >> 1);
  if (nano > kLargest - kNanoPerMilli || nano < -kLargest + kNanoPerMilli) {
    return *parsed;
  }
  nano += nano > 0 ? kNanoPerMilli - rest : -(kNanoPerMilli + rest);
  return api::Quantity::FromNano(nano, parsed->format());
}

std::string JsonQuote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '<':
        case '>':
        case '&':
          // encoding/json escapes HTML's specials by default.
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
          break;
        default:
          if (c < 0x20) {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    uint32_t rune = 0;
    size_t n = Utf8SequenceLength(s, i, &rune);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
    } else if (rune == 0x2028 || rune == 0x2029) {
      out += rune == 0x2028 ? "\\u2028" : "\\u2029";
      i += n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  out += '"';
  return out;
}

ResourceList ReadResourceList(const Json* list) {
  ResourceList out;
  if (list == nullptr || !list->IsObject()) return out;
  for (auto it = list->MemberBegin(); it != list->MemberEnd(); ++it) {
    std::optional<api::Quantity> q = QuantityValue(it->value);
    if (!q) continue;
    out.push_back(
        {std::string(it->name.GetString(), it->name.GetStringLength()), *q});
  }
  return out;
}

const Resource* FindResource(const ResourceList& list, std::string_view name) {
  for (const Resource& r : list) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

}  // namespace ksched::validation::internal

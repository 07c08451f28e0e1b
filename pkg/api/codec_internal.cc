#include "pkg/api/codec_internal.h"

#include <algorithm>
#include <limits>

#include "pkg/api/json_stream.h"

namespace ksched::api::codec {

void Decoder::Fail(std::string_view what) {
  if (failed_) return;
  failed_ = true;
  std::string path = Path();
  message_ = path.empty() ? std::string(what) : path + ": " + std::string(what);
}

std::string Decoder::Path() const {
  std::string path = base_path_;
  for (const Segment& s : segments_) {
    if (s.index >= 0) {
      path += '[';
      path += std::to_string(s.index);
      path += ']';
    } else {
      if (!path.empty()) path += '.';
      path += s.key;
    }
  }
  return path;
}

std::string_view TypeName(const JsonValue& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "bool";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return "number";
  }
  return "unknown";
}

void Read(Decoder& d, const JsonValue& v, std::string* out) {
  if (v.IsString()) {
    out->assign(v.GetString(), v.GetStringLength());
    return;
  }
  if (d.options().lenient_scalars) {
    if (v.IsBool()) {
      *out = v.GetBool() ? "true" : "false";
      return;
    }
    if (v.IsNumber()) {
      *out = JsonNumberText(v);
      return;
    }
  }
  d.Fail("expected string, got " + std::string(TypeName(v)));
}

void Read(Decoder& d, const JsonValue& v, bool* out) {
  if (!v.IsBool()) {
    d.Fail("expected bool, got " + std::string(TypeName(v)));
    return;
  }
  *out = v.GetBool();
}

void Read(Decoder& d, const JsonValue& v, int32_t* out) {
  if (!v.IsNumber()) {
    d.Fail("expected integer, got " + std::string(TypeName(v)));
    return;
  }
  if (!v.IsInt()) {
    d.Fail("expected 32-bit integer, got " + JsonNumberText(v));
    return;
  }
  *out = v.GetInt();
}

void Read(Decoder& d, const JsonValue& v, int64_t* out) {
  if (!v.IsNumber()) {
    d.Fail("expected integer, got " + std::string(TypeName(v)));
    return;
  }
  if (!v.IsInt64()) {
    d.Fail("expected 64-bit integer, got " + JsonNumberText(v));
    return;
  }
  *out = v.GetInt64();
}

void Read(Decoder& d, const JsonValue& v, double* out) {
  if (!v.IsNumber()) {
    d.Fail("expected number, got " + std::string(TypeName(v)));
    return;
  }
  *out = v.GetDouble();
}

void Read(Decoder& d, const JsonValue& v, Quantity* out) {
  std::string text;
  if (v.IsString()) {
    text.assign(v.GetString(), v.GetStringLength());
  } else if (v.IsNumber()) {
    // Quantity.UnmarshalJSON parses a bare number's literal text.
    text = JsonNumberText(v);
  } else {
    d.Fail("expected quantity (string or number), got " +
           std::string(TypeName(v)));
    return;
  }
  // UnmarshalJSON trims surrounding spaces before parsing.
  auto first = text.find_first_not_of(" \t\r\n");
  auto last = text.find_last_not_of(" \t\r\n");
  std::string_view trimmed =
      first == std::string::npos
          ? std::string_view()
          : std::string_view(text).substr(first, last - first + 1);
  auto parsed = Quantity::Parse(trimmed);
  if (!parsed.ok()) {
    d.Fail(parsed.error().message());
    return;
  }
  *out = *parsed;
}

namespace {
template <typename T>
void ReadTime(Decoder& d, const JsonValue& v, T* out) {
  if (!v.IsString()) {
    d.Fail("expected RFC 3339 time string, got " + std::string(TypeName(v)));
    return;
  }
  auto parsed =
      ParseRfc3339(std::string_view(v.GetString(), v.GetStringLength()));
  if (!parsed.ok()) {
    d.Fail(parsed.error().message());
    return;
  }
  out->value = *parsed;
}
}  // namespace

void Read(Decoder& d, const JsonValue& v, Time* out) { ReadTime(d, v, out); }
void Read(Decoder& d, const JsonValue& v, MicroTime* out) {
  ReadTime(d, v, out);
}

void Write(JsonWriter& w, const std::string& value) {
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}
void Write(JsonWriter& w, bool value) { w.Bool(value); }
void Write(JsonWriter& w, int32_t value) { w.Int(value); }
void Write(JsonWriter& w, int64_t value) { w.Int64(value); }
void Write(JsonWriter& w, double value) { w.Double(value); }
void Write(JsonWriter& w, const Quantity& value) { Write(w, value.ToString()); }
void Write(JsonWriter& w, const Time& value) {
  Write(w, FormatRfc3339(value.value));
}
void Write(JsonWriter& w, const MicroTime& value) {
  Write(w, FormatRfc3339Micro(value.value));
}

void ObjectReader::CheckNoUnknownFields() {
  for (auto it = object_.MemberBegin(); it != object_.MemberEnd(); ++it) {
    std::string_view name(it->name.GetString(), it->name.GetStringLength());
    if (std::find(known_.begin(), known_.end(), name) == known_.end()) {
      Decoder::KeyScope scope(d_, name);
      d_.Fail("unknown field");
      return;
    }
  }
}

util::Result<rapidjson::Document> ParseDocument(std::string_view text) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (doc.HasParseError()) {
    return util::Error(std::string("malformed JSON at offset ") +
                       std::to_string(doc.GetErrorOffset()) + ": " +
                       rapidjson::GetParseError_En(doc.GetParseError()));
  }
  return doc;
}

}  // namespace ksched::api::codec

#include "pkg/api/json_stream.h"

#include <rapidjson/memorystream.h>

#include <string>
#include <unordered_set>

namespace ksched::api {
namespace {

// A repeated key or nesting beyond `limit`; recursion is bounded by the
// limit itself.
util::Status CheckShape(const rapidjson::Value& v, int limit) {
  if (!v.IsArray() && !v.IsObject()) return util::Status();
  if (limit <= 0) {
    return util::Error("JSON nested deeper than " +
                       std::to_string(kMaxJsonDepth) + " levels");
  }
  if (v.IsArray()) {
    for (const rapidjson::Value& item : v.GetArray()) {
      if (auto s = CheckShape(item, limit - 1); !s.ok()) return s;
    }
    return util::Status();
  }
  auto key = [](const rapidjson::Value& name) {
    return std::string_view(name.GetString(), name.GetStringLength());
  };
  const auto object = v.GetObject();
  auto duplicate = [&](std::string_view k) {
    return util::Error("malformed JSON: duplicate field \"" + std::string(k) +
                       "\"");
  };
  if (object.MemberCount() <= 8) {
    for (auto a = object.begin(); a != object.end(); ++a) {
      for (auto b = object.begin(); b != a; ++b) {
        if (key(a->name) == key(b->name)) return duplicate(key(a->name));
      }
    }
  } else {
    std::unordered_set<std::string_view> keys;
    for (const auto& member : object) {
      if (!keys.insert(key(member.name)).second) {
        return duplicate(key(member.name));
      }
    }
  }
  for (const auto& member : object) {
    if (auto s = CheckShape(member.value, limit - 1); !s.ok()) return s;
  }
  return util::Status();
}

constexpr unsigned kStrict =
    rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;

}  // namespace

std::string JsonNumberText(const rapidjson::Value& number) {
  if (number.IsInt64()) return std::to_string(number.GetInt64());
  if (number.IsUint64()) return std::to_string(number.GetUint64());
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  if (!writer.Double(number.GetDouble())) return "";  // NaN, infinity
  std::string text(buffer.GetString(), buffer.GetSize());
  if (text.size() > 2 && text.ends_with(".0")) text.resize(text.size() - 2);
  return text;
}

std::string LineAndColumn(std::string_view text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

util::Result<rapidjson::Document> ParseJsonValue(std::string_view text,
                                                 std::string_view whole,
                                                 size_t offset,
                                                 bool* syntax_error) {
  rapidjson::Document doc;
  doc.Parse<kStrict>(text.data(), text.size());
  if (syntax_error != nullptr) *syntax_error = doc.HasParseError();
  if (doc.HasParseError()) {
    return util::Error("malformed JSON: " +
                       LineAndColumn(whole, offset + doc.GetErrorOffset()) +
                       ": " + rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (auto s = CheckShape(doc, kMaxJsonDepth); !s.ok()) return s.error();
  return doc;
}

util::Result<std::vector<rapidjson::Document>> ParseJsonStream(
    std::string_view text, size_t* read, bool* syntax_error) {
  std::vector<rapidjson::Document> out;
  if (syntax_error != nullptr) *syntax_error = false;
  size_t pos = 0;
  while (true) {
    pos = text.find_first_not_of(" \t\r\n", pos);
    if (pos == std::string_view::npos) break;
    // One value from `pos`; RapidJSON stops after it.
    rapidjson::Document doc;
    rapidjson::MemoryStream stream(text.data() + pos, text.size() - pos);
    doc.ParseStream<kStrict | rapidjson::kParseStopWhenDoneFlag>(stream);
    if (read != nullptr) *read = out.size();
    if (doc.HasParseError()) {
      if (syntax_error != nullptr) *syntax_error = true;
      return util::Error(
          "malformed JSON: " + LineAndColumn(text, pos + doc.GetErrorOffset()) +
          ": " + rapidjson::GetParseError_En(doc.GetParseError()));
    }
    if (auto s = CheckShape(doc, kMaxJsonDepth); !s.ok()) return s.error();
    pos += stream.Tell();
    out.push_back(std::move(doc));
  }
  return out;
}

}  // namespace ksched::api

#include "pkg/api/yaml.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#include <yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <string>
#include <unordered_set>

namespace ksched::api {
namespace {

constexpr int kMaxDepth = 256;
// Without aliases a document has fewer nodes than bytes; aliases may repeat
// parts of it, but beyond this many times its size it is an attack.
constexpr size_t kNodesPerInputByte = 16;
constexpr size_t kMinNodeBudget = 100'000;

bool IsNull(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

bool IsTrue(const std::string& s) {
  return s == "true" || s == "True" || s == "TRUE";
}
bool IsFalse(const std::string& s) {
  return s == "false" || s == "False" || s == "FALSE";
}

bool IsDecimalInt(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

// The YAML 1.2 core schema's float:
// [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
bool IsFloat(const std::string& s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t int_digits = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t frac_digits = digits();
    if (int_digits == 0 && frac_digits == 0) return false;
  } else if (int_digits == 0) {
    return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

class Converter {
 public:
  Converter(rapidjson::Document::AllocatorType& alloc, size_t node_budget)
      : alloc_(alloc), node_budget_(node_budget) {}

  util::Result<void> Convert(const YAML::Node& node, rapidjson::Value* out,
                             int depth) {
    if (depth > kMaxDepth) {
      return util::Error("YAML nested deeper than " +
                         std::to_string(kMaxDepth) + " levels");
    }
    if (++nodes_ > node_budget_) {
      return util::Error("YAML expands to more than " +
                         std::to_string(node_budget_) +
                         " nodes (alias expansion?)");
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out->SetNull();
        return {};
      case YAML::NodeType::Scalar:
        ConvertScalar(node, out);
        return {};
      case YAML::NodeType::Sequence: {
        out->SetArray();
        out->Reserve(static_cast<rapidjson::SizeType>(node.size()), alloc_);
        for (const auto& item : node) {
          rapidjson::Value v;
          if (auto r = Convert(item, &v, depth + 1); !r.ok()) return r;
          out->PushBack(v, alloc_);
        }
        return {};
      }
      case YAML::NodeType::Map: {
        out->SetObject();
        // Merge keys ("<<: *anchor") contribute only keys the mapping does
        // not set itself, the first source winning among several.
        std::vector<YAML::Node> merges;
        for (const auto& entry : node) {
          if (!entry.first.IsScalar()) {
            return util::Error(Where(entry.first) +
                               "mapping keys must be scalars");
          }
          const std::string& key = entry.first.Scalar();
          if (key == "<<" && entry.first.Tag() == "?") {
            if (entry.second.IsSequence()) {
              for (const auto& source : entry.second) merges.push_back(source);
            } else {
              merges.push_back(entry.second);
            }
            continue;
          }
          rapidjson::Value v;
          if (auto r = Convert(entry.second, &v, depth + 1); !r.ok()) return r;
          // A repeated key: the last one wins, as in Go's decoder.
          auto existing = out->FindMember(key);
          if (existing != out->MemberEnd()) {
            existing->value = v;
          } else {
            out->AddMember(rapidjson::Value(key, alloc_), v, alloc_);
          }
        }
        for (const YAML::Node& source : merges) {
          if (!source.IsMap()) {
            return util::Error(Where(source) +
                               "a merge key (<<) must refer to a mapping");
          }
          for (const auto& entry : source) {
            if (!entry.first.IsScalar()) {
              return util::Error(Where(entry.first) +
                                 "mapping keys must be scalars");
            }
            const std::string& key = entry.first.Scalar();
            if (out->HasMember(key)) continue;
            rapidjson::Value v;
            if (auto r = Convert(entry.second, &v, depth + 1); !r.ok()) {
              return r;
            }
            out->AddMember(rapidjson::Value(key, alloc_), v, alloc_);
          }
        }
        return {};
      }
    }
    return util::Error("unsupported YAML node");
  }

 private:
  static std::string Where(const YAML::Node& node) {
    const YAML::Mark m = node.Mark();
    if (m.is_null()) return "";
    return "line " + std::to_string(m.line + 1) + ", column " +
           std::to_string(m.column + 1) + ": ";
  }

  void ConvertScalar(const YAML::Node& node, rapidjson::Value* out) {
    const std::string& s = node.Scalar();
    // yaml-cpp tags plain scalars "?"; quoted and explicitly tagged ones
    // are strings (or what their tag says, which Kubernetes ignores too).
    if (node.Tag() != "?") {
      out->SetString(s, alloc_);
      return;
    }
    if (IsNull(s)) {
      out->SetNull();
    } else if (IsTrue(s)) {
      out->SetBool(true);
    } else if (IsFalse(s)) {
      out->SetBool(false);
    } else if (IsDecimalInt(s)) {
      errno = 0;
      char* end = nullptr;
      long long v = std::strtoll(s.c_str(), &end, 10);
      if (errno == ERANGE) {
        out->SetDouble(std::strtod(s.c_str(), nullptr));
      } else {
        out->SetInt64(v);
      }
    } else if (IsFloat(s)) {
      out->SetDouble(std::strtod(s.c_str(), nullptr));
    } else {
      out->SetString(s, alloc_);
    }
  }

  rapidjson::Document::AllocatorType& alloc_;
  size_t node_budget_;
  size_t nodes_ = 0;
};

// Where each document of a stream starts, and nothing else: the parser's
// events without building nodes.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  YAML::Mark start;
};

std::string Where(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return "line " + std::to_string(mark.line + 1) + ", column " +
         std::to_string(mark.column + 1) + ": ";
}

// yaml-cpp 0.7 can stop advancing: after a ',' outside any flow collection
// ("," alone, "&a ,", "key: v\n,") its parser hands out the same empty
// document again and again, and YAML::LoadAll never returns, allocating as
// it loops. Walking the events first, a document that starts where the one
// before it started is that loop; every other stream ends, and only then
// is it loaded.
util::Status CheckParserAdvances(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  int documents = 0;
  int previous_start = -1;
  while (parser.HandleNextDocument(starts)) {
    if (++documents > 1 && starts.start.pos <= previous_start) {
      return util::Error("malformed YAML: " + Where(starts.start) +
                         "did not find expected node content");
    }
    previous_start = starts.start.pos;
  }
  return {};
}

}  // namespace

util::Result<std::vector<YAML::Node>> LoadYamlDocuments(std::string_view text) {
  const std::string owned(text);
  try {
    if (auto advances = CheckParserAdvances(owned); !advances.ok()) {
      return advances.error();
    }
    return YAML::LoadAll(owned);
  } catch (const YAML::Exception& e) {
    return util::Error("malformed YAML: " + Where(e.mark) + e.msg);
  }
}

namespace {

// Whether a parsed JSON document must take the YAML path after all: it nests
// deeper than the YAML path allows (which words the error), or an object
// repeats a key (RapidJSON keeps both; the YAML path keeps the last, as
// kubectl does). Recursion stops at the limit, so the check itself cannot
// exhaust the stack.
bool NeedsYamlPath(const rapidjson::Value& v, int limit) {
  if (limit < 0) return true;
  if (v.IsArray()) {
    for (const rapidjson::Value& item : v.GetArray()) {
      if (NeedsYamlPath(item, limit - 1)) return true;
    }
  } else if (v.IsObject()) {
    auto key = [](const rapidjson::Value& name) {
      return std::string_view(name.GetString(), name.GetStringLength());
    };
    const auto object = v.GetObject();
    if (object.MemberCount() <= 8) {
      for (auto a = object.begin(); a != object.end(); ++a) {
        for (auto b = object.begin(); b != a; ++b) {
          if (key(a->name) == key(b->name)) return true;
        }
      }
    } else {
      std::unordered_set<std::string_view> keys;
      for (const auto& member : object) {
        if (!keys.insert(key(member.name)).second) return true;
      }
    }
    for (const auto& member : object) {
      if (NeedsYamlPath(member.value, limit - 1)) return true;
    }
  }
  return false;
}

}  // namespace

namespace {

// libyaml's parser over a string, one event at a time.
class EventStream {
 public:
  explicit EventStream(std::string_view text) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_input_string(
        &parser_, reinterpret_cast<const unsigned char*>(text.data()),
        text.size());
  }
  ~EventStream() {
    if (has_event_) yaml_event_delete(&event_);
    yaml_parser_delete(&parser_);
  }
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

  // The next event, valid until the next call; nullptr on a parse error.
  const yaml_event_t* Next() {
    if (has_event_) yaml_event_delete(&event_);
    has_event_ = yaml_parser_parse(&parser_, &event_) != 0;
    return has_event_ ? &event_ : nullptr;
  }
  // Where the last event ended: libyaml counts characters, which are bytes
  // in the ASCII of a cluster's manifests.
  size_t Position() const { return has_event_ ? event_.end_mark.index : 0; }

 private:
  yaml_parser_t parser_;
  yaml_event_t event_;
  bool has_event_ = false;
};

// Events of one value into a RapidJSON handler (a Document); false when
// the value has what the fast path leaves to YamlToJson.
class ValueEmitter {
 public:
  explicit ValueEmitter(EventStream& events) : events_(events) {}

  template <typename Handler>
  bool Emit(const yaml_event_t& first, Handler& h, int depth) {
    if (depth > kMaxDepth) return false;
    switch (first.type) {
      case YAML_SCALAR_EVENT:
        return Scalar(first, h);
      case YAML_SEQUENCE_START_EVENT: {
        if (first.data.sequence_start.anchor != nullptr ||
            !first.data.sequence_start.implicit) {
          return false;
        }
        h.StartArray();
        rapidjson::SizeType n = 0;
        while (true) {
          const yaml_event_t* e = events_.Next();
          if (e == nullptr) return false;
          if (e->type == YAML_SEQUENCE_END_EVENT) break;
          if (!Emit(*e, h, depth + 1)) return false;
          ++n;
        }
        return h.EndArray(n);
      }
      case YAML_MAPPING_START_EVENT: {
        if (first.data.mapping_start.anchor != nullptr ||
            !first.data.mapping_start.implicit) {
          return false;
        }
        h.StartObject();
        std::unordered_set<std::string> keys;
        rapidjson::SizeType n = 0;
        while (true) {
          const yaml_event_t* e = events_.Next();
          if (e == nullptr) return false;
          if (e->type == YAML_MAPPING_END_EVENT) break;
          std::string key;
          if (!Key(*e, &key) || !keys.insert(key).second) return false;
          h.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()), true);
          const yaml_event_t* v = events_.Next();
          if (v == nullptr || !Emit(*v, h, depth + 1)) return false;
          ++n;
        }
        return h.EndObject(n);
      }
      default:  // aliases, and anything out of place
        return false;
    }
  }

  // A mapping key: a scalar without anchor or tag, and not a merge key.
  static bool Key(const yaml_event_t& e, std::string* key) {
    if (e.type != YAML_SCALAR_EVENT || e.data.scalar.anchor != nullptr ||
        e.data.scalar.tag != nullptr) {
      return false;
    }
    key->assign(reinterpret_cast<const char*>(e.data.scalar.value),
                e.data.scalar.length);
    return !(e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && *key == "<<");
  }

 private:
  template <typename Handler>
  static bool Scalar(const yaml_event_t& e, Handler& h) {
    if (e.data.scalar.anchor != nullptr || e.data.scalar.tag != nullptr) {
      return false;
    }
    const char* data = reinterpret_cast<const char*>(e.data.scalar.value);
    const size_t size = e.data.scalar.length;
    if (e.data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
      return h.String(data, static_cast<rapidjson::SizeType>(size), true);
    }
    // Plain: YAML 1.2's core schema, as ConvertScalar types it.
    const std::string s(data, size);
    if (IsNull(s)) return h.Null();
    if (IsTrue(s)) return h.Bool(true);
    if (IsFalse(s)) return h.Bool(false);
    if (IsDecimalInt(s)) {
      errno = 0;
      const long long v = std::strtoll(s.c_str(), nullptr, 10);
      if (errno == ERANGE) return h.Double(std::strtod(s.c_str(), nullptr));
      return h.Int64(v);
    }
    if (IsFloat(s)) return h.Double(std::strtod(s.c_str(), nullptr));
    return h.String(data, static_cast<rapidjson::SizeType>(size), true);
  }

  EventStream& events_;
};

// One value, starting at `first`, as a Document.
bool ReadValue(ValueEmitter& emitter, const yaml_event_t& first, int depth,
               rapidjson::Document* out) {
  bool ok = false;
  auto generate = [&](rapidjson::Document& h) {
    ok = emitter.Emit(first, h, depth);
    return ok;
  };
  out->Populate(generate);
  return ok;
}

}  // namespace

util::Result<bool> StreamYamlToJson(std::string_view text,
                                    const YamlStreamCallbacks& callbacks) {
  EventStream events(text);
  ValueEmitter emitter(events);
  size_t document = 0;
  while (true) {
    const yaml_event_t* e = events.Next();
    if (e == nullptr) return false;
    if (e->type == YAML_STREAM_END_EVENT) return true;
    if (e->type != YAML_DOCUMENT_START_EVENT) continue;  // stream start
    const yaml_event_t* root = events.Next();
    if (root == nullptr) return false;
    ++document;
    if (root->type != YAML_MAPPING_START_EVENT) {
      rapidjson::Document doc;
      if (!ReadValue(emitter, *root, 0, &doc)) return false;
      const yaml_event_t* end = events.Next();
      if (end == nullptr || end->type != YAML_DOCUMENT_END_EVENT) {
        return false;
      }
      if (doc.IsNull()) {
        --document;  // an empty document is dropped, as YamlToJson does
        continue;
      }
      if (auto s = callbacks.on_document(std::move(doc), document); !s.ok()) {
        return s.error();
      }
      if (callbacks.on_read) callbacks.on_read(events.Position());
      continue;
    }
    // A mapping: its "items" element by element, the rest as one object.
    if (root->data.mapping_start.anchor != nullptr ||
        !root->data.mapping_start.implicit) {
      return false;
    }
    rapidjson::Document rest(rapidjson::kObjectType);
    std::unordered_set<std::string> keys;
    while (true) {
      const yaml_event_t* k = events.Next();
      if (k == nullptr) return false;
      if (k->type == YAML_MAPPING_END_EVENT) break;
      std::string key;
      if (!ValueEmitter::Key(*k, &key) || !keys.insert(key).second) {
        return false;
      }
      const yaml_event_t* v = events.Next();
      if (v == nullptr) return false;
      if (key == "items" && v->type == YAML_SEQUENCE_START_EVENT &&
          v->data.sequence_start.anchor == nullptr &&
          v->data.sequence_start.implicit) {
        size_t index = 0;
        while (true) {
          const yaml_event_t* item = events.Next();
          if (item == nullptr) return false;
          if (item->type == YAML_SEQUENCE_END_EVENT) break;
          rapidjson::Document doc;
          if (!ReadValue(emitter, *item, 2, &doc)) return false;
          if (auto s = callbacks.on_item(std::move(doc), document, index++);
              !s.ok()) {
            return s.error();
          }
          if (callbacks.on_read) callbacks.on_read(events.Position());
        }
        rest.AddMember(rapidjson::Value(key.c_str(), rest.GetAllocator()),
                       rapidjson::Value(rapidjson::kArrayType),
                       rest.GetAllocator());
        continue;
      }
      rapidjson::Document value;
      if (!ReadValue(emitter, *v, 1, &value)) return false;
      rest.AddMember(rapidjson::Value(key.c_str(), rest.GetAllocator()),
                     rapidjson::Value(value, rest.GetAllocator()),
                     rest.GetAllocator());
    }
    const yaml_event_t* end = events.Next();
    if (end == nullptr || end->type != YAML_DOCUMENT_END_EVENT) return false;
    if (auto s = callbacks.on_document(std::move(rest), document); !s.ok()) {
      return s.error();
    }
    if (callbacks.on_read) callbacks.on_read(events.Position());
  }
}

util::Result<std::vector<rapidjson::Document>> YamlToJson(
    std::string_view text) {
  // A JSON document (kubectl's `-o json`, a saved snapshot) is YAML too, but
  // RapidJSON reads it a hundred times faster than yaml-cpp; whatever it
  // refuses (several documents, comments, YAML) takes the YAML path, which
  // also words the errors.
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseIterativeFlag |
              rapidjson::kParseValidateEncodingFlag>(text.data(), text.size());
    if (!doc.HasParseError() && !NeedsYamlPath(doc, kMaxDepth)) {
      std::vector<rapidjson::Document> out;
      out.push_back(std::move(doc));
      return out;
    }
  }
  auto docs = LoadYamlDocuments(text);
  if (!docs.ok()) return docs.error();
  std::vector<rapidjson::Document> out;
  for (const auto& node : *docs) {
    if (node.IsNull() || !node.IsDefined()) continue;
    rapidjson::Document doc;
    Converter converter(
        doc.GetAllocator(),
        std::max(kMinNodeBudget, text.size() * kNodesPerInputByte));
    if (auto r = converter.Convert(node, &doc, 0); !r.ok()) {
      return r.error().Wrap("YAML document " + std::to_string(out.size() + 1));
    }
    out.push_back(std::move(doc));
  }
  return out;
}

namespace {

// Whether a plain scalar with this text would be read as something other
// than the string (YAML 1.2 core schema, plus 1.1's yes/no that older
// readers still take for booleans).
bool NeedsQuotes(const std::string& s) {
  if (s.empty()) return true;
  static const char* const kWords[] = {
      "null",  "Null",  "NULL", "~",   "true", "True", "TRUE", "false",
      "False", "FALSE", "yes",  "Yes", "YES",  "no",   "No",   "NO",
      "on",    "On",    "ON",   "off", "Off",  "OFF",  "y",    "n"};
  for (const char* w : kWords) {
    if (s == w) return true;
  }
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  if (end == s.c_str() + s.size()) return true;  // a number
  return s.front() == ' ' || s.back() == ' ';
}

void Emit(YAML::Emitter& out, const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      out << YAML::Null;
      return;
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      out << v.GetBool();
      return;
    case rapidjson::kNumberType:
      if (v.IsInt64()) {
        out << v.GetInt64();
      } else if (v.IsUint64()) {
        out << v.GetUint64();
      } else {
        out << v.GetDouble();
      }
      return;
    case rapidjson::kStringType: {
      std::string s(v.GetString(), v.GetStringLength());
      if (NeedsQuotes(s)) out << YAML::DoubleQuoted;
      out << s;
      return;
    }
    case rapidjson::kArrayType:
      out << YAML::BeginSeq;
      for (const auto& item : v.GetArray()) Emit(out, item);
      out << YAML::EndSeq;
      return;
    case rapidjson::kObjectType:
      out << YAML::BeginMap;
      for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
        std::string key(m->name.GetString(), m->name.GetStringLength());
        out << YAML::Key;
        if (NeedsQuotes(key)) out << YAML::DoubleQuoted;
        out << key << YAML::Value;
        Emit(out, m->value);
      }
      out << YAML::EndMap;
      return;
  }
}

}  // namespace

std::string JsonToYaml(const rapidjson::Value& value) {
  YAML::Emitter out;
  Emit(out, value);
  return std::string(out.c_str()) + "\n";
}

}  // namespace ksched::api

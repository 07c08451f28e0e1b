#include "pkg/config/document.h"

#include <yaml-cpp/yaml.h>

#include <string>

#include "pkg/api/json_stream.h"
#include "pkg/api/yaml.h"

namespace ksched::config {
namespace {

// Mirrors the limits of api::YamlToJson: a node budget, so that exploding
// aliases cannot make the duplicate-key walk run away, and a nesting limit,
// so that no recursive walk of a document can exhaust the stack.
constexpr size_t kMaxNodes = 20'000'000;
constexpr int kMaxDepth = 256;

bool LooksLikeJson(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

// sigs.k8s.io/yaml's strict conversion: a key repeated in one mapping.
class DuplicateKeyFinder {
 public:
  std::string Find(const YAML::Node& node) {
    if (++nodes_ > kMaxNodes) return "";
    if (node.IsSequence()) {
      for (const YAML::Node& item : node) {
        if (std::string found = Find(item); !found.empty()) return found;
      }
    } else if (node.IsMap()) {
      std::vector<std::string> keys;
      for (const auto& entry : node) {
        if (entry.first.IsScalar()) {
          const std::string& key = entry.first.Scalar();
          for (const std::string& seen : keys) {
            if (seen == key) {
              const YAML::Mark mark = entry.first.Mark();
              return "line " + std::to_string(mark.line + 1) + ", column " +
                     std::to_string(mark.column + 1) + ": key \"" + key +
                     "\" already set in map";
            }
          }
          keys.push_back(key);
        }
        if (std::string found = Find(entry.second); !found.empty()) {
          return found;
        }
      }
    }
    return "";
  }

 private:
  size_t nodes_ = 0;
};

// encoding/json strict decoding: a member repeated in one object. Also the
// place where a too deeply nested JSON document is refused.
std::string FindDuplicateMember(const rapidjson::Value& v,
                                const std::string& path, int depth = 0) {
  if (depth > kMaxDepth) {
    return "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels";
  }
  if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      std::string found = FindDuplicateMember(
          v[i], path + "[" + std::to_string(i) + "]", depth + 1);
      if (!found.empty()) return found;
    }
  } else if (v.IsObject()) {
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
      std::string_view key(it->name.GetString(), it->name.GetStringLength());
      std::string child =
          path.empty() ? std::string(key) : path + "." + std::string(key);
      for (auto prev = v.MemberBegin(); prev != it; ++prev) {
        if (std::string_view(prev->name.GetString(),
                             prev->name.GetStringLength()) == key) {
          return child + ": duplicate field";
        }
      }
      if (std::string found = FindDuplicateMember(it->value, child, depth + 1);
          !found.empty()) {
        return found;
      }
    }
  }
  return "";
}

// Parses JSON text; *syntax_error tells a malformed text from a
// well-formed one refused for its content.
util::Result<rapidjson::Document> ParseJson(std::string_view text,
                                            bool* syntax_error) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  *syntax_error = doc.HasParseError();
  if (doc.HasParseError()) {
    return util::Error(
        "malformed JSON: " + api::LineAndColumn(text, doc.GetErrorOffset()) +
        ": " + rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (std::string dup = FindDuplicateMember(doc, ""); !dup.empty()) {
    return util::Error(dup);
  }
  return doc;
}

util::Result<rapidjson::Document> ParseYaml(std::string_view text) {
  auto docs = api::YamlToJson(text);
  if (!docs.ok()) return docs.error();
  if (docs->size() > 1) {
    return util::Error("the configuration holds " +
                       std::to_string(docs->size()) +
                       " YAML documents; ksched reads exactly one "
                       "KubeSchedulerConfiguration");
  }
  auto nodes = api::LoadYamlDocuments(text);
  if (!nodes.ok()) return nodes.error();
  for (const YAML::Node& node : *nodes) {
    if (std::string dup = DuplicateKeyFinder().Find(node); !dup.empty()) {
      return util::Error(dup);
    }
  }
  if (docs->empty()) return rapidjson::Document();
  return std::move((*docs)[0]);
}

}  // namespace

util::Result<rapidjson::Document> ParseConfigDocument(std::string_view text) {
  if (!LooksLikeJson(text)) return ParseYaml(text);
  bool syntax_error = false;
  auto json = ParseJson(text, &syntax_error);
  if (json.ok() || !syntax_error) return json;
  // A YAML flow mapping ({a: 1}) starts like JSON; kube-scheduler reads
  // both as YAML. The JSON error is the better one for a JSON typo.
  auto yaml = ParseYaml(text);
  if (yaml.ok()) return yaml;
  return json;
}

}  // namespace ksched::config

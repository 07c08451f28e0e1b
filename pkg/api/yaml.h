// YAML to JSON, as kubectl and kube-scheduler read YAML: each document is
// turned into the JSON it denotes and then decoded like any JSON object.
#pragma once

#include <yaml-cpp/node/node.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/json.h"
#include "pkg/util/result.h"

namespace ksched::api {

// Converts every document of a YAML stream. Plain scalars are typed by the
// YAML 1.2 core schema (null, true/false, integers, floats); quoted scalars
// stay strings. Documents that are empty are dropped. Aliases are expanded,
// up to a total node budget so that an "exponential entity" document cannot
// exhaust memory; nesting is limited so recursion cannot exhaust the stack.
util::Result<std::vector<rapidjson::Document>> YamlToJson(
    std::string_view text);

// Large YAML streams (a snapshot of a cluster, tens of megabytes) through
// libyaml's event parser, value by value, without a node tree: a
// document that is a mapping with an "items" sequence (a List) gives each
// item to `on_item` as it is read, then the rest of its mapping to
// `on_document`; any other document goes whole to `on_document`. Empty
// documents are skipped. Returns false, having called nothing it cannot
// take back only when the stream has what this reader leaves to
// YamlToJson (anchors, aliases, explicit tags, merge keys, repeated keys,
// nesting beyond YamlToJson's limit, or a syntax error, which YamlToJson
// then words): the caller must discard what the callbacks received and
// use YamlToJson. Scalars are typed as YamlToJson types them.
struct YamlStreamCallbacks {
  std::function<util::Status(rapidjson::Document item, size_t document,
                             size_t index)>
      on_item;
  std::function<util::Status(rapidjson::Document doc, size_t document)>
      on_document;
  // Optional: after each item or document, how far into `text` the parser
  // is (bytes, near enough), for a progress line.
  std::function<void(size_t bytes)> on_read;
};
util::Result<bool> StreamYamlToJson(std::string_view text,
                                    const YamlStreamCallbacks& callbacks);

// YAML::LoadAll, made safe for any input: yaml-cpp's exceptions become the
// error ("malformed YAML: line 3, column 5: ..."), and a stream on which
// yaml-cpp's parser would loop forever is refused instead.
util::Result<std::vector<YAML::Node>> LoadYamlDocuments(std::string_view text);

// JSON as a YAML document (`-o yaml`), block style, keys in order. A
// string that would read back as another type ("473", "true", "") is
// quoted, so YamlToJson gives the same JSON again.
std::string JsonToYaml(const rapidjson::Value& value);

}  // namespace ksched::api

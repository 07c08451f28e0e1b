// YAML to JSON, as kubectl and kube-scheduler read YAML: each document is
// turned into the JSON it denotes and then decoded like any JSON object.
#pragma once

#include <yaml-cpp/node/node.h>

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

// YAML::LoadAll, made safe for any input: yaml-cpp's exceptions become the
// error ("malformed YAML: line 3, column 5: ..."), and a stream on which
// yaml-cpp's parser would loop forever is refused instead.
util::Result<std::vector<YAML::Node>> LoadYamlDocuments(std::string_view text);

// JSON as a YAML document (`-o yaml`), block style, keys in order. A
// string that would read back as another type ("473", "true", "") is
// quoted, so YamlToJson gives the same JSON again.
std::string JsonToYaml(const rapidjson::Value& value);

}  // namespace ksched::api

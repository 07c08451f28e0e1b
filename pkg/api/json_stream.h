// JSON as kubectl reads a manifest that starts with '{': strictly (no
// trailing commas, comments or YAML flow style), one value or several in a
// row, every error placed by line and column.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/json.h"
#include "pkg/util/result.h"

namespace ksched::api {

// The literal text of a JSON number as Go's decoder saw it: integers as
// they are, other numbers in the shortest form that reads back the same
// ("0.1", "1000" rather than "1000.0").
std::string JsonNumberText(const rapidjson::Value& number);

// "line 3, column 7": where byte `offset` of `text` is, counted from 1.
std::string LineAndColumn(std::string_view text, size_t offset);

// Deeper nesting is refused, so no reader of the value recurses without
// bound (the YAML reader has the same limit).
inline constexpr int kMaxJsonDepth = 256;

// One JSON value, `text`, which starts `offset` bytes into `whole` (the
// file it came from: errors count lines and columns there). Errors:
// "malformed JSON: line 4, column 18: Missing a comma or '}' after an
// object member.", "JSON nested deeper than 256 levels", and a key an
// object repeats (Go's decoder would keep the last, RapidJSON the first:
// kube-apiserver's strict decoding refuses it too).
// `*syntax_error` (optional) tells a syntax error from the others: kubectl
// reads text that is not JSON as YAML, which takes flow style.
util::Result<rapidjson::Document> ParseJsonValue(std::string_view text,
                                                 std::string_view whole,
                                                 size_t offset,
                                                 bool* syntax_error = nullptr);

// Every JSON value of `text`, one after another (whitespace between them),
// as kubectl's JSON stream decoder reads them. On an error, `*read` (if
// given) is the number of values read before it, and `*syntax_error` as
// above.
util::Result<std::vector<rapidjson::Document>> ParseJsonStream(
    std::string_view text, size_t* read = nullptr,
    bool* syntax_error = nullptr);

}  // namespace ksched::api

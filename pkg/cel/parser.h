// CEL's grammar (google/cel-spec doc/langdef.md) parsed by recursive descent,
// with cel-go's macros expanded while parsing, as cel-go does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pkg/cel/ast.h"

namespace ksched::cel {

// One problem found in the source; offset is a byte offset.
struct Issue {
  int32_t offset = -1;  // -1: no location
  std::string message;
};

struct ParseOptions {
  // cel-go's defaults: nesting deeper than this is an error rather than a
  // stack overflow, and so is a longer expression.
  int max_recursion_depth = 250;
  int max_code_points = 100000;
  bool enable_optional_syntax = true;
};

struct ParseResult {
  ExprPtr expr;               // null when issues is not empty
  std::vector<Issue> issues;  // syntax errors
  int64_t next_id = 0;        // ids handed out so far
};

ParseResult Parse(std::string_view source, const ParseOptions& options = {});

// Formats issues as cel-go's Issues.String() does:
//   ERROR: <input>:1:5: message
//    | source line
//    | ....^
std::string FormatIssues(std::string_view source,
                         const std::vector<Issue>& issues);

}  // namespace ksched::cel

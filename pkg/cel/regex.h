// Regular expressions with Go's regexp semantics (RE2 syntax, leftmost-first
// matching) on RE2, and Go's error text, as cel-go's matches() and
// Kubernetes' find/findAll report it.
#pragma once

#include <re2/re2.h>

#include <memory>
#include <string>
#include <string_view>

namespace ksched::cel {

// Compiles pattern. On failure returns null and sets *error to Go's
// message: "error parsing regexp: missing closing ): `(`".
std::shared_ptr<const RE2> CompileRegex(std::string_view pattern,
                                        std::string* error);

}  // namespace ksched::cel

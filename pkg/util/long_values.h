// Values a user wrote, cut to a readable length where a message quotes
// them: a 10 MB name in a file must not make a 20 MB error line. Values of
// any size kube accepts (names, labels, quantities) are far below the
// bound and stay whole, so messages about them read as kube's.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ksched::util {

// Values longer than this are cut.
inline constexpr size_t kLongValueBytes = 1024;
// What is kept of a cut value.
inline constexpr size_t kLongValueKeptBytes = 256;

// `value` itself when at most kLongValueBytes long; otherwise its first
// kLongValueKeptBytes (never splitting a UTF-8 sequence) and
// "...(10485760 bytes)".
std::string ElideLongValue(std::string_view value);

}  // namespace ksched::util

// Helpers shared by the function libraries (lib_*.cc); not a public API.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/cel/value.h"

namespace ksched::cel::lib {

// Go's utf8.DecodeRuneInString: the rune at the start of s and its width;
// an invalid or empty sequence gives U+FFFD with width 1 (0 when empty).
char32_t DecodeRune(std::string_view s, size_t* width);
// Go's []rune(s): invalid bytes become U+FFFD, one per byte.
std::vector<char32_t> ToRunes(std::string_view s);
// Go's utf8.AppendRune (invalid runes become U+FFFD).
void AppendRune(std::string& out, char32_t r);
std::string FromRunes(const std::vector<char32_t>& runes, size_t begin,
                      size_t end);
size_t RuneCount(std::string_view s);

// cel-go / Kubernetes actualSize: the size of a Sizer (strings in code
// points, bytes, lists, maps), 1 for anything else (optionals included).
uint64_t SizerSize(const Value& v);
// uint64(math.Ceil(float64(n) * factor)).
inline uint64_t CeilCost(double n) {
  return static_cast<uint64_t>(std::ceil(n));
}

// Go's strconv.Quote (what fmt's %q prints for a string).
std::string GoQuote(std::string_view s);

Value MakeStringList(const std::vector<std::string>& items);

}  // namespace ksched::cel::lib

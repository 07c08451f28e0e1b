#include "pkg/util/long_values.h"

namespace ksched::util {

std::string ElideLongValue(std::string_view value) {
  if (value.size() <= kLongValueBytes) return std::string(value);
  size_t keep = kLongValueKeptBytes;
  // Back to the start of a UTF-8 sequence (continuation bytes are
  // 10xxxxxx).
  while (keep > 0 && (static_cast<unsigned char>(value[keep]) & 0xC0) == 0x80) {
    --keep;
  }
  return std::string(value.substr(0, keep)) + "...(" +
         std::to_string(value.size()) + " bytes)";
}

}  // namespace ksched::util

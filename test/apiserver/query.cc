#include "test/apiserver/query.h"

namespace ksched::testing::apiserver {

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string PercentDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '%' && i + 2 < s.size()) {
      const int hi = HexValue(s[i + 1]);
      const int lo = HexValue(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(plus_is_space && c == '+' ? ' ' : c);
  }
  return out;
}

QueryParams::QueryParams(std::string_view raw_query) {
  size_t start = 0;
  while (start <= raw_query.size()) {
    size_t end = raw_query.find('&', start);
    if (end == std::string_view::npos) end = raw_query.size();
    std::string_view pair = raw_query.substr(start, end - start);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      std::string name = PercentDecode(pair.substr(0, eq), true);
      std::string value = eq == std::string_view::npos
                              ? ""
                              : PercentDecode(pair.substr(eq + 1), true);
      values_.emplace(std::move(name), std::move(value));
    }
    start = end + 1;
  }
}

std::string QueryParams::Get(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? "" : it->second;
}

bool QueryParams::GetBool(const std::string& name) const {
  const std::string v = Get(name);
  return v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" ||
         v == "True";
}

}  // namespace ksched::testing::apiserver

// Request URL pieces: percent-decoding and the query string.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace ksched::testing::apiserver {

// Decodes %XX escapes (and '+' as a space when `plus_is_space`, as in
// query strings); malformed escapes are kept as they are.
std::string PercentDecode(std::string_view s, bool plus_is_space);

// Query parameters by name; the first occurrence wins, as Go's
// url.Values.Get reads them.
class QueryParams {
 public:
  QueryParams() = default;
  explicit QueryParams(std::string_view raw_query);

  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  // The value, or "" when absent.
  std::string Get(const std::string& name) const;
  // Go's strconv.ParseBool spelling of true ("1", "t", "true", ...).
  bool GetBool(const std::string& name) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace ksched::testing::apiserver

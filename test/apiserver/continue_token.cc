#include "test/apiserver/continue_token.h"

#include "test/apiserver/base64.h"
#include "test/apiserver/json_util.h"

namespace ksched::testing::apiserver {

std::string EncodeContinue(const ContinueToken& token) {
  JsonDocument doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  SetString(doc, "v", "meta.k8s.io/v1", a);
  SetMember(doc, "rv", JsonValue(static_cast<int64_t>(token.rv)), a);
  SetString(doc, "start", token.start_key, a);
  // Go writes U+0000 as \u0000, as RapidJSON does.
  return Base64RawUrlEncode(ToJson(doc));
}

std::optional<ContinueToken> DecodeContinue(std::string_view text,
                                            std::string* error) {
  std::optional<std::string> json = Base64RawUrlDecode(text);
  if (!json.has_value()) {
    *error = "continue key is not valid: illegal base64 data";
    return std::nullopt;
  }
  JsonDocument doc;
  std::string parse_error;
  if (!ParseJson(*json, &doc, &parse_error) || !doc.IsObject()) {
    *error = "continue key is not valid: " +
             (parse_error.empty() ? std::string("not an object") : parse_error);
    return std::nullopt;
  }
  if (StringAt(doc, {"v"}) != "meta.k8s.io/v1") {
    *error =
        "continue key is not valid: incorrect encoded start resourceVersion "
        "(version meta.k8s.io/v1)";
    return std::nullopt;
  }
  std::optional<int64_t> rv = IntAt(doc, {"rv"});
  const JsonValue* start = Member(doc, "start");
  if (!rv.has_value() || rv == 0 || start == nullptr || !start->IsString()) {
    *error =
        "continue key is not valid: incorrect encoded start "
        "resourceVersion (version meta.k8s.io/v1)";
    return std::nullopt;
  }
  ContinueToken token;
  token.rv = *rv;
  token.start_key.assign(start->GetString(), start->GetStringLength());
  if (token.start_key.empty() || token.start_key[0] == '/' ||
      token.start_key.find("..") != std::string::npos) {
    *error =
        "continue key is not valid: key must not be empty or contain "
        "'..' or begin with '/'";
    return std::nullopt;
  }
  return token;
}

}  // namespace ksched::testing::apiserver

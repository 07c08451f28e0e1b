// Base64 in the two alphabets the server needs: standard with padding
// (kubeconfig certificate data) and URL-safe without padding (continue
// tokens, as Go's base64.RawURLEncoding).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ksched::testing::apiserver {

std::string Base64Encode(std::string_view data);
std::string Base64RawUrlEncode(std::string_view data);
// Accepts the raw URL alphabet, with or without padding; nullopt when the
// text is not base64.
std::optional<std::string> Base64RawUrlDecode(std::string_view text);

}  // namespace ksched::testing::apiserver

// The continue token of a paginated list, in kube-apiserver's format:
// base64url of {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key>"}. The
// revision pins later pages to the first page's snapshot; -1 marks an
// inconsistent continuation (the snapshot was compacted).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ksched::testing::apiserver {

struct ContinueToken {
  int64_t rv = 0;
  std::string start_key;
};

std::string EncodeContinue(const ContinueToken& token);
// nullopt and the reason when `text` is no valid token.
std::optional<ContinueToken> DecodeContinue(std::string_view text,
                                            std::string* error);

}  // namespace ksched::testing::apiserver

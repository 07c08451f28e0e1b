#include "pkg/scheduler/last_applied_digest.h"

#include <openssl/sha.h>

#include <string>

namespace ksched::scheduler {

void DigestLastAppliedConfiguration(api::ObjectMeta& metadata) {
  const std::string* value = metadata.annotations.Find(kLastAppliedAnnotation);
  if (value == nullptr || value->starts_with("sha256:")) return;
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(value->data()), value->size(),
         md);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string digest = "sha256:";
  digest.reserve(digest.size() + 2 * SHA256_DIGEST_LENGTH);
  for (unsigned char byte : md) {
    digest += kHex[byte >> 4];
    digest += kHex[byte & 0xf];
  }
  metadata.annotations.Set(kLastAppliedAnnotation, std::move(digest));
}

}  // namespace ksched::scheduler

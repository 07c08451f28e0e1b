#include "pkg/scheduler/last_applied_digest.h"

#include <openssl/sha.h>

#include <cstdint>
#include <string>

namespace ksched::scheduler {

void DigestLastAppliedConfiguration(api::ObjectMeta& metadata) {
  const std::string* value = metadata.annotations.Find(kLastAppliedAnnotation);
  if (value == nullptr) return;
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(value->data()), value->size(),
         md);
  uint64_t digest = 0;
  for (int i = 0; i < 8; ++i) digest = digest << 8 | md[i];
  metadata.last_applied_digest = digest == 0 ? 1 : digest;
  metadata.annotations.Erase(kLastAppliedAnnotation);
  // The decoder sized the map for the annotation too.
  metadata.annotations.shrink_to_fit();
}

}  // namespace ksched::scheduler

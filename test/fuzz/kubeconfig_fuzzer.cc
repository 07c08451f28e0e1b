// A kubeconfig file as kubectl reads it: clusters, users, contexts, inline
// credentials (base64 *-data) and the current context. Files it names are
// resolved against a folder that does not exist, so nothing outside is
// read for relative paths.
#include <cstddef>
#include <cstdint>
#include <string>

#include "pkg/client/kubeconfig.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto config = ksched::client::ParseKubeconfig(
      text, "/nonexistent-ksched-fuzz", /*context=*/"");
  if (!config.ok()) {
    KSCHED_FUZZ_CHECK(!config.error().message().empty(),
                      "a refused kubeconfig has no error message");
  }
  (void)ksched::client::ParseKubeconfig(text, "/nonexistent-ksched-fuzz",
                                        "fuzz");
  return 0;
}

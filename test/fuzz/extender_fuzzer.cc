// The bodies a kube-scheduler POSTs to an extender's filter, prioritize,
// preempt and bind verbs, through the decoders the extender server uses.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pkg/extender/wire.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  using namespace ksched::extender;
  auto args = DecodeExtenderArgs(body);
  if (!args.ok()) {
    KSCHED_FUZZ_CHECK(!args.error().message().empty(),
                      "a refused ExtenderArgs has no error message");
  }
  (void)DecodeBindingArgs(body);
  (void)DecodePreemptionArgs(body);
  return 0;
}

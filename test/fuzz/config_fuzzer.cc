// A KubeSchedulerConfiguration file (YAML or JSON) through ksched's
// loader: decoding, defaulting and validation. Every refusal must say
// why.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pkg/config/config.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ksched::config::LoadOptions options;
  options.known_plugins = {"PrioritySort",
                           "NodeResourcesFit",
                           "NodeAffinity",
                           "TaintToleration",
                           "InterPodAffinity",
                           "PodTopologySpread",
                           "DefaultPreemption",
                           "DefaultBinder",
                           "NodeResourcesBalancedAllocation",
                           "ImageLocality",
                           "VolumeBinding"};
  auto config = ksched::config::ParseConfig(text, options);
  if (!config.ok()) {
    KSCHED_FUZZ_CHECK(!config.error().message().empty(),
                      "a refused configuration has no error message");
  }
  (void)ksched::config::ParseConfig(text);
  return 0;
}

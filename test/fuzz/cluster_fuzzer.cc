// A cluster file (`simulate --cluster`, `--add`) through every reader:
// the JSON List split item by item, libyaml's event stream, and the
// node-tree YAML path they fall back to; then workload expansion. Every
// refusal must say why.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pkg/simulator/cluster.h"
#include "pkg/simulator/workloads.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto cluster = ksched::simulator::ParseCluster(text);
  if (!cluster.ok()) {
    KSCHED_FUZZ_CHECK(!cluster.error().message().empty(),
                      "a refused cluster file has no error message");
    return 0;
  }
  // Bounded: a fuzzed replica count must not make millions of pods.
  for (const auto& d : cluster->deployments) {
    if (d.spec.replicas.value_or(1) > 1000) return 0;
  }
  for (const auto& s : cluster->stateful_sets) {
    if (s.spec.replicas.value_or(1) > 1000) return 0;
  }
  for (const auto& r : cluster->replica_sets) {
    if (r.spec.replicas.value_or(1) > 1000) return 0;
  }
  for (const auto& j : cluster->jobs) {
    if (j.spec.parallelism.value_or(1) > 1000) return 0;
  }
  auto expanded = ksched::simulator::ExpandWorkloads(*cluster, {});
  if (!expanded.ok()) {
    KSCHED_FUZZ_CHECK(!expanded.error().message().empty(),
                      "a refused workload has no error message");
  }
  return 0;
}

// Label selectors and node affinity as a pod states them: the input is a
// Pod (JSON) whose nodeSelector, node affinity, pod (anti-)affinity and
// topology spread selectors are compiled and matched against a node and a
// set of labels taken from the same pod. Compiling an invalid expression
// must give an error, never a crash; matching must be deterministic.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pkg/api/codec.h"
#include "pkg/api/label_selector.h"
#include "pkg/api/node_selector.h"
#include "test/fuzz/fuzz_check.h"

namespace {

using namespace ksched;

void MatchLabelSelector(const api::LabelSelector* selector,
                        const api::StringMap& labels) {
  auto compiled = api::Selector::FromLabelSelector(selector);
  if (!compiled.ok()) return;
  const bool first = compiled->Matches(labels);
  KSCHED_FUZZ_CHECK(first == compiled->Matches(labels),
                    "a selector matched differently twice");
  std::string key;
  compiled->AppendKey(&key);
}

void MatchTerms(const std::vector<api::PodAffinityTerm>& terms,
                const api::StringMap& labels) {
  for (const api::PodAffinityTerm& term : terms) {
    if (term.label_selector) MatchLabelSelector(&*term.label_selector, labels);
    if (term.namespace_selector)
      MatchLabelSelector(&*term.namespace_selector, labels);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto pod = api::DecodeJson<api::Pod>(text);
  if (!pod.ok()) return 0;
  // A node labelled as the pod is, named as the pod, so that selectors
  // written against the pod's own labels have something to match.
  api::Node node;
  node.metadata.name = pod->metadata.name;
  node.metadata.labels = pod->metadata.labels;
  const api::StringMap& labels = pod->metadata.labels;

  api::RequiredNodeAffinity required(*pod);
  const bool fits = required.Matches(node);
  KSCHED_FUZZ_CHECK(fits == required.Matches(node),
                    "node affinity matched differently twice");

  if (const api::Affinity* affinity = pod->spec.affinity.get()) {
    if (affinity->node_affinity) {
      const api::NodeAffinity& na = *affinity->node_affinity;
      if (na.required) {
        api::CompiledNodeSelector selector(*na.required);
        (void)selector.Matches(node);
      }
      api::CompiledPreferredTerms preferred(na.preferred);
      (void)preferred.Score(node);
    }
    for (const auto* pa :
         {&affinity->pod_affinity, &affinity->pod_anti_affinity}) {
      if (!pa->has_value()) continue;
      MatchTerms((*pa)->required, labels);
      for (const auto& weighted : (*pa)->preferred) {
        MatchTerms({weighted.pod_affinity_term}, labels);
      }
    }
  }
  for (const auto& constraint : pod->spec.topology_spread_constraints) {
    if (constraint.label_selector)
      MatchLabelSelector(&*constraint.label_selector, labels);
  }
  MatchLabelSelector(nullptr, labels);
  return 0;
}

#include "pkg/plugins/nodeaffinity/parse_errors.h"

#include <algorithm>

#include "pkg/api/node_selector.h"

namespace ksched::plugins::nodeaffinity {
namespace {

bool IsEmpty(const api::NodeSelectorTerm& term) {
  return term.match_expressions.empty() && term.match_fields.empty();
}

}  // namespace

std::vector<std::string> NodeSelectorErrors(const api::NodeSelector& selector) {
  std::vector<std::string> errors;
  const auto& terms = selector.node_selector_terms;
  for (size_t i = 0; i < terms.size(); ++i) {
    // Empty terms select nothing but are not errors.
    if (IsEmpty(terms[i])) continue;
    api::CompiledNodeSelectorTerm compiled(terms[i]);
    if (compiled.parse_error()) {
      errors.push_back("nodeSelectorTerms[" + std::to_string(i) + "]." +
                       compiled.error());
    }
  }
  return errors;
}

std::vector<std::string> PreferredTermsErrors(
    const std::vector<api::PreferredSchedulingTerm>& terms) {
  std::vector<std::string> errors;
  for (size_t i = 0; i < terms.size(); ++i) {
    // Zero-weight terms are never parsed, so never wrong.
    if (terms[i].weight == 0 || IsEmpty(terms[i].preference)) continue;
    api::CompiledNodeSelectorTerm compiled(terms[i].preference);
    if (compiled.parse_error()) {
      errors.push_back("[" + std::to_string(i) + "]." + compiled.error());
    }
  }
  return errors;
}

std::string AggregateMessage(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors[0];
  std::vector<std::string> seen;
  std::string out;
  for (const std::string& e : errors) {
    if (std::find(seen.begin(), seen.end(), e) != seen.end()) continue;
    if (!seen.empty()) out += ", ";
    seen.push_back(e);
    out += e;
  }
  return seen.size() == 1 ? out : "[" + out + "]";
}

}  // namespace ksched::plugins::nodeaffinity

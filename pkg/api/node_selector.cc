#include "pkg/api/node_selector.h"

namespace ksched::api {
namespace {

constexpr std::string_view kNodeFieldName = "metadata.name";

}  // namespace

CompiledNodeSelectorTerm::CompiledNodeSelectorTerm(const NodeSelectorTerm& t) {
  empty_ = t.match_expressions.empty() && t.match_fields.empty();
  for (size_t i = 0; i < t.match_expressions.size() && error_.empty(); ++i) {
    const NodeSelectorRequirement& r = t.match_expressions[i];
    Selector::Op op;
    switch (r.op) {
      case NodeSelectorOperator::kIn:
        op = Selector::Op::kIn;
        break;
      case NodeSelectorOperator::kNotIn:
        op = Selector::Op::kNotIn;
        break;
      case NodeSelectorOperator::kExists:
        op = Selector::Op::kExists;
        break;
      case NodeSelectorOperator::kDoesNotExist:
        op = Selector::Op::kDoesNotExist;
        break;
      case NodeSelectorOperator::kGt:
        op = Selector::Op::kGt;
        break;
      case NodeSelectorOperator::kLt:
        op = Selector::Op::kLt;
        break;
      default:
        error_ = "matchExpressions[" + std::to_string(i) +
                 "].operator: Unsupported value";
        continue;
    }
    auto added = labels_.Add(r.key, op, r.values);
    if (!added.ok()) {
      error_ = "matchExpressions[" + std::to_string(i) + "]." +
               added.error().message();
    }
    has_label_requirements_ = true;
  }
  for (size_t i = 0; i < t.match_fields.size() && error_.empty(); ++i) {
    const NodeSelectorRequirement& r = t.match_fields[i];
    std::string where = "matchFields[" + std::to_string(i) + "]";
    if (r.op != NodeSelectorOperator::kIn &&
        r.op != NodeSelectorOperator::kNotIn) {
      error_ = where + ".operator: Unsupported value";
    } else if (r.values.size() != 1) {
      error_ = where + ".values: Invalid value: must have one element";
    } else {
      fields_.push_back(
          {r.key, r.op == NodeSelectorOperator::kIn, r.values[0]});
    }
  }
}

bool CompiledNodeSelectorTerm::Matches(const Node& node) const {
  if (!error_.empty()) return false;
  if (has_label_requirements_ && !labels_.Matches(node.metadata.labels)) {
    return false;
  }
  for (const FieldRequirement& f : fields_) {
    // A node has exactly one selectable field.
    std::string_view actual =
        f.key == kNodeFieldName ? std::string_view(node.metadata.name) : "";
    if ((actual == f.value) != f.equal) return false;
  }
  return true;
}

CompiledNodeSelector::CompiledNodeSelector(const NodeSelector& selector) {
  std::vector<std::string> errors;
  for (size_t i = 0; i < selector.node_selector_terms.size(); ++i) {
    CompiledNodeSelectorTerm compiled(selector.node_selector_terms[i]);
    if (compiled.IsEmpty()) continue;
    if (compiled.parse_error()) {
      errors.push_back("nodeSelectorTerms[" + std::to_string(i) + "]." +
                       compiled.error());
    }
    terms_.push_back(std::move(compiled));
  }
  if (errors.size() == 1) {
    parse_error_ = std::move(errors[0]);
  } else if (!errors.empty()) {
    parse_error_ = "[";
    for (size_t i = 0; i < errors.size(); ++i) {
      if (i > 0) parse_error_ += ", ";
      parse_error_ += errors[i];
    }
    parse_error_ += "]";
  }
}

bool CompiledNodeSelector::Matches(const Node& node) const {
  for (const CompiledNodeSelectorTerm& term : terms_) {
    if (term.Matches(node)) return true;
  }
  return false;
}

CompiledPreferredTerms::CompiledPreferredTerms(
    const std::vector<PreferredSchedulingTerm>& terms) {
  for (const PreferredSchedulingTerm& t : terms) {
    // Zero-weight terms cannot change a score.
    if (t.weight == 0) continue;
    CompiledNodeSelectorTerm compiled(t.preference);
    if (compiled.IsEmpty()) continue;
    terms_.push_back({std::move(compiled), t.weight});
  }
}

int64_t CompiledPreferredTerms::Score(const Node& node) const {
  int64_t score = 0;
  for (const Weighted& w : terms_) {
    if (w.term.Matches(node)) score += w.weight;
  }
  return score;
}

RequiredNodeAffinity::RequiredNodeAffinity(const Pod& pod) {
  node_selector_ = pod.spec.node_selector;
  const Affinity* affinity = pod.spec.affinity.get();
  if (affinity != nullptr && affinity->node_affinity &&
      affinity->node_affinity->required) {
    selectors_.emplace_back(*affinity->node_affinity->required);
  }
}

bool RequiredNodeAffinity::Matches(const Node& node) const {
  for (const auto& [key, value] : node_selector_) {
    const std::string* actual = node.metadata.labels.Find(key);
    if (actual == nullptr || *actual != value) return false;
  }
  for (const CompiledNodeSelector& s : selectors_) {
    if (!s.Matches(node)) return false;
  }
  return true;
}

}  // namespace ksched::api

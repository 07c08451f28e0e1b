// Compiled node selectors and node affinity, as Kubernetes'
// component-helpers/scheduling/corev1/nodeaffinity evaluates them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pkg/api/label_selector.h"
#include "pkg/api/node.h"
#include "pkg/api/pod.h"

namespace ksched::api {

// One NodeSelectorTerm: label requirements ANDed with field requirements
// (only metadata.name exists as a node field). A term that fails to parse
// (bad operator, key or value) matches no node, as in Kubernetes.
class CompiledNodeSelectorTerm {
 public:
  explicit CompiledNodeSelectorTerm(const NodeSelectorTerm& term);

  bool Matches(const Node& node) const;
  bool parse_error() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  bool IsEmpty() const { return empty_; }

 private:
  struct FieldRequirement {
    std::string key;
    bool equal;  // In (one value) vs NotIn (one value)
    std::string value;
  };
  Selector labels_;
  bool has_label_requirements_ = false;
  std::vector<FieldRequirement> fields_;
  std::string error_;
  bool empty_ = false;
};

// A NodeSelector: its terms are ORed; empty terms are skipped and select
// nothing.
class CompiledNodeSelector {
 public:
  explicit CompiledNodeSelector(const NodeSelector& selector);
  bool Matches(const Node& node) const;

  // Why some term failed to parse ("" when all parsed): each failing
  // term's error under "nodeSelectorTerms[<i>].", several joined as
  // "[a, b]". Kubernetes' nodeaffinity.NewNodeSelector refuses such a
  // selector as a whole; Matches above skips only the bad terms.
  const std::string& parse_error() const { return parse_error_; }

 private:
  std::vector<CompiledNodeSelectorTerm> terms_;
  std::string parse_error_;
};

// Weighted preferred terms; Score sums the weights of the matching terms.
class CompiledPreferredTerms {
 public:
  explicit CompiledPreferredTerms(
      const std::vector<PreferredSchedulingTerm>& terms);
  int64_t Score(const Node& node) const;
  bool empty() const { return terms_.empty(); }

 private:
  struct Weighted {
    CompiledNodeSelectorTerm term;
    int32_t weight;
  };
  std::vector<Weighted> terms_;
};

// spec.nodeSelector ANDed with the required node affinity
// (nodeaffinity.GetRequiredNodeAffinity).
class RequiredNodeAffinity {
 public:
  explicit RequiredNodeAffinity(const Pod& pod);
  bool Matches(const Node& node) const;

 private:
  StringMap node_selector_;  // matched verbatim, as labels.SelectorFromSet
  std::vector<CompiledNodeSelector> selectors_;  // zero or one
};

}  // namespace ksched::api

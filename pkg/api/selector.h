// Label selectors, node selectors, taints and tolerations: the vocabulary
// that placement rules are written in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/string_map.h"
#include "pkg/api/time.h"

namespace ksched::api {

// Enumerations keep kOther for a value this version does not know (a newer
// API server), so such an object still decodes and the unknown value is
// treated as Kubernetes' scheduler treats an unrecognised one.

enum class LabelSelectorOperator : uint8_t {
  kOther,
  kIn,
  kNotIn,
  kExists,
  kDoesNotExist
};

struct LabelSelectorRequirement {
  std::string key;
  LabelSelectorOperator op = LabelSelectorOperator::kOther;
  std::vector<std::string> values;
  friend bool operator==(const LabelSelectorRequirement&,
                         const LabelSelectorRequirement&) = default;
};

// metav1.LabelSelector. An empty selector matches everything; an absent one
// (std::nullopt where it is optional) matches nothing.
struct LabelSelector {
  StringMap match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
};

enum class NodeSelectorOperator : uint8_t {
  kOther,
  kIn,
  kNotIn,
  kExists,
  kDoesNotExist,
  kGt,
  kLt
};

struct NodeSelectorRequirement {
  std::string key;
  NodeSelectorOperator op = NodeSelectorOperator::kOther;
  std::vector<std::string> values;
  friend bool operator==(const NodeSelectorRequirement&,
                         const NodeSelectorRequirement&) = default;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
  friend bool operator==(const NodeSelectorTerm&,
                         const NodeSelectorTerm&) = default;
};

// Terms are ORed; requirements within a term are ANDed.
struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms;
  friend bool operator==(const NodeSelector&, const NodeSelector&) = default;
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
  friend bool operator==(const PreferredSchedulingTerm&,
                         const PreferredSchedulingTerm&) = default;
};

enum class TaintEffect : uint8_t {
  kOther,
  kNone,  // "" (in a toleration: every effect)
  kNoSchedule,
  kPreferNoSchedule,
  kNoExecute
};

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNone;
  std::optional<Time> time_added;
  friend bool operator==(const Taint&, const Taint&) = default;
};

enum class TolerationOperator : uint8_t {
  kOther,
  kNone,  // "" (means Equal)
  kEqual,
  kExists
};

struct Toleration {
  std::string key;
  TolerationOperator op = TolerationOperator::kNone;
  std::string value;
  TaintEffect effect = TaintEffect::kNone;
  std::optional<int64_t> toleration_seconds;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

}  // namespace ksched::api

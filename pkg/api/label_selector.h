// Compiled label selectors (labels.Selector), built from a metav1
// LabelSelector once and matched many times.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pkg/api/selector.h"
#include "pkg/api/string_map.h"
#include "pkg/util/result.h"

namespace ksched::api {

class Selector {
 public:
  enum class Op : uint8_t {
    kIn,  // also matchLabels' equality
    kNotIn,
    kExists,
    kDoesNotExist,
    kGt,
    kLt
  };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
    int64_t number = 0;  // Gt/Lt operand
    bool Matches(const StringMap& labels) const;
  };

  // Matches every label set.
  static Selector Everything() { return Selector(); }
  // Matches no label set.
  static Selector Nothing() {
    Selector s;
    s.nothing_ = true;
    return s;
  }

  // metav1.LabelSelectorAsSelector: nullptr matches nothing, an empty
  // selector everything; an invalid key, value or operator is an error whose
  // message follows Kubernetes'.
  static util::Result<Selector> FromLabelSelector(const LabelSelector* s);

  // Appends one requirement after validating it as labels.NewRequirement.
  util::Result<void> Add(std::string key, Op op,
                         std::vector<std::string> values);

  bool Matches(const StringMap& labels) const;
  bool IsEverything() const { return !nothing_ && requirements_.empty(); }
  bool IsNothing() const { return nothing_; }
  const std::vector<Requirement>& requirements() const { return requirements_; }

  // Appends an unambiguous encoding of the selector to `out`: equal
  // selectors (requirements in the same order) encode equally, different
  // ones differently. Keys of memoised match counts are built from it.
  void AppendKey(std::string* out) const;

 private:
  std::vector<Requirement> requirements_;
  bool nothing_ = false;
};

}  // namespace ksched::api

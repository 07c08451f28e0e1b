// Field and label selectors, parsed and matched as kube-apiserver does for
// lists and watches.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "test/apiserver/json_util.h"

namespace ksched::testing::apiserver {

struct ResourceInfo;

// "metadata.name" -> {"metadata", "name"}: a field path as field selectors
// name it.
std::vector<std::string> SplitFieldPath(std::string_view dotted);

// "spec.nodeName=,status.phase!=Succeeded": every term must hold. A field
// the object lacks reads as "".
class FieldSelector {
 public:
  FieldSelector() = default;
  // Parses `text` for `resource`; on error returns false and sets the
  // message the real server answers with (a 400).
  bool Parse(std::string_view text, const ResourceInfo& resource,
             std::string* error);

  bool empty() const { return terms_.empty(); }
  bool Matches(const JsonValue& object) const;

 private:
  struct Term {
    std::vector<std::string> path;  // "spec", "nodeName"
    bool equals = true;
    std::string value;
  };
  std::vector<Term> terms_;
};

// "app=web,tier!=db,env in (a,b),!legacy".
class LabelSelector {
 public:
  LabelSelector() = default;
  bool Parse(std::string_view text, std::string* error);

  bool empty() const { return requirements_.empty(); }
  // `object` is the whole object; its metadata.labels are matched.
  bool Matches(const JsonValue& object) const;

 private:
  enum class Op {
    kEquals,
    kNotEquals,
    kIn,
    kNotIn,
    kExists,
    kNotExists,
    kGreaterThan,
    kLessThan
  };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };
  std::vector<Requirement> requirements_;
};

}  // namespace ksched::testing::apiserver

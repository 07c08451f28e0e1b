// The parsed (and macro-expanded) form of a CEL expression, shaped as
// cel-go's AST: literals, identifiers, selects, calls (operators are calls
// such as `_+_`), list and map literals, struct creation, comprehensions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pkg/cel/value.h"

namespace ksched::cel {

struct Expr;
struct Function;
struct Overload;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind : uint8_t {
    kLiteral,
    kIdent,
    kSelect,
    kCall,
    kList,
    kMap,
    kStruct,
    kComprehension,
  };

  struct Entry {  // map or struct entry
    ExprPtr key;  // null for struct fields
    std::string field;
    ExprPtr value;
    bool optional = false;
  };

  int64_t id = 0;
  Kind kind = Kind::kLiteral;
  int32_t offset = 0;  // byte offset into the source, for messages

  Value literal;     // kLiteral
  std::string name;  // kIdent name, kSelect field, kCall function, kStruct
  bool test_only = false;     // kSelect made by has()
  ExprPtr operand;            // kSelect operand, kCall target (may be null)
  std::vector<ExprPtr> args;  // kCall arguments, kList elements
  std::vector<bool> optional_elements;  // kList: `?e` elements
  std::vector<Entry> entries;           // kMap, kStruct

  // kComprehension, as cel-go's: iterate iter_range binding iter_var (and
  // iter_var2 for two-variable forms), accumulate into accu_var.
  std::string iter_var;
  std::string iter_var2;
  std::string accu_var;
  ExprPtr iter_range;
  ExprPtr accu_init;
  ExprPtr loop_condition;
  ExprPtr loop_step;
  ExprPtr result;

  // Filled in when a program is made (see program.cc): the function a call
  // dispatches on, a value computed once (constant folding, select keys),
  // and data an optimized call keeps (a compiled regular expression).
  const struct Function* function = nullptr;
  // Set by the checker when exactly one overload fits the checked argument
  // types: cel-go then binds the call to it, which matters where runtime
  // values cannot tell overloads apart (an empty list's sum()).
  const struct Overload* checked_overload = nullptr;
  bool folded = false;
  Value folded_value;
  std::shared_ptr<const void> call_data;
  // A pure call on constants computed once (quantity("64Gi")): its result
  // and the cost each evaluation still charges for it, as cel-go calls it
  // every time.
  // A comprehension whose step only appends to its accumulator (map,
  // filter, transformList): evaluated with a growing vector.
  bool appends = false;
  std::shared_ptr<const Value> precomputed;
  uint64_t precomputed_cost = 0;
};

// The name of the accumulator the macros use (cel-go's __result__).
inline constexpr const char* kAccumulatorName = "__result__";

}  // namespace ksched::cel

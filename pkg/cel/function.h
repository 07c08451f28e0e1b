// Function declarations: one table serves the checker (signatures) and the
// interpreter (implementations and costs), as cel-go's function decls do.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pkg/cel/type.h"
#include "pkg/cel/value.h"

namespace ksched::cel {

// Arguments in call order; for a member (receiver-style) overload the
// receiver comes first. Implementations receive only non-error arguments
// (strict functions: the first error argument is the call's result).
using FunctionImpl = std::function<Value(std::span<const Value> args)>;

// The runtime cost of one call, given its arguments and result, as cel-go's
// cost tracker (and Kubernetes' CostEstimator.CallCost) charge it. nullopt
// falls back to the interpreter's default rules (1 for most calls).
using CallCost = std::function<std::optional<uint64_t>(
    std::span<const Value> args, const Value& result)>;

struct Overload {
  std::string id;  // cel-go's overload id, e.g. "add_int64", "string_split"
  bool member = false;
  std::vector<Type> params;  // receiver first for member overloads
  Type result;
  FunctionImpl impl;
  CallCost cost;  // optional
  // Non-strict overloads see error arguments too (cel-go's
  // OverloadIsNonStrict); only a handful are.
  bool non_strict = false;
};

struct Function {
  std::string name;
  std::vector<Overload> overloads;
};

// Every function an environment knows, by name.
class FunctionRegistry {
 public:
  // Adds an overload to the function of that name, creating it.
  void Add(const std::string& name, Overload overload);
  const Function* Find(std::string_view name) const;
  const std::map<std::string, Function, std::less<>>& functions() const {
    return functions_;
  }

 private:
  std::map<std::string, Function, std::less<>> functions_;
};

// Helpers for declaring overloads tersely.
Overload Global(std::string id, std::vector<Type> params, Type result,
                FunctionImpl impl, CallCost cost = nullptr);
Overload Member(std::string id, std::vector<Type> params, Type result,
                FunctionImpl impl, CallCost cost = nullptr);

// Cost-tracker helpers shared by libraries: ceil(size * factor).
uint64_t TraversalCost(uint64_t size, double factor = 0.1);

}  // namespace ksched::cel

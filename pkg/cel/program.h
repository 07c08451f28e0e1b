// Compiling and evaluating CEL expressions: the library's whole interface.
//
//   auto env = std::make_shared<const Env>(StandardEnv());
//   Compiled c = Compile(env, "x.size() > 2");
//   if (!c.program) ... c.error ...
//   MapActivation vars({{"x", Value::StringView("abc")}});
//   Evaluation r = c.program->Eval(vars);
//
// A Program is immutable and may be evaluated from several threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/cel/ast.h"
#include "pkg/cel/cost_estimate.h"
#include "pkg/cel/env.h"
#include "pkg/cel/type.h"
#include "pkg/cel/value.h"

namespace ksched::cel {

class CostEstimator;  // cost_estimator.h

// The variables of one evaluation.
class Activation {
 public:
  virtual ~Activation() = default;
  // The value bound to name, or null when unbound.
  virtual const Value* Find(std::string_view name) const = 0;
};

class MapActivation final : public Activation {
 public:
  MapActivation() = default;
  explicit MapActivation(std::map<std::string, Value, std::less<>> vars)
      : vars_(std::move(vars)) {}
  void Set(const std::string& name, Value v) { vars_[name] = std::move(v); }
  const Value* Find(std::string_view name) const override {
    auto it = vars_.find(name);
    return it == vars_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, Value, std::less<>> vars_;
};

struct Evaluation {
  // The result; an error value when evaluation failed (its message is
  // cel-go's). Views in it may borrow from the activation and the program;
  // Value::Owned() makes a copy that needs neither.
  Value value;
  // The runtime cost as cel-go's cost tracker counts it.
  uint64_t cost = 0;
};

struct ProgramOptions {
  // Evaluation past this cost fails with "operation cancelled: actual cost
  // limit exceeded".
  std::optional<uint64_t> cost_limit;
};

class Program {
 public:
  Program(std::shared_ptr<const Env> env, std::string source, ExprPtr expr,
          Type output_type, ProgramOptions options);

  // With interrupt, a comprehension stops when it is set ("operation
  // interrupted"), looked at every 100 iterations as Kubernetes' programs
  // check their context: a filter timeout can end a long selector.
  Evaluation Eval(const Activation& activation,
                  const std::atomic<bool>* interrupt = nullptr) const;

  const std::string& source() const { return source_; }
  const Type& output_type() const { return output_type_; }

 private:
  std::shared_ptr<const Env> env_;
  std::string source_;
  ExprPtr expr_;
  Type output_type_;
  ProgramOptions options_;
};

struct Compiled {
  std::shared_ptr<const Program> program;  // null when error is set
  // cel-go's wording: "ERROR: <input>:1:3: Syntax error: ..." for parse and
  // check issues, or the reason making the program failed ("error parsing
  // regexp: ...") with prefix "program instantiation failed: ".
  std::string error;
  Type output_type;
  // The static estimate of the program's cost (see cost_estimator.h), when
  // CompileOptions::cost_estimator was given.
  std::optional<CostEstimate> cost_estimate;
};

struct CompileOptions {
  bool check = true;  // false: parse only (cel-go's disable_check)
  ProgramOptions program;
  // When given (and check is on), the checked expression's cost is
  // estimated with it into Compiled::cost_estimate, as cel-go's
  // Env.EstimateCost does. Must outlive the call only.
  const CostEstimator* cost_estimator = nullptr;
};

Compiled Compile(std::shared_ptr<const Env> env, std::string_view source,
                 const CompileOptions& options = {});

}  // namespace ksched::cel

// Evaluation of a planned expression (see planner.h) against an activation.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string_view>

#include "pkg/cel/ast.h"
#include "pkg/cel/env.h"
#include "pkg/cel/program.h"

namespace ksched::cel {

// Evaluates expr. Never throws: errors, the cost limit and an interrupt
// included, come back as error values, with the cost spent so far.
Evaluation Interpret(const Env& env, const Expr& expr,
                     const ProgramOptions& options,
                     const Activation& activation,
                     const std::atomic<bool>* interrupt = nullptr);

// cel-go's runtime cost of a call that no library estimator charges:
// size-based for string and list operations, 1 otherwise.
uint64_t DefaultCallCost(std::string_view overload_id,
                         std::span<const Value> args);

// Whether fn is one of CEL's type conversions (int, string, dyn, ...).
bool IsTypeConversion(std::string_view fn);

}  // namespace ksched::cel

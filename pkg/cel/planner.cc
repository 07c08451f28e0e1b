// Program planning: binding calls to their functions, cel-go's optimizer
// (constant folding of literals, conversions and regular expressions), and
// the AST validators that run after a successful check.
#include "pkg/cel/planner.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "pkg/cel/interpreter.h"
#include "pkg/cel/libraries.h"
#include "pkg/cel/regex.h"

namespace ksched::cel {
namespace planner_detail {
namespace {

// Planning: binds calls to their functions and, with Env::optimize, folds
// what cel-go's optimizer folds. Returns an error message when a constant
// fails (cel-go then fails to make the program).
class Planner {
 public:
  explicit Planner(const Env& env) : env_(env) {}

  std::optional<std::string> Plan(Expr& e) {
    std::optional<std::string> err;
    auto plan_child = [&](Expr* c) {
      if (c && !err) err = Plan(*c);
    };
    plan_child(e.operand.get());
    for (auto& a : e.args) plan_child(a.get());
    for (auto& en : e.entries) {
      plan_child(en.key.get());
      plan_child(en.value.get());
    }
    plan_child(e.iter_range.get());
    plan_child(e.accu_init.get());
    plan_child(e.loop_condition.get());
    plan_child(e.loop_step.get());
    plan_child(e.result.get());
    if (err) return err;
    if (e.kind == Expr::Kind::kComprehension) {
      e.appends = env_.append_comprehensions && AppendsOnly(e);
      return std::nullopt;
    }
    if (e.kind == Expr::Kind::kCall) {
      e.function = env_.functions.Find(e.name);
      if (!env_.optimize) return std::nullopt;
      if (e.function && !e.operand && e.args.size() == 1 &&
          IsTypeConversion(e.name) && IsConstant(*e.args[0])) {
        // A constant conversion is made once; its error fails the program.
        Value arg = ConstantValue(*e.args[0]);
        for (const Overload& o : e.function->overloads) {
          if (o.member || o.params.size() != 1 || !o.impl) continue;
          if (!o.params[0].AcceptsRuntime(arg)) continue;
          Value v = o.impl(std::span<const Value>(&arg, 1));
          if (v.is_error()) return std::string(v.error_message());
          e.folded = true;
          e.folded_value = v;
          return std::nullopt;
        }
      }
      if (e.function && !e.operand && IsPrecomputable(e.name)) {
        Precompute(e);
        return std::nullopt;
      }
      if ((e.name == "find" || e.name == "findAll") && e.operand &&
          !e.args.empty() && e.args[0]->kind == Expr::Kind::kLiteral &&
          e.args[0]->literal.kind() == Kind::kString) {
        // Kubernetes' regex library compiles constant patterns up front.
        std::string error;
        if (!CompileRegex(e.args[0]->literal.string_value(), &error))
          return error;
      }
      if ((e.name == "matches") && e.function) {
        const Expr* pattern = e.operand            ? e.args[0].get()
                              : e.args.size() == 2 ? e.args[1].get()
                                                   : nullptr;
        if (pattern && pattern->kind == Expr::Kind::kLiteral &&
            pattern->literal.kind() == Kind::kString) {
          std::string error;
          auto re = CompileRegex(pattern->literal.string_value(), &error);
          if (!re) return error;
          e.call_data = re;
        }
      }
      return std::nullopt;
    }
    if (env_.optimize &&
        (e.kind == Expr::Kind::kList || e.kind == Expr::Kind::kMap)) {
      bool all_const = true;
      for (auto& a : e.args) all_const &= IsConstant(*a);
      for (auto& en : e.entries)
        all_const &=
            IsConstant(*en.key) && IsConstant(*en.value) && !en.optional;
      if (!e.optional_elements.empty()) all_const = false;
      if (all_const) {
        Value v = FoldAggregate(e);
        if (!v.is_error()) {
          e.folded = true;
          e.folded_value = v;
        }
      }
    }
    return std::nullopt;
  }

 private:
  // Whether a comprehension only appends to its accumulator: init [],
  // condition true, step `accu + [x]` or `c ? accu + [x] : accu`, result
  // accu, with neither x nor c reading the accumulator, and add_list
  // charged by cel-go's default. The interpreter then keeps the
  // accumulator as a vector (same results and costs, no copy per step).
  bool AppendsOnly(const Expr& e) const {
    auto is_accu = [&](const Expr& x) {
      return x.kind == Expr::Kind::kIdent && x.name == e.accu_var;
    };
    if (!e.accu_init || e.accu_init->kind != Expr::Kind::kList ||
        !e.accu_init->args.empty())
      return false;
    if (!e.loop_condition || e.loop_condition->kind != Expr::Kind::kLiteral ||
        e.loop_condition->literal.kind() != Kind::kBool ||
        !e.loop_condition->literal.bool_value())
      return false;
    if (!e.result || !is_accu(*e.result) || !e.loop_step) return false;
    const Expr* step = e.loop_step.get();
    const Expr* filter = nullptr;
    if (step->kind == Expr::Kind::kCall && step->name == "_?_:_" &&
        step->args.size() == 3 && is_accu(*step->args[2])) {
      filter = step->args[0].get();
      step = step->args[1].get();
    }
    if (step->kind != Expr::Kind::kCall || step->name != "_+_" ||
        step->operand || step->args.size() != 2 || !is_accu(*step->args[0]))
      return false;
    const Expr& list = *step->args[1];
    if (list.kind != Expr::Kind::kList || list.folded ||
        list.args.size() != 1 || !list.optional_elements.empty())
      return false;
    if (ReadsVariable(*list.args[0], e.accu_var)) return false;
    if (filter && ReadsVariable(*filter, e.accu_var)) return false;
    const Function* add = env_.functions.Find("_+_");
    if (!add) return false;
    for (const Overload& o : add->overloads)
      if (o.id == "add_list" && o.cost) return false;
    return true;
  }

  // Whether expr reads the variable name (not counting nested
  // comprehensions that bind a variable of that name).
  static bool ReadsVariable(const Expr& x, const std::string& name) {
    if (x.kind == Expr::Kind::kIdent) return x.name == name;
    if (x.kind == Expr::Kind::kComprehension) {
      if (ReadsVariable(*x.iter_range, name) ||
          ReadsVariable(*x.accu_init, name))
        return true;
      if (x.accu_var == name) return false;
      bool loop_binds = x.iter_var == name || x.iter_var2 == name;
      if (!loop_binds && (ReadsVariable(*x.loop_condition, name) ||
                          ReadsVariable(*x.loop_step, name)))
        return true;
      return ReadsVariable(*x.result, name);
    }
    if (x.operand && ReadsVariable(*x.operand, name)) return true;
    for (const auto& a : x.args)
      if (ReadsVariable(*a, name)) return true;
    for (const auto& en : x.entries) {
      if (en.key && ReadsVariable(*en.key, name)) return true;
      if (ReadsVariable(*en.value, name)) return true;
    }
    return false;
  }

  static bool IsConstant(const Expr& e) {
    return e.kind == Expr::Kind::kLiteral || e.folded;
  }

  // Kubernetes' constructors of extension values: pure, and usually called
  // on a literal in selectors.
  static bool IsPrecomputable(std::string_view fn) {
    return fn == "quantity" || fn == "semver" || fn == "isQuantity" ||
           fn == "isSemver";
  }

  // Evaluates a call whose arguments are all literals once; an error result
  // stays an evaluation-time error, as it is in cel-go.
  static void Precompute(Expr& e) {
    std::vector<Value> args;
    for (const auto& a : e.args) {
      if (a->kind != Expr::Kind::kLiteral) return;
      args.push_back(a->literal);
    }
    for (const Overload& o : e.function->overloads) {
      if (o.member || o.params.size() != args.size() || !o.impl) continue;
      bool ok = true;
      for (size_t i = 0; i < args.size() && ok; ++i)
        ok = o.params[i].AcceptsRuntime(args[i]);
      if (!ok) continue;
      std::span<const Value> span(args);
      Value result = o.impl(span).Owned();
      std::optional<uint64_t> cost;
      if (o.cost) cost = o.cost(span, result);
      e.precomputed_cost = cost ? *cost : DefaultCallCost(o.id, span);
      e.precomputed = std::make_shared<const Value>(std::move(result));
      return;
    }
  }
  static Value ConstantValue(const Expr& e) {
    return e.folded ? e.folded_value : e.literal;
  }
  static Value FoldAggregate(const Expr& e) {
    if (e.kind == Expr::Kind::kList) {
      std::vector<Value> items;
      for (const auto& a : e.args) items.push_back(ConstantValue(*a));
      return MakeList(std::move(items));
    }
    std::vector<VectorMap::Entry> entries;
    for (const auto& en : e.entries) {
      PutEntry(entries, ConstantValue(*en.key), ConstantValue(*en.value));
    }
    return MakeMap(std::move(entries));
  }

  const Env& env_;
};

// The shape CheckFormatCall needs of one format argument; records where
// each expression sits so issues can point at it.
FormatArg DescribeFormatArg(const Expr& e, const CheckResult& checked,
                            std::unordered_map<int64_t, int32_t>& offsets) {
  FormatArg arg;
  auto it = checked.types.find(e.id);
  arg.type = it == checked.types.end() ? Type::Dyn() : it->second;
  arg.id = e.id;
  offsets[e.id] = e.offset;
  if (e.kind == Expr::Kind::kList) {
    for (const auto& el : e.args)
      arg.elements.push_back(DescribeFormatArg(*el, checked, offsets));
  } else if (e.kind == Expr::Kind::kMap) {
    for (const auto& en : e.entries) {
      arg.elements.push_back(DescribeFormatArg(*en.key, checked, offsets));
      arg.elements.push_back(DescribeFormatArg(*en.value, checked, offsets));
    }
  }
  return arg;
}

}  // namespace
}  // namespace planner_detail

using namespace planner_detail;  // NOLINT: this file's own helpers

// cel.ValidateRegexLiterals: matches() with a constant pattern that does
// not compile is a compile error.
void ValidateRegexLiterals(const Expr& e, std::vector<Issue>& issues) {
  if (e.kind == Expr::Kind::kCall && e.name == "matches") {
    const Expr* pattern = e.operand
                              ? (e.args.empty() ? nullptr : e.args[0].get())
                          : e.args.size() == 2 ? e.args[1].get()
                                               : nullptr;
    if (pattern && pattern->kind == Expr::Kind::kLiteral &&
        pattern->literal.kind() == Kind::kString) {
      std::string error;
      if (!CompileRegex(pattern->literal.string_value(), &error))
        issues.push_back({pattern->offset, "invalid matches argument"});
    }
  }
  if (e.operand) ValidateRegexLiterals(*e.operand, issues);
  for (const auto& a : e.args) ValidateRegexLiterals(*a, issues);
  for (const auto& en : e.entries) {
    if (en.key) ValidateRegexLiterals(*en.key, issues);
    ValidateRegexLiterals(*en.value, issues);
  }
  for (const Expr* c :
       {e.iter_range.get(), e.accu_init.get(), e.loop_condition.get(),
        e.loop_step.get(), e.result.get()})
    if (c) ValidateRegexLiterals(*c, issues);
}

// The strings extension's format validator: `"<literal>".format([...])`
// has each clause checked against its list element's type at compile time,
// one issue per call. string_format is the only `format` overload, so a
// checked member call of that name is it.
void ValidateFormatCalls(const Expr& e, const CheckResult& checked,
                         std::vector<Issue>& issues) {
  if (e.kind == Expr::Kind::kCall && e.name == "format" && e.operand &&
      e.operand->kind == Expr::Kind::kLiteral &&
      e.operand->literal.kind() == Kind::kString && e.args.size() == 1 &&
      e.args[0]->kind == Expr::Kind::kList) {
    std::unordered_map<int64_t, int32_t> offsets = {{e.id, e.offset}};
    std::vector<FormatArg> args;
    for (const auto& el : e.args[0]->args)
      args.push_back(DescribeFormatArg(*el, checked, offsets));
    if (auto issue =
            CheckFormatCall(e.operand->literal.string_value(), args, e.id)) {
      issues.push_back({offsets[issue->id], issue->message});
    }
  }
  if (e.operand) ValidateFormatCalls(*e.operand, checked, issues);
  for (const auto& a : e.args) ValidateFormatCalls(*a, checked, issues);
  for (const auto& en : e.entries) {
    if (en.key) ValidateFormatCalls(*en.key, checked, issues);
    ValidateFormatCalls(*en.value, checked, issues);
  }
  for (const Expr* c :
       {e.iter_range.get(), e.accu_init.get(), e.loop_condition.get(),
        e.loop_step.get(), e.result.get()})
    if (c) ValidateFormatCalls(*c, checked, issues);
}

std::optional<std::string> PlanProgram(const Env& env, Expr& expr) {
  Planner planner(env);
  return planner.Plan(expr);
}

}  // namespace ksched::cel

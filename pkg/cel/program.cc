// Program planning and the tree-walking interpreter, with cel-go's
// evaluation order, error absorption and runtime cost accounting.
#include "pkg/cel/program.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "pkg/cel/checker.h"
#include "pkg/cel/format_double.h"
#include "pkg/cel/libraries.h"
#include "pkg/cel/parser.h"
#include "pkg/cel/regex.h"

namespace ksched::cel {
namespace program_detail {
namespace {

struct CostLimitExceeded {};

constexpr uint64_t kListCreateCost = 10;
constexpr uint64_t kMapCreateCost = 30;

bool IsTypeConversion(std::string_view fn) {
  return fn == "bool" || fn == "bytes" || fn == "double" || fn == "dyn" ||
         fn == "int" || fn == "string" || fn == "type" || fn == "uint" ||
         fn == "timestamp" || fn == "duration";
}

Value NoSuchOverload() { return Value::Error("no such overload"); }

// cel-go binds the standard operators once per function, guarded by a trait
// of the first operand: an operand without it fails with the function's
// name, one with it but a wrong partner with a bare "no such overload".
// Conversions fail as the operand's conversion does; library functions
// (type-guarded overloads) name the runtime argument types.
Value DispatchFailure(std::string_view fn, std::span<const Value> args) {
  auto has = [&](std::initializer_list<Kind> kinds) {
    for (Kind k : kinds)
      if (!args.empty() && args[0].kind() == k) return true;
    return false;
  };
  std::string name(fn);
  auto trait = [&](std::initializer_list<Kind> kinds) {
    return has(kinds) ? NoSuchOverload()
                      : Value::Error("no such overload: " + name);
  };
  using K = Kind;
  if (fn == "_+_")
    return trait({K::kInt, K::kUint, K::kDouble, K::kString, K::kBytes,
                  K::kList, K::kTimestamp, K::kDuration});
  if (fn == "_-_")
    return trait({K::kInt, K::kUint, K::kDouble, K::kTimestamp, K::kDuration});
  if (fn == "_*_" || fn == "_/_") return trait({K::kInt, K::kUint, K::kDouble});
  if (fn == "_%_") return trait({K::kInt, K::kUint});
  if (fn == "-_") return trait({K::kInt, K::kDouble, K::kDuration});
  if (fn == "_<_" || fn == "_<=_" || fn == "_>_" || fn == "_>=_")
    return trait({K::kBool, K::kInt, K::kUint, K::kDouble, K::kString,
                  K::kBytes, K::kTimestamp, K::kDuration});
  if (fn == "size") return trait({K::kString, K::kBytes, K::kList, K::kMap});
  if (fn == "matches") return trait({K::kString});
  if (fn == "!_" || fn == "@in" || fn == "contains" || fn == "startsWith" ||
      fn == "endsWith" || fn == "_==_" || fn == "_!=_")
    return NoSuchOverload();
  // timestamp() and duration() dispatch as library functions do.
  if (IsTypeConversion(fn) && fn != "timestamp" && fn != "duration" &&
      args.size() == 1) {
    return Value::Error("type conversion error from '" +
                        std::string(args[0].TypeName()) + "' to '" + name +
                        "'");
  }
  std::string types;
  for (const Value& a : args) {
    if (!types.empty()) types += ", ";
    types += a.TypeName();
  }
  return Value::Error("no such overload: " + name + "(" + types + ")");
}

// The default runtime cost of a call, as cel-go's tracker charges it when
// no library estimator does.
uint64_t DefaultCallCost(std::string_view overload_id,
                         std::span<const Value> args) {
  auto size = [&](size_t i) { return ActualSize(args[i]); };
  if (overload_id == "starts_with_string" ||
      overload_id == "ends_with_string" || overload_id == "string_to_bytes" ||
      overload_id == "bytes_to_string" || overload_id == "strings_quote" ||
      overload_id == "string_format") {
    return TraversalCost(size(0));
  }
  if (overload_id == "in_list") return size(1);
  if (overload_id.starts_with("less_") || overload_id.starts_with("greater_") ||
      overload_id == "equals" || overload_id == "not_equals") {
    // Kubernetes' estimator charges 1 for `==` on its value types (IP and
    // CIDR are Sizers, so cel-go's rule would charge more for IPv6).
    if (overload_id == "equals" &&
        (args[0].kind() == Kind::kIp || args[0].kind() == Kind::kCidr ||
         args[0].kind() == Kind::kUrl || args[0].kind() == Kind::kFormat))
      return 1;
    bool textual = overload_id == "equals" || overload_id == "not_equals" ||
                   overload_id.ends_with("_string") ||
                   overload_id.ends_with("_bytes");
    if (!textual) return 1;
    uint64_t n = std::min(size(0), size(1));
    return TraversalCost(n);
  }
  if (overload_id == "add_string" || overload_id == "add_bytes") {
    return TraversalCost(size(0) + size(1));
  }
  if (overload_id == "matches" || overload_id == "matches_string") {
    uint64_t str = TraversalCost(1 + size(0));
    uint64_t re =
        static_cast<uint64_t>(std::ceil(static_cast<double>(size(1)) * 0.25));
    return str * re;
  }
  if (overload_id == "contains_string") {
    return TraversalCost(size(0)) * TraversalCost(size(1));
  }
  return 1;
}

}  // namespace
}  // namespace program_detail

using namespace program_detail;  // NOLINT: this file's own helpers

class Interpreter {
  static std::vector<std::pair<std::string_view, Value>>& ThreadLocals() {
    thread_local std::vector<std::pair<std::string_view, Value>> locals;
    return locals;
  }

 public:
  Interpreter(const Program& program, const Activation& activation)
      : program_(program), env_(*program.env_), activation_(activation) {}

  Evaluation Run() {
    locals_.clear();
    Evaluation out;
    try {
      out.value = Eval(*program_.expr_);
    } catch (const CostLimitExceeded&) {
      out.value =
          Value::Error("operation cancelled: actual cost limit exceeded");
    }
    out.cost = cost_;
    locals_.clear();
    return out;
  }

 private:
  void Charge(uint64_t n) {
    cost_ += n;
    if (program_.options_.cost_limit && cost_ > *program_.options_.cost_limit)
      throw CostLimitExceeded{};
  }

  const Value* LookupLocal(std::string_view name) const {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it)
      if (it->first == name) return &it->second;
    return nullptr;
  }

  // --- expressions
  // ------------------------------------------------------------
  Value Eval(const Expr& e) {
    if (e.folded) return e.folded_value;
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        return e.literal;
      case Expr::Kind::kIdent:
      case Expr::Kind::kSelect:
        return EvalAttribute(e, /*charge_base=*/true);
      case Expr::Kind::kCall:
        return EvalCall(e);
      case Expr::Kind::kList:
        return EvalList(e);
      case Expr::Kind::kMap:
        return EvalMap(e);
      case Expr::Kind::kStruct:
        return Value::Error("unknown type: " + e.name);
      case Expr::Kind::kComprehension:
        return EvalComprehension(e);
    }
    return NoSuchOverload();
  }

  Value EvalIdent(const Expr& e) {
    if (const Value* v = LookupLocal(e.name)) return *v;
    if (const Value* v = activation_.Find(e.name)) return *v;
    if (e.name == "int" || e.name == "uint" || e.name == "double" ||
        e.name == "bool" || e.name == "string" || e.name == "bytes" ||
        e.name == "list" || e.name == "map" || e.name == "null_type" ||
        e.name == "type" || e.name == "optional_type" ||
        env_.type_names.count(e.name)) {
      return Value::TypeRef(e.name);
    }
    return Value::Error("no such attribute(s): " + e.name);
  }

  bool IsTypeIdent(const Expr& e) const {
    if (e.kind != Expr::Kind::kIdent) return false;
    if (LookupLocal(e.name) || activation_.Find(e.name)) return false;
    return e.name == "int" || e.name == "uint" || e.name == "double" ||
           e.name == "bool" || e.name == "string" || e.name == "bytes" ||
           e.name == "list" || e.name == "map" || e.name == "null_type" ||
           e.name == "type" || e.name == "optional_type" ||
           env_.type_names.count(e.name);
  }

  // An attribute: a variable followed by field selections and indexes, or
  // any other expression followed by them (cel-go's relative attribute).
  // cel-go charges 1 for the attribute and 1 per qualifier.
  Value EvalAttribute(const Expr& e, bool charge_base) {
    switch (e.kind) {
      case Expr::Kind::kIdent: {
        // Type names are constants (cost 0).
        if (IsTypeIdent(e)) return Value::TypeRef(e.name);
        if (charge_base) Charge(1);
        return EvalIdent(e);
      }
      case Expr::Kind::kSelect: {
        Value operand = EvalAttribute(*e.operand, charge_base);
        Charge(1);
        if (e.test_only) {
          if (!env_.presence_test_has_cost) cost_ -= 1;
          return PresenceTest(operand, e.name);
        }
        return Select(operand, e.name, /*optional=*/false);
      }
      case Expr::Kind::kCall:
        if ((e.name == "_[_]" || e.name == "_[?_]") && !e.operand &&
            e.args.size() == 2) {
          Value operand = EvalAttribute(*e.args[0], charge_base);
          Value index = Eval(*e.args[1]);
          Charge(1);
          // cel-go words a constant index past the end differently.
          bool constant = e.args[1]->kind == Expr::Kind::kLiteral;
          return Index(operand, index, e.name == "_[?_]", constant);
        }
        if (e.name == "_?._" && e.args.size() == 2) {
          Value operand = EvalAttribute(*e.args[0], charge_base);
          Charge(1);
          return Select(operand, e.args[1]->literal.string_value(), true);
        }
        break;
      default:
        break;
    }
    Value v = Eval(e);
    if (charge_base) Charge(1);  // the relative attribute
    return v;
  }

  Value PresenceTest(const Value& operand, std::string_view field) {
    if (operand.is_error()) return operand;
    if (operand.kind() == Kind::kOptional) {
      if (!operand.optional_has_value()) return Value::Bool(false);
      return PresenceTest(operand.optional_value(), field);
    }
    if (operand.kind() == Kind::kMap) {
      return Value::Bool(
          operand.map().Find(Value::StringView(field)).has_value());
    }
    return NoSuchOverload();
  }

  Value Select(const Value& operand, std::string_view field, bool optional) {
    if (operand.is_error()) return operand;
    if (operand.kind() == Kind::kOptional) {
      if (!operand.optional_has_value()) return operand;
      Value inner = Select(operand.optional_value(), field, true);
      return inner;
    }
    if (operand.kind() == Kind::kMap) {
      std::optional<Value> v = operand.map().Find(Value::StringView(field));
      if (v) return optional ? Value::OptionalOf(*v) : *v;
      if (optional) return Value::OptionalNone();
      return Value::Error("no such key: " + std::string(field));
    }
    if (operand.kind() == Kind::kList) {
      return Value::Error("unsupported index type 'string' in list");
    }
    return Value::Error("no such key: " + std::string(field));
  }

  Value Index(const Value& operand, const Value& index, bool optional,
              bool constant_index = false) {
    if (operand.is_error()) return operand;
    if (index.is_error()) return index;
    if (operand.kind() == Kind::kOptional) {
      if (!operand.optional_has_value()) return operand;
      return Index(operand.optional_value(), index, true, constant_index);
    }
    if (operand.kind() == Kind::kMap) {
      Kind k = index.kind();
      if (!IsKeyKind(k) && k != Kind::kDouble) {
        if (optional) return Value::OptionalNone();
        // Go's type name of the qualifier, as cel-go prints it.
        std::string go_type = k == Kind::kBytes  ? "types.Bytes"
                              : k == Kind::kNull ? "types.Null"
                              : k == Kind::kList ? "*types.baseList"
                              : k == Kind::kMap  ? "*types.baseMap"
                              : k == Kind::kType ? "*types.Type"
                                                 : "types.Err";
        return Value::Error("invalid qualifier type: " + go_type);
      }
      std::optional<Value> v = operand.map().Find(index);
      if (v) return optional ? Value::OptionalOf(*v) : *v;
      if (optional) return Value::OptionalNone();
      return Value::Error("no such key: " + KeyText(index));
    }
    if (operand.kind() == Kind::kList) {
      const ListValue& list = operand.list();
      int64_t i;
      switch (index.kind()) {
        case Kind::kInt:
          i = index.int_value();
          break;
        case Kind::kUint:
          if (index.uint_value() > static_cast<uint64_t>(INT64_MAX)) {
            return Value::Error("unsupported index value " +
                                std::to_string(index.uint_value()) +
                                " in list");
          }
          i = static_cast<int64_t>(index.uint_value());
          break;
        case Kind::kDouble: {
          double d = index.double_value();
          if (std::trunc(d) != d || std::isinf(d) ||
              d < -9223372036854775808.0 || d >= 9223372036854775808.0) {
            return Value::Error("unsupported index value " +
                                FormatDoubleGoG(d) + " in list");
          }
          i = static_cast<int64_t>(d);
          break;
        }
        default:
          return Value::Error("unsupported index type '" +
                              std::string(index.TypeName()) + "' in list");
      }
      if (i < 0 || static_cast<uint64_t>(i) >= list.size()) {
        if (optional) return Value::OptionalNone();
        if (constant_index)
          return Value::Error("index out of bounds: " + std::to_string(i));
        return Value::Error("index '" + std::to_string(i) +
                            "' out of range in list size '" +
                            std::to_string(list.size()) + "'");
      }
      Value v = list.at(static_cast<size_t>(i));
      return optional ? Value::OptionalOf(v) : v;
    }
    return NoSuchOverload();
  }

  static std::string KeyText(const Value& key) {
    switch (key.kind()) {
      case Kind::kString:
        return std::string(key.string_value());
      case Kind::kUint:
        return std::to_string(key.uint_value());
      default:
        return key.DebugString();
    }
  }

  Value EvalList(const Expr& e) {
    std::vector<Value> items;
    items.reserve(e.args.size());
    Value error;
    bool failed = false;
    for (size_t i = 0; i < e.args.size(); ++i) {
      Value v = Eval(*e.args[i]);
      if (failed) continue;
      if (v.is_error()) {
        error = v;
        failed = true;
        continue;
      }
      if (i < e.optional_elements.size() && e.optional_elements[i]) {
        if (v.kind() != Kind::kOptional) {
          error = Value::Error(
              "cannot initialize optional list element from non-optional "
              "value " +
              v.DebugString());
          failed = true;
          continue;
        }
        if (!v.optional_has_value()) continue;
        items.push_back(v.optional_value());
        continue;
      }
      items.push_back(std::move(v));
    }
    Charge(kListCreateCost);
    if (failed) return error;
    return MakeList(std::move(items));
  }

  Value EvalMap(const Expr& e) {
    std::vector<VectorMap::Entry> entries;
    entries.reserve(e.entries.size());
    std::optional<Value> error;
    for (const Expr::Entry& entry : e.entries) {
      Value k = Eval(*entry.key);
      Value v = Eval(*entry.value);
      if (error) continue;
      if (k.is_error()) {
        error = k;
        continue;
      }
      if (v.is_error()) {
        error = v;
        continue;
      }
      if (!IsKeyKind(k.kind())) {
        error = Value::Error("unsupported key type");
        continue;
      }
      if (entry.optional) {
        if (v.kind() != Kind::kOptional) {
          error =
              Value::Error("cannot initialize optional entry '" + KeyText(k) +
                           "' from non-optional value " + v.DebugString());
          continue;
        }
        if (!v.optional_has_value()) continue;
        v = v.optional_value();
      }
      for (const auto& existing : entries) {
        if (KeysEqual(existing.key, k)) {
          error = Value::Error("Failed with repeated key");
          break;
        }
      }
      if (error) continue;
      entries.push_back({std::move(k), std::move(v)});
    }
    Charge(kMapCreateCost);
    if (error) return *error;
    return MakeMap(std::move(entries));
  }

  Value EvalComprehension(const Expr& e) {
    Value range = Eval(*e.iter_range);
    if (range.is_error()) return range;
    Value accu = Eval(*e.accu_init);
    if (range.kind() != Kind::kList && range.kind() != Kind::kMap) {
      return Value::Error("expression of type '" +
                          std::string(range.TypeName()) +
                          "' cannot be range of a comprehension (must be "
                          "list, map, or dynamic)");
    }
    bool two = !e.iter_var2.empty();
    size_t base = locals_.size();
    locals_.push_back({e.accu_var, accu});
    locals_.push_back({e.iter_var, Value()});
    if (two) locals_.push_back({e.iter_var2, Value()});
    size_t n =
        range.kind() == Kind::kList ? range.list().size() : range.map().size();
    for (size_t i = 0; i < n; ++i) {
      if (range.kind() == Kind::kList) {
        if (two) {
          locals_[base + 1].second = Value::Int(static_cast<int64_t>(i));
          locals_[base + 2].second = range.list().at(i);
        } else {
          locals_[base + 1].second = range.list().at(i);
        }
      } else {
        Value key = range.map().KeyAt(i);
        if (two) locals_[base + 2].second = *range.map().Find(key);
        locals_[base + 1].second = std::move(key);
      }
      Value cond = Eval(*e.loop_condition);
      if (cond.kind() == Kind::kBool && !cond.bool_value()) break;
      Value next = Eval(*e.loop_step);
      locals_[base].second = std::move(next);
    }
    // The result sees the accumulator, not the iteration variables.
    locals_.resize(base + 1);
    Value result = Eval(*e.result);
    locals_.resize(base);
    return result;
  }

  // --- calls
  // --------------------------------------------------------------------
  Value EvalCall(const Expr& e) {
    std::string_view fn = e.name;
    if (!e.operand) {
      if (fn == "_&&_" || fn == "_||_") return EvalLogic(e, fn == "_&&_");
      if (fn == "_?_:_") return EvalConditional(e);
      if (fn == "_[_]" || fn == "_[?_]" || fn == "_?._") {
        return EvalAttribute(e, true);
      }
    } else if ((fn == "or" || fn == "orValue") && e.args.size() == 1) {
      // optional.or / orValue evaluate their alternative only when needed.
      Value target = Eval(*e.operand);
      if (target.kind() == Kind::kOptional) {
        if (target.optional_has_value())
          return fn == "or" ? target : target.optional_value();
        Value alt = Eval(*e.args[0]);
        if (fn == "or" && !alt.is_error() && alt.kind() != Kind::kOptional)
          return NoSuchOverload();
        return alt;
      }
      if (target.is_error()) return target;
      return NoSuchOverload();
    }
    // Strict call: target, then arguments, left to right.
    Value stack_args[4];
    std::vector<Value> heap_args;
    size_t argc = e.args.size() + (e.operand ? 1 : 0);
    Value* args = stack_args;
    if (argc > 4) {
      heap_args.resize(argc);
      args = heap_args.data();
    }
    size_t k = 0;
    if (e.operand) args[k++] = Eval(*e.operand);
    for (const ExprPtr& a : e.args) args[k++] = Eval(*a);
    std::span<const Value> span(args, argc);

    if (e.precomputed) {
      Charge(e.precomputed_cost);
      return *e.precomputed;
    }
    const Function* function = e.function;
    if (!function) {
      Charge(1);
      return Value::Error("no such overload: " + std::string(fn));
    }
    // Non-strict overloads see errors; strict ones return the first.
    auto accepts = [&](const Overload& o) {
      if (o.member != (e.operand != nullptr) || o.params.size() != argc ||
          !o.impl)
        return false;
      for (size_t i = 0; i < argc; ++i) {
        if (args[i].is_error() && o.non_strict) continue;
        if (!o.params[i].AcceptsRuntime(args[i])) return false;
      }
      return true;
    };
    // The overload the checker bound comes first: runtime values do not
    // always tell overloads apart (an empty list fits list(int) and
    // list(duration) alike).
    const Overload* chosen = nullptr;
    if (e.checked_overload && accepts(*e.checked_overload)) {
      chosen = e.checked_overload;
    } else {
      for (const Overload& o : function->overloads) {
        if (accepts(o)) {
          chosen = &o;
          break;
        }
      }
    }
    if (!chosen || !chosen->non_strict) {
      for (size_t i = 0; i < argc; ++i) {
        if (args[i].is_error()) {
          Charge(1);
          return args[i];
        }
      }
    }
    if (!chosen) {
      Charge(1);
      return DispatchFailure(fn, span);
    }
    Value result;
    if (e.call_data) {
      // A constant regular expression compiled when the program was made.
      const auto& re = *static_cast<const RE2*>(e.call_data.get());
      std::string_view s = args[0].string_value();
      result = Value::Bool(
          RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), re));
    } else {
      result = chosen->impl(span);
    }
    std::optional<uint64_t> cost;
    if (chosen->cost) cost = chosen->cost(span, result);
    Charge(cost ? *cost : DefaultCallCost(chosen->id, span));
    return result;
  }

  // && and || over their two operands: the first decisive operand wins,
  // even after an error; otherwise the error.
  Value EvalLogic(const Expr& e, bool is_and) {
    Value first = Eval(*e.args[0]);
    if (first.kind() == Kind::kBool && first.bool_value() != is_and)
      return first;
    Value second = Eval(*e.args[1]);
    if (second.kind() == Kind::kBool && second.bool_value() != is_and)
      return second;
    if (first.kind() == Kind::kBool && second.kind() == Kind::kBool)
      return Value::Bool(is_and);
    if (first.is_error()) return first;
    if (second.is_error()) return second;
    return NoSuchOverload();
  }

  Value EvalConditional(const Expr& e) {
    Value cond = Eval(*e.args[0]);
    if (cond.is_error()) return cond;
    if (cond.kind() != Kind::kBool) return NoSuchOverload();
    const Expr& branch = cond.bool_value() ? *e.args[1] : *e.args[2];
    // cel-go folds the branches into a conditional attribute: a branch that
    // is itself an attribute is not charged for its base.
    bool attribute = branch.kind == Expr::Kind::kIdent ||
                     branch.kind == Expr::Kind::kSelect ||
                     (branch.kind == Expr::Kind::kCall &&
                      (branch.name == "_[_]" || branch.name == "_[?_]" ||
                       branch.name == "_?._"));
    if (attribute && !branch.folded) return EvalAttribute(branch, false);
    return Eval(branch);
  }

  const Program& program_;
  const Env& env_;
  const Activation& activation_;
  // Comprehension variables, innermost last. The storage is the thread's
  // and kept between evaluations, so evaluating allocates nothing for it.
  std::vector<std::pair<std::string_view, Value>>& locals_ = ThreadLocals();
  uint64_t cost_ = 0;
};

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
        MapActivation none;
        Program scratch(nullptr, "", nullptr, Type::Dyn(), {});
        (void)scratch;
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
      Value k = ConstantValue(*en.key);
      if (!IsKeyKind(k.kind())) return Value::Error("unsupported key type");
      for (const auto& x : entries)
        if (KeysEqual(x.key, k))
          return Value::Error("Failed with repeated key");
      entries.push_back({k, ConstantValue(*en.value)});
    }
    return MakeMap(std::move(entries));
  }

  const Env& env_;
};

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

}  // namespace

Program::Program(std::shared_ptr<const Env> env, std::string source,
                 ExprPtr expr, Type output_type, ProgramOptions options)
    : env_(std::move(env)),
      source_(std::move(source)),
      expr_(std::move(expr)),
      output_type_(std::move(output_type)),
      options_(options) {}

Evaluation Program::Eval(const Activation& activation) const {
  Interpreter interpreter(*this, activation);
  return interpreter.Run();
}

Compiled Compile(std::shared_ptr<const Env> env, std::string_view source,
                 const CompileOptions& options) {
  Compiled out;
  ParseResult parsed = Parse(source, env->parse);
  if (!parsed.issues.empty()) {
    out.error = FormatIssues(source, parsed.issues);
    return out;
  }
  ExprPtr expr = std::move(parsed.expr);
  Type output = Type::Dyn();
  if (options.check) {
    CheckResult checked = Check(*env, *expr);
    if (!checked.issues.empty()) {
      out.error = FormatIssues(source, checked.issues);
      return out;
    }
    // cel-go runs its AST validators after a successful check and lists
    // their issues in source order.
    std::vector<Issue> issues;
    if (env->validate_regex_literals) ValidateRegexLiterals(*expr, issues);
    if (env->validate_format_calls) ValidateFormatCalls(*expr, checked, issues);
    std::stable_sort(
        issues.begin(), issues.end(),
        [](const Issue& a, const Issue& b) { return a.offset < b.offset; });
    if (!issues.empty()) {
      out.error = FormatIssues(source, issues);
      return out;
    }
    output = checked.output;
  } else {
    ResolveNames(*env, *expr);
  }
  Planner planner(*env);
  if (auto err = planner.Plan(*expr)) {
    out.error = "program instantiation failed: " + *err;
    return out;
  }
  out.output_type = output;
  out.program =
      std::make_shared<const Program>(std::move(env), std::string(source),
                                      std::move(expr), output, options.program);
  return out;
}

}  // namespace ksched::cel

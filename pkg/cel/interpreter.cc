// The tree-walking interpreter, with cel-go's evaluation order, error
// absorption and runtime cost accounting.
#include "pkg/cel/interpreter.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "pkg/cel/format_double.h"
#include "pkg/cel/regex.h"

namespace ksched::cel {
namespace interpreter_detail {
namespace {

struct CostLimitExceeded {};
struct MemoryLimitExceeded {};

// The most bytes of lists, maps and strings one evaluation may make.
constexpr uint64_t kMaxProducedBytes = 256ull << 20;
struct Interrupted {};

// Comprehension iterations between two looks at the interrupt flag
// (Kubernetes' celconfig.CheckFrequency).
constexpr uint64_t kInterruptCheckFrequency = 100;

constexpr uint64_t kListCreateCost = 10;
constexpr uint64_t kMapCreateCost = 30;

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

}  // namespace
}  // namespace interpreter_detail

using namespace interpreter_detail;  // NOLINT: this file's own helpers

namespace interpreter_detail {

class Interpreter {
  static std::vector<std::pair<std::string_view, Value>>& ThreadLocals() {
    thread_local std::vector<std::pair<std::string_view, Value>> locals;
    return locals;
  }

 public:
  Interpreter(const Env& env, const Expr& expr, const ProgramOptions& options,
              const Activation& activation, const std::atomic<bool>* interrupt)
      : env_(env),
        expr_(expr),
        options_(options),
        activation_(activation),
        interrupt_(interrupt) {}

  Evaluation Run() {
    locals_.clear();
    Evaluation out;
    try {
      out.value = Eval(expr_);
    } catch (const CostLimitExceeded&) {
      out.value =
          Value::Error("operation cancelled: actual cost limit exceeded");
    } catch (const Interrupted&) {
      out.value = Value::Error("operation interrupted");
    } catch (const MemoryLimitExceeded&) {
      out.value = Value::Error(
          "operation cancelled: the evaluation made more than 256 MiB of "
          "values");
    }
    out.cost = cost_;
    locals_.clear();
    return out;
  }

 private:
  void Charge(uint64_t n) {
    cost_ += n;
    if (options_.cost_limit && cost_ > *options_.cost_limit)
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

  // has(x.f), as cel-go's qualifiers test presence: a map looks f up, a
  // list cannot be indexed by a name, and anything else has no fields
  // (false, or an error with Env::error_on_bad_presence_test).
  Value PresenceTest(const Value& operand, std::string_view field) {
    if (operand.is_error()) return operand;
    switch (operand.kind()) {
      case Kind::kOptional:
        if (!operand.optional_has_value()) return Value::Bool(false);
        return PresenceTest(operand.optional_value(), field);
      case Kind::kMap:
        return Value::Bool(
            operand.map().Find(Value::StringView(field)).has_value());
      case Kind::kList:
        return Value::Error("unsupported index type 'string' in list");
      default:
        if (env_.error_on_bad_presence_test)
          return Value::Error("no such key: " + std::string(field));
        return Value::Bool(false);
    }
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

  // cel-go stops at the first element that fails; the list is charged
  // either way.
  Value EvalList(const Expr& e) {
    std::vector<Value> items;
    items.reserve(e.args.size());
    for (size_t i = 0; i < e.args.size(); ++i) {
      Value v = Eval(*e.args[i]);
      if (v.is_error()) {
        Charge(kListCreateCost);
        return v;
      }
      if (i < e.optional_elements.size() && e.optional_elements[i]) {
        if (v.kind() != Kind::kOptional) {
          Charge(kListCreateCost);
          return Value::Error(
              "cannot initialize optional list element from non-optional "
              "value " +
              v.DebugString());
        }
        if (!v.optional_has_value()) continue;
        items.push_back(v.optional_value());
        continue;
      }
      items.push_back(std::move(v));
    }
    Charge(kListCreateCost);
    Produce(items.size() * sizeof(Value));
    return MakeList(std::move(items));
  }

  Value EvalMap(const Expr& e) {
    std::vector<VectorMap::Entry> entries;
    entries.reserve(e.entries.size());
    for (const Expr::Entry& entry : e.entries) {
      // cel-go stops at the first key or value that fails.
      Value k = Eval(*entry.key);
      if (k.is_error()) {
        Charge(kMapCreateCost);
        return k;
      }
      Value v = Eval(*entry.value);
      if (v.is_error()) {
        Charge(kMapCreateCost);
        return v;
      }
      if (entry.optional) {
        if (v.kind() != Kind::kOptional) {
          Charge(kMapCreateCost);
          return Value::Error("cannot initialize optional entry '" +
                              KeyText(k) + "' from non-optional value " +
                              v.DebugString());
        }
        if (!v.optional_has_value()) {
          EraseEntry(entries, k);
          continue;
        }
        v = v.optional_value();
      }
      // Any key kind, and a repeated key keeps its last value: cel-go
      // builds the literal as a Go map.
      PutEntry(entries, std::move(k), std::move(v));
    }
    Charge(kMapCreateCost);
    Produce(entries.size() * sizeof(VectorMap::Entry));
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
    // map, filter and transformList append to their accumulator: it is
    // kept as a vector rather than copied every step (same results, same
    // costs; see Planner::MarkAppendingComprehension).
    Appender appender;
    size_t n =
        range.kind() == Kind::kList ? range.list().size() : range.map().size();
    for (size_t i = 0; i < n; ++i) {
      if (interrupt_ && ++iterations_ % kInterruptCheckFrequency == 0 &&
          interrupt_->load(std::memory_order_relaxed)) {
        throw Interrupted{};
      }
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
      if (e.appends) {
        AppendStep(*e.loop_step, appender);
        continue;
      }
      Value cond = Eval(*e.loop_condition);
      if (cond.kind() == Kind::kBool && !cond.bool_value()) break;
      Value next = Eval(*e.loop_step);
      locals_[base].second = std::move(next);
    }
    if (e.appends) {
      locals_[base].second = appender.error
                                 ? *appender.error
                                 : MakeList(std::move(appender.items));
    }
    // The result sees the accumulator, not the iteration variables.
    locals_.resize(base + 1);
    Value result = Eval(*e.result);
    locals_.resize(base);
    return result;
  }

  // The accumulator of an appending comprehension: its items, or the error
  // that replaced it.
  struct Appender {
    std::vector<Value> items;
    std::optional<Value> error;
  };

  // One step `accu + [x]` or `cond ? accu + [x] : accu`, charged as the
  // plain evaluation charges it: the accumulator's reference, the element,
  // the one-element list, the `_+_` call; for the conditional form the
  // condition and, when false, nothing for the bare accumulator.
  void AppendStep(const Expr& step, Appender& acc) {
    const Expr* add = &step;
    if (step.name == "_?_:_") {
      // A failed condition becomes the accumulator, as `?:` returns it.
      Value cond = Eval(*step.args[0]);
      if (cond.is_error() || cond.kind() != Kind::kBool) {
        acc.error = cond.is_error() ? cond : NoSuchOverload();
        return;
      }
      if (!cond.bool_value()) return;
      add = step.args[1].get();
    }
    Charge(1);  // the accumulator variable
    const Expr& list = *add->args[1];
    Value element = Eval(*list.args[0]);
    Charge(kListCreateCost);
    Charge(1);  // add_list
    if (acc.error) return;
    if (element.is_error()) {
      acc.error = element;
      return;
    }
    Produce(sizeof(Value));
    acc.items.push_back(std::move(element));
  }

  // Bounds the values an evaluation makes: a selector that builds more
  // than kMaxProducedBytes of lists, maps and strings fails instead of
  // exhausting memory (cel-go has no such bound; its cost limit does not
  // see every allocation, e.g. format("%.9999999f")).
  void Produce(uint64_t bytes) {
    produced_ += bytes;
    if (produced_ > kMaxProducedBytes) throw MemoryLimitExceeded{};
  }
  static uint64_t ValueBytes(const Value& v) {
    switch (v.kind()) {
      case Kind::kString:
      case Kind::kBytes:
        return v.string_value().size();
      case Kind::kList:
        return v.list().size() * sizeof(Value);
      case Kind::kMap:
        return v.map().size() * sizeof(VectorMap::Entry);
      default:
        return 0;
    }
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
      if (chosen->id == "lists_range" && args[0].kind() == Kind::kInt &&
          args[0].int_value() > 0) {
        // Its size, and so its cost (the output size), is known before it
        // is built: a range past the cost limit fails as it would once
        // built, without building it.
        uint64_t n = static_cast<uint64_t>(args[0].int_value());
        if (options_.cost_limit &&
            n > *options_.cost_limit - std::min(cost_, *options_.cost_limit)) {
          Charge(n);
        }
        Produce(n * sizeof(Value));
        result = chosen->impl(span);
      } else {
        result = chosen->impl(span);
        Produce(ValueBytes(result));
      }
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

  const Env& env_;
  const Expr& expr_;
  const ProgramOptions& options_;
  const Activation& activation_;
  // Comprehension variables, innermost last. The storage is the thread's
  // and kept between evaluations, so evaluating allocates nothing for it.
  std::vector<std::pair<std::string_view, Value>>& locals_ = ThreadLocals();
  uint64_t cost_ = 0;
  const std::atomic<bool>* interrupt_;
  uint64_t iterations_ = 0;
  uint64_t produced_ = 0;
};

}  // namespace interpreter_detail

bool IsTypeConversion(std::string_view fn) {
  return fn == "bool" || fn == "bytes" || fn == "double" || fn == "dyn" ||
         fn == "int" || fn == "string" || fn == "type" || fn == "uint" ||
         fn == "timestamp" || fn == "duration";
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

Evaluation Interpret(const Env& env, const Expr& expr,
                     const ProgramOptions& options,
                     const Activation& activation,
                     const std::atomic<bool>* interrupt) {
  interpreter_detail::Interpreter interpreter(env, expr, options, activation,
                                              interrupt);
  return interpreter.Run();
}

}  // namespace ksched::cel

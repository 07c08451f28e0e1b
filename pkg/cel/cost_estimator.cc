// cel-go's checker/cost.go: one pass over the checked AST, estimating each
// node's cost and, where it can, the size of its value, which the costs of
// the calls and comprehensions using it depend on.
//
// Each rule mirrors how the runtime cost tracker charges the same node
// (interpreter.cc): identifiers and selections on maps and objects cost 1,
// literals 0, list and map literals 10 and 30 plus their elements, a
// comprehension its range's size times its loop condition and step. Where
// the rules look arbitrary (a conditional does not charge for itself, a
// selection on a dyn value costs nothing) they are cel-go's, and
// Kubernetes' limits are set against exactly these numbers.
#include "pkg/cel/cost_estimator.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

#include "pkg/cel/cost_ext.h"
#include "pkg/cel/lib_internal.h"

namespace ksched::cel {
namespace cost_detail {
namespace {

using Path = std::vector<std::string>;

// The sizes of a list's indexes and elements, or of a map's keys and
// values (cel-go's entrySizeEstimate).
struct EntrySize {
  bool is_list = false;
  SizeEstimate key;
  SizeEstimate value;
};

std::optional<EntrySize> UnionEntries(const std::optional<EntrySize>& a,
                                      const std::optional<EntrySize>& b) {
  if (!a || !b) return std::nullopt;
  return EntrySize{a->is_list, a->key.Union(b->key), a->value.Union(b->value)};
}

// An iteration variable, accumulator or cel.bind variable in scope.
struct LocalVar {
  Path path;
  std::optional<SizeEstimate> size;
  std::optional<EntrySize> entry_size;
};

bool IsAccumulatorName(std::string_view name) {
  // cel-go's macros name their accumulator __result__ or, hidden, @result.
  return name == kAccumulatorName || name == "@result";
}

// Types whose values all have size 1 (cel-go's isScalar; strings are not).
bool IsScalar(const Type& t) {
  switch (t.kind()) {
    case Type::Kind::kBool:
    case Type::Kind::kDouble:
    case Type::Kind::kInt:
    case Type::Kind::kUint:
      return true;
    case Type::Kind::kOpaque:
      return t.name() == "google.protobuf.Duration" ||
             t.name() == "google.protobuf.Timestamp";
    case Type::Kind::kOptional:
      return IsScalar(t.elem());
    default:
      return false;
  }
}

// The size an expression shows by itself: a literal's, or the number of
// elements of a list or map literal.
std::optional<SizeEstimate> LiteralSize(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kLiteral:
      switch (e.literal.kind()) {
        case Kind::kString:
          return SizeEstimate::Fixed(lib::RuneCount(e.literal.string_value()));
        case Kind::kBytes:
          return SizeEstimate::Fixed(e.literal.string_value().size());
        case Kind::kNull:
        case Kind::kBool:
        case Kind::kInt:
        case Kind::kUint:
        case Kind::kDouble:
        case Kind::kDuration:
        case Kind::kTimestamp:
          return SizeEstimate::Fixed(1);
        default:
          return std::nullopt;
      }
    case Expr::Kind::kList:
      return SizeEstimate::Fixed(e.args.size());
    case Expr::Kind::kMap:
      return SizeEstimate::Fixed(e.entries.size());
    default:
      return std::nullopt;
  }
}

class Coster {
 public:
  Coster(const Env& env, const CheckResult& checked,
         const CostEstimator& estimator)
      : checked_(checked),
        estimator_(estimator),
        presence_test_cost_(CostEstimate::Fixed(
            env.presence_test_has_cost ? kSelectAndIdentCost : 0)) {}

  CostEstimate Cost(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        return CostEstimate::Fixed(kConstCost);
      case Expr::Kind::kIdent:
        return CostIdent(e);
      case Expr::Kind::kSelect:
        return CostSelect(e);
      case Expr::Kind::kCall:
        return CostCall(e);
      case Expr::Kind::kList:
        return CostList(e);
      case Expr::Kind::kMap:
        return CostMap(e);
      case Expr::Kind::kStruct:
        return CostStruct(e);
      case Expr::Kind::kComprehension:
        return IsBind(e) ? CostBind(e) : CostComprehension(e);
    }
    return {};
  }

 private:
  // --- what is known of each node ------------------------------------------
  const Type& TypeOf(const Expr& e) const {
    static const Type* const kDyn = new Type(Type::Dyn());
    auto it = checked_.types.find(e.id);
    return it == checked_.types.end() ? *kDyn : it->second;
  }

  const LocalVar* FindLocal(const std::string& name) const {
    auto it = locals_.find(name);
    if (it == locals_.end() || it->second.empty()) return nullptr;
    return &it->second.back();
  }
  void PushLocal(const std::string& name, LocalVar var) {
    locals_[name].push_back(std::move(var));
  }
  void PopLocal(const std::string& name) { locals_[name].pop_back(); }

  Path PathOf(const Expr& e) const {
    if (e.kind == Expr::Kind::kIdent) {
      if (const LocalVar* v = FindLocal(e.name)) return v->path;
    }
    auto it = paths_.find(e.id);
    return it == paths_.end() ? Path() : it->second;
  }
  static Path Append(Path path, std::string step) {
    path.push_back(std::move(step));
    return path;
  }

  void SetSize(const Expr& e, const std::optional<SizeEstimate>& size) {
    if (size) sizes_[e.id] = *size;
  }
  void SetEntrySize(const Expr& e, const std::optional<EntrySize>& size) {
    if (size) entry_sizes_[e.id] = *size;
  }

  std::optional<SizeEstimate> ComputeSize(const Expr& e) {
    if (auto it = sizes_.find(e.id); it != sizes_.end()) return it->second;
    if (auto size = LiteralSize(e)) return size;
    // The estimator comes before the type so that it may bound even values
    // of scalar types.
    AstNode node{PathOf(e), TypeOf(e), &e, std::nullopt};
    if (auto size = estimator_.EstimateSize(node)) {
      sizes_[e.id] = *size;
      return size;
    }
    if (IsScalar(TypeOf(e))) return SizeEstimate::Fixed(1);
    if (e.kind == Expr::Kind::kIdent) {
      if (const LocalVar* v = FindLocal(e.name); v && v->size) return v->size;
    }
    return std::nullopt;
  }
  SizeEstimate SizeOrUnknown(const Expr& e) {
    return ComputeSize(e).value_or(SizeEstimate::Unknown());
  }
  // A node's size as the pass computed it, not asking the estimator again.
  static SizeEstimate SizeOrUnknown(const AstNode& node) {
    return node.computed_size.value_or(SizeEstimate::Unknown());
  }

  std::optional<EntrySize> ComputeEntrySize(const Expr& e) const {
    if (auto it = entry_sizes_.find(e.id); it != entry_sizes_.end())
      return it->second;
    if (e.kind == Expr::Kind::kIdent) {
      if (const LocalVar* v = FindLocal(e.name); v && v->entry_size)
        return v->entry_size;
    }
    return std::nullopt;
  }

  AstNode NewAstNode(const Expr& e) {
    Path path = PathOf(e);
    // Only variables of the environment are worth a path.
    if (!path.empty() && IsAccumulatorName(path[0])) path.clear();
    return AstNode{std::move(path), TypeOf(e), &e, ComputeSize(e)};
  }

  // --- scopes ---------------------------------------------------------------
  void PushLocalVar(const std::string& name, const Expr& init) {
    PushLocal(name, {PathOf(init), ComputeSize(init), ComputeEntrySize(init)});
  }

  // Whether the range iterates a list, as far as the estimate knows.
  bool RangeIsList(const Expr& range, const std::optional<EntrySize>& entry) {
    if (entry) return entry->is_list;
    return TypeOf(range).kind() == Type::Kind::kList;
  }

  // The one variable of all(x, ...): a list's elements or a map's keys.
  void PushIterSingle(const std::string& name, const Expr& range) {
    std::optional<EntrySize> entry = ComputeEntrySize(range);
    bool list = RangeIsList(range, entry);
    std::optional<SizeEstimate> size;
    if (entry) size = list ? entry->value : entry->key;
    PushLocal(name, {Append(PathOf(range), list ? "@items" : "@keys"), size,
                     std::nullopt});
  }
  // The first of two variables: a list's indexes or a map's keys.
  void PushIterKey(const std::string& name, const Expr& range) {
    std::optional<EntrySize> entry = ComputeEntrySize(range);
    bool list = RangeIsList(range, entry);
    std::optional<SizeEstimate> size;
    if (entry) size = entry->key;
    PushLocal(name, {Append(PathOf(range), list ? "@indices" : "@keys"), size,
                     std::nullopt});
  }
  // The second of two variables: a list's elements or a map's values.
  void PushIterValue(const std::string& name, const Expr& range) {
    std::optional<EntrySize> entry = ComputeEntrySize(range);
    bool list = RangeIsList(range, entry);
    std::optional<SizeEstimate> size;
    if (entry) size = entry->value;
    PushLocal(name, {Append(PathOf(range), list ? "@items" : "@values"), size,
                     std::nullopt});
  }

  // --- expressions -----------------------------------------------------------
  CostEstimate CostIdent(const Expr& e) {
    if (const LocalVar* v = FindLocal(e.name)) {
      paths_[e.id] = v->path;
    } else {
      paths_[e.id] = Path{e.name};
    }
    return CostEstimate::Fixed(kSelectAndIdentCost);
  }

  CostEstimate CostSelect(const Expr& e) {
    if (e.test_only) {
      // has(): the runtime charges the operand's evaluation and, unless
      // turned off, the test.
      return presence_test_cost_.Add(Cost(*e.operand));
    }
    CostEstimate sum = Cost(*e.operand);
    switch (TypeOf(*e.operand).kind()) {
      case Type::Kind::kMap:
      case Type::Kind::kObject:
      case Type::Kind::kTypeParam:
        sum = sum.Add(CostEstimate::Fixed(kSelectAndIdentCost));
        break;
      default:
        break;
    }
    paths_[e.id] = Append(PathOf(*e.operand), e.name);
    return sum;
  }

  CostEstimate CostCall(const Expr& e) {
    // dyn() only turns off type checking: 1 plus its argument, whose sizes
    // it keeps.
    if (e.name == "dyn" && e.args.size() == 1) {
      CostEstimate arg = Cost(*e.args[0]);
      SetSize(e, ComputeSize(*e.args[0]));
      SetEntrySize(e, ComputeEntrySize(*e.args[0]));
      return CostEstimate::Fixed(1).Add(arg);
    }
    std::vector<CostEstimate> arg_costs;
    std::vector<AstNode> args;
    arg_costs.reserve(e.args.size());
    args.reserve(e.args.size());
    for (const ExprPtr& arg : e.args) {
      arg_costs.push_back(Cost(*arg));
      args.push_back(NewAstNode(*arg));
    }
    auto overloads = checked_.overload_ids.find(e.id);
    // (Calls the checker bound to no overload cost nothing, arguments
    // included, as in cel-go; a checked call always has one.)
    if (overloads == checked_.overload_ids.end() || overloads->second.empty())
      return {};
    CostEstimate sum;
    std::optional<AstNode> target;
    if (e.operand) {
      sum = sum.Add(Cost(*e.operand));
      target = NewAstNode(*e.operand);
    }
    // Every overload the arguments may dispatch to: the range covers them
    // all.
    CostEstimate function_cost{kMaxEstimate, 0};
    std::optional<SizeEstimate> result_size;
    for (std::string_view overload_id : overloads->second) {
      CallEstimate call = FunctionCost(
          e, overload_id, target ? &*target : nullptr, args, arg_costs);
      function_cost = function_cost.Union(call.cost);
      if (call.result_size) {
        result_size = result_size ? result_size->Union(*call.result_size)
                                  : *call.result_size;
      }
      // Indexing leads on to the container's elements.
      if (overload_id == "index_list" && !e.args.empty()) {
        result_size = ValueSize(*e.args[0]);
        paths_[e.id] = Append(PathOf(*e.args[0]), "@items");
      } else if (overload_id == "index_map" && !e.args.empty()) {
        result_size = ValueSize(*e.args[0]);
        paths_[e.id] = Append(PathOf(*e.args[0]), "@values");
      }
      if (!result_size) result_size = ComputeSize(e);
    }
    SetSize(e, result_size);
    return sum.Add(function_cost);
  }

  std::optional<SizeEstimate> ValueSize(const Expr& container) const {
    std::optional<EntrySize> entry = ComputeEntrySize(container);
    if (!entry) return std::nullopt;
    return entry->value;
  }

  // One overload's cost, its arguments' included.
  CallEstimate FunctionCost(const Expr& e, std::string_view overload_id,
                            const AstNode* target,
                            std::span<const AstNode> args,
                            std::span<const CostEstimate> arg_costs) {
    CostEstimate arg_sum;
    for (const CostEstimate& c : arg_costs) arg_sum = arg_sum.Add(c);
    // Everything without an estimate of its own is O(1).
    CallEstimate call{CostEstimate::Fixed(1).Add(arg_sum)};
    if (auto ext =
            EstimateExtensionCall(overload_id, estimator_, target, args)) {
      call.cost = ext->cost.Add(arg_sum);
      call.result_size = ext->result_size;
    } else if (auto est = estimator_.EstimateCallCost(e.name, overload_id,
                                                      target, args)) {
      call.cost = est->cost.Add(arg_sum);
      call.result_size = est->result_size;
    } else {
      BuiltinCost(e, overload_id, target, args, arg_costs, arg_sum, call);
    }
    return call;
  }

  // cel-go's own estimates of the standard functions whose cost grows with
  // their arguments, and of the operators that short-circuit, written into
  // call; other functions leave it as it is. (Assigned field by field: GCC
  // 12 takes copies of a CallEstimate without a result size for reads of
  // uninitialized memory.)
  void BuiltinCost(const Expr& e, std::string_view id, const AstNode* target,
                   std::span<const AstNode> args,
                   std::span<const CostEstimate> arg_costs,
                   const CostEstimate& arg_sum, CallEstimate& call) {
    auto traversal = [&](const SizeEstimate& size) {
      return size.MultiplyByCostFactor(kStringTraversalCostFactor).Add(arg_sum);
    };
    if (id == "string_format") {
      // No result size: the output of format is unbounded.
      if (target) call.cost = traversal(SizeOrUnknown(*target));
      return;
    }
    // The result sizes below use Go's wrapping arithmetic, as cel-go does.
    if (id == "string_to_bytes" && args.size() == 1) {
      SizeEstimate size = SizeOrUnknown(args[0]);
      call.cost = traversal(size);
      // Up to 4 bytes per code point.
      call.result_size = SizeEstimate{size.min, size.max * 4};
      return;
    }
    if (id == "bytes_to_string" && args.size() == 1) {
      SizeEstimate size = SizeOrUnknown(args[0]);
      call.cost = traversal(size);
      call.result_size = SizeEstimate{size.min / 4, size.max};
      return;
    }
    if (id == "strings_quote" && args.size() == 1) {
      SizeEstimate size = SizeOrUnknown(args[0]);
      call.cost = traversal(size);
      // Every character escaped, plus the quotes.
      call.result_size = SizeEstimate{size.min + 2, size.max * 2 + 2};
      return;
    }
    if ((id == "starts_with_string" || id == "ends_with_string") &&
        args.size() == 1) {
      call.cost = traversal(SizeOrUnknown(args[0]));
      return;
    }
    if (id == "in_list" && args.size() == 2) {
      // Linear even over a constant list, which the optimizer makes a set.
      call.cost = SizeOrUnknown(args[1]).MultiplyByCostFactor(1).Add(arg_sum);
      return;
    }
    if (id == "matches_string" && target && args.size() == 1) {
      // The string (plus one, so that an empty string still costs) times
      // the pattern, guessing a regular expression term per 4 characters.
      CostEstimate text = SizeOrUnknown(*target)
                              .Add(SizeEstimate::Fixed(1))
                              .MultiplyByCostFactor(kStringTraversalCostFactor);
      CostEstimate pattern = SizeOrUnknown(args[0]).MultiplyByCostFactor(
          kRegexStringLengthCostFactor);
      call.cost = text.Multiply(pattern).Add(arg_sum);
      return;
    }
    if (id == "contains_string" && target && args.size() == 1) {
      CostEstimate text = SizeOrUnknown(*target).MultiplyByCostFactor(
          kStringTraversalCostFactor);
      CostEstimate sub = SizeOrUnknown(args[0]).MultiplyByCostFactor(
          kStringTraversalCostFactor);
      call.cost = text.Multiply(sub).Add(arg_sum);
      return;
    }
    if (id == "logical_or" || id == "logical_and") {
      // At least the left operand, at most both.
      const CostEstimate& lhs = arg_costs[0];
      const CostEstimate& rhs = arg_costs[1];
      call.cost = CostEstimate{lhs.min, lhs.Add(rhs).max};
      return;
    }
    if (id == "conditional") {
      SizeEstimate size = SizeOrUnknown(args[1]).Union(SizeOrUnknown(args[2]));
      SetEntrySize(e, UnionEntries(ComputeEntrySize(*args[1].expr),
                                   ComputeEntrySize(*args[2].expr)));
      // The condition and either branch; nothing for the operator.
      call.cost = arg_costs[0].Add(arg_costs[1].Union(arg_costs[2]));
      call.result_size = size;
      return;
    }
    if ((id == "add_string" || id == "add_bytes" || id == "add_list") &&
        args.size() == 2) {
      SizeEstimate size = SizeOrUnknown(args[0]).Add(SizeOrUnknown(args[1]));
      SetEntrySize(e, UnionEntries(ComputeEntrySize(*args[0].expr),
                                   ComputeEntrySize(*args[1].expr)));
      // Concatenating lists is O(1); strings and bytes are copied.
      call.cost = id == "add_list" ? CostEstimate::Fixed(1).Add(arg_sum)
                                   : traversal(size);
      call.result_size = size;
      return;
    }
    if (IsSizedComparison(id)) {
      // Comparing stops at the end of the shorter operand; scalars cost 1.
      SizeEstimate lhs = SizeOrUnknown(args[0]);
      SizeEstimate rhs = SizeOrUnknown(args[1]);
      uint64_t smallest_max = std::min(lhs.max, rhs.max);
      CostEstimate compared{smallest_max > 0 ? 1u : 0u, smallest_max};
      call.cost = compared.MultiplyByCostFactor(kStringTraversalCostFactor)
                      .Add(arg_sum);
      return;
    }
  }

  static bool IsSizedComparison(std::string_view id) {
    return id == "equals" || id == "not_equals" || id == "less_string" ||
           id == "greater_string" || id == "less_equals_string" ||
           id == "greater_equals_string" || id == "less_bytes" ||
           id == "greater_bytes" || id == "less_equals_bytes" ||
           id == "greater_equals_bytes";
  }

  CostEstimate CostList(const Expr& e) {
    CostEstimate sum;
    SizeEstimate items{e.args.empty() ? 0 : kMaxEstimate, 0};
    for (const ExprPtr& element : e.args) {
      sum = sum.Add(Cost(*element));
      items = items.Union(SizeOrUnknown(*element));
    }
    SetEntrySize(e, EntrySize{true, SizeEstimate::Fixed(1), items});
    return sum.Add(CostEstimate::Fixed(kListCreateBaseCost));
  }

  CostEstimate CostMap(const Expr& e) {
    CostEstimate sum;
    uint64_t empty_min = e.entries.empty() ? 0 : kMaxEstimate;
    SizeEstimate keys{empty_min, 0};
    SizeEstimate values{empty_min, 0};
    for (const Expr::Entry& entry : e.entries) {
      sum = sum.Add(Cost(*entry.key));
      sum = sum.Add(Cost(*entry.value));
      keys = keys.Union(SizeOrUnknown(*entry.key));
      values = values.Union(SizeOrUnknown(*entry.value));
    }
    SetEntrySize(e, EntrySize{false, keys, values});
    return sum.Add(CostEstimate::Fixed(kMapCreateBaseCost));
  }

  CostEstimate CostStruct(const Expr& e) {
    CostEstimate sum;
    for (const Expr::Entry& field : e.entries)
      sum = sum.Add(Cost(*field.value));
    return sum.Add(CostEstimate::Fixed(kStructCreateBaseCost));
  }

  CostEstimate CostComprehension(const Expr& e) {
    CostEstimate sum = Cost(*e.iter_range);
    sum = sum.Add(Cost(*e.accu_init));
    PushLocalVar(e.accu_var, *e.accu_init);
    bool two = !e.iter_var2.empty();
    if (two) {
      PushIterKey(e.iter_var, *e.iter_range);
      PushIterValue(e.iter_var2, *e.iter_range);
    } else {
      PushIterSingle(e.iter_var, *e.iter_range);
    }
    CostEstimate loop = Cost(*e.loop_condition);
    CostEstimate step = Cost(*e.loop_step);
    PopLocal(e.iter_var);
    if (two) PopLocal(e.iter_var2);
    sum = sum.Add(Cost(*e.result));
    PopLocal(e.accu_var);

    // Every element may run the condition and the step.
    SizeEstimate range = SizeOrUnknown(*e.iter_range);
    sum = sum.Add(range.MultiplyByCost(step.Add(loop)));

    switch (e.accu_init->kind) {
      case Expr::Kind::kLiteral:
        SetSize(e, ComputeSize(*e.accu_init));
        break;
      case Expr::Kind::kList:
      case Expr::Kind::kMap:
        // map, filter, transformList...: at most one entry per element.
        SetSize(e, range);
        SetEntrySize(e, ComputeEntrySize(*e.loop_step));
        break;
      default:
        break;
    }
    return sum;
  }

  // cel.bind(v, init, result), as the macro expands it: a comprehension
  // over an empty list whose accumulator is the variable.
  static bool IsBind(const Expr& e) {
    const Expr& range = *e.iter_range;
    const Expr& cond = *e.loop_condition;
    return range.kind == Expr::Kind::kList && range.args.empty() &&
           cond.kind == Expr::Kind::kLiteral &&
           cond.literal.kind() == Kind::kBool && !cond.literal.bool_value() &&
           e.accu_var != kAccumulatorName;
  }

  CostEstimate CostBind(const Expr& e) {
    // The empty list is still made at runtime.
    CostEstimate sum = Cost(*e.iter_range);
    sum = sum.Add(Cost(*e.accu_init));
    PushLocalVar(e.accu_var, *e.accu_init);
    sum = sum.Add(Cost(*e.result));
    PopLocal(e.accu_var);
    SetSize(e, ComputeSize(*e.result));
    SetEntrySize(e, ComputeEntrySize(*e.result));
    return sum;
  }

  const CheckResult& checked_;
  const CostEstimator& estimator_;
  const CostEstimate presence_test_cost_;
  std::unordered_map<int64_t, Path> paths_;
  std::unordered_map<std::string, std::vector<LocalVar>> locals_;
  std::unordered_map<int64_t, SizeEstimate> sizes_;
  std::unordered_map<int64_t, EntrySize> entry_sizes_;
};

}  // namespace
}  // namespace cost_detail

SizeEstimate SizeOf(const CostEstimator& estimator, const AstNode& node) {
  if (node.computed_size) return *node.computed_size;
  if (auto size = estimator.EstimateSize(node)) return *size;
  return SizeEstimate::Unknown();
}

CostEstimate EstimateCost(const Env& env, const Expr& expr,
                          const CheckResult& checked,
                          const CostEstimator& estimator) {
  cost_detail::Coster coster(env, checked, estimator);
  return coster.Cost(expr);
}

}  // namespace ksched::cel

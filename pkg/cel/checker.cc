#include "pkg/cel/checker.h"

#include <map>
#include <optional>

namespace ksched::cel {
namespace checker_detail {
namespace {

// The identifiers that name types: `type(x) == int`.
std::optional<Type> TypeIdent(std::string_view name) {
  if (name == "int") return Type::Int();
  if (name == "uint") return Type::Uint();
  if (name == "double") return Type::Double();
  if (name == "bool") return Type::Bool();
  if (name == "string") return Type::String();
  if (name == "bytes") return Type::Bytes();
  if (name == "null_type") return Type::Null();
  if (name == "list") return Type::List(Type::Dyn());
  if (name == "map") return Type::Map(Type::Dyn(), Type::Dyn());
  if (name == "type") return Type::TypeOf(Type::Dyn());
  if (name == "optional_type") return Type::Optional(Type::Dyn());
  if (name == "dyn") return Type::Dyn();
  return std::nullopt;
}

// The dotted name an ident/select chain spells, if it is one.
std::optional<std::string> QualifiedName(const Expr& e) {
  if (e.kind == Expr::Kind::kIdent) return e.name;
  if (e.kind == Expr::Kind::kSelect && !e.test_only && e.operand) {
    auto prefix = QualifiedName(*e.operand);
    if (prefix) return *prefix + "." + e.name;
  }
  return std::nullopt;
}

std::string FormatSignature(const std::vector<Type>& args, bool member) {
  std::string out;
  size_t start = 0;
  if (member && !args.empty()) {
    out = args[0].ToString() + ".";
    start = 1;
  }
  out += "(";
  for (size_t i = start; i < args.size(); ++i) {
    if (i > start) out += ", ";
    out += args[i].ToString();
  }
  return out + ")";
}

class Checker {
 public:
  explicit Checker(const Env& env) : env_(env) {}

  CheckResult Run(Expr& root) {
    CheckExpr(root);
    CheckResult result;
    for (auto& [id, t] : types_) result.types[id] = Substitute(t, true);
    result.output = Substitute(TypeOf(root), true);
    result.overload_ids = std::move(overload_ids_);
    if (issues_.empty() && env_.homogeneous_aggregate_literals) {
      ValidateHomogeneousLiterals(root, result.types, false);
    }
    result.issues = std::move(issues_);
    return result;
  }

  // cel.ValidateHomogeneousAggregateLiterals: the elements of a list
  // literal, and the keys and the values of a map literal, must have
  // exactly one type (dyn is not a wildcard here). Literals inside a
  // format() call are exempt, as the strings extension asks.
  static bool Equivalent(const Type& a, const Type& b) {
    if (a.kind() != b.kind()) return false;
    if (a.kind() == Type::Kind::kTypeParam) return true;
    if (a.name() != b.name() || a.params().size() != b.params().size())
      return false;
    for (size_t i = 0; i < a.params().size(); ++i)
      if (!Equivalent(a.params()[i], b.params()[i])) return false;
    return true;
  }

  void ValidateHomogeneousLiterals(
      const Expr& e, const std::unordered_map<int64_t, Type>& types,
      bool exempt) {
    auto type_of = [&](const Expr& x) {
      auto it = types.find(x.id);
      return it == types.end() ? Type::Dyn() : it->second;
    };
    auto unwrap = [](Type t) {
      return t.kind() == Type::Kind::kOptional ? t.elem() : t;
    };
    if (!exempt && e.kind == Expr::Kind::kList) {
      std::optional<Type> first;
      for (size_t i = 0; i < e.args.size(); ++i) {
        Type t = type_of(*e.args[i]);
        if (i < e.optional_elements.size() && e.optional_elements[i])
          t = unwrap(t);
        if (!first) {
          first = t;
        } else if (!Equivalent(*first, t)) {
          Mismatch(*e.args[i], *first, t);
          break;
        }
      }
    }
    if (!exempt && e.kind == Expr::Kind::kMap) {
      std::optional<Type> key, value;
      for (const auto& entry : e.entries) {
        Type k = type_of(*entry.key);
        Type v = type_of(*entry.value);
        if (entry.optional) v = unwrap(v);
        if (!key) {
          key = k;
          value = v;
          continue;
        }
        if (!Equivalent(*key, k)) Mismatch(*entry.key, *key, k);
        if (!Equivalent(*value, v)) Mismatch(*entry.value, *value, v);
      }
    }
    bool inner_exempt =
        exempt || (e.kind == Expr::Kind::kCall && e.name == "format" &&
                   env_.validate_format_calls);
    if (e.operand) ValidateHomogeneousLiterals(*e.operand, types, inner_exempt);
    for (const auto& a : e.args)
      ValidateHomogeneousLiterals(*a, types, inner_exempt);
    for (const auto& en : e.entries) {
      if (en.key) ValidateHomogeneousLiterals(*en.key, types, inner_exempt);
      ValidateHomogeneousLiterals(*en.value, types, inner_exempt);
    }
    for (const Expr* c :
         {e.iter_range.get(), e.accu_init.get(), e.loop_condition.get(),
          e.loop_step.get(), e.result.get()})
      if (c) ValidateHomogeneousLiterals(*c, types, inner_exempt);
  }

 private:
  using Mapping = std::map<std::string, Type>;

  // --- types and substitution ---------------------------------------------
  Type NewTypeVar() {
    return Type::Param("_var" + std::to_string(next_var_++));
  }

  Type Substitute(const Type& t, bool params_to_dyn) const {
    switch (t.kind()) {
      case Type::Kind::kTypeParam: {
        auto it = mapping_.find(t.name());
        if (it != mapping_.end()) return Substitute(it->second, params_to_dyn);
        return params_to_dyn ? Type::Dyn() : t;
      }
      case Type::Kind::kList:
        return Type::List(Substitute(t.elem(), params_to_dyn));
      case Type::Kind::kMap:
        return Type::Map(Substitute(t.key(), params_to_dyn),
                         Substitute(t.value(), params_to_dyn));
      case Type::Kind::kOptional:
        return Type::Optional(Substitute(t.elem(), params_to_dyn));
      case Type::Kind::kType:
        if (t.params().empty()) return t;
        return Type::TypeOf(Substitute(t.elem(), params_to_dyn));
      default:
        return t;
    }
  }

  static bool NotReferencedIn(const Mapping& m, const Type& param,
                              const Type& within) {
    if (within.kind() == Type::Kind::kTypeParam) {
      if (within.name() == param.name()) return false;
      auto it = m.find(within.name());
      if (it != m.end()) return NotReferencedIn(m, param, it->second);
      return true;
    }
    for (const Type& p : within.params())
      if (!NotReferencedIn(m, param, p)) return false;
    return true;
  }

  static bool IsLessSpecific(const Type& a, const Type& b) {
    // a is equal to or less specific than b.
    if (a.kind() == Type::Kind::kDyn || a.kind() == Type::Kind::kTypeParam)
      return true;
    if (b.kind() == Type::Kind::kDyn || b.kind() == Type::Kind::kTypeParam)
      return false;
    if (a.kind() != b.kind() || a.params().size() != b.params().size())
      return false;
    for (size_t i = 0; i < a.params().size(); ++i)
      if (!IsLessSpecific(a.params()[i], b.params()[i])) return false;
    return true;
  }
  static Type MostGeneral(const Type& a, const Type& b) {
    return IsLessSpecific(a, b) ? a : b;
  }

  bool ValidSubstitution(Mapping& m, const Type& t1, const Type& t2,
                         bool* has_sub) {
    *has_sub = false;
    if (t1 == t2) {
      *has_sub = true;
      return true;
    }
    auto it = m.find(t2.name());
    if (it != m.end()) {
      *has_sub = true;
      Type sub = it->second;
      if (t1 == sub) return true;
      if (Assignable(m, t1, sub)) {
        Type general = MostGeneral(t1, sub);
        if (NotReferencedIn(m, t2, general)) m[t2.name()] = general;
        return true;
      }
      return false;
    }
    if (NotReferencedIn(m, t2, t1)) {
      m[t2.name()] = t1;
      return true;
    }
    return false;
  }

  // cel-go's internalIsAssignable(m, t1, t2).
  bool Assignable(Mapping& m, const Type& t1, const Type& t2) {
    if (t2.kind() == Type::Kind::kTypeParam) {
      bool has_sub;
      if (ValidSubstitution(m, t1, t2, &has_sub)) return true;
      if (has_sub) return false;
    }
    if (t1.kind() == Type::Kind::kTypeParam) {
      bool has_sub;
      return ValidSubstitution(m, t2, t1, &has_sub);
    }
    if (t1.IsDynOrError() || t2.IsDynOrError()) return true;
    if (t1.kind() == Type::Kind::kNull) return t2.kind() == Type::Kind::kNull;
    if (t2.kind() == Type::Kind::kNull) return t1.kind() == Type::Kind::kNull;
    switch (t1.kind()) {
      case Type::Kind::kType:
        return t2.kind() == Type::Kind::kType;
      case Type::Kind::kList:
      case Type::Kind::kMap:
      case Type::Kind::kOptional:
        if (t1.kind() != t2.kind()) return false;
        for (size_t i = 0; i < t1.params().size(); ++i)
          if (!Assignable(m, t1.params()[i], t2.params()[i])) return false;
        return true;
      case Type::Kind::kOpaque:
      case Type::Kind::kObject:
        return t1.kind() == t2.kind() && t1.name() == t2.name();
      default:
        return t1.kind() == t2.kind();
    }
  }

  // Tries t2 -> t1 on a copy of the mapping, keeping it on success.
  bool IsAssignable(const Type& t1, const Type& t2) {
    Mapping copy = mapping_;
    if (Assignable(copy, t1, t2)) {
      mapping_ = std::move(copy);
      return true;
    }
    return false;
  }
  bool IsAssignableList(const std::vector<Type>& a,
                        const std::vector<Type>& b) {
    if (a.size() != b.size()) return false;
    Mapping copy = mapping_;
    for (size_t i = 0; i < a.size(); ++i)
      if (!Assignable(copy, a[i], b[i])) return false;
    mapping_ = std::move(copy);
    return true;
  }

  // --- bookkeeping ----------------------------------------------------------
  void SetType(const Expr& e, Type t) { types_[e.id] = std::move(t); }
  Type TypeOf(const Expr& e) const {
    auto it = types_.find(e.id);
    return it == types_.end() ? Type::Error() : it->second;
  }
  void Report(const Expr& e, std::string message) {
    issues_.push_back({e.offset, std::move(message)});
  }
  void Undeclared(const Expr& e, const std::string& name) {
    Report(e, "undeclared reference to '" + name + "' (in container '')");
  }
  void Mismatch(const Expr& e, const Type& expected, const Type& found) {
    Report(e, "expected type '" + Substitute(expected, true).ToString() +
                  "' but found '" + Substitute(found, true).ToString() + "'");
  }

  std::optional<Type> LookupIdent(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return found->second;
    }
    auto v = env_.variables.find(name);
    if (v != env_.variables.end()) return v->second;
    if (auto t = TypeIdent(name)) return Type::TypeOf(*t);
    if (env_.type_names.count(name)) return Type::TypeOf(Type::Opaque(name));
    return std::nullopt;
  }

  // --- the walk
  // ---------------------------------------------------------------
  void CheckExpr(Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        SetType(e, LiteralType(e.literal));
        return;
      case Expr::Kind::kIdent: {
        auto t = LookupIdent(e.name);
        if (!t) {
          SetType(e, Type::Error());
          Undeclared(e, e.name);
          return;
        }
        SetType(e, *t);
        return;
      }
      case Expr::Kind::kSelect:
        CheckSelect(e);
        return;
      case Expr::Kind::kCall:
        CheckCall(e);
        return;
      case Expr::Kind::kList:
        CheckList(e);
        return;
      case Expr::Kind::kMap:
        CheckMap(e);
        return;
      case Expr::Kind::kStruct:
        for (auto& entry : e.entries) CheckExpr(*entry.value);
        SetType(e, Type::Error());
        Undeclared(e, e.name);
        return;
      case Expr::Kind::kComprehension:
        CheckComprehension(e);
        return;
    }
  }

  static Type LiteralType(const Value& v) {
    switch (v.kind()) {
      case Kind::kNull:
        return Type::Null();
      case Kind::kBool:
        return Type::Bool();
      case Kind::kInt:
        return Type::Int();
      case Kind::kUint:
        return Type::Uint();
      case Kind::kDouble:
        return Type::Double();
      case Kind::kString:
        return Type::String();
      case Kind::kBytes:
        return Type::Bytes();
      default:
        return Type::Dyn();
    }
  }

  void CheckSelect(Expr& e) {
    if (!e.test_only) {
      auto qname = QualifiedName(e);
      if (qname && !IsLocal(*qname)) {
        auto v = env_.variables.find(*qname);
        if (v != env_.variables.end()) {
          // Rewrite to a reference to the dotted variable.
          e.kind = Expr::Kind::kIdent;
          e.name = *qname;
          e.operand.reset();
          SetType(e, v->second);
          return;
        }
        if (env_.type_names.count(*qname)) {
          // A dotted type name (`net.IP`) is a type identifier.
          e.kind = Expr::Kind::kIdent;
          e.name = *qname;
          e.operand.reset();
          SetType(e, Type::TypeOf(Type::Opaque(*qname)));
          return;
        }
      }
    }
    Type result = SelectField(e, *e.operand, e.name, false);
    if (e.test_only) result = Type::Bool();
    SetType(e, Substitute(result, false));
  }

  bool IsLocal(const std::string& qualified) const {
    std::string first = qualified.substr(0, qualified.find('.'));
    for (const auto& scope : scopes_)
      if (scope.count(first)) return true;
    return false;
  }

  Type SelectField(const Expr& e, Expr& operand, const std::string& field,
                   bool optional) {
    CheckExpr(operand);
    Type operand_type = Substitute(TypeOf(operand), false);
    bool is_opt = operand_type.kind() == Type::Kind::kOptional;
    Type target = is_opt ? operand_type.elem() : operand_type;
    Type result = Type::Error();
    switch (target.kind()) {
      case Type::Kind::kMap:
        result = target.value();
        break;
      case Type::Kind::kObject: {
        auto it = target.fields().find(field);
        if (it != target.fields().end()) {
          result = it->second;
        } else {
          Report(e, "undefined field '" + field + "'");
        }
        break;
      }
      case Type::Kind::kTypeParam:
        IsAssignable(Type::Dyn(), target);
        result = Type::Dyn();
        break;
      default:
        if (!target.IsDynOrError()) {
          Report(e, "type '" + target.ToString() +
                        "' does not support field selection");
        }
        result = Type::Dyn();
    }
    if (is_opt || optional) return Type::Optional(result);
    return result;
  }

  void CheckCall(Expr& e) {
    if (e.name == "_?._" && e.args.size() == 2 &&
        e.args[1]->kind == Expr::Kind::kLiteral &&
        e.args[1]->literal.kind() == Kind::kString) {
      std::string field(e.args[1]->literal.string_value());
      Type t = SelectField(e, *e.args[0], field, true);
      SetType(e, Substitute(t, false));
      overload_ids_[e.id].push_back("select_optional_field");
      return;
    }
    for (auto& arg : e.args) CheckExpr(*arg);
    if (!e.operand) {
      const Function* fn = env_.functions.Find(e.name);
      if (!fn) {
        SetType(e, Type::Error());
        Undeclared(e, e.name);
        return;
      }
      ResolveOverload(e, *fn, nullptr);
      return;
    }
    auto prefix = QualifiedName(*e.operand);
    if (prefix) {
      const Function* fn = env_.functions.Find(*prefix + "." + e.name);
      if (fn) {
        e.name = fn->name;
        e.operand.reset();
        ResolveOverload(e, *fn, nullptr);
        return;
      }
    }
    CheckExpr(*e.operand);
    const Function* fn = env_.functions.Find(e.name);
    if (!fn) {
      SetType(e, Type::Error());
      Undeclared(e, e.name);
      return;
    }
    ResolveOverload(e, *fn, e.operand.get());
  }

  static std::vector<std::string> ParamNames(const Overload& o) {
    std::vector<std::string> names;
    std::function<void(const Type&)> walk = [&](const Type& t) {
      if (t.kind() == Type::Kind::kTypeParam) {
        for (const auto& n : names)
          if (n == t.name()) return;
        names.push_back(t.name());
      }
      for (const Type& p : t.params()) walk(p);
    };
    for (const Type& p : o.params) walk(p);
    walk(o.result);
    return names;
  }

  static Type Rename(const Type& t, const std::map<std::string, Type>& names) {
    switch (t.kind()) {
      case Type::Kind::kTypeParam: {
        auto it = names.find(t.name());
        return it == names.end() ? t : it->second;
      }
      case Type::Kind::kList:
        return Type::List(Rename(t.elem(), names));
      case Type::Kind::kMap:
        return Type::Map(Rename(t.key(), names), Rename(t.value(), names));
      case Type::Kind::kOptional:
        return Type::Optional(Rename(t.elem(), names));
      case Type::Kind::kType:
        if (t.params().empty()) return t;
        return Type::TypeOf(Rename(t.elem(), names));
      default:
        return t;
    }
  }

  void ResolveOverload(Expr& e, const Function& fn, const Expr* target) {
    std::vector<Type> arg_types;
    if (target) arg_types.push_back(TypeOf(*target));
    for (const auto& a : e.args) arg_types.push_back(TypeOf(*a));
    std::optional<Type> result;
    int matches = 0;
    for (const Overload& o : fn.overloads) {
      if (o.member != (target != nullptr)) continue;
      if (o.params.size() != arg_types.size()) continue;
      std::map<std::string, Type> fresh;
      for (const std::string& n : ParamNames(o)) fresh[n] = NewTypeVar();
      std::vector<Type> params;
      for (const Type& p : o.params) params.push_back(Rename(p, fresh));
      if (!IsAssignableList(arg_types, params)) continue;
      e.checked_overload = ++matches == 1 ? &o : nullptr;
      overload_ids_[e.id].push_back(o.id);
      Type r = Substitute(Rename(o.result, fresh), false);
      if (!result) {
        result = r;
      } else if (result->kind() != Type::Kind::kDyn && !(r == *result)) {
        result = Type::Dyn();
      }
    }
    if (!result) {
      std::vector<Type> shown;
      for (const Type& t : arg_types) shown.push_back(Substitute(t, true));
      Report(e, "found no matching overload for '" + fn.name +
                    "' applied to '" +
                    FormatSignature(shown, target != nullptr) + "'");
      SetType(e, Type::Error());
      return;
    }
    SetType(e, *result);
  }

  Type Join(const std::optional<Type>& previous, const Type& current) {
    if (!previous) return current;
    if (IsAssignable(*previous, current))
      return MostGeneral(*previous, current);
    // Mixed literals join to dyn; Kubernetes' rule against them is a
    // separate pass over the checked types (ValidateHomogeneousLiterals).
    return Type::Dyn();
  }

  void CheckList(Expr& e) {
    std::optional<Type> elems;
    for (size_t i = 0; i < e.args.size(); ++i) {
      Expr& el = *e.args[i];
      CheckExpr(el);
      Type t = TypeOf(el);
      if (i < e.optional_elements.size() && e.optional_elements[i]) {
        Type sub = Substitute(t, false);
        if (sub.kind() == Type::Kind::kOptional) {
          t = sub.elem();
        } else if (sub.kind() != Type::Kind::kDyn) {
          Mismatch(el, Type::Optional(sub), sub);
        }
      }
      elems = Join(elems, t);
    }
    SetType(e, Type::List(elems ? *elems : NewTypeVar()));
  }

  void CheckMap(Expr& e) {
    std::optional<Type> keys, values;
    for (auto& entry : e.entries) {
      CheckExpr(*entry.key);
      keys = Join(keys, TypeOf(*entry.key));
      CheckExpr(*entry.value);
      Type vt = TypeOf(*entry.value);
      if (entry.optional) {
        Type sub = Substitute(vt, false);
        if (sub.kind() == Type::Kind::kOptional) {
          vt = sub.elem();
        } else if (sub.kind() != Type::Kind::kDyn) {
          Mismatch(*entry.value, Type::Optional(sub), sub);
        }
      }
      values = Join(values, vt);
    }
    SetType(e, Type::Map(keys ? *keys : NewTypeVar(),
                         values ? *values : NewTypeVar()));
  }

  void AssertType(const Expr& e, const Type& expected) {
    if (!IsAssignable(expected, TypeOf(e))) Mismatch(e, expected, TypeOf(e));
  }

  void CheckComprehension(Expr& e) {
    CheckExpr(*e.iter_range);
    CheckExpr(*e.accu_init);
    Type range = Substitute(TypeOf(*e.iter_range), false);
    Type accu = TypeOf(*e.accu_init);
    scopes_.push_back({{e.accu_var, accu}});
    Type var1, var2;
    bool two = !e.iter_var2.empty();
    switch (range.kind()) {
      case Type::Kind::kList:
        var1 = range.elem();
        if (two) {
          var2 = var1;
          var1 = Type::Int();
        }
        break;
      case Type::Kind::kMap:
        var1 = range.key();
        if (two) var2 = range.value();
        break;
      case Type::Kind::kDyn:
      case Type::Kind::kError:
      case Type::Kind::kTypeParam:
        IsAssignable(Type::Dyn(), range);
        var1 = Type::Dyn();
        var2 = Type::Dyn();
        break;
      default:
        Report(*e.iter_range,
               "expression of type '" + range.ToString() +
                   "' cannot be the range of a comprehension (must be list, "
                   "map, or dynamic)");
        var1 = Type::Error();
        var2 = Type::Error();
    }
    std::map<std::string, Type> loop{{e.iter_var, var1}};
    if (two) loop[e.iter_var2] = var2;
    scopes_.push_back(std::move(loop));
    CheckExpr(*e.loop_condition);
    AssertType(*e.loop_condition, Type::Bool());
    CheckExpr(*e.loop_step);
    AssertType(*e.loop_step, accu);
    scopes_.pop_back();
    CheckExpr(*e.result);
    scopes_.pop_back();
    SetType(e, Substitute(TypeOf(*e.result), false));
  }

  const Env& env_;
  std::unordered_map<int64_t, Type> types_;
  std::unordered_map<int64_t, std::vector<std::string_view>> overload_ids_;
  Mapping mapping_;
  std::vector<std::map<std::string, Type>> scopes_;
  std::vector<Issue> issues_;
  int next_var_ = 0;
};

void Resolve(const Env& env, Expr& e, std::vector<std::string>& locals) {
  switch (e.kind) {
    case Expr::Kind::kSelect: {
      if (!e.test_only) {
        auto qname = QualifiedName(e);
        if (qname) {
          std::string first = qname->substr(0, qname->find('.'));
          bool local = false;
          for (const auto& l : locals) local |= l == first;
          if (!local &&
              (env.variables.count(*qname) || env.type_names.count(*qname))) {
            e.kind = Expr::Kind::kIdent;
            e.name = *qname;
            e.operand.reset();
            return;
          }
        }
      }
      Resolve(env, *e.operand, locals);
      return;
    }
    case Expr::Kind::kCall:
      if (e.operand) {
        auto prefix = QualifiedName(*e.operand);
        if (prefix && env.functions.Find(*prefix + "." + e.name)) {
          e.name = *prefix + "." + e.name;
          e.operand.reset();
        } else {
          Resolve(env, *e.operand, locals);
        }
      }
      for (auto& a : e.args) Resolve(env, *a, locals);
      return;
    case Expr::Kind::kList:
      for (auto& a : e.args) Resolve(env, *a, locals);
      return;
    case Expr::Kind::kMap:
    case Expr::Kind::kStruct:
      for (auto& en : e.entries) {
        if (en.key) Resolve(env, *en.key, locals);
        Resolve(env, *en.value, locals);
      }
      return;
    case Expr::Kind::kComprehension: {
      Resolve(env, *e.iter_range, locals);
      Resolve(env, *e.accu_init, locals);
      locals.push_back(e.accu_var);
      locals.push_back(e.iter_var);
      if (!e.iter_var2.empty()) locals.push_back(e.iter_var2);
      Resolve(env, *e.loop_condition, locals);
      Resolve(env, *e.loop_step, locals);
      Resolve(env, *e.result, locals);
      locals.resize(locals.size() - (e.iter_var2.empty() ? 2 : 3));
      return;
    }
    default:
      return;
  }
}

}  // namespace
}  // namespace checker_detail

using namespace checker_detail;  // NOLINT: this file's own helpers

CheckResult Check(const Env& env, Expr& expr) {
  Checker checker(env);
  return checker.Run(expr);
}

void ResolveNames(const Env& env, Expr& expr) {
  std::vector<std::string> locals;
  Resolve(env, expr, locals);
}

}  // namespace ksched::cel

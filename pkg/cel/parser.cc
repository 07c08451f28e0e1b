#include "pkg/cel/parser.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>

#include "pkg/cel/lexer.h"

namespace ksched::cel {
namespace parser_detail {
namespace {

const std::set<std::string_view>& ReservedWords() {
  static const auto* words = new std::set<std::string_view>{
      "as",        "break",  "const",  "continue", "else", "for",
      "function",  "if",     "import", "let",      "loop", "package",
      "namespace", "return", "var",    "void",     "while"};
  return *words;
}

struct SyntaxError {};

class Parser {
 public:
  Parser(std::string_view src, const ParseOptions& options)
      : src_(src), options_(options), lexer_(src) {}

  ParseResult Run() {
    ParseResult result;
    try {
      Advance();
      ExprPtr e = ParseExpr();
      if (tok_.kind != Tok::kEof) ErrorAtToken();
      if (issues_.empty()) result.expr = std::move(e);
    } catch (const SyntaxError&) {
    }
    result.issues = std::move(issues_);
    result.next_id = next_id_;
    return result;
  }

 private:
  // --- tokens -------------------------------------------------------------
  void Advance() {
    tok_ = lexer_.Next();
    if (tok_.kind == Tok::kError) {
      Fail(tok_.offset, "Syntax error: " + tok_.value);
    }
  }
  [[noreturn]] void Fail(int32_t offset, std::string message) {
    issues_.push_back({offset, std::move(message)});
    throw SyntaxError{};
  }
  [[noreturn]] void ErrorAtToken() {
    if (tok_.kind == Tok::kEof) {
      Fail(tok_.offset, "Syntax error: mismatched input '<EOF>'");
    }
    Fail(tok_.offset,
         "Syntax error: mismatched input '" + std::string(tok_.text) + "'");
  }
  void Expect(Tok kind) {
    if (tok_.kind != kind) ErrorAtToken();
    Advance();
  }

  // --- nodes --------------------------------------------------------------
  ExprPtr NewExpr(Expr::Kind kind, int32_t offset) {
    auto e = std::make_unique<Expr>();
    e->id = ++next_id_;
    e->kind = kind;
    e->offset = offset;
    return e;
  }
  ExprPtr NewLiteral(Value v, int32_t offset) {
    ExprPtr e = NewExpr(Expr::Kind::kLiteral, offset);
    e->literal = std::move(v);
    return e;
  }
  ExprPtr NewIdent(std::string name, int32_t offset) {
    ExprPtr e = NewExpr(Expr::Kind::kIdent, offset);
    e->name = std::move(name);
    return e;
  }
  ExprPtr NewCall(std::string fn, int32_t offset, std::vector<ExprPtr> args,
                  ExprPtr target = nullptr) {
    ExprPtr e = NewExpr(Expr::Kind::kCall, offset);
    e->name = std::move(fn);
    e->args = std::move(args);
    e->operand = std::move(target);
    return e;
  }
  ExprPtr Call1(const char* fn, int32_t offset, ExprPtr a) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(a));
    return NewCall(fn, offset, std::move(args));
  }
  ExprPtr Call2(const char* fn, int32_t offset, ExprPtr a, ExprPtr b) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    return NewCall(fn, offset, std::move(args));
  }
  ExprPtr Call3(const char* fn, int32_t offset, ExprPtr a, ExprPtr b,
                ExprPtr c) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    args.push_back(std::move(c));
    return NewCall(fn, offset, std::move(args));
  }
  ExprPtr Copy(const Expr& e) {
    ExprPtr c = NewExpr(e.kind, e.offset);
    c->literal = e.literal;
    c->name = e.name;
    c->test_only = e.test_only;
    if (e.operand) c->operand = Copy(*e.operand);
    for (const ExprPtr& a : e.args) c->args.push_back(Copy(*a));
    c->optional_elements = e.optional_elements;
    for (const Expr::Entry& en : e.entries) {
      c->entries.push_back({en.key ? Copy(*en.key) : nullptr, en.field,
                            Copy(*en.value), en.optional});
    }
    c->iter_var = e.iter_var;
    c->iter_var2 = e.iter_var2;
    c->accu_var = e.accu_var;
    if (e.iter_range) c->iter_range = Copy(*e.iter_range);
    if (e.accu_init) c->accu_init = Copy(*e.accu_init);
    if (e.loop_condition) c->loop_condition = Copy(*e.loop_condition);
    if (e.loop_step) c->loop_step = Copy(*e.loop_step);
    if (e.result) c->result = Copy(*e.result);
    return c;
  }

  // cel-go counts, per grammar rule, how deeply the rule is entered, and
  // fails past the limit (ANTLR enters a left-recursive rule again for every
  // operator of a chain, so `1 + 1 + ...` and `a.b.c...` count too). The same
  // bound keeps every later walk of the tree off the end of the stack.
  enum Rule {
    kRuleExpr,
    kRuleRelation,
    kRuleCalc,
    kRuleUnary,
    kRuleMember,
    kRuleCount
  };

  class RuleDepth {
   public:
    RuleDepth(Parser* p, Rule rule) : p_(p), rule_(rule) { Add(); }
    ~RuleDepth() { p_->depth_[rule_] -= added_; }
    // One more level of this rule (an operator of a left-recursive chain).
    void Add() {
      ++added_;
      if (++p_->depth_[rule_] > p_->options_.max_recursion_depth) {
        p_->Fail(p_->tok_.offset,
                 "expression recursion limit exceeded: " +
                     std::to_string(p_->options_.max_recursion_depth));
      }
    }

   private:
    Parser* p_;
    Rule rule_;
    int added_ = 0;
  };

  // --- grammar ------------------------------------------------------------
  ExprPtr ParseExpr() {
    RuleDepth depth(this, kRuleExpr);
    ExprPtr cond = ParseOr();
    if (tok_.kind != Tok::kQuestion) return cond;
    int32_t offset = tok_.offset;
    Advance();
    ExprPtr a = ParseOr();
    Expect(Tok::kColon);
    ExprPtr b = ParseExpr();
    return Call3("_?_:_", offset, std::move(cond), std::move(a), std::move(b));
  }

  // Chains of || and && become balanced trees, as cel-go builds them, so a
  // long chain stays shallow.
  ExprPtr Balanced(const char* op, std::vector<ExprPtr>& terms,
                   const std::vector<int32_t>& offsets, size_t lo, size_t hi) {
    size_t mid = (lo + hi + 1) / 2;
    ExprPtr left = mid == lo ? std::move(terms[mid])
                             : Balanced(op, terms, offsets, lo, mid - 1);
    ExprPtr right = mid == hi ? std::move(terms[mid + 1])
                              : Balanced(op, terms, offsets, mid + 1, hi);
    return Call2(op, offsets[mid], std::move(left), std::move(right));
  }

  ExprPtr ParseLogic(Tok token, const char* op, ExprPtr (Parser::*next)()) {
    std::vector<ExprPtr> terms;
    std::vector<int32_t> offsets;
    terms.push_back((this->*next)());
    while (tok_.kind == token) {
      offsets.push_back(tok_.offset);
      Advance();
      terms.push_back((this->*next)());
    }
    if (terms.size() == 1) return std::move(terms[0]);
    return Balanced(op, terms, offsets, 0, offsets.size() - 1);
  }

  ExprPtr ParseOr() { return ParseLogic(Tok::kOr, "_||_", &Parser::ParseAnd); }
  ExprPtr ParseAnd() {
    return ParseLogic(Tok::kAnd, "_&&_", &Parser::ParseRelation);
  }

  ExprPtr ParseRelation() {
    RuleDepth depth(this, kRuleRelation);
    ExprPtr left = ParseAddition();
    while (true) {
      const char* op = nullptr;
      switch (tok_.kind) {
        case Tok::kLt:
          op = "_<_";
          break;
        case Tok::kLe:
          op = "_<=_";
          break;
        case Tok::kGt:
          op = "_>_";
          break;
        case Tok::kGe:
          op = "_>=_";
          break;
        case Tok::kEq:
          op = "_==_";
          break;
        case Tok::kNe:
          op = "_!=_";
          break;
        case Tok::kIn:
          op = "@in";
          break;
        default:
          return left;
      }
      int32_t offset = tok_.offset;
      Advance();
      depth.Add();
      ExprPtr right = ParseAddition();
      left = Call2(op, offset, std::move(left), std::move(right));
    }
  }

  ExprPtr ParseAddition() {
    RuleDepth depth(this, kRuleCalc);
    ExprPtr left = ParseMultiplication();
    while (tok_.kind == Tok::kPlus || tok_.kind == Tok::kMinus) {
      const char* op = tok_.kind == Tok::kPlus ? "_+_" : "_-_";
      int32_t offset = tok_.offset;
      Advance();
      depth.Add();
      ExprPtr right = ParseMultiplication();
      left = Call2(op, offset, std::move(left), std::move(right));
    }
    return left;
  }

  ExprPtr ParseMultiplication() {
    RuleDepth depth(this, kRuleCalc);
    ExprPtr left = ParseUnary();
    while (tok_.kind == Tok::kStar || tok_.kind == Tok::kSlash ||
           tok_.kind == Tok::kPercent) {
      const char* op = tok_.kind == Tok::kStar    ? "_*_"
                       : tok_.kind == Tok::kSlash ? "_/_"
                                                  : "_%_";
      int32_t offset = tok_.offset;
      Advance();
      depth.Add();
      ExprPtr right = ParseUnary();
      left = Call2(op, offset, std::move(left), std::move(right));
    }
    return left;
  }

  ExprPtr ParseUnary() {
    RuleDepth depth(this, kRuleUnary);
    if (tok_.kind == Tok::kNot) {
      int32_t offset = tok_.offset;
      int count = 0;
      while (tok_.kind == Tok::kNot) {
        ++count;
        Advance();
      }
      ExprPtr member = ParseMember();
      // cel-go drops an even number of negations.
      if (count % 2 == 0) return member;
      return Call1("!_", offset, std::move(member));
    }
    if (tok_.kind == Tok::kMinus) {
      int32_t offset = tok_.offset;
      Advance();
      // A single '-' directly before a number is part of the literal.
      if (tok_.kind == Tok::kInt || tok_.kind == Tok::kDouble) {
        ExprPtr lit = ParseNumber(true, offset);
        return ParseMemberSuffix(std::move(lit));
      }
      int count = 1;
      while (tok_.kind == Tok::kMinus) {
        ++count;
        Advance();
      }
      ExprPtr member = ParseMember();
      if (count % 2 == 0) return member;
      return Call1("-_", offset, std::move(member));
    }
    return ParseMember();
  }

  ExprPtr ParseMember() {
    ExprPtr e = ParsePrimary();
    return ParseMemberSuffix(std::move(e));
  }

  ExprPtr ParseMemberSuffix(ExprPtr e) {
    RuleDepth depth(this, kRuleMember);
    while (true) {
      if (tok_.kind == Tok::kDot || tok_.kind == Tok::kLBracket) depth.Add();
      if (tok_.kind == Tok::kDot) {
        int32_t offset = tok_.offset;
        Advance();
        bool optional = false;
        if (tok_.kind == Tok::kQuestion) {
          if (!options_.enable_optional_syntax)
            Fail(tok_.offset, "unsupported syntax '.?'");
          optional = true;
          Advance();
        }
        std::string field;
        bool escaped = tok_.kind == Tok::kEscapedIdent;
        if (tok_.kind == Tok::kIdent || escaped) {
          field = tok_.value;
        } else {
          ErrorAtToken();
        }
        int32_t field_offset = tok_.offset;
        Advance();
        if (!optional && !escaped && tok_.kind == Tok::kLParen) {
          int32_t call_offset = tok_.offset;
          Advance();
          std::vector<ExprPtr> args = ParseArgs(Tok::kRParen);
          e = MemberCall(std::move(e), field, call_offset, std::move(args));
          continue;
        }
        if (optional) {
          e = Call2("_?._", offset, std::move(e),
                    NewLiteral(Value::String(field), field_offset));
        } else {
          ExprPtr sel = NewExpr(Expr::Kind::kSelect, offset);
          sel->operand = std::move(e);
          sel->name = std::move(field);
          e = std::move(sel);
        }
      } else if (tok_.kind == Tok::kLBracket) {
        int32_t offset = tok_.offset;
        Advance();
        bool optional = false;
        if (tok_.kind == Tok::kQuestion) {
          if (!options_.enable_optional_syntax)
            Fail(tok_.offset, "unsupported syntax '[?'");
          optional = true;
          Advance();
        }
        ExprPtr index = ParseExpr();
        Expect(Tok::kRBracket);
        e = Call2(optional ? "_[?_]" : "_[_]", offset, std::move(e),
                  std::move(index));
      } else {
        return e;
      }
    }
  }

  std::vector<ExprPtr> ParseArgs(Tok close) {
    std::vector<ExprPtr> args;
    if (tok_.kind == close) {
      Advance();
      return args;
    }
    while (true) {
      args.push_back(ParseExpr());
      if (tok_.kind == Tok::kComma) {
        Advance();
        continue;
      }
      Expect(close);
      return args;
    }
  }

  ExprPtr ParseNumber(bool negative, int32_t offset) {
    const std::string text = tok_.value;
    Tok kind = tok_.kind;
    Advance();
    if (kind == Tok::kDouble) {
      std::string s = negative ? "-" + text : text;
      // The lexer only hands out well-formed numbers; out of range reads
      // as infinity, as Go's ParseFloat result cel-go keeps.
      double d = std::strtod(s.c_str(), nullptr);
      return NewLiteral(Value::Double(d), offset);
    }
    bool hex =
        text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    std::string digits = text;
    if (kind == Tok::kUint) digits.pop_back();
    errno = 0;
    char* end = nullptr;
    unsigned long long mag = std::strtoull(
        hex ? digits.c_str() + 2 : digits.c_str(), &end, hex ? 16 : 10);
    bool overflow = errno == ERANGE || (hex && digits.size() == 2);
    if (kind == Tok::kUint) {
      if (overflow) Fail(offset, "invalid uint literal");
      return NewLiteral(Value::Uint(mag), offset);
    }
    if (overflow) Fail(offset, "invalid int literal");
    if (negative) {
      if (mag > 9223372036854775808ULL) Fail(offset, "invalid int literal");
      int64_t v = mag == 9223372036854775808ULL
                      ? std::numeric_limits<int64_t>::min()
                      : -static_cast<int64_t>(mag);
      return NewLiteral(Value::Int(v), offset);
    }
    if (mag > 9223372036854775807ULL) Fail(offset, "invalid int literal");
    return NewLiteral(Value::Int(static_cast<int64_t>(mag)), offset);
  }

  ExprPtr ParsePrimary() {
    int32_t offset = tok_.offset;
    switch (tok_.kind) {
      case Tok::kInt:
      case Tok::kUint:
      case Tok::kDouble:
        return ParseNumber(false, offset);
      case Tok::kString: {
        std::string v = std::move(tok_.value);
        Advance();
        if (!ValidUtf8(v)) Fail(offset, "invalid UTF-8 in string literal");
        return NewLiteral(Value::String(std::move(v)), offset);
      }
      case Tok::kBytes: {
        std::string v = std::move(tok_.value);
        Advance();
        return NewLiteral(Value::Bytes(std::move(v)), offset);
      }
      case Tok::kTrue:
        Advance();
        return NewLiteral(Value::Bool(true), offset);
      case Tok::kFalse:
        Advance();
        return NewLiteral(Value::Bool(false), offset);
      case Tok::kNull:
        Advance();
        return NewLiteral(Value::Null(), offset);
      case Tok::kLParen: {
        Advance();
        ExprPtr e = ParseExpr();
        Expect(Tok::kRParen);
        return e;
      }
      case Tok::kLBracket:
        return ParseList();
      case Tok::kLBrace:
        return ParseMap(offset);
      case Tok::kDot:
      case Tok::kIdent:
        return ParseIdentOrCall();
      default:
        ErrorAtToken();
    }
  }

  static bool ValidUtf8(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
      unsigned char c = s[i];
      size_t n = c < 0x80         ? 1
                 : (c >> 5) == 6  ? 2
                 : (c >> 4) == 14 ? 3
                 : (c >> 3) == 30 ? 4
                                  : 0;
      if (n == 0 || i + n > s.size()) return false;
      for (size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
      i += n;
    }
    return true;
  }

  ExprPtr ParseList() {
    ExprPtr list = NewExpr(Expr::Kind::kList, tok_.offset);
    Advance();
    while (tok_.kind != Tok::kRBracket) {
      bool optional = false;
      if (tok_.kind == Tok::kQuestion) {
        if (!options_.enable_optional_syntax)
          Fail(tok_.offset, "unsupported syntax '?'");
        optional = true;
        Advance();
      }
      list->args.push_back(ParseExpr());
      list->optional_elements.push_back(optional);
      if (tok_.kind == Tok::kComma) {
        Advance();
        continue;
      }
      if (tok_.kind != Tok::kRBracket) ErrorAtToken();
    }
    Advance();
    bool any_optional = false;
    for (bool b : list->optional_elements) any_optional |= b;
    if (!any_optional) list->optional_elements.clear();
    return list;
  }

  ExprPtr ParseMap(int32_t offset) {
    ExprPtr map = NewExpr(Expr::Kind::kMap, offset);
    Advance();
    while (tok_.kind != Tok::kRBrace) {
      bool optional = false;
      if (tok_.kind == Tok::kQuestion) {
        if (!options_.enable_optional_syntax)
          Fail(tok_.offset, "unsupported syntax '?'");
        optional = true;
        Advance();
      }
      ExprPtr key = ParseExpr();
      Expect(Tok::kColon);
      ExprPtr value = ParseExpr();
      map->entries.push_back({std::move(key), "", std::move(value), optional});
      if (tok_.kind == Tok::kComma) {
        Advance();
        continue;
      }
      if (tok_.kind != Tok::kRBrace) ErrorAtToken();
    }
    Advance();
    return map;
  }

  ExprPtr ParseIdentOrCall() {
    int32_t offset = tok_.offset;
    bool leading_dot = false;
    if (tok_.kind == Tok::kDot) {
      leading_dot = true;
      Advance();
      if (tok_.kind != Tok::kIdent) ErrorAtToken();
    }
    std::string name = tok_.value;
    if (ReservedWords().count(name)) {
      Fail(tok_.offset, "reserved identifier: " + name);
    }
    Advance();
    std::string full = leading_dot ? "." + name : name;
    if (tok_.kind == Tok::kLParen) {
      int32_t call_offset = tok_.offset;
      Advance();
      std::vector<ExprPtr> args = ParseArgs(Tok::kRParen);
      return GlobalCall(full, call_offset, std::move(args));
    }
    // Message construction: a qualified name followed by '{'.
    if (tok_.kind == Tok::kLBrace) {
      return ParseStruct(full, offset);
    }
    // A dotted name followed by '{' is also a message type name.
    if (tok_.kind == Tok::kDot) {
      // Look ahead for Name.Name...{ : parse selects normally, then if a
      // brace follows a chain of plain selects, treat it as a struct.
      ExprPtr e = NewIdent(full, offset);
      std::string qualified = full;
      RuleDepth depth(this, kRuleMember);
      while (tok_.kind == Tok::kDot) {
        depth.Add();
        Lexer save = lexer_;
        Token save_tok = tok_;
        Advance();
        if (tok_.kind != Tok::kIdent) {
          lexer_ = save;
          tok_ = save_tok;
          break;
        }
        std::string field = tok_.value;
        int32_t field_offset = save_tok.offset;
        Advance();
        if (tok_.kind == Tok::kLParen) {
          int32_t call_offset = tok_.offset;
          Advance();
          std::vector<ExprPtr> args = ParseArgs(Tok::kRParen);
          return MemberCall(std::move(e), field, call_offset, std::move(args));
        }
        qualified += "." + field;
        ExprPtr sel = NewExpr(Expr::Kind::kSelect, field_offset);
        sel->operand = std::move(e);
        sel->name = field;
        e = std::move(sel);
        if (tok_.kind == Tok::kLBrace) return ParseStruct(qualified, offset);
      }
      return e;
    }
    return NewIdent(full, offset);
  }

  ExprPtr ParseStruct(const std::string& type_name, int32_t offset) {
    ExprPtr s = NewExpr(Expr::Kind::kStruct, offset);
    s->name = type_name;
    Advance();  // '{'
    while (tok_.kind != Tok::kRBrace) {
      bool optional = false;
      if (tok_.kind == Tok::kQuestion) {
        optional = true;
        Advance();
      }
      if (tok_.kind != Tok::kIdent && tok_.kind != Tok::kEscapedIdent)
        ErrorAtToken();
      std::string field = tok_.value;
      Advance();
      Expect(Tok::kColon);
      ExprPtr value = ParseExpr();
      s->entries.push_back({nullptr, field, std::move(value), optional});
      if (tok_.kind == Tok::kComma) {
        Advance();
        continue;
      }
      if (tok_.kind != Tok::kRBrace) ErrorAtToken();
    }
    Advance();
    return s;
  }

  // --- macros ---------------------------------------------------------------
  ExprPtr GlobalCall(const std::string& fn, int32_t offset,
                     std::vector<ExprPtr> args) {
    if (fn == "has" && args.size() == 1) {
      if (args[0]->kind != Expr::Kind::kSelect) {
        Fail(args[0]->offset, "invalid argument to has() macro");
      }
      args[0]->test_only = true;
      return std::move(args[0]);
    }
    return NewCall(fn, offset, std::move(args));
  }

  std::string IterVar(const Expr& e, const char* message) {
    if (e.kind != Expr::Kind::kIdent) Fail(e.offset, message);
    if (e.name == kAccumulatorName) {
      Fail(e.offset, "iteration variable overwrites accumulator variable");
    }
    return e.name;
  }

  ExprPtr AccuIdent(int32_t offset) {
    return NewIdent(kAccumulatorName, offset);
  }

  ExprPtr Comprehension(int32_t offset, ExprPtr range, std::string iter_var,
                        std::string iter_var2, std::string accu_var,
                        ExprPtr init, ExprPtr cond, ExprPtr step,
                        ExprPtr result) {
    ExprPtr c = NewExpr(Expr::Kind::kComprehension, offset);
    c->iter_range = std::move(range);
    c->iter_var = std::move(iter_var);
    c->iter_var2 = std::move(iter_var2);
    c->accu_var = std::move(accu_var);
    c->accu_init = std::move(init);
    c->loop_condition = std::move(cond);
    c->loop_step = std::move(step);
    c->result = std::move(result);
    return c;
  }

  ExprPtr ListOf(ExprPtr e, int32_t offset) {
    ExprPtr l = NewExpr(Expr::Kind::kList, offset);
    if (e) l->args.push_back(std::move(e));
    return l;
  }

  // all, exists and exists_one (existsOne), with one or two iteration
  // variables, expanded as cel-go's macros expand them.
  ExprPtr Quantifier(const std::string& fn, int32_t offset, ExprPtr target,
                     std::string v1, std::string v2, ExprPtr predicate) {
    ExprPtr init, cond, step, result;
    if (fn == "all") {
      init = NewLiteral(Value::Bool(true), offset);
      cond = Call1("@not_strictly_false", offset, AccuIdent(offset));
      step = Call2("_&&_", offset, AccuIdent(offset), std::move(predicate));
      result = AccuIdent(offset);
    } else if (fn == "exists") {
      init = NewLiteral(Value::Bool(false), offset);
      cond = Call1("@not_strictly_false", offset,
                   Call1("!_", offset, AccuIdent(offset)));
      step = Call2("_||_", offset, AccuIdent(offset), std::move(predicate));
      result = AccuIdent(offset);
    } else {
      init = NewLiteral(Value::Int(0), offset);
      cond = NewLiteral(Value::Bool(true), offset);
      step = Call3("_?_:_", offset, std::move(predicate),
                   Call2("_+_", offset, AccuIdent(offset),
                         NewLiteral(Value::Int(1), offset)),
                   AccuIdent(offset));
      result = Call2("_==_", offset, AccuIdent(offset),
                     NewLiteral(Value::Int(1), offset));
    }
    return Comprehension(offset, std::move(target), std::move(v1),
                         std::move(v2), kAccumulatorName, std::move(init),
                         std::move(cond), std::move(step), std::move(result));
  }

  ExprPtr MemberCall(ExprPtr target, const std::string& fn, int32_t offset,
                     std::vector<ExprPtr> args) {
    size_t n = args.size();
    // cel.bind(var, init, expr)
    if (fn == "bind" && n == 3 && target->kind == Expr::Kind::kIdent &&
        target->name == "cel") {
      if (args[0]->kind != Expr::Kind::kIdent) {
        Fail(args[0]->offset,
             "cel.bind() variable names must be simple identifiers");
      }
      std::string var = args[0]->name;
      return Comprehension(offset, ListOf(nullptr, offset), "#unused", "", var,
                           std::move(args[1]),
                           NewLiteral(Value::Bool(false), offset),
                           NewIdent(var, offset), std::move(args[2]));
    }
    if ((fn == "all" || fn == "exists" || fn == "exists_one") && n == 2) {
      std::string v = IterVar(*args[0], "argument must be a simple name");
      return Quantifier(fn, offset, std::move(target), v, "",
                        std::move(args[1]));
    }
    if (fn == "map" && (n == 2 || n == 3)) {
      std::string v = IterVar(*args[0], "argument is not an identifier");
      ExprPtr fn_expr = std::move(args[n - 1]);
      ExprPtr step = Call2("_+_", offset, AccuIdent(offset),
                           ListOf(std::move(fn_expr), offset));
      if (n == 3) {
        step = Call3("_?_:_", offset, std::move(args[1]), std::move(step),
                     AccuIdent(offset));
      }
      return Comprehension(offset, std::move(target), v, "", kAccumulatorName,
                           ListOf(nullptr, offset),
                           NewLiteral(Value::Bool(true), offset),
                           std::move(step), AccuIdent(offset));
    }
    if (fn == "filter" && n == 2) {
      std::string v = IterVar(*args[0], "argument is not an identifier");
      ExprPtr step = Call2("_+_", offset, AccuIdent(offset),
                           ListOf(NewIdent(v, args[0]->offset), offset));
      step = Call3("_?_:_", offset, std::move(args[1]), std::move(step),
                   AccuIdent(offset));
      return Comprehension(offset, std::move(target), v, "", kAccumulatorName,
                           ListOf(nullptr, offset),
                           NewLiteral(Value::Bool(true), offset),
                           std::move(step), AccuIdent(offset));
    }
    // Two-variable comprehensions (cel-go's ext.TwoVarComprehensions).
    if ((fn == "all" || fn == "exists" || fn == "existsOne" ||
         fn == "exists_one") &&
        n == 3) {
      auto [v1, v2] = IterVars(*args[0], *args[1]);
      return Quantifier(fn, offset, std::move(target), v1, v2,
                        std::move(args[2]));
    }
    if ((fn == "transformList" || fn == "transformMap" ||
         fn == "transformMapEntry") &&
        (n == 3 || n == 4)) {
      auto [v1, v2] = IterVars(*args[0], *args[1]);
      ExprPtr transform = std::move(args[n - 1]);
      ExprPtr filter = n == 4 ? std::move(args[2]) : nullptr;
      ExprPtr step, init;
      if (fn == "transformList") {
        step = Call2("_+_", offset, AccuIdent(offset),
                     ListOf(std::move(transform), offset));
        init = ListOf(nullptr, offset);
      } else if (fn == "transformMap") {
        step = Call3("cel.@mapInsert", offset, AccuIdent(offset),
                     NewIdent(v1, offset), std::move(transform));
        init = NewExpr(Expr::Kind::kMap, offset);
      } else {
        step = Call2("cel.@mapInsert", offset, AccuIdent(offset),
                     std::move(transform));
        init = NewExpr(Expr::Kind::kMap, offset);
      }
      if (filter) {
        step = Call3("_?_:_", offset, std::move(filter), std::move(step),
                     AccuIdent(offset));
      }
      return Comprehension(offset, std::move(target), v1, v2, kAccumulatorName,
                           std::move(init),
                           NewLiteral(Value::Bool(true), offset),
                           std::move(step), AccuIdent(offset));
    }
    // optMap / optFlatMap (cel-go's optional library).
    if ((fn == "optMap" || fn == "optFlatMap") && n == 2) {
      if (args[0]->kind != Expr::Kind::kIdent) {
        Fail(args[0]->offset,
             "optMap() variable name must be a simple identifier");
      }
      std::string var = args[0]->name;
      ExprPtr copy = Copy(*target);
      ExprPtr has_value = NewCall("hasValue", offset, {}, std::move(target));
      ExprPtr value = NewCall("value", offset, {}, std::move(copy));
      ExprPtr bound = Comprehension(offset, ListOf(nullptr, offset), "#unused",
                                    "", var, std::move(value),
                                    NewLiteral(Value::Bool(false), offset),
                                    NewIdent(var, offset), std::move(args[1]));
      if (fn == "optMap")
        bound = Call1("optional.of", offset, std::move(bound));
      return Call3("_?_:_", offset, std::move(has_value), std::move(bound),
                   NewCall("optional.none", offset, {}));
    }
    return NewCall(fn, offset, std::move(args), std::move(target));
  }

  std::pair<std::string, std::string> IterVars(const Expr& a, const Expr& b) {
    std::string v1 = IterVar(a, "argument must be a simple name");
    std::string v2 = IterVar(b, "argument must be a simple name");
    if (v1 == v2) Fail(b.offset, "duplicate variable name: " + v1);
    return {v1, v2};
  }

  std::string_view src_;
  ParseOptions options_;
  Lexer lexer_;
  Token tok_;
  std::vector<Issue> issues_;
  int64_t next_id_ = 0;
  int depth_[kRuleCount] = {};
};

}  // namespace
}  // namespace parser_detail

using namespace parser_detail;  // NOLINT: this file's own helpers

ParseResult Parse(std::string_view source, const ParseOptions& options) {
  // cel-go counts code points.
  int64_t code_points = 0;
  for (unsigned char c : source)
    if ((c & 0xC0) != 0x80) ++code_points;
  if (options.max_code_points >= 0 && code_points > options.max_code_points) {
    ParseResult r;
    r.issues.push_back({-1, "expression code point size exceeds limit: size: " +
                                std::to_string(code_points) + ", limit " +
                                std::to_string(options.max_code_points)});
    return r;
  }
  Parser parser(source, options);
  return parser.Run();
}

std::string FormatIssues(std::string_view source,
                         const std::vector<Issue>& issues) {
  std::string out;
  for (const Issue& issue : issues) {
    if (!out.empty()) out += "\n";
    if (issue.offset < 0) {
      out += "ERROR: <input>:-1:0: " + issue.message;
      continue;
    }
    // Line and column (column in code points, 0-based as cel-go prints +1).
    int line = 1;
    size_t line_start = 0;
    for (size_t i = 0;
         i < static_cast<size_t>(issue.offset) && i < source.size(); ++i) {
      if (source[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    int column = 0;
    for (size_t i = line_start;
         i < static_cast<size_t>(issue.offset) && i < source.size(); ++i) {
      if ((static_cast<unsigned char>(source[i]) & 0xC0) != 0x80) ++column;
    }
    size_t line_end = source.find('\n', line_start);
    std::string_view text = source.substr(
        line_start, line_end == std::string_view::npos ? std::string_view::npos
                                                       : line_end - line_start);
    out += "ERROR: <input>:" + std::to_string(line) + ":" +
           std::to_string(column + 1) + ": " + issue.message;
    out += "\n | " + std::string(text);
    out += "\n | " + std::string(column, '.') + "^";
  }
  return out;
}

}  // namespace ksched::cel

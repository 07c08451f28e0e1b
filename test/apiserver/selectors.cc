#include "test/apiserver/selectors.h"

#include <algorithm>
#include <cstdlib>

#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

std::vector<std::string> SplitFieldPath(std::string_view dotted) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= dotted.size()) {
    size_t end = dotted.find('.', start);
    if (end == std::string_view::npos) end = dotted.size();
    out.emplace_back(dotted.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

namespace {

// Splits on unescaped `sep`, dropping the escaping backslashes of
// "\,", "\=" and "\\" as the fields package does.
std::vector<std::string> SplitUnescaped(std::string_view s, char sep) {
  std::vector<std::string> out(1);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out.back().push_back(s[++i]);
    } else if (s[i] == sep) {
      out.emplace_back();
    } else {
      out.back().push_back(s[i]);
    }
  }
  return out;
}

std::string FieldValue(const JsonValue& object,
                       const std::vector<std::string>& path) {
  const JsonValue* v = &object;
  for (const std::string& key : path) {
    v = Member(*v, key);
    if (v == nullptr) break;
  }
  if (v == nullptr) {
    // Booleans read as "false" when unset, as their Go zero value prints.
    if (path.size() == 2 &&
        (path[1] == "hostNetwork" || path[1] == "unschedulable")) {
      return "false";
    }
    return "";
  }
  if (v->IsString()) return std::string(v->GetString(), v->GetStringLength());
  if (v->IsBool()) return v->GetBool() ? "true" : "false";
  if (v->IsNumber()) return ToJson(*v);
  return "";
}

}  // namespace

bool FieldSelector::Parse(std::string_view text, const ResourceInfo& resource,
                          std::string* error) {
  terms_.clear();
  if (text.empty()) return true;
  for (const std::string& raw : SplitUnescaped(text, ',')) {
    if (raw.empty()) continue;
    Term term;
    std::string field;
    size_t pos;
    if ((pos = raw.find("!=")) != std::string::npos) {
      term.equals = false;
      field = raw.substr(0, pos);
      term.value = raw.substr(pos + 2);
    } else if ((pos = raw.find("==")) != std::string::npos) {
      field = raw.substr(0, pos);
      term.value = raw.substr(pos + 2);
    } else if ((pos = raw.find('=')) != std::string::npos) {
      field = raw.substr(0, pos);
      term.value = raw.substr(pos + 1);
    } else {
      *error = "invalid selector: '" + std::string(text) +
               "'; can't understand '" + raw + "'";
      return false;
    }
    const bool supported =
        field == "metadata.name" ||
        (resource.namespaced && field == "metadata.namespace") ||
        std::find(resource.selectable_fields.begin(),
                  resource.selectable_fields.end(),
                  field) != resource.selectable_fields.end();
    if (!supported) {
      *error = "field label not supported: " + field;
      return false;
    }
    term.path = SplitFieldPath(field);
    terms_.push_back(std::move(term));
  }
  return true;
}

bool FieldSelector::Matches(const JsonValue& object) const {
  for (const Term& term : terms_) {
    const bool equal = FieldValue(object, term.path) == term.value;
    if (equal != term.equals) return false;
  }
  return true;
}

namespace {

// A small lexer for the label selector grammar.
class LabelLexer {
 public:
  explicit LabelLexer(std::string_view s) : s_(s) {}

  enum class Kind {
    kEnd,
    kIdentifier,
    kComma,
    kOpen,
    kClose,
    kNot,
    kEquals,
    kDoubleEquals,
    kNotEquals,
    kIn,
    kNotIn,
    kGreater,
    kLess
  };
  struct Token {
    Kind kind;
    std::string text;
  };

  Token Next() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
    if (pos_ >= s_.size()) return {Kind::kEnd, ""};
    const char c = s_[pos_];
    auto single = [&](Kind k) {
      ++pos_;
      return Token{k, std::string(1, c)};
    };
    switch (c) {
      case ',':
        return single(Kind::kComma);
      case '(':
        return single(Kind::kOpen);
      case ')':
        return single(Kind::kClose);
      case '>':
        return single(Kind::kGreater);
      case '<':
        return single(Kind::kLess);
      case '!':
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '=') {
          pos_ += 2;
          return {Kind::kNotEquals, "!="};
        }
        return single(Kind::kNot);
      case '=':
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '=') {
          pos_ += 2;
          return {Kind::kDoubleEquals, "=="};
        }
        return single(Kind::kEquals);
      default:
        break;
    }
    size_t start = pos_;
    while (pos_ < s_.size() && std::string_view(" ,()!=<>").find(s_[pos_]) ==
                                   std::string_view::npos) {
      ++pos_;
    }
    std::string word(s_.substr(start, pos_ - start));
    if (word == "in") return {Kind::kIn, word};
    if (word == "notin") return {Kind::kNotIn, word};
    return {Kind::kIdentifier, word};
  }

  Token Peek() {
    const size_t saved = pos_;
    Token t = Next();
    pos_ = saved;
    return t;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

bool IsInteger(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtoll(s.c_str(), &end, 10);
  return end != nullptr && *end == '\0';
}

}  // namespace

bool LabelSelector::Parse(std::string_view text, std::string* error) {
  requirements_.clear();
  LabelLexer lexer(text);
  auto fail = [&](const std::string& detail) {
    *error = "unable to parse requirement: " + detail;
    return false;
  };
  while (true) {
    LabelLexer::Token t = lexer.Next();
    if (t.kind == LabelLexer::Kind::kEnd) {
      if (!requirements_.empty()) {
        return fail("found '', expected: identifier");
      }
      return true;
    }
    Requirement req;
    if (t.kind == LabelLexer::Kind::kNot) {
      LabelLexer::Token key = lexer.Next();
      if (key.kind != LabelLexer::Kind::kIdentifier) {
        return fail("found '" + key.text + "', expected: identifier after '!'");
      }
      req.key = key.text;
      req.op = Op::kNotExists;
    } else if (t.kind == LabelLexer::Kind::kIdentifier) {
      req.key = t.text;
      LabelLexer::Token op = lexer.Next();
      switch (op.kind) {
        case LabelLexer::Kind::kEnd:
        case LabelLexer::Kind::kComma:
          req.op = Op::kExists;
          requirements_.push_back(std::move(req));
          if (op.kind == LabelLexer::Kind::kEnd) return true;
          continue;
        case LabelLexer::Kind::kEquals:
        case LabelLexer::Kind::kDoubleEquals:
        case LabelLexer::Kind::kNotEquals:
        case LabelLexer::Kind::kGreater:
        case LabelLexer::Kind::kLess: {
          req.op = op.kind == LabelLexer::Kind::kNotEquals ? Op::kNotEquals
                   : op.kind == LabelLexer::Kind::kGreater ? Op::kGreaterThan
                   : op.kind == LabelLexer::Kind::kLess    ? Op::kLessThan
                                                           : Op::kEquals;
          LabelLexer::Token value = lexer.Peek();
          if (value.kind == LabelLexer::Kind::kIdentifier) {
            lexer.Next();
            req.values.push_back(value.text);
          } else {
            req.values.push_back("");  // "key=" selects an empty value
          }
          if ((req.op == Op::kGreaterThan || req.op == Op::kLessThan) &&
              !IsInteger(req.values[0])) {
            return fail(
                "for 'Gt', 'Lt' operators, the value must be an "
                "integer");
          }
          break;
        }
        case LabelLexer::Kind::kIn:
        case LabelLexer::Kind::kNotIn: {
          req.op = op.kind == LabelLexer::Kind::kIn ? Op::kIn : Op::kNotIn;
          if (lexer.Next().kind != LabelLexer::Kind::kOpen) {
            return fail("found '', expected: '('");
          }
          if (lexer.Peek().kind == LabelLexer::Kind::kClose) {
            lexer.Next();
          } else {
            while (true) {
              LabelLexer::Token v = lexer.Next();
              if (v.kind == LabelLexer::Kind::kIdentifier) {
                req.values.push_back(v.text);
                v = lexer.Next();
              } else {
                req.values.push_back("");  // "(a,)" holds an empty value
              }
              if (v.kind == LabelLexer::Kind::kClose) break;
              if (v.kind != LabelLexer::Kind::kComma) {
                return fail("found '" + v.text + "', expected: ',', ')'");
              }
            }
          }
          if (req.values.empty()) {
            return fail(
                "for 'in', 'notin' operators, values set can't be "
                "empty");
          }
          break;
        }
        default:
          return fail("found '" + op.text +
                      "', expected: in, notin, =, ==, !=, gt, lt");
      }
    } else {
      return fail("found '" + t.text + "', expected: !, identifier, or 'end " +
                  "of string'");
    }
    requirements_.push_back(std::move(req));
    LabelLexer::Token sep = lexer.Next();
    if (sep.kind == LabelLexer::Kind::kEnd) return true;
    if (sep.kind != LabelLexer::Kind::kComma) {
      return fail("found '" + sep.text + "', expected: ',' or 'end of string'");
    }
  }
}

bool LabelSelector::Matches(const JsonValue& object) const {
  const JsonValue* labels = Find(object, {"metadata", "labels"});
  for (const Requirement& r : requirements_) {
    const JsonValue* v = labels == nullptr ? nullptr : Member(*labels, r.key);
    const bool has = v != nullptr && v->IsString();
    const std::string value = has ? v->GetString() : "";
    auto in_values = [&] {
      return std::find(r.values.begin(), r.values.end(), value) !=
             r.values.end();
    };
    switch (r.op) {
      case Op::kEquals:
        if (!has || value != r.values[0]) return false;
        break;
      case Op::kNotEquals:
        if (has && value == r.values[0]) return false;
        break;
      case Op::kIn:
        if (!has || !in_values()) return false;
        break;
      case Op::kNotIn:
        if (has && in_values()) return false;
        break;
      case Op::kExists:
        if (!has) return false;
        break;
      case Op::kNotExists:
        if (has) return false;
        break;
      case Op::kGreaterThan:
      case Op::kLessThan: {
        if (!has || !IsInteger(value)) return false;
        const long long lhs = std::strtoll(value.c_str(), nullptr, 10);
        const long long rhs = std::strtoll(r.values[0].c_str(), nullptr, 10);
        if (r.op == Op::kGreaterThan ? !(lhs > rhs) : !(lhs < rhs)) {
          return false;
        }
        break;
      }
    }
  }
  return true;
}

}  // namespace ksched::testing::apiserver

// Runs the CEL case files under test/cel/cases (format: FORMAT.md): one
// test per file, every case compiled and evaluated through the public
// interface, with a passed/total/skipped line per file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "pkg/cel/dra.h"
#include "pkg/cel/program.h"

namespace ksched::cel {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string header;
  int line = 0;
  std::string expr;
  std::vector<std::pair<std::string, std::string>> decls;  // name, type
  std::vector<std::pair<std::string, std::string>> binds;  // name, expr
  bool check = true;
  std::optional<std::string> value, error, compile_error, type;
  std::optional<uint64_t> cost;
  std::optional<std::string> skip;
  bool dra = false;
  dra::Device device;
  dra::Features features;
};

std::string Trim(std::string s) {
  size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

std::vector<Case> ReadCases(const fs::path& path) {
  std::ifstream in(path);
  std::vector<Case> cases;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.starts_with("== ")) {
      cases.push_back({});
      cases.back().header = line.substr(3);
      cases.back().line = n;
      continue;
    }
    if (line.empty() || line[0] == '#' || cases.empty()) continue;
    Case& c = cases.back();
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = Trim(line.substr(0, colon));
    std::string value = line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value = value.substr(1);
    if (key == "expr") {
      if (Trim(value) == "<<<") {
        std::string text;
        bool first = true;
        while (std::getline(in, line)) {
          ++n;
          if (line == ">>>") break;
          if (!first) text += "\n";
          text += line;
          first = false;
        }
        c.expr = text;
      } else {
        c.expr = value;
      }
    } else if (key == "decl") {
      std::string v = Trim(value);
      size_t sp = v.find(' ');
      c.decls.push_back({v.substr(0, sp), Trim(v.substr(sp + 1))});
    } else if (key == "bind") {
      size_t eq = value.find('=');
      c.binds.push_back(
          {Trim(value.substr(0, eq)), Trim(value.substr(eq + 1))});
    } else if (key == "check") {
      c.check = Trim(value) != "off";
    } else if (key == "value") {
      c.value = value;
    } else if (key == "error") {
      c.error = Trim(value);
    } else if (key == "compile_error") {
      c.compile_error = Trim(value);
    } else if (key == "type") {
      c.type = Trim(value);
    } else if (key == "cost") {
      c.cost = std::stoull(Trim(value));
    } else if (key == "skip") {
      c.skip = Trim(value);
    } else if (key == "env") {
      c.dra = Trim(value) == "dra";
    } else if (key == "driver") {
      c.device.driver = Trim(value);
    } else if (key == "attribute") {
      std::istringstream s(value);
      std::string name, kind, rest;
      s >> name >> kind;
      std::getline(s, rest);
      rest = Trim(rest);
      dra::DeviceAttribute a;
      if (kind == "bool") {
        a.kind = dra::DeviceAttribute::Kind::kBool;
        a.bool_value = rest == "true";
      } else if (kind == "int") {
        a.kind = dra::DeviceAttribute::Kind::kInt;
        a.int_value = std::stoll(rest);
      } else if (kind == "version") {
        a.kind = dra::DeviceAttribute::Kind::kVersion;
        a.string_value = rest;
      } else {
        a.kind = dra::DeviceAttribute::Kind::kString;
        a.string_value = rest;
      }
      c.device.attributes.push_back({name, a});
    } else if (key == "capacity") {
      std::istringstream s(value);
      std::string name, q;
      s >> name >> q;
      c.device.capacity.push_back({name, *api::Quantity::Parse(q)});
    } else if (key == "allow_multiple_allocations") {
      c.device.allow_multiple_allocations = Trim(value) == "true";
    } else if (key == "consumable_capacity") {
      c.features.consumable_capacity = Trim(value) == "on";
    }
  }
  return cases;
}

// Reads a type as CEL prints it: int, list(int), map(string, dyn), ...
std::optional<Type> ParseType(std::string_view& s) {
  auto skip = [&] {
    while (!s.empty() && s[0] == ' ') s.remove_prefix(1);
  };
  skip();
  size_t end = 0;
  while (end < s.size() && s[end] != '(' && s[end] != ',' && s[end] != ')' &&
         s[end] != ' ')
    ++end;
  std::string name(s.substr(0, end));
  s.remove_prefix(end);
  skip();
  std::vector<Type> params;
  if (!s.empty() && s[0] == '(') {
    s.remove_prefix(1);
    while (true) {
      auto p = ParseType(s);
      if (!p) return std::nullopt;
      params.push_back(*p);
      skip();
      if (!s.empty() && s[0] == ',') {
        s.remove_prefix(1);
        continue;
      }
      if (!s.empty() && s[0] == ')') {
        s.remove_prefix(1);
        break;
      }
      return std::nullopt;
    }
  }
  if (name == "int") return Type::Int();
  if (name == "uint") return Type::Uint();
  if (name == "double") return Type::Double();
  if (name == "bool") return Type::Bool();
  if (name == "string") return Type::String();
  if (name == "bytes") return Type::Bytes();
  if (name == "dyn") return Type::Dyn();
  if (name == "null_type") return Type::Null();
  if (name == "list" && params.size() == 1) return Type::List(params[0]);
  if (name == "map" && params.size() == 2)
    return Type::Map(params[0], params[1]);
  if (name == "optional_type" && params.size() == 1)
    return Type::Optional(params[0]);
  if (name == "type" && params.size() <= 1)
    return params.empty() ? Type::TypeOf(Type::Dyn()) : Type::TypeOf(params[0]);
  if (name == "kubernetes.Quantity" || name == "kubernetes.Semver")
    return Type::Opaque(name);
  if (name == "google.protobuf.Timestamp") return Type::Timestamp();
  if (name == "google.protobuf.Duration") return Type::Duration();
  return std::nullopt;
}

// Evaluates a constant expression (expected values, bindings).
std::optional<Value> Constant(const std::shared_ptr<const Env>& env,
                              const std::string& text, std::string* error) {
  CompileOptions options;
  options.check = false;
  Compiled c = Compile(env, text, options);
  if (!c.program) {
    *error = c.error;
    return std::nullopt;
  }
  MapActivation none;
  Value v = c.program->Eval(none).value;
  if (v.is_error()) {
    *error = std::string(v.error_message());
    return std::nullopt;
  }
  return v.Owned();
}

// Runs one case; returns an empty string when it passes.
std::string RunCase(const Case& c, const std::shared_ptr<const Env>& base) {
  if (c.dra) {
    auto selector = dra::Selector::Compile(c.expr, c.features);
    if (!selector) {
      if (c.compile_error && selector.error().message().find(
                                 *c.compile_error) != std::string::npos)
        return "";
      return "compile error: " + selector.error().message();
    }
    if (c.compile_error) return "compiled, expected error " + *c.compile_error;
    auto act = dra::DeviceActivation::Make(c.device);
    if (!act) return "device: " + act.error().message();
    uint64_t cost = 0;
    auto match = (*selector)->Matches(**act, &cost);
    if (!match) {
      if (c.error &&
          match.error().message().find(*c.error) != std::string::npos)
        return "";
      return "evaluation error: " + match.error().message();
    }
    if (c.error) return "no error, expected " + *c.error;
    if (c.cost && *c.cost != cost)
      return "cost " + std::to_string(cost) + ", expected " +
             std::to_string(*c.cost);
    if (c.value) {
      bool expected = Trim(*c.value) == "true";
      if (*match != expected)
        return "result " + std::string(*match ? "true" : "false");
    }
    return "";
  }

  Env env = *base;
  MapActivation vars;
  for (const auto& [name, type] : c.decls) {
    std::string_view s = type;
    auto t = ParseType(s);
    if (!t) return "unsupported declared type " + type;
    env.variables[name] = *t;
  }
  for (const auto& [name, text] : c.binds) {
    std::string error;
    auto v = Constant(base, text, &error);
    if (!v) return "binding " + name + ": " + error;
    vars.Set(name, *v);
    if (!env.variables.count(name)) env.variables[name] = Type::Dyn();
  }
  auto env_ptr = std::make_shared<const Env>(std::move(env));
  CompileOptions options;
  options.check = c.check;
  Compiled compiled = Compile(env_ptr, c.expr, options);
  if (!compiled.program) {
    if (c.compile_error &&
        compiled.error.find(*c.compile_error) != std::string::npos)
      return "";
    return "compile error: " + compiled.error;
  }
  if (c.compile_error) return "compiled, expected error " + *c.compile_error;
  if (c.type && compiled.output_type.ToString() != *c.type)
    return "type " + compiled.output_type.ToString() + ", expected " + *c.type;
  Evaluation r = compiled.program->Eval(vars);
  if (c.error) {
    if (!r.value.is_error())
      return "value " + r.value.DebugString() + ", expected error " + *c.error;
    if (std::string(r.value.error_message()).find(*c.error) ==
        std::string::npos)
      return "error '" + std::string(r.value.error_message()) +
             "', expected '" + *c.error + "'";
    return "";
  }
  if (r.value.is_error())
    return "error '" + std::string(r.value.error_message()) + "'";
  if (c.value) {
    std::string error;
    auto expected = Constant(base, *c.value, &error);
    if (!expected) return "expected value does not evaluate: " + error;
    if (!Identical(r.value, *expected))
      return "value " + r.value.DebugString() + ", expected " +
             expected->DebugString();
  }
  if (c.cost && *c.cost != r.cost)
    return "cost " + std::to_string(r.cost) + ", expected " +
           std::to_string(*c.cost);
  return "";
}

fs::path CasesDir() { return fs::path(KSCHED_SOURCE_DIR) / "test/cel/cases"; }

std::vector<std::string> CaseFiles() {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(CasesDir())) {
    if (entry.path().extension() == ".cases")
      files.push_back(fs::relative(entry.path(), CasesDir()).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Cases known to fail, one header per line (known_failures.txt): the test
// fails when a case outside the list fails, or a listed case passes.
std::set<std::string> KnownFailures() {
  std::set<std::string> out;
  std::ifstream in(CasesDir() / "known_failures.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') out.insert(line);
  }
  return out;
}

class CelCases : public testing::TestWithParam<std::string> {};

TEST_P(CelCases, File) {
  const std::string file = GetParam();
  // Kubernetes' cost tests build a plain environment with its libraries:
  // no optimizer, no homogeneous literals, presence tests with cost.
  Env env = file.starts_with("kubernetes/") ? KubernetesEnv() : StandardEnv();
  if (file == "kubernetes/cost.cases") {
    env.optimize = false;
    env.homogeneous_aggregate_literals = false;
    env.presence_test_has_cost = true;
  }
  auto base = std::make_shared<const Env>(std::move(env));
  std::vector<Case> cases = ReadCases(CasesDir() / file);
  ASSERT_FALSE(cases.empty());
  std::set<std::string> known = KnownFailures();
  int passed = 0, skipped = 0, known_failed = 0;
  for (const Case& c : cases) {
    if (c.skip) {
      ++skipped;
      continue;
    }
    std::string failure = RunCase(c, base);
    std::string key = file + " | " + c.header;
    if (failure.empty()) {
      ++passed;
      EXPECT_FALSE(known.count(key)) << "now passes, remove from "
                                        "known_failures.txt: "
                                     << key;
    } else if (known.count(key)) {
      ++known_failed;
    } else {
      ADD_FAILURE() << file << ":" << c.line << " " << c.header
                    << "\n  expr: " << c.expr << "\n  " << failure;
    }
  }
  std::printf(
      "[ cases ] %s: %d passed, %d known failures, %d skipped, %zu total\n",
      file.c_str(), passed, known_failed, skipped, cases.size());
}

INSTANTIATE_TEST_SUITE_P(Files, CelCases, testing::ValuesIn(CaseFiles()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace ksched::cel

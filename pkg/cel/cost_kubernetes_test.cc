// The estimates of Kubernetes' library cost tests
// (apiserver/pkg/cel/library/cost_test.go) for the functions ksched's CEL
// has: estimated range and runtime cost, in their environment (no
// homogeneous literals, no optimizer; strings and bytes of unknown size
// are at most 12 long).
#include "pkg/cel/cost_kubernetes.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/cel/program.h"

namespace ksched::cel {
namespace cost_kubernetes_test {
namespace {

// cost_test.go's testCostEstimator.
class TwelveCharacterSizes final : public CostEstimator {
 public:
  std::optional<SizeEstimate> EstimateSize(const AstNode& node) const override {
    Type::Kind kind = node.type.kind();
    if (kind == Type::Kind::kString || kind == Type::Kind::kBytes)
      return SizeEstimate{0, 12};
    return std::nullopt;
  }
  std::optional<CallEstimate> EstimateCallCost(
      std::string_view, std::string_view, const AstNode*,
      std::span<const AstNode>) const override {
    return std::nullopt;
  }
};

std::shared_ptr<const Env> LibraryTestEnv() {
  static const auto* env = new std::shared_ptr<const Env>([] {
    Env e = KubernetesEnv();
    e.homogeneous_aggregate_literals = false;
    e.optimize = false;
    return std::make_shared<const Env>(std::move(e));
  }());
  return *env;
}

struct Case {
  std::string expr;
  uint64_t min;
  uint64_t max;
  uint64_t runtime;
};

void ExpectCosts(const std::vector<Case>& cases) {
  TwelveCharacterSizes sizes;
  KubernetesCostEstimator estimator(&sizes);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expr);
    Compiled compiled =
        Compile(LibraryTestEnv(), c.expr, {.cost_estimator = &estimator});
    ASSERT_TRUE(compiled.program) << compiled.error;
    ASSERT_TRUE(compiled.cost_estimate.has_value());
    EXPECT_EQ(compiled.cost_estimate->min, c.min);
    EXPECT_EQ(compiled.cost_estimate->max, c.max);
    MapActivation none;
    Evaluation r = compiled.program->Eval(none);
    EXPECT_FALSE(r.value.is_error()) << r.value.DebugString();
    EXPECT_EQ(r.cost, c.runtime);
  }
}

// cost_test.go's list literals.
constexpr char kInts[] = "[1, 2, 3, 4, 5]";
constexpr char kUints[] = "[uint(1), uint(2), uint(3), uint(4), uint(5)]";
constexpr char kDoubles[] = "[1.0, 2.0, 3.0, 4.0, 5.0]";
constexpr char kBools[] = "[false, true, false, true, false]";
constexpr char kStrings[] =
    "['012345678901', '012345678901', '012345678901', '012345678901', "
    "'012345678901']";
constexpr char kBytes[] =
    "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), "
    "bytes('012345678901'), bytes('012345678901')]";
constexpr char kDurations[] =
    "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), "
    "duration('5s')]";
constexpr char kTimestamps[] =
    "[timestamp('2011-01-01T00:00:00.000+01:00'), "
    "timestamp('2011-01-02T00:00:00.000+01:00'), "
    "timestamp('2011-01-03T00:00:00.000+01:00'), "
    "timestamp('2011-01-04T00:00:00.000+01:00'), "
    "timestamp('2011-01-05T00:00:00.000+01:00')]";
constexpr char kString50[] =
    "'01234567890123456789012345678901234567890123456789'";

TEST(KubernetesCostTest, Lists) {
  std::vector<Case> cases;
  auto add = [&](std::string list, std::string op, uint64_t min, uint64_t max,
                 uint64_t runtime) {
    cases.push_back({list + op, min, max, runtime});
  };
  add(kInts, ".sum()", 15, 15, 15);
  add(kUints, ".sum()", 20, 20, 20);
  add(kDoubles, ".sum()", 15, 15, 15);
  add(kDurations, ".sum()", 20, 20, 20);
  for (const char* op : {".isSorted()", ".max()", ".min()"}) {
    add(kInts, op, 15, 15, 15);
    add(kUints, op, 20, 20, 20);
    add(kDoubles, op, 15, 15, 15);
    add(kBools, op, 15, 15, 15);
    add(kStrings, op, 15, 25, 15);
    add(kBytes, op, 25, 35, 25);
    add(kDurations, op, 20, 20, 20);
    add(kTimestamps, op, 20, 20, 20);
  }
  ExpectCosts(cases);
}

TEST(KubernetesCostTest, IndexOf) {
  std::vector<Case> cases;
  for (std::string op : {".indexOf(", ".lastIndexOf("}) {
    auto add = [&](std::string list, std::string param, uint64_t min,
                   uint64_t max, uint64_t runtime) {
      cases.push_back({list + op + param + ")", min, max, runtime});
    };
    add(kInts, "3", 15, 15, 15);
    add(kUints, "uint(3)", 21, 21, 21);
    add(kDoubles, "3.0", 15, 15, 15);
    add(kBools, "true", 15, 15, 15);
    add(kStrings, "'x'", 15, 25, 15);
    add(kBytes, "bytes('x')", 26, 36, 26);
    add(kDurations, "duration('3s')", 21, 21, 21);
    add(kTimestamps, "timestamp('2011-01-03T00:00:00.000+01:00')", 21, 21, 21);
    // Strings have indexOf too.
    add(kString50, "'123'", 5, 5, 5);
  }
  ExpectCosts(cases);
}

TEST(KubernetesCostTest, Urls) {
  std::vector<Case> cases;
  const std::string url = "url('https:://kubernetes.io/')";
  for (const char* op : {".getScheme()", ".getHostname()", ".getHost()",
                         ".getPort()", ".getEscapedPath()", ".getQuery()"}) {
    cases.push_back({url + op, 4, 4, 4});
  }
  cases.push_back({url + " == url('https:://kubernetes.io/')", 7, 9, 7});
  cases.push_back({url + " == url('http://x.b')", 5, 5, 5});
  ExpectCosts(cases);
}

TEST(KubernetesCostTest, Ips) {
  std::vector<Case> cases;
  const std::string v4 = "ip('192.168.0.1')";
  const std::string v6 = "ip('2001:db8:3333:4444:5555:6666:7777:8888')";
  for (const auto& [ip, base] : {std::pair{v4, 2}, std::pair{v6, 4}}) {
    cases.push_back({ip, uint64_t(base), uint64_t(base), uint64_t(base)});
    for (const char* op : {".family()", ".isUnspecified()", ".isLoopback()",
                           ".isLinkLocalMulticast()", ".isLinkLocalUnicast()",
                           ".isGlobalUnicast()"}) {
      uint64_t c = base + 1;
      cases.push_back({ip + op, c, c, c});
    }
    uint64_t eq = base + 2 + 1;
    cases.push_back({ip + " == ip('192.168.0.1')", eq, eq, eq});
  }
  cases.push_back({"ip.isCanonical('192.168.0.1')", 3, 3, 3});
  cases.push_back(
      {"ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')", 8, 8, 8});
  cases.push_back({"ip.isCanonical('2001:db8::abcd')", 3, 3, 3});
  ExpectCosts(cases);
}

TEST(KubernetesCostTest, Cidrs) {
  std::vector<Case> cases;
  const std::string v4 = "cidr('192.168.0.0/16')";
  const std::string v6 = "cidr('2001:db8::/32')";
  for (const std::string& cidr : {v4, v6}) {
    cases.push_back({cidr, 2, 2, 2});
    for (const char* op : {".ip()", ".prefixLength()", ".masked()"})
      cases.push_back({cidr + op, 3, 3, 3});
    cases.push_back({cidr + " == cidr('2001:db8::/32')", 5, 5, 5});
  }
  // base 2 plus (min, max, runtime).
  auto add = [&](const std::string& cidr, const std::string& op, uint64_t min,
                 uint64_t max, uint64_t runtime) {
    cases.push_back({cidr + op, 2 + min, 2 + max, 2 + runtime});
  };
  add(v4, ".containsCIDR(cidr('192.0.0.0/30'))", 5, 9, 5);
  add(v4, ".containsCIDR(cidr('192.168.0.0/16'))", 5, 9, 5);
  add(v4, ".containsCIDR('192.0.0.0/30')", 5, 9, 5);
  add(v4, ".containsCIDR('192.168.0.0/16')", 5, 9, 5);
  add(v4, ".containsIP(ip('192.0.0.1'))", 2, 5, 2);
  add(v4, ".containsIP(ip('192.169.0.1'))", 3, 6, 3);
  add(v4, ".containsIP(ip('192.169.169.250'))", 3, 6, 3);
  add(v4, ".containsIP('192.0.0.1')", 2, 5, 2);
  add(v4, ".containsIP('192.169.0.1')", 3, 6, 3);
  add(v6, ".containsCIDR(cidr('2001:db8::/126'))", 5, 9, 5);
  add(v6, ".containsCIDR(cidr('2001:db8::/32'))", 5, 9, 5);
  add(v6, ".containsCIDR('2001:db8::/126')", 5, 9, 5);
  add(v6, ".containsCIDR('2001:db8::/32')", 5, 9, 5);
  add(v6, ".containsIP(ip('2001:db8:3333:4444:5555:6666:7777:8888'))", 5, 8, 5);
  add(v6, ".containsIP(ip('2001:db8::1'))", 3, 6, 3);
  add(v6, ".containsIP('2001:db8:3333:4444:5555:6666:7777:8888')", 5, 8, 5);
  add(v6, ".containsIP('2001:db8::1')", 3, 6, 3);
  ExpectCosts(cases);
}

TEST(KubernetesCostTest, Strings) {
  ExpectCosts({
      {"'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3, 3, 3},
      {"'ABCDEFGHIJ abcdefghij'.lowerAscii() == "
       "'abcdefghij ABCDEFGHIJ'.lowerAscii()",
       7, 9, 9},
      {"'ABCDEFGHIJ abcdefghij'.upperAscii()", 3, 3, 3},
      {"'ABCDEFGHIJ abcdefghij'.upperAscii() == "
       "'abcdefghij ABCDEFGHIJ'.upperAscii()",
       7, 9, 9},
      {"strings.quote('ABCDEFGHIJ abcdefghij')", 3, 3, 3},
      {"strings.quote('ABCDEFGHIJ abcdefghij') == "
       "strings.quote('ABCDEFGHIJ abcdefghij')",
       7, 11, 9},
      {"'abc 123 def 123'.replace('123', '456')", 3, 3, 3},
      {"'abc 123 def 123'.replace('', 'x')", 3, 3, 3},
      {"'abc 123 def 123'.replace('123', '')", 3, 3, 3},
      {"'abc 123 def 123'.replace('123', '456', 1)", 3, 3, 3},
      {"'abc 123 def 123'.split(' ')", 3, 3, 3},
      {"'abc 123 def 123'.split(' ', 1)", 3, 3, 3},
      {"'abc 123 def 123'.substring(5)", 2, 2, 2},
      {"'abc 123 def 123'.substring(5, 8)", 2, 2, 2},
      {"'  abc 123 def 123  '.trim()", 2, 2, 2},
      {"['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", 11,
       23, 15},
      {"['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", 10, 22,
       13},
      {"'abc 123 def 123'.find('123')", 2, 2, 2},
      {"'abc 123 def 123'.findAll('123')", 2, 2, 2},
      {"'abc 123 def 123'.findAll('123', 1)", 2, 2, 2},
  });
}

TEST(KubernetesCostTest, Quantities) {
  ExpectCosts({
      {R"(quantity("12Mi"))", 1, 1, 1},
      {R"(isQuantity("20"))", 1, 1, 1},
      {R"(isQuantity("20M"))", 1, 1, 1},
      {R"(quantity("200M") == quantity("200M"))", 3, 3, 3},
      {R"(quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M"))",
       3, 6, 6},
      {R"(quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k"))",
       3, 9, 9},
      {R"(quantity("50M").isLessThan(quantity("50Mi")))", 3, 3, 3},
      {R"(quantity("50Mi").isGreaterThan(quantity("50M")))", 3, 3, 3},
      {R"(quantity("200M").compareTo(quantity("0.2G")) > 0)", 4, 4, 4},
      {R"(quantity("50k").add(quantity("20")) == quantity("50.02k"))", 5, 5, 5},
      {R"(quantity("50k").sub(quantity("20")) == quantity("49.98k"))", 5, 5, 5},
      {R"(quantity("50k").sub(20) == quantity("49980"))", 4, 4, 4},
      {R"(quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0)", 6, 6,
       6},
      {R"(quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0)",
       7, 7, 7},
      {R"(quantity("50k").asInteger() > 0)", 3, 3, 3},
      {R"(quantity("50").isInteger())", 2, 2, 2},
      {R"(quantity("50.703k").asApproximateFloat() > 0.0)", 3, 3, 3},
  });
}

TEST(KubernetesCostTest, NamedFormats) {
  ExpectCosts({
      {R"(format.named("dns1123subdomain"))", 1, 1, 1},
      // The estimate assumes the longest regular expression of any format.
      {R"(format.named("dns1123Subdomain").value().validate("my-name"))", 34,
       34, 17},
      {R"(format.named("dns1123Label").value().validate("my-name"))", 34, 34,
       10},
      {R"(format.named("dns1123Label").value() == format.named("dns1123Label").value())",
       5, 11, 5},
  });
}

TEST(KubernetesCostTest, Sets) {
  ExpectCosts({
      {"sets.contains([], [])", 21, 21, 21},
      {"sets.contains([1], [])", 21, 21, 21},
      {"sets.contains([1], [1])", 22, 22, 22},
      {"sets.contains([1], [1, 1])", 23, 23, 23},
      {"sets.contains([1, 1], [1])", 23, 23, 23},
      {"sets.contains([2, 1], [1])", 23, 23, 23},
      {"sets.contains([1, 2, 3, 4], [2, 3])", 29, 29, 29},
      {"sets.contains([1], [1.0, 1])", 23, 23, 23},
      {"sets.contains([1, 2], [2u, 2.0])", 25, 25, 25},
      {"sets.contains([1, 2u], [2, 2.0])", 25, 25, 25},
      {"sets.contains([1, 2.0, 3u], [1.0, 2u, 3])", 30, 30, 30},
      {"sets.contains([[1], [2, 3]], [[2, 3.0]])", 53, 53, 53},
      {"!sets.contains([1], [2])", 23, 23, 23},
      {"!sets.contains([1], [1, 2])", 24, 24, 24},
      {"!sets.contains([1], [\"1\", 1])", 24, 24, 24},
      {"!sets.contains([1], [1.1, 1u])", 24, 24, 24},
      {"sets.equivalent([], [])", 21, 21, 21},
      {"sets.equivalent([1], [1])", 23, 23, 23},
      {"sets.equivalent([1], [1, 1])", 25, 25, 25},
      {"sets.equivalent([1, 1], [1])", 25, 25, 25},
      {"sets.equivalent([1], [1u, 1.0])", 25, 25, 25},
      {"sets.equivalent([1, 2, 3], [3u, 2.0, 1])", 39, 39, 39},
      {"sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])", 69, 69, 69},
      {"!sets.equivalent([2, 1], [1])", 26, 26, 26},
      {"!sets.equivalent([1], [1, 2])", 26, 26, 26},
      {"!sets.equivalent([1, 2], [2u, 2, 2.0])", 34, 34, 34},
      {"!sets.equivalent([1, 2], [1u, 2, 2.3])", 34, 34, 34},
      {"sets.intersects([1], [1])", 22, 22, 22},
      {"sets.intersects([1], [1, 1])", 23, 23, 23},
      {"sets.intersects([1, 1], [1])", 23, 23, 23},
      {"sets.intersects([2, 1], [1])", 23, 23, 23},
      {"sets.intersects([1], [1, 2])", 23, 23, 23},
      {"sets.intersects([1], [1.0, 2])", 23, 23, 23},
      {"sets.intersects([1, 2], [2u, 2, 2.0])", 27, 27, 27},
      {"sets.intersects([1, 2], [1u, 2, 2.3])", 27, 27, 27},
      {"sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])", 65, 65, 65},
      {"!sets.intersects([], [])", 22, 22, 22},
      {"!sets.intersects([1], [])", 22, 22, 22},
      {"!sets.intersects([1], [2])", 23, 23, 23},
      {"!sets.intersects([1], [\"1\", 2])", 24, 24, 24},
      {"!sets.intersects([1], [1.1, 2u])", 24, 24, 24},
  });
}

TEST(KubernetesCostTest, Semver) {
  ExpectCosts({
      {R"(semver("1.0.0"))", 1, 1, 1},
      {R"(semver("1234.56789012345.67890123456789"))", 4, 4, 4},
      {R"(isSemver("1.0.0"))", 1, 1, 1},
      {R"(isSemver("1234.56789012345.67890123456789"))", 4, 4, 4},
      {R"(semver("1.2.3").major())", 2, 2, 2},
      {R"(semver("1.2.3").minor())", 2, 2, 2},
      {R"(semver("1.2.3").patch())", 2, 2, 2},
      {R"(semver("1.0.0").isLessThan(semver("1.1.0")))", 3, 3, 3},
      {R"(semver("1.1.0").isGreaterThan(semver("1.0.0")))", 3, 3, 3},
      {R"(semver("1.0.0").compareTo(semver("1.2.3")))", 3, 3, 3},
  });
}

TEST(KubernetesCostTest, TwoVariableComprehensions) {
  ExpectCosts({
      {"{'a': 1, 'b': 2}.all(k, v, v > 0)", 37, 41, 41},
      {"{'a': 1, 'b': 2}.exists(k, v, v > 0)", 39, 43, 40},
      {"{'a': 1, 'b': 2}.existsOne(k, v, v > 0)", 38, 40, 40},
      {"{'a': 1, 'b': 2}.transformMap(k, v, v + 1)", 71, 71, 71},
      {"{'a': 1, 'b': 2}.transformMap(k, v, v < 5, v + 1)", 67, 75, 75},
      {"{'a': 1, 'b': 2}.transformMapEntry(k, v, {k: v + 1})", 131, 131, 131},
      {"{'a': 1, 'b': 2}.transformMapEntry(k, v, v < 5, {k: v + 1})", 67, 135,
       135},
      {"[1, 2].all(i, v, v > 0)", 17, 21, 21},
      {"[1, 2].exists(i, v, v > 0)", 19, 23, 20},
      {"[1, 2].existsOne(i, v, v > 0)", 18, 20, 20},
      {"[1, 2].transformList(i, v, v + 1)", 49, 49, 49},
      {"[1, 2].transformList(i, v, v < 5, v + 1)", 27, 53, 53},
  });
}

// cost_test.go's TestSize: the size of replace()'s result.
TEST(KubernetesCostTest, ReplaceResultSizes) {
  struct SizeCase {
    const char* name;
    SizeEstimate text, needle, replacement, want;
  };
  const SizeCase cases[] = {
      {"replace empty with char", {3, 3}, {0, 0}, {1, 1}, {7, 7}},
      {"maybe replace char with empty", {3, 3}, {1, 1}, {0, 0}, {0, 3}},
      {"maybe replace repeated", {4, 4}, {2, 2}, {4, 4}, {4, 8}},
      {"maybe replace empty", {4, 4}, {0, 1}, {0, 2}, {0, 14}},
      {"replace non-empty size range, maybe larger",
       {4, 4},
       {1, 1},
       {1, 2},
       {4, 8}},
      {"replace non-empty size range, maybe smaller",
       {4, 4},
       {1, 2},
       {1, 1},
       {2, 4}},
  };
  KubernetesCostEstimator estimator;
  for (const SizeCase& c : cases) {
    AstNode target{{}, Type::String(), nullptr, c.text};
    AstNode args[] = {{{}, Type::String(), nullptr, c.needle},
                      {{}, Type::String(), nullptr, c.replacement}};
    auto call = estimator.EstimateCallCost("replace", "", &target, args);
    ASSERT_TRUE(call && call->result_size) << c.name;
    EXPECT_EQ(*call->result_size, c.want) << c.name;
  }
}

}  // namespace
}  // namespace cost_kubernetes_test
}  // namespace ksched::cel

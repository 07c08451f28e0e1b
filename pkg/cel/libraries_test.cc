#include "pkg/cel/libraries.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "pkg/cel/compare.h"
#include "pkg/cel/function.h"
#include "pkg/cel/value.h"

namespace ksched::cel {
namespace {

class LibrariesTest : public ::testing::Test {
 protected:
  LibrariesTest() {
    RegisterStringsExt(registry_);
    RegisterListsExt(registry_);
    RegisterSetsExt(registry_);
    RegisterKubernetesLists(registry_);
    RegisterKubernetesRegex(registry_);
    RegisterQuantity(registry_);
    RegisterSemver(registry_);
  }

  const Overload& Find(const std::string& name, const std::string& id) {
    const Function* fn = registry_.Find(name);
    EXPECT_NE(fn, nullptr) << name;
    for (const Overload& o : fn->overloads) {
      if (o.id == id) return o;
    }
    ADD_FAILURE() << "no overload " << id << " of " << name;
    static const Overload kNone;
    return kNone;
  }

  Value Call(const std::string& name, const std::string& id,
             std::vector<Value> args) {
    return Find(name, id).impl(args);
  }

  std::optional<uint64_t> Cost(const std::string& name, const std::string& id,
                               std::vector<Value> args) {
    const Overload& o = Find(name, id);
    const Value result = o.impl(args);
    if (!o.cost) return std::nullopt;
    return o.cost(args, result);
  }

  FunctionRegistry registry_;
};

Value S(const char* s) { return Value::String(s); }
Value I(int64_t i) { return Value::Int(i); }
Value L(std::vector<Value> items) { return MakeList(std::move(items)); }

std::string ErrorOf(const Value& v) {
  return v.is_error() ? std::string(v.error_message()) : "<no error>";
}

void ExpectValue(const Value& got, const Value& want) {
  EXPECT_TRUE(Identical(got, want))
      << got.DebugString() << " != " << want.DebugString();
}

TEST(CompareTest, FollowsCelGo) {
  ExpectValue(Compare(I(1), Value::Uint(2)), I(-1));
  ExpectValue(Compare(Value::Double(2.5), I(2)), I(1));
  ExpectValue(Compare(Value::Uint(3), Value::Double(3.0)), I(0));
  ExpectValue(Compare(I(-1), Value::Uint(0)), I(-1));
  ExpectValue(Compare(S("a"), S("b")), I(-1));
  ExpectValue(Compare(Value::Bool(true), Value::Bool(false)), I(1));
  EXPECT_EQ(ErrorOf(Compare(Value::Double(NAN), I(1))),
            "NaN values cannot be ordered");
  EXPECT_EQ(ErrorOf(Compare(S("a"), I(1))), "no such overload");
  EXPECT_EQ(ErrorOf(Compare(L({}), L({}))), "no such overload");
}

TEST_F(LibrariesTest, Strings) {
  ExpectValue(Call("charAt", "string_char_at_int", {S("héllo"), I(1)}), S("é"));
  ExpectValue(Call("charAt", "string_char_at_int", {S("abc"), I(3)}), S(""));
  EXPECT_EQ(ErrorOf(Call("charAt", "string_char_at_int", {S("abc"), I(5)})),
            "index out of range: 5");
  ExpectValue(
      Call("indexOf", "string_index_of_string", {S("tacocat"), S("cat")}),
      I(4));
  ExpectValue(
      Call("lastIndexOf", "string_last_index_of_string", {S("tacocat"), S("")}),
      I(7));
  ExpectValue(Call("lowerAscii", "string_lower_ascii", {S("TacoCÆt")}),
              S("tacocÆt"));
  ExpectValue(Call("replace", "string_replace_string_string_int",
                   {S("aaa"), S("a"), S("b"), I(2)}),
              S("bba"));
  ExpectValue(Call("split", "string_split_string", {S("a,b,c"), S(",")}),
              L({S("a"), S("b"), S("c")}));
  ExpectValue(
      Call("split", "string_split_string_int", {S("a,b,c"), S(","), I(2)}),
      L({S("a"), S("b,c")}));
  EXPECT_EQ(ErrorOf(Call("substring", "string_substring_int_int",
                         {S("abc"), I(2), I(1)})),
            "invalid substring range. start: 2, end: 1");
  ExpectValue(Call("trim", "string_trim", {S(" \t x \n")}), S("x"));
  ExpectValue(Call("join", "list_join_string", {L({S("a"), S("b")}), S("-")}),
              S("a-b"));
  ExpectValue(Call("strings.quote", "strings_quote", {S("a\"b\n")}),
              S("\"a\\\"b\\n\""));
  EXPECT_EQ(Cost("replace", "string_replace_string_string",
                 {S("0123456789abc"), S("a"), S("b")}),
            3u);  // ceil(13 * 0.2)
}

TEST_F(LibrariesTest, StringFormat) {
  auto format = [&](const char* f, std::vector<Value> args) {
    return Call("format", "string_format", {S(f), L(std::move(args))});
  };
  ExpectValue(format("%s and %d", {S("x"), I(-3)}), S("x and -3"));
  ExpectValue(format("%.3f", {Value::Double(1.2345)}), S("1.234"));
  ExpectValue(format("%.2f", {Value::Double(12345.678)}), S("12,345.68"));
  ExpectValue(format("%e", {Value::Double(2.71828)}),
              S("2.718280\u202f\u00d7\u202f10\u2070\u2070"));
  ExpectValue(format("%x %X %o %b", {I(30), I(30), I(8), I(5)}),
              S("1e 1E 10 101"));
  ExpectValue(format("%s", {L({S("a"), I(1), Value::Double(NAN)})}),
              S("[\"a\", 1, \"NaN\"]"));
  ExpectValue(format("%s", {Value::Double(1e6)}), S("1e+06"));
  ExpectValue(format("100%%", {}), S("100%"));
  EXPECT_EQ(ErrorOf(format("%d", {S("x")})),
            "error during formatting: decimal clause can only be used on "
            "integers, was given string");
  EXPECT_EQ(ErrorOf(format("%s %s", {S("x")})), "index 1 out of range");
  EXPECT_EQ(ErrorOf(format("%z", {S("x")})),
            "could not parse formatting clause: unrecognized formatting "
            "clause \"z\"");
}

TEST_F(LibrariesTest, ListsExt) {
  ExpectValue(Call("slice", "list_slice", {L({I(1), I(2), I(3)}), I(1), I(3)}),
              L({I(2), I(3)}));
  EXPECT_EQ(ErrorOf(Call("slice", "list_slice", {L({I(1)}), I(0), I(2)})),
            "cannot slice(0, 2), list is length 1");
  ExpectValue(Call("flatten", "list_flatten_int",
                   {L({I(1), L({I(2), L({I(3)})})}), I(2)}),
              L({I(1), I(2), I(3)}));
  ExpectValue(Call("sort", "list_int_sort", {L({I(3), I(1), I(2)})}),
              L({I(1), I(2), I(3)}));
  EXPECT_EQ(ErrorOf(Call("sort", "list_int_sort", {L({I(3), S("a")})})),
            "list elements must have the same type");
  ExpectValue(Call("@sortByAssociatedKeys", "list_string_sortByAssociatedKeys",
                   {L({I(1), I(2), I(3)}), L({S("c"), S("a"), S("b")})}),
              L({I(2), I(3), I(1)}));
  ExpectValue(Call("lists.range", "lists_range", {I(3)}),
              L({I(0), I(1), I(2)}));
  ExpectValue(Call("distinct", "list_distinct",
                   {L({I(1), Value::Uint(1), I(2), Value::Double(2.0)})}),
              L({I(1), I(2)}));
  // trackListSelfCompare: 3*3*2.1 + 1 + 10.
  EXPECT_EQ(Cost("sort", "list_string_sort", {L({S("b"), S("a"), S("c")})}),
            29u);
  EXPECT_EQ(Cost("reverse", "list_reverse", {L({I(1), I(2)})}), 13u);
}

TEST_F(LibrariesTest, SortMatchesGoForLongLists) {
  // Longer than Go's insertion-sort cutoff, with ties on the keys.
  std::vector<Value> items;
  std::vector<Value> keys;
  for (int i = 0; i < 40; ++i) {
    items.push_back(I(i));
    keys.push_back(I((i * 7) % 5));
  }
  const Value sorted =
      Call("@sortByAssociatedKeys", "list_int_sortByAssociatedKeys",
           {L(items), L(keys)});
  ASSERT_EQ(sorted.kind(), Kind::kList);
  int64_t previous_key = -1;
  for (size_t i = 0; i < sorted.list().size(); ++i) {
    const int64_t key = (sorted.list().at(i).int_value() * 7) % 5;
    EXPECT_GE(key, previous_key);
    previous_key = key;
  }
}

TEST_F(LibrariesTest, Sets) {
  ExpectValue(Call("sets.contains", "list_sets_contains_list",
                   {L({I(1), I(2)}), L({Value::Double(2.0)})}),
              Value::Bool(true));
  ExpectValue(Call("sets.equivalent", "list_sets_equivalent_list",
                   {L({I(1), I(1)}), L({Value::Uint(1)})}),
              Value::Bool(true));
  ExpectValue(Call("sets.intersects", "list_sets_intersects_list",
                   {L({I(1)}), L({I(2)})}),
              Value::Bool(false));
  EXPECT_EQ(Cost("sets.equivalent", "list_sets_equivalent_list",
                 {L({I(1), I(2)}), L({I(1), I(2), I(3)})}),
            13u);
}

TEST_F(LibrariesTest, KubernetesLists) {
  ExpectValue(
      Call("isSorted", "list_int_is_sorted_bool", {L({I(1), I(2), I(2)})}),
      Value::Bool(true));
  ExpectValue(Call("sum", "list_int_sum_int", {L({I(1), I(2), I(3)})}), I(6));
  ExpectValue(Call("sum", "list_double_sum_double", {L({})}), Value::Double(0));
  EXPECT_EQ(ErrorOf(Call("sum", "list_int_sum_int", {L({I(INT64_MAX), I(1)})})),
            "integer overflow");
  ExpectValue(Call("max", "list_int_max_int", {L({I(1), I(5), I(3)})}), I(5));
  EXPECT_EQ(ErrorOf(Call("min", "list_int_min_int", {L({})})),
            "min called on empty list");
  ExpectValue(Call("indexOf", "list_a_index_of_int",
                   {L({I(1), I(2), I(1)}), Value::Uint(1)}),
              I(0));
  ExpectValue(Call("lastIndexOf", "list_a_last_index_of_int",
                   {L({I(1), I(2), I(1)}), I(1)}),
              I(2));
  EXPECT_EQ(Cost("isSorted", "list_string_is_sorted_bool",
                 {L({S("012345678901"), S("012345678901")})}),
            2u);
}

TEST_F(LibrariesTest, Regex) {
  ExpectValue(Call("find", "string_find_string", {S("abc 123"), S("[0-9]+")}),
              S("123"));
  ExpectValue(Call("find", "string_find_string", {S("abc"), S("[0-9]+")}),
              S(""));
  ExpectValue(
      Call("findAll", "string_find_all_string", {S("a1b22c333"), S("[0-9]+")}),
      L({S("1"), S("22"), S("333")}));
  ExpectValue(Call("findAll", "string_find_all_string_int",
                   {S("a1b22c333"), S("[0-9]+"), I(2)}),
              L({S("1"), S("22")}));
  // Go skips an empty match right after a match.
  ExpectValue(Call("findAll", "string_find_all_string", {S("abc"), S("b*")}),
              L({S(""), S("b"), S("")}));
  EXPECT_EQ(ErrorOf(Call("find", "string_find_string", {S("x"), S("(")})),
            "Illegal regex: error parsing regexp: missing closing ): `(`");
  // strCost ceil(8 * 0.1) = 1 times regexCost ceil(6 * 0.25) = 2.
  EXPECT_EQ(Cost("find", "string_find_string", {S("abc 123"), S("[0-9]+")}),
            2u);
}

TEST_F(LibrariesTest, Quantity) {
  const Value q = Call("quantity", "string_to_quantity", {S("1.5Gi")});
  ASSERT_EQ(q.kind(), Kind::kQuantity);
  ExpectValue(Call("asInteger", "quantity_get_int", {q}), I(1610612736));
  EXPECT_EQ(ErrorOf(Call("quantity", "string_to_quantity", {S("10Mo")})),
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(ErrorOf(Call("quantity", "string_to_quantity", {S("10Mm")})),
            "unable to parse quantity's suffix");
  ExpectValue(Call("isQuantity", "is_quantity_string", {S("20Mi")}),
              Value::Bool(true));
  const Value small = Call("quantity", "string_to_quantity", {S("50M")});
  const Value big = Call("quantity", "string_to_quantity", {S("50Mi")});
  ExpectValue(Call("isLessThan", "quantity_is_less_than", {small, big}),
              Value::Bool(true));
  ExpectValue(Call("compareTo", "quantity_compare_to", {big, small}), I(1));
  const Value sum =
      Call("add", "quantity_add_int",
           {Call("quantity", "string_to_quantity", {S("50k")}), I(20)});
  ExpectValue(Call("asInteger", "quantity_get_int", {sum}), I(50020));
  ExpectValue(Call("asApproximateFloat", "quantity_get_float",
                   {Call("quantity", "string_to_quantity", {S("50.703k")})}),
              Value::Double(50703.0));
  ExpectValue(Call("isInteger", "quantity_is_integer",
                   {Call("quantity", "string_to_quantity", {S("100m")})}),
              Value::Bool(false));
  ExpectValue(Call("sign", "quantity_sign",
                   {Call("quantity", "string_to_quantity", {S("-1")})}),
              I(-1));
  EXPECT_EQ(Cost("quantity", "string_to_quantity", {S("12Mi")}), 1u);
}

TEST_F(LibrariesTest, Semver) {
  const Value v = Call("semver", "string_to_semver", {S("1.2.3-rc.1+b.5")});
  ASSERT_EQ(v.kind(), Kind::kSemver);
  EXPECT_EQ(v.semver().ToString(), "1.2.3-rc.1+b.5");
  ExpectValue(Call("minor", "semver_minor", {v}), I(2));
  EXPECT_EQ(ErrorOf(Call("semver", "string_to_semver", {S("v1.0")})),
            "No Major.Minor.Patch elements found");
  EXPECT_EQ(ErrorOf(Call("semver", "string_to_semver", {S("01.0.0")})),
            "Major number must not contain leading zeroes \"01\"");
  const Value normalized =
      Call("semver", "string_bool_to_semver", {S("v01.02"), Value::Bool(true)});
  ASSERT_EQ(normalized.kind(), Kind::kSemver);
  EXPECT_EQ(normalized.semver().ToString(), "1.2.0");
  EXPECT_EQ(ErrorOf(Call("semver", "string_bool_to_semver",
                         {S("1.2-rc"), Value::Bool(true)})),
            "short version cannot contain PreRelease/Build meta data");
  ExpectValue(Call("isSemver", "is_semver_string", {S("1.0")}),
              Value::Bool(false));
  const Value release = Call("semver", "string_to_semver", {S("1.2.3")});
  const Value rc2 = Call("semver", "string_to_semver", {S("1.2.3-rc.2")});
  const Value rc10 = Call("semver", "string_to_semver", {S("1.2.3-rc.10")});
  ExpectValue(Call("isLessThan", "semver_is_less_than", {rc2, rc10}),
              Value::Bool(true));
  ExpectValue(Call("compareTo", "semver_compare_to", {release, rc10}), I(1));
  ExpectValue(Call("isGreaterThan", "semver_is_greater_than", {v, rc2}),
              Value::Bool(false));
}

}  // namespace
}  // namespace ksched::cel

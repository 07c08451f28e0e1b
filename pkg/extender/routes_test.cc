#include "pkg/extender/routes.h"

#include <gtest/gtest.h>

namespace ksched::extender {
namespace {

TEST(RoutesTest, VerbsPrefixesAndProfiles) {
  RouteTable table;
  table.default_profile = "ksched";
  table.prefixes["/ksched/gpu"] = "gpu-profile";
  auto has = [](const std::string& p) { return p == "batch"; };

  auto r = ResolveRoute("/filter", table, has);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->verb, Verb::kFilter);
  EXPECT_EQ(r->profile, "ksched");

  r = ResolveRoute("/ksched/gpu/prioritize/", table, has);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->verb, Verb::kPrioritize);
  EXPECT_EQ(r->profile, "gpu-profile");

  r = ResolveRoute("/batch/bind?x=1", table, has);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->verb, Verb::kBind);
  EXPECT_EQ(r->profile, "batch");

  EXPECT_FALSE(ResolveRoute("/unknown/filter", table, has).has_value());
  EXPECT_FALSE(ResolveRoute("/filterx", table, has).has_value());
  EXPECT_FALSE(ResolveRoute("", table, has).has_value());
  EXPECT_TRUE(ResolveRoute("//preempt", table, has).has_value());
}

TEST(RoutesTest, ParsePrefixes) {
  std::string error;
  auto p = ParsePrefixes("/ksched/gpu/=gpu,batch=batch-profile,", &error);
  ASSERT_TRUE(p.has_value()) << error;
  EXPECT_EQ(p->at("/ksched/gpu"), "gpu");
  EXPECT_EQ(p->at("/batch"), "batch-profile");
  EXPECT_FALSE(ParsePrefixes("/a", &error).has_value());
  EXPECT_EQ(error, "\"/a\": expected PREFIX=PROFILE");
}

}  // namespace
}  // namespace ksched::extender

#include "pkg/util/flags.h"

#include <gtest/gtest.h>

namespace ksched::util {
namespace {

struct Flags {
  std::string config;
  bool leader_elect = true;
  int64_t v = 0;
  FlagSet set{"ksched [flags]"};
  Flags() {
    set.String("config", &config, "config file");
    set.Bool("leader-elect", &leader_elect, "elect a leader");
    set.Int("v", &v, "verbosity");
  }
};

TEST(FlagSetTest, ParsesEveryPflagForm) {
  Flags f;
  auto rest = f.set.Parse({"--config=a.yaml", "--leader-elect=false", "-v", "4",
                           "pos", "--", "--not-a-flag"});
  ASSERT_TRUE(rest.ok()) << rest.error().message();
  EXPECT_EQ(f.config, "a.yaml");
  EXPECT_FALSE(f.leader_elect);
  EXPECT_EQ(f.v, 4);
  EXPECT_EQ(*rest, (std::vector<std::string>{"pos", "--not-a-flag"}));

  Flags g;
  ASSERT_TRUE(g.set.Parse({"--config", "b.yaml", "--leader-elect"}).ok());
  EXPECT_EQ(g.config, "b.yaml");
  EXPECT_TRUE(g.leader_elect);
}

TEST(FlagSetTest, ShorthandsTakeKubectlsForms) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"-c", "x.yaml"}, {"-cx.yaml"}, {"-c=x.yaml"}}) {
    Flags f;
    f.set.Shorthand('c', "config");
    ASSERT_TRUE(f.set.Parse(args).ok()) << args[0];
    EXPECT_EQ(f.config, "x.yaml") << args[0];
  }
  Flags f;
  f.set.Shorthand('c', "config");
  auto r = f.set.Parse({"-c"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "flag needs an argument: -c");
  EXPECT_NE(f.set.Usage().find("  -c, --config value"), std::string::npos)
      << f.set.Usage();
}

TEST(FlagSetTest, StringListsCollectEveryOccurrence) {
  std::vector<std::string> adds;
  FlagSet set("x");
  set.StringList("add", &adds, "files");
  ASSERT_TRUE(set.Parse({"--add", "a.yaml", "--add=b.yaml"}).ok());
  EXPECT_EQ(adds, (std::vector<std::string>{"a.yaml", "b.yaml"}));
}

TEST(FlagSetTest, ErrorsAreClear) {
  struct Case {
    std::vector<std::string> args;
    const char* error;
  } cases[] = {
      {{"--nope"}, "unknown flag: --nope"},
      {{"--config"}, "flag needs an argument: --config"},
      {{"--v=high"},
       "invalid argument \"high\" for \"--v\" flag: expected an integer"},
      {{"--leader-elect=maybe"},
       "invalid argument \"maybe\" for \"--leader-elect\" flag: expected a "
       "boolean"},
  };
  for (const Case& c : cases) {
    Flags f;
    auto r = f.set.Parse(c.args);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message(), c.error);
  }
}

TEST(FlagSetTest, HelpIsRecognisedAndUsageListsFlags) {
  Flags f;
  ASSERT_TRUE(f.set.Parse({"-h"}).ok());
  EXPECT_TRUE(f.set.help_requested());
  std::string usage = f.set.Usage();
  EXPECT_NE(usage.find("--config value"), std::string::npos) << usage;
  EXPECT_NE(usage.find("--leader-elect"), std::string::npos);
  EXPECT_NE(usage.find("(default true)"), std::string::npos);
}

TEST(FlagSetTest, OptionalValuesTakeOnlyTheGluedForm) {
  std::string fail = "";
  FlagSet set("x");
  set.OptionalString("fail-on-unschedulable", &fail, "all", "exit 3");
  auto rest = set.Parse({"--fail-on-unschedulable", "pod.yaml"});
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(fail, "all");
  EXPECT_EQ(*rest, std::vector<std::string>{"pod.yaml"});
  ASSERT_TRUE(set.Parse({"--fail-on-unschedulable=workloads"}).ok());
  EXPECT_EQ(fail, "workloads");
  EXPECT_NE(set.Usage().find("--fail-on-unschedulable[=all]"),
            std::string::npos)
      << set.Usage();
}

// Every help text, -h's included, starts in the same column.
TEST(FlagSetTest, UsageAlignsEveryHelpText) {
  for (const char* longest : {"o", "config", "a-much-longer-flag-name"}) {
    std::string value;
    bool b = false;
    FlagSet set("x");
    set.String(longest, &value, "HELP");
    set.Bool("v", &b, "HELP");
    const std::string usage = set.Usage();
    std::vector<size_t> columns;
    size_t start = usage.find("Flags:\n") + 7;
    while (start < usage.size()) {
      const size_t end = usage.find('\n', start);
      const std::string line = usage.substr(start, end - start);
      const size_t at = line.find(
          line.ends_with("help for this command") ? "help for" : "HELP");
      ASSERT_NE(at, std::string::npos) << line;
      columns.push_back(at);
      start = end + 1;
    }
    ASSERT_EQ(columns.size(), 3u) << usage;
    EXPECT_EQ(columns[0], columns[1]) << usage;
    EXPECT_EQ(columns[0], columns[2]) << usage;
  }
}

}  // namespace
}  // namespace ksched::util

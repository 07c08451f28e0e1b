// What every ksched command shares, through the built binary: help, the
// command list, exit statuses (0 done, 1 failed, 2 usage, 3 unschedulable
// with --fail-on-unschedulable), and how malformed input files are named.
#include <gtest/gtest.h>

#include <string>

#include "pkg/util/json.h"
#include "test/cli/run_command.h"

namespace ksched::command_cli {
namespace {

using testing::RunCommand;
using testing::WriteTempFile;

const std::string kKsched = KSCHED_BINARY;
const std::string kExample =
    std::string(KSCHED_SOURCE_DIR) + "/examples/cluster.yaml";
const std::string kSimulate =
    kKsched + " simulate --quiet --cluster " + kExample + " ";

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CommandCliTest, TopLevelHelpListsEveryCommand) {
  auto r = RunCommand(kKsched + " --help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* command : {"simulate", "explain", "version", "help"}) {
    EXPECT_TRUE(Has(r.out, std::string("\n  ") + command + " ")) << r.out;
  }
  // `help` alone is the same page.
  auto help = RunCommand(kKsched + " help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out, r.out);
}

TEST(CommandCliTest, HelpCommandShowsACommandsFlags) {
  for (const char* command : {"simulate", "explain"}) {
    auto r = RunCommand(kKsched + " help " + command);
    EXPECT_EQ(r.exit_code, 0) << command << r.err;
    auto own = RunCommand(kKsched + " " + command + " --help");
    EXPECT_EQ(r.out, own.out) << command;
    EXPECT_TRUE(Has(r.out, std::string("ksched ") + command)) << r.out;
    EXPECT_TRUE(Has(r.out, "  -h, --help")) << r.out;
  }
  auto r = RunCommand(kKsched + " help frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Has(r.err, "unknown command \"frobnicate\"")) << r.err;
  EXPECT_TRUE(Has(r.err, "  explain ")) << r.err;
}

TEST(CommandCliTest, UnknownCommandsListTheCommands) {
  auto r = RunCommand(kKsched + " frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(
      Has(r.err, "Error: unknown command \"frobnicate\" for \"ksched\""))
      << r.err;
  for (const char* command : {"simulate", "explain", "version", "help"}) {
    EXPECT_TRUE(Has(r.err, std::string("\n  ") + command + " ")) << r.err;
  }
}

// Usage errors exit 2 in every command, run-time errors 1.
TEST(CommandCliTest, ExitStatusesAreTheSameEverywhere) {
  struct Case {
    std::string args;
    int exit_code;
    std::string err;
  } cases[] = {
      {"--bogus", 2, "unknown flag: --bogus"},
      {"simulate --bogus", 2, "unknown flag: --bogus"},
      {"explain --bogus", 2, "unknown flag: --bogus"},
      {"explain", 2, "name one pod"},
      {"explain p -o xml", 2, "--output must be table, json or yaml"},
      {"simulate --cluster " + kExample + " --add-nodes -3", 2,
       "--add-nodes must not be negative, not -3"},
      {"simulate --cluster " + kExample + " --add-nodes 3", 2,
       "--add-nodes needs --node-template FILE"},
      {"simulate --cluster " + kExample + " --max 0", 2,
       "--max must be at least 1"},
      {"simulate --cluster " + kExample + " --fail-on-unschedulable=some", 2,
       "--fail-on-unschedulable must be all or workloads, not some"},
      {"simulate --cluster " + kExample + " --feature-gates Nope=true", 2,
       "--feature-gates:"},
      {"simulate --cluster /nonexistent.yaml", 1, "cannot open cluster file"},
      {"simulate --cluster " + kExample + " --drain nowhere", 1,
       "--drain nowhere: no such node in the cluster"},
  };
  for (const Case& c : cases) {
    auto r = RunCommand(kKsched + " " + c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, c.err)) << c.args << "\n" << r.err;
    EXPECT_TRUE(r.err.starts_with("Error: ")) << c.args << "\n" << r.err;
  }
}

TEST(CommandCliTest, SimulateWritesYamlAsExplainDoes) {
  auto json = RunCommand(kSimulate + "-o json");
  auto yaml = RunCommand(kSimulate + "-o yaml");
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  rapidjson::Document doc;
  doc.Parse(json.out.c_str());
  ASSERT_FALSE(doc.HasParseError());
  ASSERT_TRUE(doc["pods"].IsArray());
  // The first pod's fields, in YAML's block style.
  const auto& first = doc["pods"][0];
  EXPECT_TRUE(Has(yaml.out, std::string("pods:\n  - namespace: ") +
                                first["namespace"].GetString() +
                                "\n    name: " + first["name"].GetString()))
      << yaml.out.substr(0, 400);
}

TEST(CommandCliTest, MalformedJsonIsPlacedByLineAndColumn) {
  const std::string bad = WriteTempFile("bad-list.json", R"({
 "kind": "List",
 "items": [
  {"kind": "Node" "metadata": {"name": "n"}}
 ]
}
)");
  auto r = RunCommand(kKsched + " simulate --cluster " + bad);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Has(r.err,
                  "bad-list.json: document 1: items[0]: malformed "
                  "JSON: line 4, column 19: Missing a comma or '}' "
                  "after an object member."))
      << r.err;

  // Two objects, the second broken: a JSON stream, not YAML.
  const std::string stream =
      WriteTempFile("stream.json",
                    "{\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}}\n"
                    "{\"kind\": \"Node\", \"metadata\": {\"name\": \"b\"}}\n"
                    "{\"kind\": \"Node\", \"metadata\": {\"name\": }}\n");
  r = RunCommand(kKsched + " simulate --cluster " + stream);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Has(r.err, "malformed JSON: line 3, column 39: Invalid value."))
      << r.err;

  std::string deep = "{\"kind\": \"Pod\", \"metadata\": ";
  deep += std::string(300, '[') + std::string(300, ']') + "}";
  r = RunCommand(kKsched + " simulate --cluster " +
                 WriteTempFile("deep.json", deep));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Has(r.err, "JSON nested deeper than 256 levels")) << r.err;

  r = RunCommand(
      kKsched + " simulate --cluster " +
      WriteTempFile(
          "dup.json",
          R"({"kind": "Node", "metadata": {"name": "a", "name": "b"}})"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Has(r.err, "malformed JSON: duplicate field \"name\"")) << r.err;

  // YAML's flow style starts with '{' too, and stays readable.
  r = RunCommand(kKsched + " simulate --cluster " +
                 WriteTempFile("flow.yaml",
                               "{kind: Node, metadata: {name: n}, status: "
                               "{allocatable: {cpu: 1, pods: 10}}}\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A CI gate fails for every pod the profiles leave pending, bare or not;
// =workloads keeps it to workloads and displaced pods.
TEST(CommandCliTest, FailOnUnschedulableCountsEveryPendingPod) {
  // The example leaves bare pods pending and has no workloads.
  auto r = RunCommand(kSimulate + "--fail-on-unschedulable");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  r = RunCommand(kSimulate + "--fail-on-unschedulable=all");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  r = RunCommand(kSimulate + "--fail-on-unschedulable=workloads");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Everything fits: 0 either way.
  const std::string fits = WriteTempFile("fits.yaml", R"(
apiVersion: v1
kind: Node
metadata: {name: n}
status: {allocatable: {cpu: "2", memory: 2Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {schedulerName: ksched, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
)");
  r = RunCommand(kKsched + " simulate --quiet --cluster " + fits +
                 " --fail-on-unschedulable");
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
}

}  // namespace
}  // namespace ksched::command_cli

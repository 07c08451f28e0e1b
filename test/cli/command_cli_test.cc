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
      {"explain p -o xml", 2, "--output must be table, json, yaml or html"},
      {"simulate --cluster " + kExample + " --add-nodes -3", 2,
       "--add-nodes must not be negative, not -3"},
      {"simulate --cluster " + kExample + " --add-nodes 3", 2,
       "--add-nodes needs --node-template FILE"},
      {"simulate --cluster " + kExample + " --max 0", 2,
       "--max must be at least 1"},
      {"simulate --cluster " + kExample + " --fail-on-unschedulable=some", 2,
       "--fail-on-unschedulable must be all or workloads, not some"},
      // A gate kube refuses; an unknown one is only a warning.
      {"simulate --cluster " + kExample +
           " --feature-gates SidecarContainers=false",
       2,
       "Error: --feature-gates: cannot set feature gate SidecarContainers to "
       "false, feature is locked to true"},
      {"simulate --cluster " + kExample + " --emulated-version 1.31", 2,
       "Error: --emulated-version: emulation version 1.31 is not between "
       "[1.32, 1.36.0]"},
      {"explain p --emulated-version 1.33.1", 2,
       "Error: --emulated-version: patch version not allowed, got: "
       "kube=1.33.1"},
      {"--emulated-version=kube=1.37", 2,
       "Error: --emulated-version: emulation version 1.37 is not between "
       "[1.32, 1.36.0]"},
      {"--emulated-version=1.33 --feature-gates=GangScheduling=true", 2,
       "Error: --feature-gates: cannot set feature gate GangScheduling to "
       "true, feature is PreAlpha at emulated version 1.33, min "
       "compatibility version 1.32"},
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

int Count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + part.size())) {
    ++n;
  }
  return n;
}

// --emulated-version and --feature-gates in every command: kube's help
// list, kube's warnings once, and what each command says it decides as.
TEST(CommandCliTest, EmulatedVersionAndFeatureGatesAsKubeTakesThem) {
  for (const std::string command : {"", "simulate ", "explain "}) {
    auto help = RunCommand(kKsched + " " + command + "--help");
    ASSERT_EQ(help.exit_code, 0) << command << help.err;
    EXPECT_TRUE(Has(help.out, "--emulated-version value")) << help.out;
    EXPECT_TRUE(Has(help.out, "ksched decides as kube-scheduler v1.36;"))
        << help.out;
    EXPECT_TRUE(Has(help.out, "kube=1.32..1.36 (default 1.36)")) << help.out;
    // Each gate on a line of its own, in the help column (where -h's help
    // starts).
    const size_t h = help.out.find("  -h, --help");
    ASSERT_NE(h, std::string::npos);
    const size_t column = help.out.find("help for this command", h) - h;
    EXPECT_TRUE(
        Has(help.out, "\n" + std::string(column, ' ') +
                          "kube:OpportunisticBatching=true|false (BETA - "
                          "default=true)\n"))
        << help.out;
    EXPECT_TRUE(Has(help.out, std::string(column, ' ') +
                                  "kube:AllAlpha=true|false (ALPHA - "
                                  "default=false)\n"))
        << help.out;
  }
  auto top = RunCommand(kKsched + " --help");
  EXPECT_TRUE(Has(top.out, "It decides as kube-scheduler v1.36")) << top.out;

  // An unknown gate: one warning in kube's words, and the run goes on.
  auto unknown = RunCommand(kSimulate + "--feature-gates Nope=true");
  EXPECT_EQ(unknown.exit_code, 0) << unknown.err;
  EXPECT_EQ(Count(unknown.err, "unrecognized feature gate: Nope"), 1)
      << unknown.err;
  EXPECT_TRUE(Has(unknown.err, "warning: unrecognized feature gate: Nope"))
      << unknown.err;
  auto ga = RunCommand(kSimulate + "--feature-gates SidecarContainers=true");
  EXPECT_EQ(ga.exit_code, 0) << ga.err;
  EXPECT_EQ(Count(ga.err,
                  "warning: Setting GA feature gate "
                  "SidecarContainers=true. It will be removed in a "
                  "future release."),
            1)
      << ga.err;

  // Emulating: said once (a note, which --quiet leaves out).
  const std::string simulate =
      kKsched + " simulate --cluster " + kExample + " ";
  auto emulated = RunCommand(simulate + "--emulated-version kube=1.33");
  EXPECT_EQ(emulated.exit_code, 0) << emulated.err;
  EXPECT_EQ(Count(emulated.err,
                  "note: ksched decides as kube-scheduler v1.36 emulating "
                  "v1.33 (feature gates at their v1.33 defaults)\n"),
            1)
      << emulated.err;
  EXPECT_FALSE(
      Has(RunCommand(kSimulate + "--emulated-version 1.33").err, "emulating"));
  // At v1.36 nothing is said about the version, and every gate v1.36 has
  // on is built, so there is no note about gates either.
  const auto plain = RunCommand(simulate);
  EXPECT_FALSE(Has(plain.err, "decides as"));
  EXPECT_FALSE(Has(plain.err, "not yet in effect")) << plain.err;
  // Gates turned on that ksched has not built are named, once.
  const auto alpha = RunCommand(simulate + "--feature-gates AllAlpha=true");
  EXPECT_EQ(Count(alpha.err, "note: not yet in effect: "), 1) << alpha.err;
  EXPECT_TRUE(Has(alpha.err, "GangScheduling")) << alpha.err;
  // --quiet leaves the note out; at 1.35 there is nothing to say.
  EXPECT_FALSE(Has(RunCommand(kSimulate + "--feature-gates AllAlpha=true").err,
                   "not yet in effect"));
  EXPECT_FALSE(
      Has(RunCommand(simulate + "--emulated-version 1.35").err, "not yet"));

  // Gates whose feature ksched lacks cannot be turned on. Repeated flags
  // read as one list, and every refused gate is named.
  auto gang = RunCommand(simulate +
                         "--feature-gates GangScheduling=true "
                         "--feature-gates GenericWorkload=true");
  EXPECT_EQ(gang.exit_code, 2) << gang.err;
  for (const char* gate : {"GangScheduling", "GenericWorkload"}) {
    EXPECT_EQ(Count(gang.err, std::string("cannot set feature gate ") + gate +
                                  " to true, ksched does not implement it "
                                  "yet"),
              1)
        << gang.err;
  }

  // The scheduler logs its version before it looks for a cluster.
  auto run = RunCommand(kKsched +
                        " --emulated-version 1.33 --kubeconfig "
                        "/nonexistent/kubeconfig --secure-port 0");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(Count(run.err,
                  "ksched decides as kube-scheduler v1.36 emulating "
                  "v1.33 (feature gates at their v1.33 defaults)"),
            1)
      << run.err;
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

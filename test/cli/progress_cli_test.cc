// The progress line of `ksched simulate`, as a person at a terminal sees it:
// the binary runs with stderr on a pseudo-terminal. KSCHED_PROGRESS_AFTER_MS
// (a hook for tests) shows the line at once instead of after 2 s, so every
// phase of these millisecond runs appears whatever the machine's load.
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "test/cli/run_command.h"

extern char** environ;

namespace ksched::progress_cli {

using testing::ReadWholeFile;
using testing::RunCommand;

const std::string kKsched = KSCHED_BINARY;
const std::string kSource = KSCHED_SOURCE_DIR;
const std::string kExample = kSource + "/examples/cluster.yaml";
const std::string kPlan = kSource + "/examples/plan/";

struct TerminalRun {
  int exit_code = -1;
  std::string out;       // stdout, a file
  std::string terminal;  // stderr, as the terminal received it
};

// Runs ksched with `args`, stdout to a file and stderr on a new
// pseudo-terminal; `env` is added to (or replaces in) the environment.
TerminalRun RunOnTerminal(const std::vector<std::string>& args,
                          const std::vector<std::string>& env) {
  TerminalRun r;
  char out_path[] = "/tmp/ksched-progress-stdout-XXXXXX";
  const int out_fd = mkstemp(out_path);
  if (out_fd < 0) return r;
  // Everything the child needs is made before fork: the test runner may
  // have threads, and a forked child may only exec.
  std::vector<std::string> argv_strings = {kKsched};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& mine : env) {
      replaced |= mine.rfind(name + "=", 0) == 0;
    }
    if (!replaced) env_strings.push_back(entry);
  }
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  winsize size{.ws_row = 50, .ws_col = 200};
  int controller = -1;
  const pid_t pid = forkpty(&controller, nullptr, nullptr, &size);
  if (pid == 0) {
    dup2(out_fd, STDOUT_FILENO);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(out_fd);
  if (pid < 0) {
    unlink(out_path);
    return r;
  }
  char buf[4096];
  while (true) {
    const ssize_t n = read(controller, buf, sizeof(buf));
    if (n > 0) {
      r.terminal.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: the child's side is closed
    }
  }
  close(controller);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadWholeFile(out_path);
  unlink(out_path);
  return r;
}

const std::vector<std::string> kShowAtOnce = {"KSCHED_PROGRESS_AFTER_MS=0",
                                              "TERM=xterm"};

// The terminal's text without the progress line's updates and erasures
// ("\r...\x1b[K"), newlines as written (the terminal adds "\r").
std::string WithoutProgress(const std::string& terminal) {
  std::string s =
      std::regex_replace(terminal, std::regex("\r[^\r\n]*\x1b\\[K"), "");
  return std::regex_replace(s, std::regex("\r\n"), "\n");
}

// A JSON List of `nodes` nodes and `pods` pending pods for ksched.
std::string WriteCluster(int nodes, int pods) {
  std::string json = R"({"apiVersion": "v1", "kind": "List", "items": [)";
  for (int i = 0; i < nodes; ++i) {
    json += R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n)" +
            std::to_string(i) +
            R"("}, "status": {"allocatable": {"cpu": "32", "memory": )"
            R"("128Gi", "pods": "110"}}},)";
  }
  for (int i = 0; i < pods; ++i) {
    json += R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p)" +
            std::to_string(i) +
            R"(", "namespace": "default"}, "spec": {"schedulerName": )"
            R"("ksched", "containers": [{"name": "c", "resources": )"
            R"({"requests": {"cpu": "100m", "memory": "100Mi"}}}]}})";
    if (i + 1 < pods) json += ",";
  }
  json += "]}";
  return testing::WriteTempFile("progress-cluster.json", json);
}

TEST(ProgressCliTest, OnATerminalTheLineComesAndGoes) {
  const std::string cluster = WriteCluster(5, 300);
  const std::vector<std::string> args = {"simulate", "--cluster", cluster, "-o",
                                         "json"};
  const TerminalRun r = RunOnTerminal(args, kShowAtOnce);
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  EXPECT_NE(r.terminal.find("\rloading "), std::string::npos) << r.terminal;
  EXPECT_NE(r.terminal.find("\rpreparing the simulation\x1b[K"),
            std::string::npos)
      << r.terminal;
  EXPECT_NE(r.terminal.find("\rscheduling 0 of 300 pods\x1b[K"),
            std::string::npos)
      << r.terminal;
  // Erased before the run ends: after the last erase only whole lines
  // (the notes) follow, no progress.
  const size_t erased = r.terminal.rfind("\r\x1b[K");
  ASSERT_NE(erased, std::string::npos) << r.terminal;
  const std::string after = r.terminal.substr(erased + 4);
  for (const char* progress : {"loading ", "preparing ", "scheduling "}) {
    EXPECT_EQ(after.find(progress), std::string::npos) << r.terminal;
  }
  EXPECT_TRUE(after.empty() || after.ends_with("\n")) << r.terminal;

  // The same output as without a terminal.
  std::string command = kKsched;
  for (const std::string& a : args) command += " " + a;
  const auto plain = RunCommand(command);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(r.out, plain.out);
  EXPECT_EQ(WithoutProgress(r.terminal), plain.err);
}

TEST(ProgressCliTest, TheRunsOfASearchAreNamed) {
  const std::vector<std::string> args = {"simulate",
                                         "--cluster",
                                         kExample,
                                         "--add",
                                         kPlan + "shop-web.yaml",
                                         "--drain",
                                         "cpu-a-1",
                                         "--force",
                                         "--node-template",
                                         kPlan + "worker-node.yaml",
                                         "--add-nodes-until-fits"};
  const TerminalRun r = RunOnTerminal(args, kShowAtOnce);
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  for (const char* run :
       {"trying 0 more nodes: scheduling ", "trying 1 more node: scheduling ",
        "trying 2 more nodes: scheduling "}) {
    EXPECT_NE(r.terminal.find(run), std::string::npos) << run << r.terminal;
  }
  EXPECT_NE(r.out.find("added nodes: worker-1 worker-2 worker-3"),
            std::string::npos)
      << r.out;
  std::string command = kKsched;
  for (const std::string& a : args) command += " " + a;
  const auto plain = RunCommand(command);
  // The same output, but for how long each search took.
  auto without_seconds = [](std::string text) {
    const std::string marker = "one trying each pod alone), ";
    const size_t at = text.find(marker);
    if (at != std::string::npos) {
      text.erase(at + marker.size(), text.find('\n', at) - at - marker.size());
    }
    return text;
  };
  EXPECT_EQ(without_seconds(r.out), without_seconds(plain.out));
  EXPECT_EQ(WithoutProgress(r.terminal), plain.err);
}

TEST(ProgressCliTest, NothingWithQuietOrADumbTerminal) {
  const std::vector<std::string> args = {"simulate", "--cluster", kExample};
  std::vector<std::string> quiet = args;
  quiet.push_back("--quiet");
  TerminalRun r = RunOnTerminal(quiet, kShowAtOnce);
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  EXPECT_EQ(r.terminal.find("\x1b[K"), std::string::npos) << r.terminal;

  r = RunOnTerminal(args, {"KSCHED_PROGRESS_AFTER_MS=0", "TERM=dumb"});
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  EXPECT_EQ(r.terminal.find("\x1b[K"), std::string::npos) << r.terminal;
}

TEST(ProgressCliTest, NothingWhenStderrIsNotATerminal) {
  const auto r = RunCommand("KSCHED_PROGRESS_AFTER_MS=0 TERM=xterm " + kKsched +
                            " simulate --cluster " + kExample);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\x1b[K"), std::string::npos) << r.err;
}

}  // namespace ksched::progress_cli

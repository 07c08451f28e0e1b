// Runs a shell command and captures its stdout, stderr and exit code; and
// compares output with a golden file.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace ksched::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// The whole of the file at `path`; empty when it cannot be read.
inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline CommandResult RunCommand(const std::string& command) {
  char err_path[] = "/tmp/ksched-cli-stderr-XXXXXX";
  int fd = mkstemp(err_path);
  if (fd >= 0) close(fd);
  CommandResult r;
  std::string full = command + " 2>" + err_path;
  FILE* pipe = popen(full.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0)
    r.out.append(buf.data(), n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = ReadWholeFile(err_path);
  unlink(err_path);
  return r;
}

// Writes `content` to a file named `name` in the test's temporary folder
// and returns its path.
inline std::string WriteTempFile(const std::string& name,
                                 const std::string& content) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << content;
  return path;
}

// Compares `got` with test/cli/golden/<name>; with KSCHED_UPDATE_GOLDEN=1
// it writes the file first (review the diff after a deliberate change).
inline void ExpectGolden(const std::string& name, const std::string& got) {
  const std::string path =
      std::string(KSCHED_SOURCE_DIR) + "/test/cli/golden/" + name;
  if (const char* update = std::getenv("KSCHED_UPDATE_GOLDEN");
      update != nullptr && std::string(update) == "1") {
    std::ofstream(path) << got;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing golden file " << path;
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(got, want.str()) << "differs from " << path;
}

}  // namespace ksched::testing

// The README's `simulate` examples, run as written (with the binary this
// build made in place of build-example/'s) and checked against the output
// the README shows beside them: the block that follows a command, or the
// `#   ` lines under it. A line's "..." stands for text left out.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test/cli/run_command.h"

namespace ksched::readme {
namespace {

using testing::RunCommand;

const std::string kKsched = KSCHED_BINARY;
const std::string kSource = KSCHED_SOURCE_DIR;
constexpr std::string_view kBuilt = "build-example/cmd/ksched/ksched";

struct Example {
  std::string command;
  std::vector<std::string> expected;  // lines, "..." marking cuts
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\\')) s.pop_back();
  const size_t first = s.find_first_not_of(' ');
  return first == std::string::npos ? "" : s.substr(first);
}

// Every simulate command in a ```sh block, with the lines the README shows
// it prints.
std::vector<Example> Examples(const std::vector<std::string>& readme) {
  std::vector<Example> out;
  for (size_t i = 0; i < readme.size(); ++i) {
    if (readme[i] != "```sh") continue;
    size_t j = i + 1;
    for (; j < readme.size() && readme[j] != "```"; ++j) {
      std::string line = readme[j];
      if (line.rfind("$K simulate", 0) == 0) {
        line = std::string(kBuilt) + line.substr(2);
      }
      if (line.rfind(std::string(kBuilt) + " simulate", 0) != 0) {
        if (line.rfind("#   ", 0) == 0 && !out.empty()) {
          out.back().expected.push_back(Trim(line.substr(4)));
        }
        continue;
      }
      std::string command = line;
      while (command.ends_with("\\") && j + 1 < readme.size()) {
        command = command.substr(0, command.size() - 1) + readme[++j];
      }
      if (const size_t comment = command.find("  #");
          comment != std::string::npos) {
        command.resize(comment);
      }
      out.push_back({Trim(command), {}});
    }
    // An output block right after the commands belongs to the last one.
    size_t k = j + 1;
    if (k < readme.size() && readme[k] == "```" && !out.empty() &&
        out.back().expected.empty()) {
      for (++k; k < readme.size() && readme[k] != "```"; ++k) {
        if (readme[k].rfind("$ ", 0) == 0) continue;
        out.back().expected.push_back(readme[k]);
      }
    }
    i = j;
  }
  return out;
}

TEST(ReadmeTest, SimulateExamplesPrintWhatTheReadmeShows) {
  std::ifstream in(kSource + "/README.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<Example> examples = Examples(Lines(text.str()));
  int run = 0, checked = 0;
  for (const Example& e : examples) {
    // Placeholders for a user's own files are not runnable here.
    bool runnable = true;
    std::istringstream words(e.command);
    for (std::string w; words >> w;) {
      if ((w.ends_with(".yaml") || w.ends_with(".json")) &&
          !std::filesystem::exists(kSource + "/" + w)) {
        runnable = false;
      }
    }
    // A command writing to a file (`--output html > report.html`) would
    // leave the file in the source tree, and shows nothing to compare.
    if (e.command.find(" > ") != std::string::npos) runnable = false;
    if (!runnable) continue;
    const std::string command =
        "cd " + kSource + " && " + kKsched + e.command.substr(kBuilt.size());
    auto r = RunCommand(command);
    const std::string output = r.out + r.err;
    ++run;
    for (const std::string& line : e.expected) {
      if (line.empty() || line == "...") continue;
      // Each part between "..." cuts appears, in order.
      size_t at = 0;
      std::string rest = line;
      while (!rest.empty()) {
        const size_t cut = rest.find("...");
        const std::string part = Trim(rest.substr(0, cut));
        rest = cut == std::string::npos ? "" : rest.substr(cut + 3);
        if (part.empty()) continue;
        const size_t found = output.find(part, at);
        EXPECT_NE(found, std::string::npos)
            << e.command << "\nwants: " << part << "\ngot:\n"
            << output;
        if (found != std::string::npos) at = found + part.size();
      }
      ++checked;
    }
  }
  // The README has these examples; a parse that found none checks nothing.
  EXPECT_GE(run, 9);
  EXPECT_GE(checked, 12);
}

}  // namespace
}  // namespace ksched::readme

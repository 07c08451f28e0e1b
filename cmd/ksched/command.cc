#include "cmd/ksched/command.h"

#include <iostream>

namespace ksched::cmd {
namespace {

// A flag's help may run over several lines (--feature-gates lists every
// gate, as kube's does); each line after the first starts in the help
// column, found on the -h line that ends every usage.
std::string IndentContinuations(const std::string& usage) {
  const std::string marker = "help for this command";
  const size_t marker_at = usage.rfind(marker);
  if (marker_at == std::string::npos) return usage;
  const size_t line_start = usage.rfind('\n', marker_at) + 1;
  const std::string indent(marker_at - line_start, ' ');
  std::string out;
  bool in_flags = false;
  size_t from = 0;
  while (from < usage.size()) {
    size_t end = usage.find('\n', from);
    if (end == std::string::npos) end = usage.size();
    const std::string_view line(usage.data() + from, end - from);
    if (in_flags && !line.empty() && line.front() != ' ') out += indent;
    if (line == "Flags:") in_flags = true;
    out.append(line);
    if (end < usage.size()) out += '\n';
    from = end + 1;
  }
  return out;
}

}  // namespace

Command::Command(std::string usage_line, std::string description)
    : description_(std::move(description)), flags_(std::move(usage_line)) {}

std::optional<std::vector<std::string>> Command::Parse(
    const std::vector<std::string>& args, int* exit_status) {
  auto positional = flags_.Parse(args);
  if (!positional.ok()) {
    *exit_status = UsageError(positional.error().message(), true);
    return std::nullopt;
  }
  if (flags_.help_requested()) {
    std::cout << Help();
    *exit_status = kExitOk;
    return std::nullopt;
  }
  return std::move(*positional);
}

int Command::UsageError(std::string_view message, bool with_usage) const {
  std::cerr << "Error: " << message << "\n";
  if (with_usage) std::cerr << "\n" << IndentContinuations(flags_.Usage());
  return kExitUsage;
}

int Command::Failure(std::string_view message) {
  std::cerr << "Error: " << message << "\n";
  return kExitFailure;
}

std::string Command::Help() const {
  std::string out = description_;
  while (out.ends_with('\n')) out.pop_back();
  return out + "\n\n" + IndentContinuations(flags_.Usage());
}

const std::vector<CommandEntry>& Commands() {
  static const std::vector<CommandEntry> kCommands = {
      {"simulate",
       "schedule the pending pods of a manifest file or a live cluster, "
       "without writing to it"},
      {"explain", "explain why a pod is pending, or where it would go now"},
      {"version", "print the version"},
      {"help", "help about any command: help [COMMAND]"},
  };
  return kCommands;
}

std::string CommandList(std::string_view program) {
  std::string out = "Commands:\n";
  for (const CommandEntry& c : Commands()) {
    std::string name(c.name);
    out += "  " + name +
           std::string(name.size() < 10 ? 11 - name.size() : 1, ' ') +
           std::string(c.summary) + "\n";
  }
  out += "\nUse \"" + std::string(program) +
         " help COMMAND\" (or COMMAND --help) for a command's flags.\n";
  return out;
}

int UnknownCommand(std::string_view program, std::string_view command) {
  std::cerr << "Error: unknown command \"" << command << "\" for \"" << program
            << "\"\n\n"
            << CommandList(program);
  return kExitUsage;
}

}  // namespace ksched::cmd

#include "cmd/ksched/command.h"

#include <iostream>

namespace ksched::cmd {

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
  if (with_usage) std::cerr << "\n" << flags_.Usage();
  return kExitUsage;
}

int Command::Failure(std::string_view message) {
  std::cerr << "Error: " << message << "\n";
  return kExitFailure;
}

std::string Command::Help() const {
  std::string out = description_;
  while (out.ends_with('\n')) out.pop_back();
  return out + "\n\n" + flags_.Usage();
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

// What every ksched command shares: its flags, its help, and how it ends.
// Exit statuses are kubectl's: 0 done, 1 a failure at run time, 2 a usage
// error (a flag or argument the command cannot take), with
// `simulate --fail-on-unschedulable`'s 3 beside them. Help goes to stdout
// and exits 0; every error goes to stderr as "Error: ...".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/flags.h"

namespace ksched::cmd {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitUnschedulable = 3;

class Command {
 public:
  // `usage_line`: "ksched simulate (--cluster FILE | ...) [flags]";
  // `description`: what the command does, shown above its flags by -h.
  Command(std::string usage_line, std::string description);

  util::FlagSet& flags() { return flags_; }

  // Parses the command's arguments. The positional ones, or std::nullopt
  // when the command is done already: -h (help printed, *exit_status 0)
  // or a flag it cannot parse (error and usage printed, 2).
  std::optional<std::vector<std::string>> Parse(
      const std::vector<std::string>& args, int* exit_status);

  // "Error: <message>" on stderr, with the usage below it when asked;
  // returns kExitUsage.
  int UsageError(std::string_view message, bool with_usage = false) const;
  // "Error: <message>" on stderr; returns kExitFailure.
  static int Failure(std::string_view message);

  std::string Help() const;

 private:
  std::string description_;
  util::FlagSet flags_;
};

// A command the binary runs, for the top-level help and `help COMMAND`.
struct CommandEntry {
  std::string_view name;
  std::string_view summary;
};

// The commands, in the order help lists them.
const std::vector<CommandEntry>& Commands();

// "Commands:\n  simulate   ...\n" for `program`'s top-level help.
std::string CommandList(std::string_view program);

// "Error: unknown command "x" for "ksched"" and the command list on stderr;
// returns kExitUsage.
int UnknownCommand(std::string_view program, std::string_view command);

}  // namespace ksched::cmd

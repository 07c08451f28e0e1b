// ksched: a Kubernetes scheduler and scheduler extender.
//
//   ksched [--config FILE] [--kubeconfig FILE] [--leader-elect] [--v N]
//   ksched simulate --cluster FILE [--config FILE] [--output table|json]
//   ksched explain [NAMESPACE/]POD [--kubeconfig FILE] [-o table|json|yaml]
//   ksched help [COMMAND]
//   kubectl ksched explain POD -n NAMESPACE (the binary as kubectl-ksched)
//   ksched version (or --version)
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cmd/ksched/command.h"
#include "cmd/ksched/explain_command.h"
#include "cmd/ksched/run_command.h"
#include "cmd/ksched/simulate_command.h"
#include "pkg/client/tls_trust.h"
#include "pkg/util/malloc_arenas.h"

namespace ksched::cmd {
namespace {

// Run as kubectl-ksched (a symlink or a copy on the PATH), the binary is
// the kubectl plugin `kubectl ksched`: the same commands, kubectl's name.
std::string ProgramName(const char* argv0) {
  std::string_view path(argv0 == nullptr ? "" : argv0);
  if (auto slash = path.rfind('/'); slash != std::string_view::npos) {
    path.remove_prefix(slash + 1);
  }
  return path == "kubectl-ksched" ? "kubectl ksched" : "ksched";
}

int Main(const std::vector<std::string>& args, const std::string& program) {
  const std::string command = args.empty() ? "" : args[0];
  const std::vector<std::string> rest =
      args.empty() ? args
                   : std::vector<std::string>(args.begin() + 1, args.end());
  if (command == "simulate") return RunSimulate(rest, program);
  if (command == "explain") return RunExplain(rest, program);
  if (command == "version") {
    std::cout << "ksched " << KSCHED_VERSION << "\n";
    return kExitOk;
  }
  if (command == "help") {
    // help [COMMAND]: the command's own -h.
    if (rest.empty()) return Main({"--help"}, program);
    if (rest.size() > 1) {
      std::cerr << "Error: help takes one command, not " << rest.size() << "\n";
      return kExitUsage;
    }
    if (rest[0] == "help" || rest[0] == "version") {
      for (const CommandEntry& c : Commands()) {
        if (c.name == rest[0]) {
          std::cout << program << " " << c.name << ": " << c.summary << "\n";
        }
      }
      return kExitOk;
    }
    if (rest[0] != "simulate" && rest[0] != "explain") {
      return UnknownCommand(program, rest[0]);
    }
    return Main({rest[0], "--help"}, program);
  }
  if (program != "ksched") {
    // As a kubectl plugin the scheduler itself is not what anyone runs.
    if (command.empty() || command == "-h" || command == "--help") {
      std::cout << "Usage:\n  " << program << " COMMAND [flags]\n\n"
                << CommandList(program);
      return kExitOk;
    }
    return UnknownCommand(program, command);
  }
  return RunScheduler(args);
}

}  // namespace
}  // namespace ksched::cmd

int main(int argc, char** argv) {
  // While the process has one thread (see tls_trust.h, malloc_arenas.h).
  ksched::client::DeferDefaultTlsTrust();
  ksched::util::LimitMallocArenas();
  try {
    return ksched::cmd::Main(std::vector<std::string>(argv + 1, argv + argc),
                             ksched::cmd::ProgramName(argv[0]));
  } catch (const std::exception& e) {
    // Every expected failure is reported as a value; this is a bug.
    std::cerr << "ksched: internal error: " << e.what() << "\n";
    return 70;
  }
}

// ksched: a Kubernetes scheduler and scheduler extender.
//
//   ksched [--config FILE] [--kubeconfig FILE] [--leader-elect] [--v N]
//   ksched simulate --cluster FILE [--config FILE] [--output table|json]
//   ksched explain [NAMESPACE/]POD [--kubeconfig FILE] [-o table|json|yaml]
//   kubectl ksched explain POD -n NAMESPACE (the binary as kubectl-ksched)
//   ksched version (or --version)
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cmd/ksched/explain_command.h"
#include "cmd/ksched/run_command.h"
#include "cmd/ksched/simulate_command.h"
#include "pkg/client/tls_trust.h"

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
  if (!args.empty() && args[0] == "simulate") {
    return RunSimulate({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "explain") {
    return RunExplain({args.begin() + 1, args.end()}, program);
  }
  if (!args.empty() && args[0] == "version") {
    std::cout << "ksched " << KSCHED_VERSION << "\n";
    return 0;
  }
  if (program != "ksched") {
    // As a kubectl plugin the scheduler itself is not what anyone runs.
    const bool help = args.empty() || args[0] == "-h" || args[0] == "--help";
    (help ? std::cout : std::cerr)
        << (help ? "" : "Error: unknown command " + args[0] + "\n")
        << "Usage:\n  " << program
        << " explain [NAMESPACE/]POD [-n NAMESPACE] [-o table|json|yaml]\n  "
        << program << " simulate --cluster FILE [--explain [POD...]]\n  "
        << program << " version\n";
    return help ? 0 : 2;
  }
  return RunScheduler(args);
}

}  // namespace
}  // namespace ksched::cmd

int main(int argc, char** argv) {
  // While the process has one thread (see tls_trust.h).
  ksched::client::DeferDefaultTlsTrust();
  try {
    return ksched::cmd::Main(std::vector<std::string>(argv + 1, argv + argc),
                             ksched::cmd::ProgramName(argv[0]));
  } catch (const std::exception& e) {
    // Every expected failure is reported as a value; this is a bug.
    std::cerr << "ksched: internal error: " << e.what() << "\n";
    return 70;
  }
}

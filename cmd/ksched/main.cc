// ksched: a Kubernetes scheduler and scheduler extender.
//
//   ksched [--config FILE] [--kubeconfig FILE] [--leader-elect] [--v N]
//   ksched simulate --cluster FILE [--config FILE] [--output table|json]
//   ksched version (or --version)
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cmd/ksched/run_command.h"
#include "cmd/ksched/simulate_command.h"
#include "pkg/client/tls_trust.h"

namespace ksched::cmd {
namespace {

int Main(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "simulate") {
    return RunSimulate({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "version") {
    std::cout << "ksched " << KSCHED_VERSION << "\n";
    return 0;
  }
  return RunScheduler(args);
}

}  // namespace
}  // namespace ksched::cmd

int main(int argc, char** argv) {
  // While the process has one thread (see tls_trust.h).
  ksched::client::DeferDefaultTlsTrust();
  try {
    return ksched::cmd::Main(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    // Every expected failure is reported as a value; this is a bug.
    std::cerr << "ksched: internal error: " << e.what() << "\n";
    return 70;
  }
}

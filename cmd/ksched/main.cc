// ksched: a Kubernetes scheduler and scheduler extender.
//
//   ksched [--config FILE] [--kubeconfig FILE] [--leader-elect] [--v N]
//   ksched simulate --cluster FILE [--config FILE] [--output table|json]
//   ksched version
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cmd/ksched/simulate_command.h"
#include "cmd/ksched/startup_report.h"
#include "pkg/plugins/registry.h"
#include "pkg/util/flags.h"

namespace ksched::cmd {
namespace {

constexpr const char* kDescription =
    "ksched schedules pods whose spec.schedulerName is one of its profiles, "
    "with kube-scheduler's\nframework and plugins, and serves the "
    "kube-scheduler extender API.\n\n"
    "Commands:\n"
    "  simulate   schedule the pending pods of a manifest file, without an "
    "API server\n"
    "  version    print the version\n\n";

int RunScheduler(const std::vector<std::string>& args) {
  std::string config_path;
  std::string kubeconfig;
  bool leader_elect = true;
  int64_t verbosity = 0;
  util::FlagSet flags("ksched [command] [flags]");
  flags.String("config", &config_path,
               "Path to a KubeSchedulerConfiguration file");
  flags.String("kubeconfig", &kubeconfig,
               "Path to a kubeconfig (default: $KUBECONFIG, then "
               "~/.kube/config, then in-cluster)");
  flags.Bool("leader-elect", &leader_elect,
             "Elect a leader through a Lease before scheduling");
  flags.Int("v", &verbosity, "Log verbosity");
  auto positional = flags.Parse(args);
  if (!positional.ok()) {
    std::cerr << "Error: " << positional.error().message() << "\n\n"
              << flags.Usage();
    return 2;
  }
  if (flags.help_requested()) {
    std::cout << kDescription << flags.Usage();
    return 0;
  }
  if (!positional->empty()) {
    std::cerr << "Error: unknown command \"" << positional->front() << "\"\n\n"
              << kDescription;
    return 2;
  }

  framework::Registry registry = plugins::NewInTreeRegistry();
  auto cfg = LoadConfiguration(config_path, registry);
  if (!cfg.ok()) {
    std::cerr << "Error: " << cfg.error().message() << "\n";
    return 1;
  }
  for (const std::string& note : StartupNotes(*cfg)) {
    std::cerr << "note: " << note << "\n";
  }
  std::cerr << "Error: scheduling against an API server is not part of this "
               "build yet; `ksched simulate` schedules manifests in-process\n";
  return 1;
}

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
  try {
    return ksched::cmd::Main(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    // Every expected failure is reported as a value; this is a bug.
    std::cerr << "ksched: internal error: " << e.what() << "\n";
    return 70;
  }
}

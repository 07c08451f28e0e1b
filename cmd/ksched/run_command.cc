#include "cmd/ksched/run_command.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cmd/ksched/startup_report.h"
#include "pkg/apiwriter/rest_writer.h"
#include "pkg/client/cpprest_threads.h"
#include "pkg/client/cpprest_transport.h"
#include "pkg/client/kubeconfig.h"
#include "pkg/client/rest_client.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/cluster_informers.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/util/cancellation.h"
#include "pkg/util/clock.h"
#include "pkg/util/flags.h"
#include "pkg/util/logger.h"

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

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// kubectl's order: --kubeconfig (or the configuration's
// clientConnection.kubeconfig), $KUBECONFIG, ~/.kube/config; in a pod
// without any of them, the service account.
util::Result<client::RestConfig> ClusterConfig(const std::string& kubeconfig,
                                               const std::string& context) {
  client::KubeconfigSources sources{.explicit_path = kubeconfig,
                                    .context = context,
                                    .kubeconfig_env = Env("KUBECONFIG"),
                                    .home = Env("HOME")};
  std::error_code ec;
  const bool home_config =
      !sources.home.empty() &&
      std::filesystem::exists(sources.home + "/.kube/config", ec);
  if (kubeconfig.empty() && sources.kubeconfig_env.empty() && !home_config &&
      !Env("KUBERNETES_SERVICE_HOST").empty()) {
    return client::InClusterConfig(
        {.service_host = Env("KUBERNETES_SERVICE_HOST"),
         .service_port = Env("KUBERNETES_SERVICE_PORT")});
  }
  return client::LoadKubeconfig(sources);
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

void LogAttempt(util::Logger& log, const scheduler::AttemptOutcome& o) {
  using Result = scheduler::AttemptOutcome::Result;
  switch (o.result) {
    case Result::kScheduled:
      log.Info(2, "Successfully bound pod to node pod=\"" + o.pod +
                      "\" node=\"" + o.node + "\" profile=\"" + o.profile +
                      "\"");
      break;
    case Result::kUnschedulable:
      log.Info(2, "Unable to schedule pod; no fit; waiting pod=\"" + o.pod +
                      "\" err=\"" + o.message + "\"");
      break;
    case Result::kError:
      log.Warning("Error scheduling pod; retrying pod=\"" + o.pod +
                  "\" err=\"" + o.message + "\"");
      break;
  }
}

// Waits for SIGTERM or SIGINT (blocked in every thread, so only this one
// takes them) and then cancels `stop`; also ends when `stop` fires.
class SignalWatcher {
 public:
  explicit SignalWatcher(util::Cancellation& stop, util::Logger& log)
      : thread_([&stop, &log] {
          sigset_t set;
          sigemptyset(&set);
          sigaddset(&set, SIGTERM);
          sigaddset(&set, SIGINT);
          const timespec tick{0, 200 * 1000 * 1000};
          while (!stop.cancelled()) {
            const int sig = sigtimedwait(&set, nullptr, &tick);
            if (sig == SIGTERM || sig == SIGINT) {
              log.Info(0, std::string("received ") +
                              (sig == SIGTERM ? "SIGTERM" : "SIGINT") +
                              ", shutting down");
              stop.Cancel();
            }
          }
        }) {}
  ~SignalWatcher() { thread_.join(); }

  // Call before any other thread starts, so they inherit the mask.
  static void BlockTerminationSignals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
  }

 private:
  std::thread thread_;
};

}  // namespace

int RunScheduler(const std::vector<std::string>& args) {
  std::string config_path;
  std::string kubeconfig;
  std::string context;
  bool leader_elect = false;
  int64_t verbosity = 0;
  int64_t binding_workers = 16;
  util::FlagSet flags("ksched [command] [flags]");
  flags.String("config", &config_path,
               "Path to a KubeSchedulerConfiguration file");
  flags.String("kubeconfig", &kubeconfig,
               "Path to a kubeconfig (default: $KUBECONFIG, then "
               "~/.kube/config, then in-cluster)");
  flags.String("context", &context,
               "The kubeconfig context to use (default: its current-context)");
  flags.Bool("leader-elect", &leader_elect,
             "Elect a leader through a Lease before scheduling");
  flags.Int("binding-workers", &binding_workers,
            "Binding cycles run at once (Binding POSTs in flight)");
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
  if (binding_workers < 1 || binding_workers > 1024) {
    std::cerr << "Error: --binding-workers must be between 1 and 1024\n";
    return 2;
  }

  util::StderrLogger log(static_cast<int>(verbosity));
  framework::Registry registry = plugins::NewInTreeRegistry();
  auto cfg = LoadConfiguration(config_path, registry);
  if (!cfg.ok()) {
    std::cerr << "Error: " << cfg.error().message() << "\n";
    return 1;
  }
  for (const std::string& note : StartupNotes(*cfg))
    log.Info(0, "note: " + note);
  if (leader_elect) {
    log.Warning(
        "leader election is not available in this build: scheduling as the "
        "only replica (run one replica)");
  }
  const std::string kubeconfig_path =
      kubeconfig.empty() ? cfg->client_connection.kubeconfig : kubeconfig;
  auto rest_config = ClusterConfig(kubeconfig_path, context);
  if (!rest_config.ok()) {
    std::cerr << "Error: " << rest_config.error().message() << "\n";
    return 1;
  }
  if (rest_config->insecure_skip_tls_verify) {
    log.Warning(
        "insecure-skip-tls-verify is set: the API server's "
        "certificate is not verified");
  }

  SignalWatcher::BlockTerminationSignals();
  client::ConfigureCpprestThreads(client::DefaultCpprestThreads());
  util::RealClock clock;
  util::DefaultRandom random;
  auto transport = client::CpprestTransport::Create(*rest_config, clock, {});
  // A watch may be quiet for long; the server ends it within 10 minutes.
  auto stream_transport = client::CpprestTransport::Create(
      *rest_config, clock, {.timeout = std::chrono::seconds(660)});
  if (!transport.ok() || !stream_transport.ok()) {
    std::cerr << "Error: "
              << (transport.ok() ? stream_transport.error() : transport.error())
                     .message()
              << "\n";
    return 1;
  }
  client::RestClient api(
      std::move(*transport), clock, random,
      [](util::Clock::Duration d) { std::this_thread::sleep_for(d); },
      {.qps = cfg->client_connection.qps,
       .burst = cfg->client_connection.burst});
  api.UseStreamTransport(std::move(*stream_transport));
  apiwriter::RestWriter writer(api, clock, log, {.host = HostName()});
  framework::InMemoryClusterObjects objects;

  std::unique_ptr<scheduler::ClusterInformers> informers;
  scheduler::Scheduler::Dependencies deps;
  deps.clock = &clock;
  deps.random = &random;
  deps.binder = &writer;
  deps.writer = &writer;
  deps.objects = &objects;
  deps.pod_lookup = [&informers](const std::string& ns,
                                 const std::string& name) {
    return informers->GetPod(ns, name);
  };
  deps.binding_workers = static_cast<int>(binding_workers);
  deps.on_attempt = [&log](const scheduler::AttemptOutcome& o) {
    LogAttempt(log, o);
  };
  auto sched = scheduler::Scheduler::Create(*cfg, registry, std::move(deps));
  if (!sched.ok()) {
    std::cerr << "Error: " << sched.error().message() << "\n";
    return 1;
  }
  scheduler::Scheduler& s = **sched;
  informers = std::make_unique<scheduler::ClusterInformers>(api, s, objects,
                                                            log, random);

  util::Cancellation stop;
  SignalWatcher signals(stop, log);
  auto close_queue = stop.OnCancel([&s] { s.Stop(); });
  log.Info(0, "ksched " KSCHED_VERSION " connecting to " + rest_config->server);
  informers->Start();
  if (!informers->WaitForSync(stop)) return 0;
  log.Info(0, "caches synced: " + std::to_string(informers->nodes().size()) +
                  " nodes, " + std::to_string(informers->pods().size()) +
                  " pods; scheduling");

  std::thread ticker([&] {
    while (!stop.WaitFor(std::chrono::seconds(1))) s.Tick();
  });
  while (s.ScheduleOne()) {
  }
  stop.Cancel();
  ticker.join();
  s.WaitForBindings();
  writer.FlushEvents();
  log.Info(0, "stopped");
  return 0;
}

}  // namespace ksched::cmd

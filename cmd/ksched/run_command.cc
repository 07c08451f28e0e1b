#include "cmd/ksched/run_command.h"

#include <prometheus/registry.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cmd/ksched/cluster_config.h"
#include "cmd/ksched/command.h"
#include "cmd/ksched/debug_explain.h"
#include "cmd/ksched/secure_serving.h"
#include "cmd/ksched/startup_report.h"
#include "cmd/ksched/version_flags.h"
#include "pkg/apiwriter/rest_writer.h"
#include "pkg/auth/delegating_authorizer.h"
#include "pkg/auth/rest_reviewer.h"
#include "pkg/client/cpprest_threads.h"
#include "pkg/client/cpprest_transport.h"
#include "pkg/client/discovery.h"
#include "pkg/client/kubeconfig.h"
#include "pkg/client/rest_client.h"
#include "pkg/client/split_transport.h"
#include "pkg/config/feature_gates.h"
#include "pkg/extender/server.h"
#include "pkg/extender/service.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/http/open_files.h"
#include "pkg/informer/informer.h"
#include "pkg/leader/elector.h"
#include "pkg/leader/guarded_binder.h"
#include "pkg/leader/rest_lease_lock.h"
#include "pkg/metrics/health_checks.h"
#include "pkg/metrics/ksched_metrics.h"
#include "pkg/metrics/metrics_server.h"
#include "pkg/metrics/scheduler_metrics.h"
#include "pkg/metrics/timed_binder.h"
#include "pkg/plugins/coscheduling/pod_group_status_controller.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/cluster_informers.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/util/cancellation.h"
#include "pkg/util/clock.h"
#include "pkg/util/flags.h"
#include "pkg/util/json_logger.h"
#include "pkg/util/logger.h"

namespace ksched::cmd {
namespace {

// How long a write to the API server may go unanswered: shorter than the
// graceful stop's bound on bindings, so every binding cycle under way can
// end within it.
constexpr std::chrono::seconds kWriteTimeout{10};
// A graceful stop (SIGTERM) waits this long for the binding cycles under
// way, then this long for the queued Events.
constexpr std::chrono::seconds kShutdownBindingsBound{15};
constexpr std::chrono::seconds kShutdownEventsBound{5};

// How long start-up waits for each discovery request (all go at once): an
// API server that does not answer costs this much, once.
constexpr std::chrono::seconds kDiscoveryTimeout{5};

// Start-up's lines about the API server: its version (and whether ksched
// should emulate an older kube-scheduler for it), what it does not serve,
// and, in one line, what could not be found out. That line is a warning
// only when the server answered with an error: a server that does not
// answer at all is one outage, which the informers report as their one
// warning.
void ReportDiscovery(util::Logger& log, const client::DiscoveryResult& found,
                     const config::FeatureGates& gates, bool pod_groups) {
  if (found.version) {
    log.Info(0, "the API server is " + found.version->String());
    if (auto note = client::VersionSkewNote(
            *found.version, gates.emulated_version().minor,
            config::kBinaryVersion.minor, config::kEmulationFloor.minor)) {
      log.Warning(*note);
    }
  }
  std::string unknown;
  std::string first_error;
  bool answered = !found.version && !found.version_no_answer;
  for (const std::string& path :
       scheduler::ClusterInformers::GroupVersionsToDiscover(pod_groups)) {
    const client::GroupVersionDiscovery* gv = found.served.Find(path);
    if (gv == nullptr ||
        gv->state != client::GroupVersionDiscovery::State::kUnknown) {
      continue;
    }
    unknown += (unknown.empty() ? "" : ", ") + path;
    if (first_error.empty()) first_error = gv->error;
    answered = answered || !gv->no_answer;
  }
  std::string line;
  if (!found.version && !unknown.empty()) {
    line =
        "could not read the API server's version nor find out what it "
        "serves at " +
        unknown + ": " + found.version_error +
        "; going on without them, watching those resources anyway";
  } else if (!found.version) {
    line = "could not read the API server's version: " + found.version_error +
           "; going on without it";
  } else if (!unknown.empty()) {
    line = "could not find out what the API server serves at " + unknown +
           " (" + first_error + "); watching their resources anyway";
  }
  if (!line.empty()) {
    if (answered) {
      log.Warning(line);
    } else {
      log.Info(0, line);
    }
  }
  for (const std::string& note :
       scheduler::ClusterInformers::NotServedNotes(found.served, pod_groups)) {
    log.Info(0, note);
  }
}

// Above the scheduler's flags in `ksched --help`.
std::string Description() {
  return "ksched schedules pods whose spec.schedulerName is one of its "
         "profiles, with kube-scheduler's\nframework and plugins, and serves "
         "the kube-scheduler extender API. Run without a\ncommand, it is the "
         "scheduler. It decides as kube-scheduler v" +
         config::kBinaryVersion.String() +
         "\n(--emulated-version: as an older one, back to v" +
         config::kEmulationFloor.String() + ").\n\n" + CommandList("ksched");
}

// The extender's default profile is the first one unless named; every
// profile a route names must exist.
std::string CheckExtenderProfiles(const config::KubeSchedulerConfiguration& cfg,
                                  extender::RouteTable* routes) {
  auto known = [&cfg](const std::string& name) {
    for (const config::Profile& p : cfg.profiles) {
      if (p.scheduler_name == name) return true;
    }
    return false;
  };
  if (routes->default_profile.empty() && !cfg.profiles.empty()) {
    routes->default_profile = cfg.profiles.front().scheduler_name;
  }
  if (!known(routes->default_profile)) {
    return "--extender-default-profile: no profile \"" +
           routes->default_profile + "\"";
  }
  for (const auto& [prefix, profile] : routes->prefixes) {
    if (!known(profile)) {
      return "--extender-profiles: " + prefix + " names no profile \"" +
             profile + "\"";
    }
  }
  return "";
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

// The attempt in kube-scheduler's metrics.
void RecordAttempt(metrics::SchedulerMetrics& m,
                   const scheduler::AttemptOutcome& o) {
  using Result = scheduler::AttemptOutcome::Result;
  const char* result = o.result == Result::kScheduled       ? "scheduled"
                       : o.result == Result::kUnschedulable ? "unschedulable"
                                                            : "error";
  m.ObserveAttempt(result, o.profile,
                   std::chrono::duration<double>(o.duration).count());
  if (o.result == Result::kScheduled) {
    m.ObserveScheduled(
        o.attempts,
        std::chrono::duration<double>(o.since_first_queued).count());
    if (o.after_flush) m.ObserveScheduledAfterFlush();
  }
}

// The extender server's counts as ksched_extender_* families.
std::vector<prometheus::MetricFamily> ExtenderFamilies(
    const std::map<std::string, extender::ExtenderServer::VerbStats>& stats) {
  std::vector<std::pair<std::map<std::string, std::string>, double>> requests,
      errors;
  std::vector<metrics::HistogramSnapshot> latency;
  const auto& bounds = extender::ExtenderServer::kLatencyBuckets;
  for (const auto& [verb, s] : stats) {
    for (const auto& [code, n] : s.by_code) {
      requests.push_back({{{"verb", verb}, {"code", std::to_string(code)}},
                          static_cast<double>(n)});
    }
    if (verb.empty()) continue;  // refused before a verb was known
    if (verb == "filter" || verb == "bind") {
      errors.push_back({{{"verb", verb}}, static_cast<double>(s.errors)});
    }
    latency.push_back(
        {{{"verb", verb}},
         std::vector<double>(bounds.begin(), bounds.end()),
         std::vector<int64_t>(s.latency_counts.begin(), s.latency_counts.end()),
         s.latency_sum_seconds});
  }
  return {
      metrics::CounterFamily(
          "ksched_extender_requests_total",
          "Extender API requests answered, by verb and HTTP code.", requests),
      metrics::CounterFamily(
          "ksched_extender_errors_total",
          "Extender answers (HTTP 200) whose Error is set, by verb: a filter "
          "that could not run, a Binding that failed.",
          errors),
      metrics::HistogramFamily(
          "ksched_extender_request_duration_seconds",
          "Extender API request latency in seconds, by verb.", latency)};
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
  bool leader_elect = true;
  int64_t verbosity = 0;
  std::string logging_format = "text";
  int64_t binding_workers = 16;
  metrics::MetricsServerOptions metrics_options;
  // Plain HTTP only when asked for; the secure port serves by default.
  metrics_options.bind_address = "";
  SecureServingFlags secure;
  std::string extender_auth = "none";
  extender::ServerOptions extender_options;
  std::string extender_profiles;
  int64_t extender_max_body =
      static_cast<int64_t>(extender_options.max_body_bytes);
  bool print_version = false;
  Command command("ksched [command] [flags]", Description());
  util::FlagSet& flags = command.flags();
  flags.Bool("version", &print_version,
             "Print the version and exit, as kube components do");
  flags.String("config", &config_path,
               "Path to a KubeSchedulerConfiguration file");
  flags.String("kubeconfig", &kubeconfig,
               "Path to a kubeconfig (default: $KUBECONFIG, then "
               "~/.kube/config, then in-cluster)");
  flags.String("context", &context,
               "The kubeconfig context to use (default: its current-context)");
  flags.Bool("leader-elect", &leader_elect,
             "Elect a leader through a Lease before scheduling, when the "
             "configuration's leaderElection.leaderElect is on too; "
             "--leader-elect=false turns it off");
  flags.Int("binding-workers", &binding_workers,
            "Binding cycles run at once (Binding POSTs in flight)");
  flags.Int("v", &verbosity, "Log verbosity");
  bool record_failed_decisions = false;
  flags.Bool("record-failed-decisions", &record_failed_decisions,
             "Run the cycle of a pod that fits nowhere again, recorded, and "
             "add to its FailedScheduling event the two plugins that "
             "rejected the most nodes and the node that came closest");
  VersionFlags version_flags;
  version_flags.Register(flags);
  flags.String("logging-format", &logging_format,
               "Log format: text (klog's) or json");
  secure.Register(flags);
  flags.String("metrics-bind-address", &metrics_options.bind_address,
               "HOST:PORT serving /metrics, /healthz, /livez and /readyz "
               "over plain HTTP, without authentication (e.g. "
               "0.0.0.0:10251); empty: none");
  flags.String("metrics-tls-cert-file", &metrics_options.tls_cert_file,
               "PEM certificate chain: /metrics and the health checks over "
               "HTTPS");
  flags.String("metrics-tls-private-key-file", &metrics_options.tls_key_file,
               "PEM private key of --metrics-tls-cert-file");
  flags.String("extender-bind-address", &extender_options.bind_address,
               "HOST:PORT the extender API listens on; empty: no extender");
  flags.String("extender-default-profile",
               &extender_options.routes.default_profile,
               "Profile answering the verbs at the root (/filter, ...); "
               "default: the first profile");
  flags.String("extender-profiles", &extender_profiles,
               "More prefixes and the profile answering under each, "
               "PREFIX=PROFILE,... (e.g. /ksched/gpu=gpu); /<profile>/<verb> "
               "always works");
  flags.String("extender-filter-verb", &extender_options.routes.filter_verb,
               "Path of filter under a prefix (the entry's filterVerb)");
  flags.String("extender-prioritize-verb",
               &extender_options.routes.prioritize_verb,
               "Path of prioritize (prioritizeVerb)");
  flags.String("extender-bind-verb", &extender_options.routes.bind_verb,
               "Path of bind (bindVerb)");
  flags.String("extender-preempt-verb", &extender_options.routes.preempt_verb,
               "Path of preempt (preemptVerb)");
  flags.Int("extender-max-body-bytes", &extender_max_body,
            "Largest request body the extender reads");
  flags.String("extender-tls-cert-file", &extender_options.tls_cert_file,
               "PEM certificate chain: the extender serves HTTPS");
  flags.String("extender-tls-private-key-file", &extender_options.tls_key_file,
               "PEM private key of --extender-tls-cert-file");
  flags.String("extender-client-ca-file", &extender_options.client_ca_file,
               "PEM CA bundle: clients must present a certificate it signed");
  flags.String("extender-auth", &extender_auth,
               "Who may call the extender: none (anyone who reaches the "
               "port, or whoever has a certificate --extender-client-ca-file "
               "signed), or token (a bearer token the API server "
               "authenticates, authorized by a SubjectAccessReview)");
  flags.Bool("extender-bind-enabled", &extender_options.bind_enabled,
             "Serve the extender's bind verb (it writes Bindings); off, "
             "its path is a 404");
  int exit_status = kExitOk;
  auto positional = command.Parse(args, &exit_status);
  if (!positional) return exit_status;
  if (print_version) {
    std::cout << "ksched " << KSCHED_VERSION << "\n";
    return kExitOk;
  }
  if (!positional->empty())
    return UnknownCommand("ksched", positional->front());
  std::vector<std::string> gate_warnings;
  auto gates = version_flags.Gates(&gate_warnings);
  if (!gates.ok()) {
    for (const std::string& w : gate_warnings) {
      std::cerr << "warning: " << w << "\n";
    }
    std::cerr << "Error: " << gates.error().message() << "\n";
    return kExitUsage;
  }
  if (binding_workers < 1 || binding_workers > 1024) {
    std::cerr << "Error: --binding-workers must be between 1 and 1024\n";
    return kExitUsage;
  }
  if (extender_max_body < 1024) {
    std::cerr << "Error: --extender-max-body-bytes must be at least 1024\n";
    return kExitUsage;
  }
  extender_options.max_body_bytes = static_cast<size_t>(extender_max_body);
  if (extender_auth != "none" && extender_auth != "token") {
    std::cerr << "Error: --extender-auth must be none or token\n";
    return kExitUsage;
  }
  if (extender_auth == "token" && !extender_options.client_ca_file.empty()) {
    std::cerr << "Error: --extender-auth=token and --extender-client-ca-file "
                 "are two ways to authenticate the extender's clients; "
                 "choose one\n";
    return kExitUsage;
  }
  {
    std::string error;
    auto prefixes = extender::ParsePrefixes(extender_profiles, &error);
    if (!prefixes.has_value()) {
      std::cerr << "Error: --extender-profiles: " << error << "\n";
      return kExitUsage;
    }
    extender_options.routes.prefixes = std::move(*prefixes);
  }

  if (logging_format != "text" && logging_format != "json") {
    std::cerr << "Error: --logging-format must be text or json\n";
    return kExitUsage;
  }
  util::StderrLogger text_log(static_cast<int>(verbosity));
  util::JsonLogger json_log(static_cast<int>(verbosity));
  util::Logger& log = logging_format == "json"
                          ? static_cast<util::Logger&>(json_log)
                          : static_cast<util::Logger&>(text_log);
  // kube logs its gate warnings as it parses the flags; here, once the
  // log's format is known.
  for (const std::string& w : gate_warnings) log.Warning(w);
  // One start-up line says what ksched decides as, including the gates
  // kube would have on that ksched keeps off.
  std::string decides_as = DecidesAs(*gates);
  if (auto note = NotInEffectNote(*gates)) decides_as += "; " + *note;
  log.Info(0, decides_as);
  // Connections to the extender and metrics ports each hold a descriptor.
  if (auto files = http::RaiseOpenFileLimit(); !files.ok()) {
    log.Warning(files.error().message());
  } else if (files->after != files->before) {
    log.Info(2, "open file limit raised from " + std::to_string(files->before) +
                    " to " + std::to_string(files->after));
  }
  framework::Registry registry = plugins::NewInTreeRegistry();
  auto cfg = LoadConfiguration(config_path, registry, *gates);
  if (!cfg.ok()) {
    std::cerr << "Error: " << cfg.error().message() << "\n";
    return kExitFailure;
  }
  for (const std::string& note : StartupNotes(*cfg))
    log.Info(0, "note: " + note);
  if (auto e = CheckExtenderProfiles(*cfg, &extender_options.routes);
      !e.empty()) {
    std::cerr << "Error: " << e << "\n";
    return kExitFailure;
  }
  const bool elect = leader_elect && cfg->leader_election.leader_elect;
  const std::string kubeconfig_path =
      kubeconfig.empty() ? cfg->client_connection.kubeconfig : kubeconfig;
  auto rest_config = ClusterConfig(kubeconfig_path, context);
  if (!rest_config.ok()) {
    std::cerr << "Error: " << rest_config.error().message() << "\n";
    return kExitFailure;
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
  auto read_transport =
      client::CpprestTransport::Create(*rest_config, clock, {});
  // Writes (Bindings, Events, status patches, deletes) are given up sooner
  // than reads: an API server that holds them unanswered (its etcd down)
  // must not hold a graceful stop past its bound.
  auto write_transport = client::CpprestTransport::Create(
      *rest_config, clock, {.timeout = kWriteTimeout});
  // A watch may be quiet for long; the server ends it within 10 minutes.
  auto stream_transport = client::CpprestTransport::Create(
      *rest_config, clock, {.timeout = std::chrono::seconds(660)});
  for (const auto* t : {&read_transport, &write_transport, &stream_transport}) {
    if (!t->ok()) return Command::Failure(t->error().message());
  }
  std::unique_ptr<client::Transport> transport =
      std::make_unique<client::SplitTransport>(std::move(*read_transport),
                                               std::move(*write_transport));
  prometheus::Registry metrics_registry;
  metrics::SchedulerMetrics scheduler_metrics(
      metrics_registry,
      gates->Enabled(config::Feature::kSchedulerAsyncPreemption));
  metrics::KschedMetrics ksched_metrics(metrics_registry);
  auto observe_request = [&ksched_metrics](const client::RequestRecord& r) {
    const bool watch = r.request.path.find("watch=true") != std::string::npos;
    ksched_metrics.ObserveApiRequest(
        watch ? "WATCH" : r.request.method,
        client::ResourceOfPath(r.request.path), r.code,
        std::chrono::duration<double>(r.duration).count());
  };
  auto sleep = [](util::Clock::Duration d) { std::this_thread::sleep_for(d); };
  client::RestClient api(std::move(transport), clock, random, sleep,
                         {.qps = cfg->client_connection.qps,
                          .burst = cfg->client_connection.burst,
                          .observer = observe_request});
  api.UseStreamTransport(std::move(*stream_transport));
  // Delegated authentication and authorization (the secure port, and the
  // extender with --extender-auth=token) ask the API server through a
  // client of their own, with kube's higher limits for it (QPS 200, burst
  // 400): its answers hold up the requests waiting on them.
  std::unique_ptr<client::RestClient> review_api;
  std::unique_ptr<auth::RestReviewer> reviewer;
  std::unique_ptr<auth::DelegatingAuthorizer> authorizer;
  if (secure.enabled() || extender_auth == "token") {
    auto review_transport = client::CpprestTransport::Create(
        *rest_config, clock, {.timeout = std::chrono::seconds(10)});
    if (!review_transport.ok()) {
      std::cerr << "Error: " << review_transport.error().message() << "\n";
      return kExitFailure;
    }
    review_api = std::make_unique<client::RestClient>(
        std::move(*review_transport), clock, random, sleep,
        client::RestClientOptions{
            .qps = 200, .burst = 400, .observer = observe_request});
    reviewer = std::make_unique<auth::RestReviewer>(*review_api);
    authorizer = std::make_unique<auth::DelegatingAuthorizer>(*reviewer, clock);
  }
  if (extender_auth == "token") extender_options.authorizer = authorizer.get();
  if (extender_options.bind_enabled && extender_auth == "none" &&
      extender_options.client_ca_file.empty() &&
      !extender_options.bind_address.empty()) {
    log.Warning(
        "the extender's bind verb is on and anyone who reaches " +
        extender_options.bind_address +
        " may use it: set --extender-auth=token or --extender-client-ca-file");
  }
  apiwriter::RestWriter writer(api, clock, log, {.host = HostName()});
  framework::InMemoryClusterObjects objects;
  dra::DraManager dra(gates->Enabled(config::Feature::kDRAConsumableCapacity));
  std::unique_ptr<scheduler::ClusterInformers> informers;
  scheduler::Scheduler::Dependencies deps;
  deps.clock = &clock;
  deps.random = &random;
  deps.features = *gates;
  deps.record_failed_decisions = record_failed_decisions;
  // Set once the elector exists; until then (and without election) every
  // binding may go out.
  std::unique_ptr<leader::LeaderElector> elector;
  metrics::TimedBinder timed_writer(
      writer, [&ksched_metrics](std::string_view result, double seconds) {
        ksched_metrics.ObserveBinding(result, "scheduler", seconds);
      });
  // The extender's bind: counted apart, and not held to this replica's
  // leadership (kube-scheduler decided it).
  metrics::TimedBinder extender_binder(
      writer, [&ksched_metrics](std::string_view result, double seconds) {
        ksched_metrics.ObserveBinding(result, "extender", seconds);
      });
  leader::GuardedBinder binder(timed_writer, [&elector] {
    return elector == nullptr || elector->IsLeader();
  });
  deps.binder = &binder;
  deps.writer = &writer;
  deps.objects = &objects;
  deps.dra = &dra;
  deps.pod_lookup = [&informers](const std::string& ns,
                                 const std::string& name) {
    return informers->GetPod(ns, name);
  };
  deps.binding_workers = static_cast<int>(binding_workers);
  deps.metrics = &scheduler_metrics;
  deps.on_incoming_pod = [&scheduler_metrics](std::string_view queue,
                                              std::string_view event) {
    scheduler_metrics.ObserveIncomingPod(queue, event);
  };
  deps.on_attempt = [&log,
                     &scheduler_metrics](const scheduler::AttemptOutcome& o) {
    LogAttempt(log, o);
    RecordAttempt(scheduler_metrics, o);
  };
  auto sched = scheduler::Scheduler::Create(*cfg, registry, std::move(deps));
  if (!sched.ok()) {
    std::cerr << "Error: " << sched.error().message() << "\n";
    return kExitFailure;
  }
  scheduler::Scheduler& s = **sched;
  informer::InformerOptions informer_options;
  informer_options.observer = [&ksched_metrics](const std::string& informer,
                                                const char* restart) {
    ksched_metrics.ObserveInformerRestart(informer, restart);
  };
  log.Info(0, "ksched " KSCHED_VERSION " connecting to " + rest_config->server);
  // What the API server is and serves, before anything is watched.
  client::DiscoveryResult discovered;
  {
    auto discovery_transport = client::CpprestTransport::Create(
        *rest_config, clock, {.timeout = kDiscoveryTimeout});
    if (!discovery_transport.ok()) {
      return Command::Failure(discovery_transport.error().message());
    }
    client::RestClient discovery_api(std::move(*discovery_transport), clock,
                                     random, sleep,
                                     {.qps = cfg->client_connection.qps,
                                      .burst = cfg->client_connection.burst,
                                      .observer = observe_request});
    discovered = client::Discover(
        discovery_api, scheduler::ClusterInformers::GroupVersionsToDiscover(
                           s.SchedulesGangs()));
  }
  ReportDiscovery(log, discovered, *gates, s.SchedulesGangs());
  dra.SetServed(
      discovered.served.Serves("/apis/resource.k8s.io/v1", "resourceclaims") &&
      discovered.served.Serves("/apis/resource.k8s.io/v1", "resourceslices") &&
      discovered.served.Serves("/apis/resource.k8s.io/v1", "deviceclasses"));
  informers = std::make_unique<scheduler::ClusterInformers>(
      api, s, objects, log, random, informer_options, s.SchedulesGangs(),
      &discovered.served, &dra);
  // The informers hand events to the scheduler from their own threads, so
  // they must stop before it is destroyed, on every way out of here. The
  // object itself outlives the scheduler, whose binding cycles may still
  // look pods up in its caches (resetting the pointer here once crashed an
  // informer thread that looked one up while the pointer was already null).
  struct StopInformersFirst {
    scheduler::ClusterInformers& informers;
    ~StopInformersFirst() { informers.Stop(); }
  } stop_informers_first{*informers};

  util::Cancellation stop;
  // Health as kube-scheduler reports it: live while the process runs,
  // ready once the informers synced and until shutdown begins.
  std::atomic<bool> synced{false};
  metrics::HealthChecks health;
  health.Add("ping", {"healthz", "livez", "readyz"},
             [] { return std::nullopt; });
  health.Add("sched-handler-sync", {"readyz"},
             [&synced]() -> std::optional<std::string> {
               if (synced) return std::nullopt;
               return "waiting for the informers to sync";
             });
  health.Add("shutdown", {"readyz"}, [&stop]() -> std::optional<std::string> {
    if (!stop.cancelled()) return std::nullopt;
    return "shutting down";
  });
  // The extender server, once it runs, for its counts in /metrics.
  std::atomic<extender::ExtenderServer*> extender_for_metrics{nullptr};
  metrics_options.extra_families = [&extender_for_metrics] {
    extender::ExtenderServer* server = extender_for_metrics.load();
    return server == nullptr ? std::vector<prometheus::MetricFamily>{}
                             : ExtenderFamilies(server->Stats());
  };
  std::unique_ptr<metrics::MetricsServer> metrics_server;
  std::unique_ptr<metrics::MetricsServer> secure_server;
  {
    metrics_options.before_scrape = [&s, &scheduler_metrics] {
      const auto pending = s.queue().PendingCounts();
      scheduler_metrics.SetPendingPods(
          static_cast<int64_t>(pending.active),
          static_cast<int64_t>(pending.backoff),
          static_cast<int64_t>(pending.unschedulable),
          static_cast<int64_t>(pending.gated));
      scheduler_metrics.SetUnschedulablePods(s.queue().UnschedulableReasons());
      const auto cached = s.cache().GetStats();
      scheduler_metrics.SetCacheSize(static_cast<int64_t>(cached.nodes),
                                     static_cast<int64_t>(cached.pods),
                                     static_cast<int64_t>(cached.assumed_pods));
    };
    if (secure.enabled()) {
      metrics::MetricsServerOptions secure_base = metrics_options;
      // Only behind authorization: an explanation shows the cluster.
      secure_base.handlers[kDebugExplainPath] = DebugExplainHandler(s);
      auto options = SecureServingOptions(secure, std::move(secure_base),
                                          authorizer.get(), HostName());
      if (!options.ok()) {
        std::cerr << "Error: " << options.error().message() << "\n";
        return kExitFailure;
      }
      auto server =
          metrics::MetricsServer::Start(*options, metrics_registry, health);
      if (!server.ok()) {
        std::cerr << "Error: " << server.error().message() << "\n";
        return kExitFailure;
      }
      secure_server = std::move(*server);
      log.Info(0, "serving securely on " + secure_server->url() +
                      (secure.tls_cert_file.empty()
                           ? " with a self-signed certificate"
                           : "") +
                      "; /metrics and /debug/explain need a token allowed to "
                      "get them");
    }
    if (!metrics_options.bind_address.empty()) {
      auto server = metrics::MetricsServer::Start(metrics_options,
                                                  metrics_registry, health);
      if (!server.ok()) {
        std::cerr << "Error: " << server.error().message() << "\n";
        return kExitFailure;
      }
      metrics_server = std::move(*server);
      log.Info(0, "metrics and health on " + metrics_server->url() +
                      ", without authentication");
    }
  }
  SignalWatcher signals(stop, log);
  auto close_queue = stop.OnCancel([&s] { s.Stop(); });
  informers->Start();
  if (!informers->WaitForSync(stop)) return 0;
  synced = true;
  // The informers listed side by side, each LIST on a connection of its
  // own (about 100 KB of TLS state each), and the watches hold their own
  // now: what is left in the pool would sit idle through the first
  // minute of scheduling, when the memory is needed most.
  api.CloseIdleConnections();

  // Every replica keeps its caches warm; only the leader schedules.
  std::unique_ptr<client::RestClient> lease_api;
  std::unique_ptr<leader::RestLeaseLock> lease_lock;
  std::thread renewer;
  if (elect) {
    const config::LeaderElection& le = cfg->leader_election;
    // As kube-scheduler: the lease has a client of its own, so a renewal
    // never waits behind bindings for the rate limiter, and a request of
    // it never outlasts the renew deadline. Each renewal is one attempt;
    // the elector tries again every retry period until the deadline.
    auto lease_transport = client::CpprestTransport::Create(
        *rest_config, clock,
        {.timeout = std::max(std::chrono::seconds(1),
                             std::chrono::duration_cast<std::chrono::seconds>(
                                 le.renew_deadline))});
    if (!lease_transport.ok()) {
      std::cerr << "Error: " << lease_transport.error().message() << "\n";
      return kExitFailure;
    }
    lease_api = std::make_unique<client::RestClient>(
        std::move(*lease_transport), clock, random, sleep,
        client::RestClientOptions{.qps = cfg->client_connection.qps,
                                  .burst = cfg->client_connection.burst,
                                  .backoff = {.max_retries = 0},
                                  .observer = observe_request});
    lease_lock = std::make_unique<leader::RestLeaseLock>(
        *lease_api, le.resource_namespace, le.resource_name);
    char unique[17];
    std::snprintf(unique, sizeof(unique), "%016llx",
                  static_cast<unsigned long long>(random.Intn(UINT64_MAX)));
    elector = std::make_unique<leader::LeaderElector>(
        *lease_lock, clock, random, log,
        leader::ElectionConfig{.identity = HostName() + "_" + unique,
                               .lease_duration = le.lease_duration,
                               .renew_deadline = le.renew_deadline,
                               .retry_period = le.retry_period},
        [&stop](util::Clock::Duration d) { return !stop.WaitFor(d); });
    health.Add("leaderElection", {"healthz", "livez"},
               [&elector] { return elector->Check(std::chrono::seconds(20)); });
    ksched_metrics.SetLeader(le.resource_name, false);
    log.Info(0, "leader election on lease " + le.resource_namespace + "/" +
                    le.resource_name);
    if (!elector->Acquire()) {
      log.Info(0, "stopped before becoming leader");
      return 0;
    }
    ksched_metrics.SetLeader(le.resource_name, true);
    renewer = std::thread([&] {
      if (elector->KeepRenewing()) return;
      ksched_metrics.SetLeader(cfg->leader_election.resource_name, false);
      // As kube-scheduler's OnStoppedLeading (klog.FlushAndExit): a replica
      // that lost the lease exits at once, non-zero, and writes nothing
      // more. A Binding in flight is abandoned (the server applies it
      // whole or not at all), queued Events are dropped; nothing waits on
      // an API server that may not answer (the loss is often its fault).
      const size_t bindings = s.BindingsInFlight();
      const size_t events = writer.DropUnsentEvents();
      log.Error("leaderelection lost: exiting now; abandoned " +
                std::to_string(bindings) + " binding cycles in flight, " +
                "dropped " + std::to_string(events) + " events");
      std::fflush(nullptr);
      std::_Exit(kExitFailure);
    });
  }
  log.Info(0, "caches synced: " + std::to_string(informers->nodes().size()) +
                  " nodes, " + std::to_string(informers->pods().size()) +
                  " pods; scheduling");

  // The extender answers from the same cache, so only once it is synced.
  std::unique_ptr<extender::ExtenderService> extender_service;
  std::unique_ptr<extender::ExtenderServer> extender_server;
  if (!extender_options.bind_address.empty()) {
    auto service = extender::ExtenderService::Create(
        *cfg, registry, s.cache(),
        {.clock = &clock,
         .objects = &objects,
         .pod_group_members = &s.pod_group_members(),
         .binder = &extender_binder,
         .pod_lookup =
             [&informers](const std::string& ns, const std::string& name) {
               return informers->GetPod(ns, name);
             },
         .features = *gates});
    if (!service.ok()) {
      std::cerr << "Error: " << service.error().message() << "\n";
      return kExitFailure;
    }
    extender_service = std::move(*service);
    auto server = extender::ExtenderServer::Start(*extender_service,
                                                  extender_options, log);
    if (!server.ok()) {
      std::cerr << "Error: " << server.error().message() << "\n";
      return kExitFailure;
    }
    extender_server = std::move(*server);
    extender_for_metrics = extender_server.get();
    log.Info(0, "extender API on " + extender_server->url() +
                    " (default profile " +
                    extender_options.routes.default_profile + ")");
  }

  // PodGroups' statuses, kept by the leader (the one that ticks).
  std::unique_ptr<plugins::coscheduling::PodGroupStatusController>
      pod_group_status;
  if (s.SchedulesGangs()) {
    pod_group_status =
        std::make_unique<plugins::coscheduling::PodGroupStatusController>(
            objects, informers->gang_members(), writer,
            [&s] { return s.WaitingByPodGroup(); },
            plugins::coscheduling::PodGroupStatusController::Options{
                .clock = &clock});
  }
  std::thread ticker([&] {
    while (!stop.WaitFor(std::chrono::seconds(1))) {
      s.Tick();
      if (pod_group_status != nullptr) pod_group_status->Sync();
    }
  });
  while (s.ScheduleOne()) {
  }
  stop.Cancel();
  ticker.join();
  // /metrics reads the extender's counts: it stops first.
  metrics_server.reset();
  secure_server.reset();
  extender_for_metrics = nullptr;
  extender_server.reset();
  if (renewer.joinable()) renewer.join();
  // A graceful stop: the bindings in flight get a bound, then the lease
  // is handed over and the Events written, each within a bound too.
  if (!s.WaitForBindings(kShutdownBindingsBound)) {
    log.Warning(
        "stopping without the binding cycles that did not finish "
        "within " +
        std::to_string(kShutdownBindingsBound.count()) + " s");
  }
  if (elector != nullptr) elector->Release();
  if (!writer.FlushEvents(kShutdownEventsBound)) {
    log.Warning("dropped " + std::to_string(writer.DropUnsentEvents()) +
                " events not written within " +
                std::to_string(kShutdownEventsBound.count()) + " s");
  }
  log.Info(0, "stopped");
  return 0;
}

}  // namespace ksched::cmd

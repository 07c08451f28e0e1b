#include "cmd/ksched/simulate_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "cmd/ksched/cluster_config.h"
#include "cmd/ksched/command.h"
#include "cmd/ksched/startup_report.h"
#include "cmd/ksched/version_flags.h"
#include "pkg/api/yaml.h"
#include "pkg/config/feature_gates.h"
#include "pkg/framework/pod_info.h"
#include "pkg/plugins/registry.h"
#include "pkg/simulator/changes.h"
#include "pkg/simulator/cluster.h"
#include "pkg/simulator/node_search.h"
#include "pkg/simulator/plan.h"
#include "pkg/simulator/progress.h"
#include "pkg/simulator/report.h"
#include "pkg/simulator/report_html.h"
#include "pkg/simulator/simulator.h"
#include "pkg/simulator/snapshot.h"
#include "pkg/simulator/workloads.h"
#include "pkg/util/clock.h"
#include "pkg/util/flags.h"

namespace ksched::cmd {
namespace {

// VmHWM from /proc/self/status, in MiB; 0 where it cannot be read.
double PeakRssMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
    }
  }
  return 0;
}

// Nodes added from a template without ResourceSlices have no devices: said
// when the cluster's nodes publish some, as the template is then most
// likely one of them written without its slices.
std::string TemplateWithoutDevices(const simulator::Cluster& cluster,
                                   const simulator::ClusterChanges& changes) {
  if (!simulator::TemplateSlices(cluster, changes).empty()) return "";
  std::set<std::string> with_devices;
  for (const api::ResourceSlice& s : cluster.resource_slices) {
    if (s.spec.node_name && !s.spec.devices.empty()) {
      with_devices.insert(*s.spec.node_name);
    }
  }
  if (with_devices.empty()) return "";
  const std::string& name = changes.node_template->metadata.name;
  return "--node-template " + name +
         ": no ResourceSlices in its file, nor published for a node " + name +
         " in the cluster: nodes added from it publish no devices, while " +
         std::to_string(with_devices.size()) + " of the cluster's nodes do";
}

}  // namespace

int RunSimulate(const std::vector<std::string>& args,
                const std::string& program) {
  std::string cluster_path;
  std::string config_path;
  std::string output = "table";
  int64_t seed = 1;
  bool all_pods = false;
  bool quiet = false;
  Command command(
      program + " simulate (--cluster FILE | --kubeconfig FILE) [flags]",
      "Schedule the pending pods of a cluster described by manifests (or "
      "read from its API server),\nin-process and without writing "
      "anything: where each pod lands, or why it cannot.");
  util::FlagSet& flags = command.flags();
  flags.String("cluster", &cluster_path,
               "Node and Pod manifests (multi-document YAML, JSON, or a List "
               "as kubectl get -o yaml prints it)");
  flags.String("config", &config_path,
               "KubeSchedulerConfiguration file (default: ksched's built-in "
               "profile)");
  flags.String("output", &output,
               "Output format: table, json, yaml or html (one self-contained "
               "page to open in a browser)");
  flags.Shorthand('o', "output");
  flags.Int("seed", &seed,
            "Seed of the tie-break between equally scored nodes");
  flags.Bool("all-pods", &all_pods,
             "Schedule every pending pod with the first profile, whatever its "
             "schedulerName");
  flags.Bool("quiet", &quiet,
             "Do not print start-up notes, nor the progress line of a long "
             "run on a terminal");
  VersionFlags version_flags;
  version_flags.Register(flags);

  std::string kubeconfig, context, snapshot_out;
  flags.String("kubeconfig", &kubeconfig,
               "Read the cluster from its API server (read-only, the lists "
               "the informers make) instead of --cluster");
  flags.String("context", &context,
               "The kubeconfig context to use (default: its current-context)");
  flags.String("snapshot-out", &snapshot_out,
               "Write the cluster as read (before --add and changes) to this "
               "file as one JSON List, for --cluster later");
  std::vector<std::string> add_files;
  flags.StringList("add", &add_files,
                   "More manifests to add to the cluster (repeatable): pods, "
                   "nodes, or workloads to plan for");
  bool cron_jobs = false;
  flags.Bool("cronjobs", &cron_jobs,
             "Expand each CronJob into the Job it would start now");
  simulator::ClusterChanges changes;
  flags.StringList("drain", &changes.drain,
                   "Drain this node (repeatable) as kubectl drain "
                   "--ignore-daemonsets: cordon it; pods a controller owns "
                   "come back pending, DaemonSet pods stay, bare pods stop "
                   "the drain unless --force");
  flags.Bool("force", &changes.force,
             "--drain deletes bare pods (no controller re-creates them), as "
             "kubectl drain --force");
  flags.StringList("remove-node", &changes.remove_nodes,
                   "Remove this node (repeatable) and every pod on it; "
                   "controllers other than DaemonSets re-create theirs");
  flags.StringList("cordon", &changes.cordon, "Cordon this node (repeatable)");
  int64_t add_nodes = 0;
  flags.Int("add-nodes", &add_nodes,
            "Add this many copies of --node-template, named <name>-1, ...");
  std::string node_template;
  flags.String("node-template", &node_template,
               "A file with one Node manifest (and its ResourceSlices, else "
               "the cluster's for the node of that name are copied), for "
               "--add-nodes");
  std::string capacity_path;
  flags.String("capacity", &capacity_path,
               "How many more of this pod (a Pod, or a workload's template) "
               "fit: copies are added until one is unschedulable");
  int64_t max_count = 1000;
  flags.Int("max", &max_count,
            "At most this many --capacity copies, or --add-nodes-until-fits "
            "nodes");
  bool add_nodes_until_fits = false;
  flags.Bool("add-nodes-until-fits", &add_nodes_until_fits,
             "Find the smallest number of --node-template nodes after which "
             "every pending pod fits, and show that plan");
  std::string fail_on_unschedulable;
  flags.OptionalString(
      "fail-on-unschedulable", &fail_on_unschedulable, "all",
      "Exit with status 3 when a pending pod is left unschedulable: all "
      "(every pod the profiles schedule) or workloads (only pods of "
      "workloads, --capacity aside, and pods a change displaced)");
  bool stats = false;
  flags.Bool("stats", &stats,
             "Print to stderr how long loading the file, preparing the "
             "simulation (the cluster given to the scheduler) and scheduling "
             "took, pods/s and the peak resident memory");
  bool explain = false;
  int64_t explain_top = 5;
  flags.Bool("explain", &explain,
             "Explain, per plugin and per node, the last scheduling cycle of "
             "the pods named after the flags (NAMESPACE/NAME, or NAME in "
             "default), or of every pending pod when none is named");
  flags.Int("explain-top", &explain_top,
            "Nodes listed per explained pod: best scored and closest to "
            "fitting");

  int exit_status = kExitOk;
  auto positional = command.Parse(args, &exit_status);
  if (!positional) return exit_status;
  if (!positional->empty() && !explain) {
    return command.UsageError("unexpected argument " + positional->front() +
                              " (pods to explain follow --explain)");
  }
  if (explain_top < 0) {
    return command.UsageError("--explain-top must not be negative");
  }
  if (cluster_path.empty() == kubeconfig.empty()) {
    return command.UsageError(
        "give the cluster as --cluster FILE or --kubeconfig FILE (one of "
        "them)",
        true);
  }
  if (output != "table" && output != "json" && output != "yaml" &&
      output != "html") {
    return command.UsageError(
        "--output must be table, json, yaml or html, not " + output);
  }
  if (!fail_on_unschedulable.empty() && fail_on_unschedulable != "all" &&
      fail_on_unschedulable != "workloads") {
    return command.UsageError(
        "--fail-on-unschedulable must be all or workloads, not " +
        fail_on_unschedulable);
  }
  if (add_nodes < 0) {
    return command.UsageError("--add-nodes must not be negative, not " +
                              std::to_string(add_nodes));
  }
  if ((add_nodes > 0 || add_nodes_until_fits) && node_template.empty()) {
    return command.UsageError(
        std::string(add_nodes > 0 ? "--add-nodes" : "--add-nodes-until-fits") +
        " needs --node-template FILE");
  }
  if (max_count < 1) return command.UsageError("--max must be at least 1");
  std::vector<std::string> gate_warnings;
  auto gates = version_flags.Gates(&gate_warnings);
  // kube's warnings about the flags, whatever --quiet says.
  for (const std::string& w : gate_warnings) {
    std::cerr << "warning: " << w << "\n";
  }
  if (!gates.ok()) return command.UsageError(gates.error().message());

  framework::Registry registry = plugins::NewInTreeRegistry();
  auto cfg = LoadConfiguration(config_path, registry, *gates);
  if (!cfg.ok()) {
    std::cerr << "Error: " << cfg.error().message() << "\n";
    return kExitFailure;
  }
  if (!quiet) {
    // The version only when it is not the binary's: every other run
    // decides as v1.36, and says so in --help.
    if (gates->emulated_version() != config::kBinaryVersion) {
      std::cerr << "note: " << DecidesAs(*gates) << "\n";
    }
    for (const std::string& note : StartupNotes(*cfg)) {
      std::cerr << "note: " << note << "\n";
    }
  }

  // One updating line on stderr while a long run loads and schedules, when
  // a person watches it: erased after each step, before anything else is
  // written, so the output is the same with it or without.
  util::RealClock real_clock;
  std::optional<simulator::ProgressLine> progress;
  if (!quiet && simulator::IsProgressTerminal(STDERR_FILENO)) {
    progress.emplace(std::cerr, real_clock,
                     simulator::ProgressOptionsFor(STDERR_FILENO));
  }
  auto erase_progress = [&] {
    if (progress) progress->Erase();
  };

  const auto load_start = std::chrono::steady_clock::now();
  util::Result<simulator::Cluster> cluster = util::Error("");
  if (!kubeconfig.empty()) {
    auto rest_config = ClusterConfig(kubeconfig, context);
    if (!rest_config.ok()) {
      std::cerr << "Error: " << rest_config.error().message() << "\n";
      return kExitFailure;
    }
    // Pods from files may take claims from the cluster's templates.
    simulator::LiveReadOptions read_options{.resource_claim_templates =
                                                !add_files.empty() ||
                                                !capacity_path.empty()};
    if (progress) {
      read_options.on_listed = [&](uint64_t n) { progress->Listing(n); };
    }
    auto live = ReadCluster(*rest_config, cfg->client_connection, read_options);
    erase_progress();
    if (!live.ok()) {
      std::cerr << "Error: " << live.error().message() << "\n";
      return kExitFailure;
    }
    for (const std::string& w : live->warnings) {
      std::cerr << "warning: " << w << "\n";
    }
    cluster = std::move(live->cluster);
    cluster_path = rest_config->server;
  } else {
    simulator::LoadProgress on_load;
    if (progress) {
      on_load = [&](uint64_t bytes, uint64_t total) {
        progress->Loading(bytes, total);
      };
    }
    cluster = simulator::LoadClusterFile(cluster_path, on_load);
    erase_progress();
  }
  if (!cluster.ok()) {
    std::cerr << "Error: " << cluster.error().message() << "\n";
    return kExitFailure;
  }
  if (!snapshot_out.empty()) {
    if (auto s = simulator::WriteSnapshot(*cluster, snapshot_out); !s.ok()) {
      std::cerr << "Error: " << s.error().message() << "\n";
      return kExitFailure;
    }
  }
  for (const std::string& path : add_files) {
    auto added = simulator::LoadClusterFile(path);
    if (!added.ok()) {
      std::cerr << "Error: --add: " << added.error().message() << "\n";
      return kExitFailure;
    }
    if (auto merged = simulator::MergeCluster(*cluster, std::move(*added));
        !merged.ok()) {
      std::cerr << "Error: --add " << path << ": " << merged.error().message()
                << "\n";
      return kExitFailure;
    }
  }
  // How the files were read, whatever --quiet says: a file read otherwise
  // than meant is planned with as read.
  std::vector<std::string> read_notes = cluster->read_notes;
  changes.add_nodes = static_cast<int>(add_nodes);
  if (!node_template.empty()) {
    auto t = simulator::LoadNodeTemplate(
        node_template, &changes.node_template_slices, &read_notes);
    if (!t.ok()) {
      std::cerr << "Error: --node-template: " << t.error().message() << "\n";
      return kExitFailure;
    }
    changes.node_template = std::move(*t);
    if (std::string w = TemplateWithoutDevices(*cluster, changes); !w.empty()) {
      std::cerr << "warning: " << w << "\n";
    }
  }
  simulator::PlanInput input{.changes = changes,
                             .cron_jobs = cron_jobs,
                             .seed = static_cast<uint64_t>(seed)};
  if (!capacity_path.empty()) {
    auto t = simulator::LoadCapacityTemplate(
        capacity_path, &input.capacity_claim_templates, &read_notes);
    if (!t.ok()) {
      std::cerr << "Error: " << t.error().message() << "\n";
      return kExitFailure;
    }
    input.capacity_template = std::move(*t);
  }
  for (const std::string& note : read_notes) {
    std::cerr << "warning: " << note << "\n";
  }
  simulator::SimulationOptions options;
  options.seed = static_cast<uint64_t>(seed);
  options.all_pods = all_pods;
  options.features = *gates;
  input.features = *gates;

  // One plan, simulated: with `extra_nodes` template nodes on top of
  // --add-nodes, and for --capacity as many copies as could possibly fit.
  // With `probe`, each of the pods named there is tried alone on the first
  // added node instead (SimulationOptions::probe_node).
  std::optional<simulator::Plan> plan;
  bool final_run = false;
  const size_t cron_job_count = cluster->cron_jobs.size();
  size_t input_nodes = 0;  // of the last run's cluster
  size_t input_pods = 0;
  // Of the last run's time, how much went to giving the cluster to the
  // scheduler before its loop started.
  std::chrono::steady_clock::duration preparing{};
  auto simulate_plan = [&](int extra_nodes, const std::set<std::string>* probe)
      -> util::Result<simulator::SimulationResult> {
    simulator::PlanInput in = input;
    in.changes.add_nodes += extra_nodes;
    in.capacity_copies = static_cast<int>(max_count);
    // The last (or only) run may take the cluster itself: a snapshot of a
    // large cluster is not worth a copy.
    auto prepared = simulator::PreparePlan(
        final_run ? std::move(*cluster) : simulator::Cluster(*cluster), in,
        *cfg);
    if (!prepared.ok()) return prepared.error();
    plan = std::move(*prepared);
    simulator::SimulationOptions o = options;
    plan->Into(o);
    if (probe != nullptr) {
      o.probe_node = plan->applied.added_nodes.back();
      o.probe_pods = *probe;
    }
    // The simulator reports progress first when its loop starts: what came
    // before (the cluster given to the scheduler) is this run's preparing.
    const auto simulate_start = std::chrono::steady_clock::now();
    preparing = {};
    bool looping = false;
    if (progress || stats) {
      o.on_progress = [&](int tried, int pending) {
        if (!looping) {
          looping = true;
          preparing = std::chrono::steady_clock::now() - simulate_start;
        }
        if (progress) progress->Scheduling(tried, pending);
      };
    }
    input_nodes = plan->cluster.nodes.size();
    input_pods = plan->cluster.pods.size();
    // The plan's cluster is this run's own: its pods are given away.
    auto r = simulator::Simulate(std::move(plan->cluster), *cfg, registry, o);
    if (!r.ok()) return r.error();
    if (in.capacity_template && probe == nullptr) {
      r->capacity =
          simulator::SummarizeCapacity(*r, plan->capacity_pods,
                                       in.capacity_template->metadata.ns + "/" +
                                           in.capacity_template->metadata.name,
                                       static_cast<int>(max_count));
    }
    return r;
  };
  auto run = [&](int extra_nodes,
                 const std::set<std::string>* probe = nullptr) {
    if (progress) {
      // The runs of a search, told apart; the plan shown is the last.
      std::string label;
      if (probe != nullptr) {
        label = "trying " + std::to_string(probe->size()) +
                " pods on a node like " + changes.node_template->metadata.name;
      } else if (add_nodes_until_fits && !final_run) {
        label = "trying " + std::to_string(extra_nodes) + " more node" +
                (extra_nodes == 1 ? "" : "s");
      }
      progress->BeginRun(std::move(label));
    }
    auto r = simulate_plan(extra_nodes, probe);
    erase_progress();
    return r;
  };
  auto unscheduled = [](const simulator::SimulationResult& r) {
    std::set<std::string> pods;
    for (const simulator::PodOutcome& p : r.pods) {
      if (!p.node) pods.insert(p.ns + "/" + p.name);
    }
    return pods;
  };
  const auto search_start = std::chrono::steady_clock::now();
  int extra = 0;
  std::optional<simulator::NodeSearchSummary> search;
  if (add_nodes_until_fits) {
    auto searched = simulator::SearchNodesNeeded(
        {.max_nodes = static_cast<int>(max_count),
         .features = framework::ResourceFeaturesOf(*gates),
         .node_template = *changes.node_template,
         .template_slices = simulator::TemplateSlices(*cluster, changes),
         .prepare =
             [&](int n) {
               simulator::PlanInput in = input;
               in.changes.add_nodes += n;
               in.capacity_copies = static_cast<int>(max_count);
               return simulator::PreparePlan(simulator::Cluster(*cluster), in,
                                             *cfg);
             },
         .simulate =
             [&](int n, const std::set<std::string>* probe) {
               return run(n, probe);
             }});
    if (!searched.ok()) {
      std::cerr << "Error: " << searched.error().message() << "\n";
      return kExitFailure;
    }
    extra = searched->nodes;
    search = std::move(searched->summary);
  }
  const auto search_end = std::chrono::steady_clock::now();
  // Only the plan shown is explained, not the searches before it.
  if (explain) {
    options.explain.emplace();
    for (const std::string& pod : *positional) {
      options.explain->insert(
          pod.find('/') == std::string::npos ? "default/" + pod : pod);
    }
    options.explain_top = static_cast<int>(explain_top);
  }
  const auto schedule_start = std::chrono::steady_clock::now();
  const double loaded_rss = stats ? PeakRssMiB() : 0;
  final_run = true;
  auto result = run(extra);
  if (!result.ok()) {
    std::cerr << "Error: " << result.error().message() << "\n";
    return kExitFailure;
  }
  // Once the plan has run, so that a run that cannot start says why first.
  if (auto note = NotInEffectNote(*gates); note && !quiet) {
    std::cerr << "note: " << *note << "\n";
  }
  if (stats) {
    const auto done = std::chrono::steady_clock::now();
    const double load =
        std::chrono::duration<double>(search_start - load_start).count();
    const double prepare = std::chrono::duration<double>(preparing).count();
    const double schedule =
        std::chrono::duration<double>(done - schedule_start).count() - prepare;
    char line[256];
    if (search) {
      std::snprintf(
          line, sizeof(line),
          "stats: search %.3f s, %d runs before the plan shown\n",
          std::chrono::duration<double>(search_end - search_start).count(),
          search->runs);
      std::cerr << line;
    }
    std::snprintf(line, sizeof(line),
                  "stats: nodes=%zu pods=%zu load %.3f s (peak RSS %.1f "
                  "MiB), prepare %.3f s, schedule %.3f s (%zu pending, %.0f "
                  "pods/s), peak RSS %.1f MiB\n",
                  input_nodes, input_pods, load, loaded_rss, prepare, schedule,
                  result->pods.size(),
                  schedule > 0 ? result->pods.size() / schedule : 0.0,
                  PeakRssMiB());
    std::cerr << line;
  }
  if (search) {
    // The search's answer, checked by the run shown: every pod a node of
    // the template can take is scheduled there.
    std::set<std::string> cannot;
    for (const auto& [pod, why] : search->cannot_take) cannot.insert(pod);
    if (search->found) {
      for (const std::string& pod : unscheduled(*result)) {
        if (!cannot.count(pod)) {
          result->warnings.push_back(
              "the plan shown leaves " + pod +
              " pending, though the search's run with as many nodes did not");
        }
      }
    }
  }
  if (search) {
    result->nodes_needed = extra;
    result->node_template = changes.node_template->metadata.name;
    result->node_search = std::move(search);
  }
  if (!cron_jobs && cron_job_count > 0) {
    std::cerr << "note: " << cron_job_count
              << " CronJobs not expanded (--cronjobs expands each into the "
                 "Job it would start now)\n";
  }
  if (plan->reassigned > 0 && !quiet) {
    std::cerr << "note: " << plan->reassigned
              << (plan->reassigned == 1 ? " pod" : " pods")
              << " of workloads or drains "
              << (plan->reassigned == 1 ? "is" : "are")
              << " scheduled with profile "
              << cfg->profiles.front().scheduler_name
              << " (their schedulerName is not a profile here)\n";
  }
  if (plan->capacity_reassigned && !quiet) {
    std::cerr << "note: the --capacity copies of "
              << input.capacity_template->metadata.ns << "/"
              << input.capacity_template->metadata.name
              << " are scheduled with profile "
              << cfg->profiles.front().scheduler_name << " (its schedulerName "
              << input.capacity_template->spec.scheduler_name
              << " is not a profile here)\n";
  }
  std::vector<std::string> profiles;
  for (const config::Profile& p : cfg->profiles) {
    profiles.push_back(p.scheduler_name);
  }
  for (const std::string& notice : simulator::InputNotices(
           plan->cluster, cluster_path, profiles, all_pods, *result)) {
    std::cerr << notice << "\n";
  }
  if (options.explain.has_value()) {
    for (const std::string& wanted : *options.explain) {
      bool found = false;
      for (const simulator::PodOutcome& p : result->pods) {
        found |= p.explanation != nullptr && p.ns + "/" + p.name == wanted;
      }
      if (!found) {
        std::cerr << "warning: " << wanted
                  << " is not a pending pod of this simulation: nothing to "
                     "explain\n";
      }
    }
  }
  if (output == "table") {
    std::cout << simulator::RenderTable(*result);
  } else if (output == "json") {
    simulator::WriteJson(*result, std::cout);
  } else if (output == "html") {
    std::cout << simulator::RenderHtml(
        *result, {.title = "ksched simulate", .source = cluster_path});
  } else {
    rapidjson::Document doc;
    const std::string json = simulator::RenderJson(*result);
    doc.Parse(json.data(), json.size());
    std::cout << api::JsonToYaml(doc);
  }
  if ((fail_on_unschedulable == "all" &&
       simulator::AnyPodUnschedulable(*result)) ||
      (fail_on_unschedulable == "workloads" &&
       simulator::PlannedPodsUnschedulable(*result))) {
    return kExitUnschedulable;
  }
  return kExitOk;
}

}  // namespace ksched::cmd

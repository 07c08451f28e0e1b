#include "cmd/ksched/explain_command.h"

#include <iostream>

#include "cmd/ksched/cluster_config.h"
#include "cmd/ksched/command.h"
#include "cmd/ksched/startup_report.h"
#include "cmd/ksched/version_flags.h"
#include "pkg/api/yaml.h"
#include "pkg/explain/render.h"
#include "pkg/plugins/registry.h"
#include "pkg/simulator/report_html.h"
#include "pkg/simulator/simulator.h"
#include "pkg/util/flags.h"

namespace ksched::cmd {
namespace {

bool IsTerminal(const api::Pod& pod) {
  return pod.status.phase == api::kPodPhaseSucceeded ||
         pod.status.phase == api::kPodPhaseFailed;
}

// The profile that explains `pod`: --profile, else the one serving its
// schedulerName. Without a configuration file, a pod of another scheduler
// (default-scheduler above all) is explained with the built-in profile,
// which has kube-scheduler's default plugins, under the pod's scheduler
// name.
util::Result<std::string> ChooseProfile(config::KubeSchedulerConfiguration& cfg,
                                        const api::Pod& pod,
                                        const std::string& wanted,
                                        bool built_in, std::string* note) {
  const std::string name = wanted.empty() ? pod.spec.scheduler_name : wanted;
  for (const config::Profile& p : cfg.profiles) {
    if (p.scheduler_name == name) return name;
  }
  if (built_in && wanted.empty() && cfg.profiles.size() == 1) {
    *note =
        "explaining with the built-in profile (kube-scheduler's default "
        "plugins) as " +
        name;
    cfg.profiles.front().scheduler_name = name;
    return name;
  }
  std::string known;
  for (const config::Profile& p : cfg.profiles) {
    known += (known.empty() ? "" : ", ") + p.scheduler_name;
  }
  return util::Error("no profile named " + name +
                     " in the configuration (profiles: " + known +
                     "); choose one with --profile");
}

}  // namespace

int RunExplain(const std::vector<std::string>& args,
               const std::string& program) {
  std::string kubeconfig, context, ns, config_path, profile;
  std::string output = "table";
  int64_t top = 5;
  int64_t seed = 1;
  Command command(
      program + " explain [NAMESPACE/]POD [flags]",
      "Explain why a pod is pending, or where it would go now: one "
      "scheduling cycle, recorded plugin by\nplugin and node by node, "
      "against the cluster as its API server lists it. Nothing is written\n"
      "to the cluster; list permission on nodes and pods (and the storage "
      "and policy objects the\nplugins read) is all it needs.");
  util::FlagSet& flags = command.flags();
  flags.String("kubeconfig", &kubeconfig,
               "Path to a kubeconfig (default: $KUBECONFIG, then "
               "~/.kube/config, then the in-cluster service account)");
  flags.String("context", &context,
               "The kubeconfig context to use (default: its current-context)");
  flags.String("namespace", &ns,
               "The pod's namespace (default: the context's namespace)");
  flags.Shorthand('n', "namespace");
  flags.String("config", &config_path,
               "KubeSchedulerConfiguration file (default: ksched's built-in "
               "profile, kube-scheduler's default plugins)");
  flags.String("profile", &profile,
               "The profile (schedulerName) to explain with (default: the "
               "pod's schedulerName)");
  flags.String("output", &output,
               "Output format: table, json, yaml or html (one self-contained "
               "page to open in a browser)");
  flags.Shorthand('o', "output");
  flags.Int("top", &top, "Nodes listed: best scored, closest to fitting");
  flags.Int("seed", &seed,
            "Seed of the tie-break between equally scored nodes");
  VersionFlags version_flags;
  version_flags.Register(flags);

  int exit_status = kExitOk;
  auto positional = command.Parse(args, &exit_status);
  if (!positional) return exit_status;
  if (positional->size() != 1) {
    return command.UsageError("name one pod, as POD or NAMESPACE/POD", true);
  }
  if (output != "table" && output != "json" && output != "yaml" &&
      output != "html") {
    return command.UsageError(
        "--output must be table, json, yaml or html, not " + output);
  }
  if (top < 0) return command.UsageError("--top must not be negative");
  std::vector<std::string> gate_warnings;
  auto gates = version_flags.Gates(&gate_warnings);
  for (const std::string& w : gate_warnings) {
    std::cerr << "warning: " << w << "\n";
  }
  if (!gates.ok()) return command.UsageError(gates.error().message());
  if (gates->emulated_version() != config::kBinaryVersion) {
    std::cerr << "note: " << DecidesAs(*gates) << "\n";
  }

  framework::Registry registry = plugins::NewInTreeRegistry();
  auto cfg = LoadConfiguration(config_path, registry, *gates);
  if (!cfg.ok()) {
    std::cerr << "Error: " << cfg.error().message() << "\n";
    return kExitFailure;
  }
  auto rest_config = ClusterConfig(kubeconfig, context);
  if (!rest_config.ok()) {
    std::cerr << "Error: " << rest_config.error().message() << "\n";
    return kExitFailure;
  }
  std::string name = positional->front();
  if (auto slash = name.find('/'); slash != std::string::npos) {
    ns = name.substr(0, slash);
    name = name.substr(slash + 1);
  }
  if (ns.empty()) ns = rest_config->ns;

  auto live = ReadCluster(*rest_config, cfg->client_connection);
  if (!live.ok()) {
    std::cerr << "Error: " << live.error().message() << "\n";
    return kExitFailure;
  }
  for (const std::string& w : live->warnings) {
    std::cerr << "warning: " << w << "\n";
  }

  // The cluster as the pod's next cycle would see it: bound pods stay, the
  // pod itself is pending again, and other pending pods are left out (each
  // is explained on its own).
  simulator::Cluster& cluster = live->cluster;
  std::vector<api::Pod> pods;
  std::optional<api::Pod> target;
  for (api::Pod& pod : cluster.pods) {
    if (pod.metadata.ns == ns && pod.metadata.name == name) {
      target = std::move(pod);
    } else if (!pod.spec.node_name.empty() && !IsTerminal(pod)) {
      pods.push_back(std::move(pod));
    }
  }
  if (!target) {
    std::cerr << "Error: pods \"" << name << "\" not found in namespace " << ns
              << "\n";
    return kExitFailure;
  }
  if (IsTerminal(*target)) {
    std::cerr << "Error: pod " << ns << "/" << name << " has finished ("
              << target->status.phase << "): nothing to schedule\n";
    return kExitFailure;
  }
  std::string note;
  auto chosen =
      ChooseProfile(*cfg, *target, profile, config_path.empty(), &note);
  if (!chosen.ok()) {
    std::cerr << "Error: " << chosen.error().message() << "\n";
    return kExitFailure;
  }
  if (!note.empty()) std::cerr << "note: " << note << "\n";
  if (auto gates_note = NotInEffectNote(*gates)) {
    std::cerr << "note: " << *gates_note << "\n";
  }
  simulator::SimulationOptions options;
  options.features = *gates;
  options.seed = static_cast<uint64_t>(seed);
  options.explain.emplace({ns + "/" + name});
  options.explain_top = static_cast<int>(top);
  options.rescheduled_pod = ns + "/" + name;
  options.rescheduled_from = target->spec.node_name;
  target->spec.node_name.clear();
  target->spec.scheduler_name = *chosen;
  pods.push_back(std::move(*target));
  cluster.pods = std::move(pods);

  auto result =
      simulator::Simulate(std::move(cluster), *cfg, registry, options);
  if (!result.ok()) {
    std::cerr << "Error: " << result.error().message() << "\n";
    return kExitFailure;
  }
  const simulator::PodOutcome* outcome = nullptr;
  for (const simulator::PodOutcome& p : result->pods) {
    if (p.explanation && p.ns == ns && p.name == name) outcome = &p;
  }
  if (outcome == nullptr) {
    std::cerr << "Error: pod " << ns << "/" << name
              << " was not scheduled in the simulation\n";
    return kExitFailure;
  }
  if (output == "table") {
    std::cout << explain::RenderText(*outcome->explanation);
    return kExitOk;
  }
  if (output == "html") {
    std::cout << simulator::RenderHtml(
        *result, {.title = "ksched explain " + ns + "/" + name,
                  .source = rest_config->server,
                  .focus_pod = ns + "/" + name});
    return kExitOk;
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("namespace");
  w.String(ns.c_str());
  w.Key("name");
  w.String(name.c_str());
  w.Key("profile");
  w.String(outcome->profile.c_str());
  w.Key("node");
  if (outcome->node) {
    w.String(outcome->node->c_str());
  } else {
    w.Null();
  }
  w.Key("message");
  w.String(outcome->message.c_str());
  if (!options.rescheduled_from.empty()) {
    w.Key("currentNode");
    w.String(options.rescheduled_from.c_str());
  }
  w.Key("explain");
  explain::WriteJson(w, *outcome->explanation, *outcome->record);
  w.EndObject();
  if (output == "json") {
    std::cout << buffer.GetString() << "\n";
    return kExitOk;
  }
  rapidjson::Document doc;
  doc.Parse(buffer.GetString(), buffer.GetSize());
  std::cout << api::JsonToYaml(doc);
  return kExitOk;
}

}  // namespace ksched::cmd

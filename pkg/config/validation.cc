#include "pkg/config/validation.h"

#include <map>
#include <set>
#include <string>

#include "pkg/api/resource_names.h"
#include "pkg/config/duration.h"
#include "pkg/config/name_validation.h"
#include "pkg/config/validation_pluginargs.h"

namespace ksched::config::v1 {
namespace {

// Plugins removed from v1 (v1.32 dropped the non-CSI volume limit plugins).
constexpr std::string_view kInvalidPlugins[] = {
    "AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"};

bool IsPluginInvalid(std::string_view name) {
  for (std::string_view p : kInvalidPlugins) {
    if (p == name) return true;
  }
  return false;
}

std::string InvalidPluginDetail() {
  std::string version(kGroupVersion);
  return "was invalid in version \"" + version +
         "\" (KubeSchedulerConfiguration is version \"" + version + "\")";
}

std::string DurationValue(const Duration& d) {
  return FormatGoDuration(d.value);
}

// %#v of an internal config.PluginSet (weights: unset reads as 0).
std::string GoPluginSet(const PluginSet& set) {
  auto list = [](const std::vector<Plugin>& plugins) {
    if (plugins.empty()) return std::string("[]config.Plugin(nil)");
    std::string out = "[]config.Plugin{";
    for (size_t i = 0; i < plugins.size(); ++i) {
      if (i > 0) out += ", ";
      out += "config.Plugin{Name:" + GoQuote(plugins[i].name) +
             ", Weight:" + std::to_string(plugins[i].weight.value_or(0)) + "}";
    }
    return out + "}";
  };
  return "config.PluginSet{Enabled:" + list(set.enabled) +
         ", Disabled:" + list(set.disabled) + "}";
}

// apiequality.Semantic.DeepEqual on internal plugin sets.
bool SamePluginSet(const PluginSet& a, const PluginSet& b) {
  auto same = [](const std::vector<Plugin>& x, const std::vector<Plugin>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].name != y[i].name ||
          x[i].weight.value_or(0) != y[i].weight.value_or(0)) {
        return false;
      }
    }
    return true;
  };
  return same(a.enabled, b.enabled) && same(a.disabled, b.disabled);
}

// Args equality as the converted internal objects compare: typed args by
// value (apiVersion/kind aside), other args by their raw JSON.
bool SameArgs(const PluginConfig* a, const PluginConfig* b) {
  if (a == nullptr || b == nullptr) {
    auto empty = [](const PluginConfig* c) {
      return c == nullptr || (std::holds_alternative<std::monostate>(c->args) &&
                              c->raw_args.empty());
    };
    return empty(a) && empty(b);
  }
  if (a->args.index() != b->args.index()) return false;
  if (std::holds_alternative<std::monostate>(a->args)) {
    return a->raw_args == b->raw_args;
  }
  return a->args == b->args;
}

FieldErrors ValidateLeaderElection(const LeaderElectionConfiguration& le) {
  FieldErrors errs;
  FieldPath path("leaderElection");
  if (!le.leader_elect.value_or(false)) return errs;
  if (le.lease_duration.value.count() <= 0) {
    errs.push_back(Invalid(path.Child("leaseDuration"),
                           DurationValue(le.lease_duration),
                           "must be greater than zero"));
  }
  if (le.renew_deadline.value.count() <= 0) {
    errs.push_back(Invalid(path.Child("renewDeadline"),
                           DurationValue(le.renew_deadline),
                           "must be greater than zero"));
  }
  if (le.retry_period.value.count() <= 0) {
    errs.push_back(Invalid(path.Child("retryPeriod"),
                           DurationValue(le.retry_period),
                           "must be greater than zero"));
  }
  if (le.lease_duration.value <= le.renew_deadline.value) {
    // component-base reports the renew deadline as the bad value.
    errs.push_back(Invalid(path.Child("leaseDuration"),
                           DurationValue(le.renew_deadline),
                           "must be greater than `RenewDeadline`"));
  }
  if (le.resource_lock.empty()) {
    errs.push_back(Required(path.Child("resourceLock"), ""));
  }
  if (le.resource_namespace.empty()) {
    errs.push_back(Required(path.Child("resourceNamespace"), ""));
  }
  if (le.resource_name.empty()) {
    errs.push_back(Required(path.Child("resourceName"), ""));
  }
  return errs;
}

void ValidatePercentage(const FieldPath& path, std::optional<int32_t> value,
                        FieldErrors* errs) {
  if (value && (*value < 0 || *value > 100)) {
    errs->push_back(
        Invalid(path, GoValue(*value), "not in valid range [0-100]"));
  }
}

void ValidatePluginConfig(const FieldPath& path,
                          const KubeSchedulerProfile& profile,
                          const FeatureGates& gates, FieldErrors* errs) {
  if (profile.plugins) {
    const Plugins& p = *profile.plugins;
    // kube-scheduler walks a Go map here; a fixed order keeps messages
    // stable. MultiPoint is not checked, as in kube-scheduler.
    const std::pair<std::string_view, const PluginSet*> stages[] = {
        {"preEnqueue", &p.pre_enqueue},
        {"queueSort", &p.queue_sort},
        {"preFilter", &p.pre_filter},
        {"filter", &p.filter},
        {"postFilter", &p.post_filter},
        {"preScore", &p.pre_score},
        {"score", &p.score},
        {"reserve", &p.reserve},
        {"permit", &p.permit},
        {"preBind", &p.pre_bind},
        {"bind", &p.bind},
        {"postBind", &p.post_bind},
        {"placementGenerate", &p.placement_generate},
        {"placementScore", &p.placement_score},
    };
    FieldPath plugins_path = path.Child("plugins");
    for (const auto& [stage, set] : stages) {
      for (size_t i = 0; i < set->enabled.size(); ++i) {
        const std::string& name = set->enabled[i].name;
        if (IsPluginInvalid(name)) {
          errs->push_back(
              Invalid(plugins_path.Child(stage).Child("enabled").Index(i),
                      GoQuote(name), InvalidPluginDetail()));
        }
      }
    }
  }

  std::set<std::string> seen;
  for (size_t i = 0; i < profile.plugin_config.size(); ++i) {
    const PluginConfig& pc = profile.plugin_config[i];
    FieldPath pc_path = path.Child("pluginConfig").Index(i);
    if (!seen.insert(pc.name).second) {
      errs->push_back(Duplicate(pc_path, GoQuote(pc.name)));
    }
    if (IsPluginInvalid(pc.name)) {
      errs->push_back(
          Invalid(pc_path, GoQuote(pc.name), InvalidPluginDetail()));
      continue;
    }
    // kube-scheduler checks NodeResourcesFit args only when it builds the
    // plugin (its validation table misnames the plugin); ksched checks them
    // here too, with their path.
    FieldErrors args_errs =
        ValidatePluginArgs(pc_path.Child("args"), pc, gates);
    errs->insert(errs->end(), args_errs.begin(), args_errs.end());
  }
}

void ValidateCommonQueueSort(const std::vector<KubeSchedulerProfile>& profiles,
                             FieldErrors* errs) {
  FieldPath path("profiles");
  PluginSet canon;
  std::string queue_sort_name;
  if (profiles[0].plugins) {
    canon = profiles[0].plugins->queue_sort;
    if (!canon.enabled.empty()) queue_sort_name = canon.enabled[0].name;
    if (canon.enabled.size() > 1) {
      // "Enabled" is capitalised in kube-scheduler's path too.
      errs->push_back(Invalid(
          path.Index(0).Child("plugins").Child("queueSort").Child("Enabled"),
          GoValue(static_cast<int64_t>(canon.enabled.size())),
          "only one queue sort plugin can be enabled"));
    }
  }
  const PluginConfig* queue_sort_args = nullptr;
  for (const PluginConfig& pc : profiles[0].plugin_config) {
    if (!queue_sort_name.empty() && pc.name == queue_sort_name) {
      queue_sort_args = &pc;
    }
  }
  for (size_t i = 1; i < profiles.size(); ++i) {
    PluginSet current;
    if (profiles[i].plugins) current = profiles[i].plugins->queue_sort;
    if (!SamePluginSet(canon, current)) {
      errs->push_back(Invalid(path.Index(i).Child("plugins").Child("queueSort"),
                              GoPluginSet(current),
                              "must be the same for all profiles"));
    }
    for (const PluginConfig& pc : profiles[i].plugin_config) {
      if (pc.name == queue_sort_name && !SameArgs(queue_sort_args, &pc)) {
        errs->push_back(
            Invalid(path.Index(i).Child("pluginConfig").Child("args"),
                    pc.raw_args.empty() ? "null" : pc.raw_args,
                    "queueSort must be the same for all profiles"));
      }
    }
  }
}

void ValidateExtenders(const std::vector<Extender>& extenders,
                       FieldErrors* errs) {
  FieldPath path("extenders");
  int binders = 0;
  std::set<std::string> managed;
  for (size_t i = 0; i < extenders.size(); ++i) {
    const Extender& e = extenders[i];
    FieldPath p = path.Index(i);
    if (!e.prioritize_verb.empty() && e.weight <= 0) {
      errs->push_back(Invalid(p.Child("weight"), GoValue(e.weight),
                              "must have a positive weight applied to it"));
    }
    if (!e.bind_verb.empty()) ++binders;
    for (size_t j = 0; j < e.managed_resources.size(); ++j) {
      const std::string& name = e.managed_resources[j].name;
      FieldPath name_path = p.Child("managedResources").Index(j).Child("name");
      std::vector<std::string> msgs = QualifiedNameErrors(name);
      for (const std::string& msg : msgs) {
        errs->push_back(Invalid(name_path, GoQuote(name), msg));
      }
      if (msgs.empty() && !api::IsExtendedResourceName(name)) {
        errs->push_back(Invalid(name_path, GoQuote(name),
                                "is an invalid extended resource name"));
      }
      if (!managed.insert(name).second) {
        errs->push_back(Invalid(name_path, GoQuote(name),
                                "duplicate extender managed resource name"));
      }
    }
  }
  if (binders > 1) {
    errs->push_back(Invalid(path,
                            GoQuote("found " + std::to_string(binders) +
                                    " extenders implementing bind"),
                            "only one extender can implement bind"));
  }
}

}  // namespace

FieldErrors Validate(const KubeSchedulerConfiguration& c,
                     const FeatureGates& gates) {
  FieldErrors errs;
  if (c.client_connection.burst < 0) {
    errs.push_back(Invalid(FieldPath("clientConnection").Child("burst"),
                           GoValue(c.client_connection.burst),
                           "must be non-negative"));
  }
  FieldErrors le_errs = ValidateLeaderElection(c.leader_election);
  errs.insert(errs.end(), le_errs.begin(), le_errs.end());
  // Only Lease objects are supported as the lock.
  if (c.leader_election.leader_elect.value_or(false) &&
      c.leader_election.resource_lock != "leases") {
    errs.push_back(Invalid(FieldPath("leaderElection").Child("resourceLock"),
                           GoQuote(c.leader_election.resource_lock),
                           "resourceLock value must be \"leases\""));
  }

  int32_t parallelism = c.parallelism.value_or(0);
  if (parallelism <= 0) {
    errs.push_back(Invalid(FieldPath("parallelism"), GoValue(parallelism),
                           "should be an integer value greater than zero"));
  }

  FieldPath profiles_path("profiles");
  if (c.profiles.empty()) {
    errs.push_back(Required(profiles_path, ""));
  } else {
    std::map<std::string, size_t> names;
    for (size_t i = 0; i < c.profiles.size(); ++i) {
      const KubeSchedulerProfile& profile = c.profiles[i];
      FieldPath path = profiles_path.Index(i);
      const std::string name = profile.scheduler_name.value_or("");
      if (name.empty())
        errs.push_back(Required(path.Child("schedulerName"), ""));
      ValidatePercentage(path.Child("percentageOfNodesToScore"),
                         profile.percentage_of_nodes_to_score, &errs);
      ValidatePluginConfig(path, profile, gates, &errs);
      // kube-scheduler passes the earlier profile's path as the value, which
      // Go prints as that path; ksched names the duplicated scheduler.
      if (names.contains(name)) {
        errs.push_back(Duplicate(path.Child("schedulerName"), GoQuote(name)));
      }
      names[name] = i;
    }
    ValidateCommonQueueSort(c.profiles, &errs);
  }

  ValidatePercentage(FieldPath("percentageOfNodesToScore"),
                     c.percentage_of_nodes_to_score, &errs);

  int64_t initial = c.pod_initial_backoff_seconds.value_or(0);
  int64_t max = c.pod_max_backoff_seconds.value_or(0);
  if (initial <= 0) {
    errs.push_back(Invalid(FieldPath("podInitialBackoffSeconds"),
                           GoValue(initial), "must be greater than 0"));
  }
  if (max < initial) {
    errs.push_back(Invalid(FieldPath("podMaxBackoffSeconds"), GoValue(max),
                           "must be greater than or equal to "
                           "PodInitialBackoffSeconds"));
  }

  ValidateExtenders(c.extenders, &errs);
  return errs;
}

}  // namespace ksched::config::v1

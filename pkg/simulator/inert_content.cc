#include "pkg/simulator/inert_content.h"

#include <functional>

namespace ksched::simulator {
namespace {

using config::Feature;

bool AnyAffinityTerm(
    const api::Pod& pod,
    const std::function<bool(const api::PodAffinityTerm&)>& matches) {
  if (!pod.spec.affinity) return false;
  for (const auto* affinity : {&pod.spec.affinity->pod_affinity,
                               &pod.spec.affinity->pod_anti_affinity}) {
    if (!affinity->has_value()) continue;
    for (const api::PodAffinityTerm& t : (*affinity)->required) {
      if (matches(t)) return true;
    }
    for (const api::WeightedPodAffinityTerm& t : (*affinity)->preferred) {
      if (matches(t.pod_affinity_term)) return true;
    }
  }
  return false;
}

bool AnySpreadConstraint(
    const api::Pod& pod,
    const std::function<bool(const api::TopologySpreadConstraint&)>& matches) {
  for (const api::TopologySpreadConstraint& c :
       pod.spec.topology_spread_constraints) {
    if (matches(c)) return true;
  }
  return false;
}

// A container whose status holds other requests than its spec: resized
// in place (what a kubelet reports unchanged counts the same either way).
bool Resized(const api::Pod& pod) {
  for (const api::ContainerStatus& s : pod.status.container_statuses) {
    for (const api::Container& c : pod.spec.containers) {
      if (c.name != s.name) continue;
      if (!s.allocated_resources.empty() &&
          s.allocated_resources != c.resources.requests) {
        return true;
      }
      if (s.resources && s.resources->requests != c.resources.requests) {
        return true;
      }
    }
  }
  return false;
}

// A gate, what pods it leaves unread and how to say so.
struct InertRule {
  Feature gate;
  std::function<bool(const api::Pod&)> asks;
  std::string what;     // "ask for ResourceClaims"
  std::string ignored;  // "their claims are ignored"
};

const std::vector<InertRule>& Rules() {
  static const std::vector<InertRule> rules = {
      {Feature::kDynamicResourceAllocation,
       [](const api::Pod& p) { return !p.spec.resource_claims.empty(); },
       "ask for ResourceClaims", "their claims are ignored"},
      {Feature::kPodLevelResources,
       [](const api::Pod& p) {
         return p.spec.resources && (!p.spec.resources->requests.empty() ||
                                     !p.spec.resources->limits.empty());
       },
       "set pod-level resources (spec.resources)",
       "only their containers' requests count"},
      {Feature::kSidecarContainers,
       [](const api::Pod& p) {
         for (const api::Container& c : p.spec.init_containers) {
           if (c.restart_policy == "Always") return true;
         }
         return false;
       },
       "have sidecar containers (init containers with restartPolicy: "
       "Always)",
       "the sidecars count as init containers that finish"},
      {Feature::kInPlacePodVerticalScaling, Resized,
       "were resized in place (their status holds other requests)",
       "only their spec's requests count"},
      {Feature::kPodSchedulingReadiness,
       [](const api::Pod& p) { return !p.spec.scheduling_gates.empty(); },
       "have scheduling gates", "their gates are ignored"},
      {Feature::kMatchLabelKeysInPodAffinity,
       [](const api::Pod& p) {
         return AnyAffinityTerm(p, [](const api::PodAffinityTerm& t) {
           return !t.match_label_keys.empty() || !t.mismatch_label_keys.empty();
         });
       },
       "use matchLabelKeys or mismatchLabelKeys in pod (anti-)affinity",
       "those keys are ignored"},
      {Feature::kMatchLabelKeysInPodTopologySpread,
       [](const api::Pod& p) {
         return AnySpreadConstraint(p,
                                    [](const api::TopologySpreadConstraint& c) {
                                      return !c.match_label_keys.empty();
                                    });
       },
       "use matchLabelKeys in topology spread constraints",
       "those keys are ignored"},
      {Feature::kNodeInclusionPolicyInPodTopologySpread,
       [](const api::Pod& p) {
         return AnySpreadConstraint(
             p, [](const api::TopologySpreadConstraint& c) {
               return c.node_affinity_policy.has_value() ||
                      c.node_taints_policy.has_value();
             });
       },
       "set nodeAffinityPolicy or nodeTaintsPolicy in topology spread "
       "constraints",
       "the defaults apply instead"},
  };
  return rules;
}

// "ask for ..." said of one pod: "asks for ...".
std::string OfOne(const std::string& phrase) {
  const size_t space = phrase.find(' ');
  const std::string verb = phrase.substr(0, space);
  const std::string rest = phrase.substr(space);
  if (verb == "have") return "has" + rest;
  if (verb == "were") return "was" + rest;
  return verb + "s" + rest;
}

}  // namespace

std::vector<std::string> InertContentWarnings(
    const Cluster& cluster, const config::FeatureGates& gates) {
  std::vector<std::string> warnings;
  for (const InertRule& rule : Rules()) {
    if (gates.Enabled(rule.gate)) continue;
    size_t pods = 0;
    for (const api::Pod& p : cluster.pods) {
      if (p.status.phase == api::kPodPhaseSucceeded ||
          p.status.phase == api::kPodPhaseFailed) {
        continue;
      }
      pods += rule.asks(p);
    }
    if (pods == 0) continue;
    const std::string name(config::FeatureName(rule.gate));
    // Off by the version's defaults, or by the flag.
    bool by_flag = false;
    for (const std::string& o : gates.overrides()) {
      by_flag |= o.rfind(name + "=", 0) == 0;
    }
    std::string ignored = rule.ignored;
    if (pods == 1 && ignored.find("their ") != std::string::npos) {
      ignored.replace(ignored.find("their "), 6, "its ");
    }
    warnings.push_back(
        std::to_string(pods) +
        (pods == 1 ? " pod " + OfOne(rule.what) : " pods " + rule.what) + "; " +
        name + " is off " +
        (by_flag ? std::string("(--feature-gates)")
                 : "at " + gates.emulated_version().String()) +
        ": " + ignored + "; --feature-gates " + name + "=true turns it on");
  }
  return warnings;
}

}  // namespace ksched::simulator

#include "pkg/config/validation_pluginargs.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <set>
#include <string>
#include <variant>

#include "pkg/api/codec_internal.h"
#include "pkg/api/fields.h"
#include "pkg/config/duration.h"
#include "pkg/config/name_validation.h"

namespace ksched::config::v1 {
namespace {

constexpr int32_t kMaxCustomPriorityScore = 10;

using RawStep = std::variant<std::string_view, size_t>;

// The string at `steps` inside the raw args JSON, "" when it is not there.
std::string RawStringAt(std::string_view raw_args,
                        const std::vector<RawStep>& steps) {
  if (raw_args.empty()) return "";
  auto doc = api::codec::ParseDocument(raw_args);
  if (!doc.ok()) return "";
  const rapidjson::Value* v = &*doc;
  for (const RawStep& step : steps) {
    if (const auto* key = std::get_if<std::string_view>(&step)) {
      if (!v->IsObject()) return "";
      auto it = v->FindMember(rapidjson::StringRef(key->data(), key->size()));
      if (it == v->MemberEnd()) return "";
      v = &it->value;
    } else {
      size_t index = std::get<size_t>(step);
      if (!v->IsArray() || index >= v->Size()) return "";
      v = &(*v)[static_cast<rapidjson::SizeType>(index)];
    }
  }
  return v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : "";
}

template <typename E>
std::string EnumText(E value) {
  return std::string(api::codec::EnumName(value));
}

// %#v of []config.UtilizationShapePoint.
std::string GoShape(const std::vector<UtilizationShapePoint>& shape) {
  std::string out = "[]config.UtilizationShapePoint{";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += "config.UtilizationShapePoint{Utilization:" +
           std::to_string(shape[i].utilization) +
           ", Score:" + std::to_string(shape[i].score) + "}";
  }
  return out + "}";
}

void Append(FieldErrors* to, FieldErrors from) {
  to->insert(to->end(), std::make_move_iterator(from.begin()),
             std::make_move_iterator(from.end()));
}

// metav1validation.ValidateLabelName.
FieldErrors ValidateLabelName(const FieldPath& path, std::string_view name) {
  FieldErrors errs;
  for (const std::string& msg : QualifiedNameErrors(name)) {
    errs.push_back(Invalid(path, GoQuote(name), msg));
  }
  return errs;
}

std::string JoinMessages(const std::vector<std::string>& msgs) {
  std::string out;
  for (size_t i = 0; i < msgs.size(); ++i) {
    if (i > 0) out += "; ";
    out += msgs[i];
  }
  return out;
}

bool ParsesAsInt64(const std::string& s) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  (void)std::strtoll(s.c_str(), &end, 10);
  return errno == 0 && end == s.c_str() + s.size() &&
         !std::isspace(static_cast<unsigned char>(s[0]));
}

// labels.NewRequirement's checks for one node selector match expression.
FieldErrors ValidateLabelRequirement(const FieldPath& p,
                                     const api::NodeSelectorRequirement& r) {
  using Op = api::NodeSelectorOperator;
  FieldErrors errs;
  if (auto msgs = QualifiedNameErrors(r.key); !msgs.empty()) {
    errs.push_back(Invalid(p.Child("key"), GoQuote(r.key), JoinMessages(msgs)));
  }
  FieldPath values = p.Child("values");
  switch (r.op) {
    case Op::kIn:
    case Op::kNotIn:
      if (r.values.empty()) {
        errs.push_back(Invalid(values, GoQuotedList(r.values),
                               "for 'in', 'notin' operators, values set "
                               "can't be empty"));
      }
      break;
    case Op::kExists:
    case Op::kDoesNotExist:
      if (!r.values.empty()) {
        errs.push_back(Invalid(values, GoQuotedList(r.values),
                               "values set must be empty for exists and does "
                               "not exist"));
      }
      break;
    case Op::kGt:
    case Op::kLt:
      if (r.values.size() != 1) {
        errs.push_back(Invalid(values, GoQuotedList(r.values),
                               "for 'Gt', 'Lt' operators, exactly one value "
                               "is required"));
      }
      for (size_t i = 0; i < r.values.size(); ++i) {
        if (!ParsesAsInt64(r.values[i])) {
          errs.push_back(Invalid(values.Index(i), GoQuote(r.values[i]),
                                 "for 'Gt', 'Lt' operators, the value must "
                                 "be an integer"));
        }
      }
      break;
    case Op::kOther:
      break;
  }
  for (size_t i = 0; i < r.values.size(); ++i) {
    if (auto msgs = LabelValueErrors(r.values[i]); !msgs.empty()) {
      errs.push_back(Invalid(values.Index(i).Key(r.key), GoQuote(r.values[i]),
                             JoinMessages(msgs)));
    }
  }
  return errs;
}

// nodeaffinity's newNodeSelectorTerm parse errors. `raw_term` locates the
// term in the raw args for operator strings the enum does not know.
FieldErrors ValidateNodeSelectorTerm(const FieldPath& path,
                                     const api::NodeSelectorTerm& term,
                                     std::string_view raw_args,
                                     std::vector<RawStep> raw_term) {
  using Op = api::NodeSelectorOperator;
  auto raw_operator = [&](std::string_view list, size_t i) {
    std::vector<RawStep> steps = raw_term;
    steps.insert(steps.end(), {list, i, std::string_view("operator")});
    return RawStringAt(raw_args, steps);
  };

  FieldErrors errs;
  FieldPath expressions = path.Child("matchExpressions");
  for (size_t i = 0; i < term.match_expressions.size(); ++i) {
    const api::NodeSelectorRequirement& r = term.match_expressions[i];
    FieldPath p = expressions.Index(i);
    if (r.op == Op::kOther) {
      errs.push_back(NotSupported(
          p.Child("operator"), GoQuote(raw_operator("matchExpressions", i)),
          {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}));
      continue;
    }
    Append(&errs, ValidateLabelRequirement(p, r));
  }
  FieldPath fields = path.Child("matchFields");
  for (size_t i = 0; i < term.match_fields.size(); ++i) {
    const api::NodeSelectorRequirement& r = term.match_fields[i];
    FieldPath p = fields.Index(i);
    if (r.op == Op::kIn || r.op == Op::kNotIn) {
      if (r.values.size() != 1) {
        errs.push_back(Invalid(p.Child("values"), GoQuotedList(r.values),
                               "must have one element"));
      }
    } else {
      std::string op =
          r.op == Op::kOther ? raw_operator("matchFields", i) : EnumText(r.op);
      errs.push_back(
          NotSupported(p.Child("operator"), GoQuote(op), {"In", "NotIn"}));
    }
  }
  return errs;
}

bool IsEmptyTerm(const api::NodeSelectorTerm& term) {
  return term.match_expressions.empty() && term.match_fields.empty();
}

// validateFunctionShape.
FieldErrors ValidateFunctionShape(
    const std::vector<UtilizationShapePoint>& shape, const FieldPath& path) {
  FieldErrors errs;
  if (shape.empty()) {
    errs.push_back(Required(path, "at least one point must be specified"));
    return errs;
  }
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errs.push_back(Invalid(path.Index(i).Child("utilization"),
                             GoValue(shape[i].utilization),
                             "values must be sorted in increasing order"));
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const UtilizationShapePoint& point = shape[i];
    if (point.utilization < 0 || point.utilization > 100) {
      errs.push_back(Invalid(path.Index(i).Child("utilization"),
                             GoValue(point.utilization),
                             "not in valid range [0, 100]"));
    }
    if (point.score < 0 || point.score > kMaxCustomPriorityScore) {
      errs.push_back(Invalid(path.Index(i).Child("score"), GoValue(point.score),
                             "not in valid range [0, 10]"));
    }
  }
  return errs;
}

// validateResources (NodeResourcesFit scoring).
FieldErrors ValidateResources(const std::vector<ResourceSpec>& resources,
                              const FieldPath& path) {
  FieldErrors errs;
  for (size_t i = 0; i < resources.size(); ++i) {
    const ResourceSpec& r = resources[i];
    if (r.weight <= 0 || r.weight > 100) {
      errs.push_back(Invalid(
          path.Index(i).Child("weight"), GoValue(r.weight),
          "resource weight of " + r.name + " not in valid range (0, 100]"));
    }
  }
  return errs;
}

}  // namespace

FieldErrors ValidateDefaultPreemptionArgs(const FieldPath& path,
                                          const DefaultPreemptionArgs& args) {
  FieldErrors errs;
  FieldPath percentage_path = path.Child("minCandidateNodesPercentage");
  FieldPath absolute_path = path.Child("minCandidateNodesAbsolute");
  int32_t percentage = args.min_candidate_nodes_percentage.value_or(0);
  int32_t absolute = args.min_candidate_nodes_absolute.value_or(0);
  if (percentage < 0 || percentage > 100) {
    errs.push_back(Invalid(percentage_path, GoValue(percentage),
                           "not in valid range [0, 100]"));
  }
  if (absolute < 0) {
    errs.push_back(Invalid(absolute_path, GoValue(absolute),
                           "not in valid range [0, inf)"));
  }
  if (percentage == 0 && absolute == 0) {
    errs.push_back(Invalid(percentage_path, GoValue(percentage),
                           "cannot be zero at the same time as "
                           "minCandidateNodesAbsolute"));
    errs.push_back(Invalid(absolute_path, GoValue(absolute),
                           "cannot be zero at the same time as "
                           "minCandidateNodesPercentage"));
  }
  return errs;
}

FieldErrors ValidateInterPodAffinityArgs(const FieldPath& path,
                                         const InterPodAffinityArgs& args) {
  FieldErrors errs;
  int32_t weight = args.hard_pod_affinity_weight.value_or(0);
  if (weight < 0 || weight > 100) {
    errs.push_back(Invalid(path.Child("hardPodAffinityWeight"), GoValue(weight),
                           "not in valid range [0, 100]"));
  }
  return errs;
}

FieldErrors ValidatePodTopologySpreadArgs(const FieldPath& path,
                                          const PodTopologySpreadArgs& args,
                                          std::string_view raw_args) {
  using Action = api::UnsatisfiableConstraintAction;
  FieldErrors errs;
  FieldPath defaulting_path = path.Child("defaultingType");
  if (args.defaulting_type != "System" && args.defaulting_type != "List") {
    errs.push_back(NotSupported(defaulting_path, GoQuote(args.defaulting_type),
                                {"System", "List"}));
  } else if (args.defaulting_type == "System" &&
             !args.default_constraints.empty()) {
    errs.push_back(Invalid(defaulting_path, GoQuote(args.defaulting_type),
                           "when .defaultConstraints are not empty"));
  }

  FieldPath constraints_path = path.Child("defaultConstraints");
  const auto& constraints = args.default_constraints;
  for (size_t i = 0; i < constraints.size(); ++i) {
    const api::TopologySpreadConstraint& c = constraints[i];
    FieldPath p = constraints_path.Index(i);
    if (c.max_skew <= 0) {
      errs.push_back(Invalid(p.Child("maxSkew"), GoValue(c.max_skew),
                             "not in valid range (0, inf)"));
    }
    if (c.topology_key.empty()) {
      errs.push_back(Required(p.Child("topologyKey"), "can not be empty"));
    } else {
      Append(&errs, ValidateLabelName(p.Child("topologyKey"), c.topology_key));
    }
    if (c.when_unsatisfiable == Action::kOther) {
      std::string raw =
          RawStringAt(raw_args, {std::string_view("defaultConstraints"), i,
                                 std::string_view("whenUnsatisfiable")});
      if (raw.empty()) {
        errs.push_back(
            Required(p.Child("whenUnsatisfiable"), "can not be empty"));
      } else {
        errs.push_back(NotSupported(p.Child("whenUnsatisfiable"), GoQuote(raw),
                                    {"DoNotSchedule", "ScheduleAnyway"}));
      }
    }
    if (c.label_selector) {
      errs.push_back(Forbidden(p.Child("labelSelector"),
                               "constraint must not define a selector, as "
                               "they deduced for each pod"));
    }
    for (size_t j = 0; j < i; ++j) {
      const api::TopologySpreadConstraint& other = constraints[j];
      if (c.topology_key == other.topology_key &&
          c.when_unsatisfiable == other.when_unsatisfiable) {
        errs.push_back(
            Duplicate(constraints_path.Index(i),
                      GoQuote("{" + c.topology_key + ", " +
                              EnumText(c.when_unsatisfiable) + "}")));
        break;
      }
    }
  }
  return errs;
}

FieldErrors ValidateNodeResourcesBalancedAllocationArgs(
    const FieldPath& path, const NodeResourcesBalancedAllocationArgs& args) {
  FieldErrors errs;
  std::set<std::string> seen;
  for (size_t i = 0; i < args.resources.size(); ++i) {
    const ResourceSpec& r = args.resources[i];
    FieldPath p = path.Child("resources").Index(i);
    if (!seen.insert(r.name).second) {
      errs.push_back(Duplicate(p.Child("name"), GoQuote(r.name)));
    }
    if (r.weight != 1) {
      errs.push_back(
          Invalid(p.Child("weight"), GoValue(r.weight), "must be 1"));
    }
  }
  return errs;
}

FieldErrors ValidateNodeAffinityArgs(const FieldPath& path,
                                     const NodeAffinityArgs& args,
                                     std::string_view raw_args) {
  FieldErrors errs;
  if (!args.added_affinity) return errs;
  const api::NodeAffinity& affinity = *args.added_affinity;
  constexpr std::string_view kRequired =
      "requiredDuringSchedulingIgnoredDuringExecution";
  constexpr std::string_view kPreferred =
      "preferredDuringSchedulingIgnoredDuringExecution";
  if (affinity.required) {
    FieldPath terms_path =
        path.Child("addedAffinity").Child(kRequired).Child("nodeSelectorTerms");
    const auto& terms = affinity.required->node_selector_terms;
    for (size_t i = 0; i < terms.size(); ++i) {
      // An empty term selects nothing and is not parsed.
      if (IsEmptyTerm(terms[i])) continue;
      Append(&errs, ValidateNodeSelectorTerm(
                        terms_path.Index(i), terms[i], raw_args,
                        {std::string_view("addedAffinity"), kRequired,
                         std::string_view("nodeSelectorTerms"), i}));
    }
  }
  FieldPath preferred_path = path.Child("addedAffinity").Child(kPreferred);
  for (size_t i = 0; i < affinity.preferred.size(); ++i) {
    const api::PreferredSchedulingTerm& term = affinity.preferred[i];
    if (term.weight == 0 || IsEmptyTerm(term.preference)) continue;
    Append(&errs, ValidateNodeSelectorTerm(
                      preferred_path.Index(i), term.preference, raw_args,
                      {std::string_view("addedAffinity"), kPreferred, i,
                       std::string_view("preference")}));
  }
  return errs;
}

FieldErrors ValidateCoschedulingArgs(const FieldPath& path,
                                     const CoschedulingArgs& args) {
  FieldErrors errs;
  int64_t wait = args.permit_waiting_time_seconds.value_or(0);
  if (wait < 0) {
    errs.push_back(Invalid(path.Child("permitWaitingTimeSeconds"),
                           GoValue(wait),
                           "must be greater than or equal to 0"));
  }
  int64_t backoff = args.pod_group_backoff_seconds.value_or(0);
  if (backoff < 0) {
    errs.push_back(Invalid(path.Child("podGroupBackoffSeconds"),
                           GoValue(backoff),
                           "must be greater than or equal to 0"));
  }
  int32_t percentage = args.pod_group_reject_percentage.value_or(0);
  if (percentage < 0 || percentage > 100) {
    errs.push_back(Invalid(path.Child("podGroupRejectPercentage"),
                           GoValue(percentage), "must be between 0 and 100"));
  }
  return errs;
}

FieldErrors ValidateVolumeBindingArgs(const FieldPath& path,
                                      const VolumeBindingArgs& args) {
  FieldErrors errs;
  int64_t timeout = args.bind_timeout_seconds.value_or(0);
  if (timeout < 0) {
    errs.push_back(Invalid(path.Child("bindTimeoutSeconds"), GoValue(timeout),
                           "invalid BindTimeoutSeconds, should not be a "
                           "negative value"));
  }
  // A shape needs StorageCapacityScoring (alpha, off), which ksched does
  // not implement: any shape is refused, as kube does with the gate off,
  // so that it never seems to take effect.
  if (args.shape) {
    errs.push_back(Invalid(path.Child("shape"), GoShape(*args.shape),
                           "unexpected field `shape`, remove it or turn on "
                           "the feature gate StorageCapacityScoring"));
  }
  return errs;
}

FieldErrors ValidateNodeResourcesFitArgs(const FieldPath& path,
                                         const NodeResourcesFitArgs& args) {
  FieldErrors errs;
  FieldPath resources_path = path.Child("ignoredResources");
  for (size_t i = 0; i < args.ignored_resources.size(); ++i) {
    Append(&errs, ValidateLabelName(resources_path.Index(i),
                                    args.ignored_resources[i]));
  }
  FieldPath groups_path = path.Child("ignoredResourceGroups");
  for (size_t i = 0; i < args.ignored_resource_groups.size(); ++i) {
    const std::string& group = args.ignored_resource_groups[i];
    FieldPath p = groups_path.Index(i);
    if (group.find('/') != std::string::npos) {
      errs.push_back(
          Invalid(p, GoQuote(group), "resource group name can't contain '/'"));
    }
    Append(&errs, ValidateLabelName(p, group));
  }

  FieldPath strategy_path = path.Child("scoringStrategy");
  if (!args.scoring_strategy) {
    errs.push_back(
        Required(strategy_path, "ScoringStrategy field is required"));
    return errs;
  }
  const ScoringStrategy& s = *args.scoring_strategy;
  if (s.type != "LeastAllocated" && s.type != "MostAllocated" &&
      s.type != "RequestedToCapacityRatio") {
    errs.push_back(NotSupported(
        strategy_path.Child("type"), GoQuote(s.type),
        {"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"}));
  }
  Append(&errs,
         ValidateResources(s.resources, strategy_path.Child("resources")));
  FieldPath ratio_path = strategy_path.Child("requestedToCapacityRatio");
  if (s.type == "RequestedToCapacityRatio") {
    if (!s.requested_to_capacity_ratio) {
      errs.push_back(Required(ratio_path,
                              "must be specified when type is "
                              "RequestedToCapacityRatio"));
    } else {
      Append(&errs, ValidateFunctionShape(s.requested_to_capacity_ratio->shape,
                                          ratio_path.Child("shape")));
    }
  } else if (s.requested_to_capacity_ratio) {
    errs.push_back(Forbidden(
        ratio_path, "must be nil when type is not RequestedToCapacityRatio"));
  }
  return errs;
}

FieldErrors ValidateDynamicResourcesArgs(const FieldPath& path,
                                         const DynamicResourcesArgs& args,
                                         const FeatureGates& gates) {
  using enum Feature;
  FieldErrors errs;
  if (gates.Enabled(kDRASchedulerFilterTimeout)) {
    if (args.filter_timeout && args.filter_timeout->value.count() < 0) {
      errs.push_back(
          Invalid(path.Child("filterTimeout"),
                  GoQuote(FormatGoDuration(args.filter_timeout->value)),
                  "must be zero or positive"));
    }
  } else if (args.filter_timeout) {
    // kube's message names the gate DRASchedulingFilterTimeout.
    errs.push_back(Forbidden(path.Child("filterTimeout"),
                             "DRASchedulingFilterTimeout feature gate is "
                             "disabled"));
  }
  if (gates.Enabled(kDRADeviceBindingConditions) &&
      gates.Enabled(kDRAResourceClaimDeviceStatus)) {
    if (args.binding_timeout &&
        args.binding_timeout->value < std::chrono::seconds(1)) {
      errs.push_back(
          Invalid(path.Child("bindingTimeout"),
                  GoQuote(FormatGoDuration(args.binding_timeout->value)),
                  "must be at least 1 second"));
    }
  } else if (args.binding_timeout) {
    errs.push_back(Forbidden(path.Child("bindingTimeout"),
                             "DRADeviceBindingConditions or "
                             "DRAResourceClaimDeviceStatus feature gate is "
                             "disabled"));
  }
  return errs;
}

FieldErrors ValidatePluginArgs(const FieldPath& path,
                               const PluginConfig& config,
                               const FeatureGates& gates) {
  return std::visit(
      [&](const auto& args) -> FieldErrors {
        using T = std::decay_t<decltype(args)>;
        if constexpr (std::is_same_v<T, DefaultPreemptionArgs>) {
          return ValidateDefaultPreemptionArgs(path, args);
        } else if constexpr (std::is_same_v<T, InterPodAffinityArgs>) {
          return ValidateInterPodAffinityArgs(path, args);
        } else if constexpr (std::is_same_v<T, PodTopologySpreadArgs>) {
          return ValidatePodTopologySpreadArgs(path, args, config.raw_args);
        } else if constexpr (std::is_same_v<
                                 T, NodeResourcesBalancedAllocationArgs>) {
          return ValidateNodeResourcesBalancedAllocationArgs(path, args);
        } else if constexpr (std::is_same_v<T, NodeAffinityArgs>) {
          return ValidateNodeAffinityArgs(path, args, config.raw_args);
        } else if constexpr (std::is_same_v<T, VolumeBindingArgs>) {
          return ValidateVolumeBindingArgs(path, args);
        } else if constexpr (std::is_same_v<T, NodeResourcesFitArgs>) {
          return ValidateNodeResourcesFitArgs(path, args);
        } else if constexpr (std::is_same_v<T, CoschedulingArgs>) {
          return ValidateCoschedulingArgs(path, args);
        } else if constexpr (std::is_same_v<T, DynamicResourcesArgs>) {
          return ValidateDynamicResourcesArgs(path, args, gates);
        } else {
          return {};
        }
      },
      config.args);
}

}  // namespace ksched::config::v1

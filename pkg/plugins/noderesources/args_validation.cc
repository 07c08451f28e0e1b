#include "pkg/plugins/noderesources/args_validation.h"

#include <set>
#include <string>

#include "pkg/config/name_validation.h"

namespace ksched::plugins::noderesources {
namespace {

using config::FieldErrors;
using config::FieldPath;

constexpr int32_t kMaxCustomPriorityScore = 10;
constexpr int32_t kMaxUtilization = 100;

// metav1validation.ValidateLabelName: one error per broken rule.
void ValidateLabelName(const FieldPath& path, const std::string& name,
                       FieldErrors* errs) {
  for (const std::string& msg : config::QualifiedNameErrors(name)) {
    errs->push_back(config::Invalid(path, config::GoQuote(name), msg));
  }
}

void ValidateResources(const std::vector<config::ResourceSpec>& resources,
                       const FieldPath& path, FieldErrors* errs) {
  for (size_t i = 0; i < resources.size(); ++i) {
    const config::ResourceSpec& r = resources[i];
    if (r.weight <= 0 || r.weight > 100) {
      errs->push_back(config::Invalid(
          path.Index(i).Child("weight"), config::GoValue(r.weight),
          "resource weight of " + r.name + " not in valid range (0, 100]"));
    }
  }
}

void ValidateFunctionShape(
    const std::vector<config::UtilizationShapePoint>& shape,
    const FieldPath& path, FieldErrors* errs) {
  if (shape.empty()) {
    errs->push_back(
        config::Required(path, "at least one point must be specified"));
    return;
  }
  // Only the first out-of-order point is reported, as kube does.
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errs->push_back(
          config::Invalid(path.Index(i).Child("utilization"),
                          config::GoValue(shape[i].utilization),
                          "values must be sorted in increasing order"));
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const config::UtilizationShapePoint& p = shape[i];
    if (p.utilization < 0 || p.utilization > kMaxUtilization) {
      errs->push_back(config::Invalid(path.Index(i).Child("utilization"),
                                      config::GoValue(p.utilization),
                                      "not in valid range [0, 100]"));
    }
    if (p.score < 0 || p.score > kMaxCustomPriorityScore) {
      errs->push_back(config::Invalid(path.Index(i).Child("score"),
                                      config::GoValue(p.score),
                                      "not in valid range [0, 10]"));
    }
  }
}

}  // namespace

FieldErrors ValidateFitArgs(const config::NodeResourcesFitArgs& args) {
  FieldErrors errs;
  const FieldPath root;
  FieldPath resources_path = root.Child("ignoredResources");
  for (size_t i = 0; i < args.ignored_resources.size(); ++i) {
    ValidateLabelName(resources_path.Index(i), args.ignored_resources[i],
                      &errs);
  }
  FieldPath groups_path = root.Child("ignoredResourceGroups");
  for (size_t i = 0; i < args.ignored_resource_groups.size(); ++i) {
    const std::string& group = args.ignored_resource_groups[i];
    FieldPath p = groups_path.Index(i);
    if (group.find('/') != std::string::npos) {
      errs.push_back(config::Invalid(p, config::GoQuote(group),
                                     "resource group name can't contain '/'"));
    }
    ValidateLabelName(p, group, &errs);
  }
  // The strategy type is an enum here, so it cannot be unsupported.
  FieldPath strategy_path = root.Child("scoringStrategy");
  const config::ScoringStrategy& s = args.scoring_strategy;
  ValidateResources(s.resources, strategy_path.Child("resources"), &errs);
  // kube validates the shape whenever requestedToCapacityRatio is set; the
  // internal type here has no "unset", so a shape given, or one the
  // strategy needs, is validated (an empty one would leave the function
  // without points).
  if (s.type == config::ScoringStrategyType::kRequestedToCapacityRatio ||
      !s.shape.empty()) {
    ValidateFunctionShape(s.shape, strategy_path.Child("shape"), &errs);
  }
  return errs;
}

FieldErrors ValidateBalancedAllocationArgs(
    const config::NodeResourcesBalancedAllocationArgs& args) {
  FieldErrors errs;
  std::set<std::string> seen;
  FieldPath resources_path = FieldPath().Child("resources");
  for (size_t i = 0; i < args.resources.size(); ++i) {
    const config::ResourceSpec& r = args.resources[i];
    FieldPath p = resources_path.Index(i);
    if (!seen.insert(r.name).second) {
      errs.push_back(
          config::Duplicate(p.Child("name"), config::GoQuote(r.name)));
    }
    // The standard deviation is unweighted: any weight but 1 is a mistake.
    if (r.weight != 1) {
      errs.push_back(config::Invalid(p.Child("weight"),
                                     config::GoValue(r.weight), "must be 1"));
    }
  }
  return errs;
}

}  // namespace ksched::plugins::noderesources

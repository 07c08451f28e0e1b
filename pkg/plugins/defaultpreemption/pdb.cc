#include "pkg/plugins/defaultpreemption/pdb.h"

namespace ksched::plugins::defaultpreemption {

std::vector<CompiledPdb> CompilePdbs(
    const std::vector<std::shared_ptr<const api::PodDisruptionBudget>>& pdbs) {
  std::vector<CompiledPdb> out;
  out.reserve(pdbs.size());
  for (const auto& pdb : pdbs) {
    CompiledPdb c{pdb};
    if (pdb->spec.selector.has_value()) {
      auto selector = api::Selector::FromLabelSelector(&*pdb->spec.selector);
      // An empty selector would match every pod; kube deliberately lets
      // it match none, as it does an invalid one.
      if (selector.ok() && !selector->IsEverything()) {
        c.selector = std::move(*selector);
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

void SplitByPdbViolation(const std::vector<framework::PodInfoPtr>& pods,
                         const std::vector<CompiledPdb>& pdbs,
                         std::vector<framework::PodInfoPtr>* violating,
                         std::vector<framework::PodInfoPtr>* non_violating) {
  // Budgets are spent across all victims of the node, in importance order.
  std::vector<int64_t> allowed;
  allowed.reserve(pdbs.size());
  for (const CompiledPdb& c : pdbs) {
    allowed.push_back(c.pdb->status.disruptions_allowed);
  }
  for (const framework::PodInfoPtr& info : pods) {
    const framework::PodInfo& pod = *info;
    bool violated = false;
    // A selector made only of NotIn / DoesNotExist would match a pod
    // without labels; kube skips such pods outright.
    if (!pod.labels().empty()) {
      for (size_t i = 0; i < pdbs.size(); ++i) {
        const api::PodDisruptionBudget& pdb = *pdbs[i].pdb;
        if (pdb.metadata.ns != pod.ns()) continue;
        if (!pdbs[i].selector.Matches(pod.labels())) continue;
        if (pdb.status.disrupted_pods.Contains(pod.name())) continue;
        if (--allowed[i] < 0) violated = true;
      }
    }
    (violated ? violating : non_violating)->push_back(info);
  }
}

}  // namespace ksched::plugins::defaultpreemption

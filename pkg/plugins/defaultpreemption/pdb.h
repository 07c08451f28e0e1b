// PodDisruptionBudgets as preemption sees them: which victims would take a
// budget below zero (filterPodsWithPDBViolation).
#pragma once

#include <memory>
#include <vector>

#include "pkg/api/label_selector.h"
#include "pkg/api/policy.h"
#include "pkg/framework/pod_info.h"

namespace ksched::plugins::defaultpreemption {

// A PDB with its selector compiled once per preemption attempt: the dry run
// matches every potential victim on every node against every PDB.
struct CompiledPdb {
  std::shared_ptr<const api::PodDisruptionBudget> pdb;
  // Nothing for an absent, empty or invalid selector: kube treats such a
  // PDB as protecting no pod here.
  api::Selector selector = api::Selector::Nothing();
};

std::vector<CompiledPdb> CompilePdbs(
    const std::vector<std::shared_ptr<const api::PodDisruptionBudget>>& pdbs);

// Splits `pods` (kept in order) into those whose eviction would take a
// matching PDB's disruptionsAllowed below zero and the others. Each matching
// pod spends one allowed disruption of each of its PDBs, unless the PDB
// already lists it in disruptedPods (the API server counted it).
void SplitByPdbViolation(const std::vector<framework::PodInfoPtr>& pods,
                         const std::vector<CompiledPdb>& pdbs,
                         std::vector<framework::PodInfoPtr>* violating,
                         std::vector<framework::PodInfoPtr>* non_violating);

}  // namespace ksched::plugins::defaultpreemption

// Preemption candidates and how one is chosen among them
// (preemption.Candidate, util.MoreImportantPod, pickOneNodeForPreemption).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/api/time.h"
#include "pkg/framework/pod_info.h"

namespace ksched::plugins::defaultpreemption {

// The pods to evict from one node, most important first, and how many of
// them would violate a PodDisruptionBudget (extenderv1.Victims).
struct Victims {
  std::vector<framework::PodInfoPtr> pods;
  int64_t num_pdb_violations = 0;
};

// A node the preemptor fits on once its victims are gone.
struct Candidate {
  std::string name;
  Victims victims;
};

int32_t PodPriority(const api::Pod& pod);

// When the pod started (status.startTime); a pod the kubelet has not
// started yet counts as starting `now`, as in kube's GetPodStartTime.
api::Timestamp PodStartTime(const framework::PodInfo& pod, api::Timestamp now);

// Higher priority first; on equal priority the pod running longer first
// (util.MoreImportantPod).
bool MoreImportantPod(const framework::PodInfo& a, const framework::PodInfo& b,
                      api::Timestamp now);

// The node to preempt on, by kube's criteria in order: fewest PDB
// violations, lowest highest-victim priority, smallest sum of victim
// priorities, fewest victims, latest start among the highest-priority
// victims; remaining ties go to the first candidate. "" when empty.
std::string PickOneNodeForPreemption(const std::vector<Candidate>& candidates,
                                     api::Timestamp now);

}  // namespace ksched::plugins::defaultpreemption

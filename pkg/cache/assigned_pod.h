// What the scheduler keeps of a pod that is already bound to a node.
//
// The cache holds every running pod of the cluster, and none of them is
// scheduled again: plugins only ask where it runs, what it requests and
// which host ports it takes, its labels, priority and (anti-)affinity, and
// its claims. Keeping only that (kube-scheduler likewise strips
// managedFields from the pods it caches) makes the pod cache a fraction of
// the size of the objects the API server sends.
#pragma once

#include <memory>

#include "pkg/api/pod.h"

namespace ksched::cache {

// A copy of `pod` with what no plugin reads of a running pod left out:
// annotations, owner references, tolerations, node selector, spread
// constraints, scheduling gates, conditions other than DisruptionTarget,
// container images and volumes that are not claims. Every list is sized to its
// contents.
std::shared_ptr<const api::Pod> SlimAssignedPod(const api::Pod& pod);

}  // namespace ksched::cache

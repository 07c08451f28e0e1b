// PodNominator: pods that preemption nominated for a node, which the
// scheduling queue remembers so that filtering accounts for them
// (framework.PodNominator).
#pragma once

#include <string>
#include <vector>

#include "pkg/framework/pod_info.h"

namespace ksched::framework {

class PodNominator {
 public:
  virtual ~PodNominator() = default;

  // Records `pod` as nominated to `node` (replacing an earlier nomination of
  // the same pod). An empty node uses pod.status.nominatedNodeName.
  virtual void AddNominatedPod(const PodInfoPtr& pod,
                               const std::string& node) = 0;
  virtual void DeleteNominatedPodIfExists(const api::Pod& pod) = 0;
  // Replaces `old_pod`'s nomination with `new_pod`'s (an update).
  virtual void UpdateNominatedPod(const api::Pod& old_pod,
                                  const PodInfoPtr& new_pod) = 0;
  // How many pods are nominated anywhere: filtering skips the per-node
  // lookup entirely when there are none (the common case).
  virtual size_t NumNominatedPods() const = 0;
  // The pods nominated to `node`, in the order they were nominated.
  virtual std::vector<PodInfoPtr> NominatedPodsForNode(
      const std::string& node) const = 0;
};

}  // namespace ksched::framework

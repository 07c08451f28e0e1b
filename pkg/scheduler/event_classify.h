// Which kinds of change an update carries, so the queue wakes only the pods
// a plugin said such a change may help (nodeSchedulingPropertiesChange and
// podSchedulingPropertiesChange in kube-scheduler).
#pragma once

#include <cstdint>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/pod.h"
#include "pkg/api/pod_resources.h"

namespace ksched::scheduler {

// One ActionType per kind of change; an update that changes nothing a
// scheduler reads yields none. A change of status.declaredFeatures counts
// only with `declared_features` (the NodeDeclaredFeatures gate), as in kube.
std::vector<uint32_t> NodeUpdateActions(const api::Node& old_node,
                                        const api::Node& new_node,
                                        bool declared_features = false);

// The ActionType bits of a pod update (kUpdateOther when none specific);
// `features` say whether a resize reported in the status counts.
uint32_t AssignedPodUpdateActions(const api::Pod& old_pod,
                                  const api::Pod& new_pod,
                                  const api::ResourceFeatures& features = {});

}  // namespace ksched::scheduler

// The bodies of the scheduler's writes, as kube-scheduler sends them.
#pragma once

#include <string>
#include <string_view>

#include "pkg/api/objects.h"
#include "pkg/api/pod.h"
#include "pkg/api/podgroup.h"
#include "pkg/framework/cluster_writer.h"

namespace ksched::apiwriter {

// A v1.Binding of the pod (name, namespace and UID, so a recreated pod of
// the same name is refused) to the node.
std::string BindingBody(const api::Pod& pod, const std::string& node);

// A strategic merge patch of the status subresource: conditions merge by
// type, so other conditions stay; an empty nominated node is a null
// (cleared) field.
std::string PodStatusPatch(const framework::PodStatusUpdate& update);

// DeleteOptions whose precondition is the pod's UID: a pod recreated under
// the same name is not deleted.
std::string DeleteWithUidBody(const std::string& uid);

// A merge patch of a PodGroup's status subresource: every field of `status`
// (counts of 0 too, so a count that fell is written).
std::string PodGroupStatusPatch(const api::PodGroupStatus& status);

// A merge patch setting one annotation.
std::string AnnotationPatch(std::string_view key, std::string_view value);

// The strategic merge patch of a ResourceClaim's status that removes one
// consumer from status.reservedFor (merged by uid), with the claim's uid
// so that a claim recreated under the same name is refused (422). Spaced
// exactly as kube-scheduler's Unreserve writes it.
std::string UnreservePatch(std::string_view claim_uid,
                           std::string_view pod_uid);

}  // namespace ksched::apiwriter

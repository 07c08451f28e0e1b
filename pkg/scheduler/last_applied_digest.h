// What the scheduler's informers keep of kubectl's last-applied
// configuration.
//
// `kubectl apply` stores the whole object it applied in the annotation
// kubectl.kubernetes.io/last-applied-configuration. On the nodes and pods
// of a cluster set up by hand that copy is often the largest field (about
// half a kilobyte on the recorded nodes), and nothing in scheduling reads
// it. The informers keep a digest in its place: a change to the annotation
// is still a change (NodeAnnotationChange, an updated pending pod), and
// the cache does not hold a second copy of every object.
#pragma once

#include <string_view>

#include "pkg/api/meta.h"

namespace ksched::scheduler {

inline constexpr std::string_view kLastAppliedAnnotation =
    "kubectl.kubernetes.io/last-applied-configuration";

// Replaces the annotation's value, if any, with "sha256:<hex>" of it.
void DigestLastAppliedConfiguration(api::ObjectMeta& metadata);

}  // namespace ksched::scheduler

// What the scheduler's informers keep of kubectl's last-applied
// configuration.
//
// `kubectl apply` stores the whole object it applied in the annotation
// kubectl.kubernetes.io/last-applied-configuration. On the nodes and pods
// of a cluster set up by hand that copy is often the largest field (about
// half a kilobyte on the recorded nodes), and nothing in scheduling reads
// it. The informers keep a 64-bit digest of it in
// ObjectMeta::last_applied_digest and drop the annotation: a change to it
// is still a change (NodeAnnotationChange, an updated pending pod), and
// the cache holds neither the copy nor an annotation entry for it (about
// 200 bytes an object, most of them the key).
#pragma once

#include <string_view>

#include "pkg/api/meta.h"

namespace ksched::scheduler {

inline constexpr std::string_view kLastAppliedAnnotation =
    "kubectl.kubernetes.io/last-applied-configuration";

// Moves the annotation, if any, out of `metadata.annotations` into
// `metadata.last_applied_digest` (the first 64 bits of its SHA-256, never 0).
void DigestLastAppliedConfiguration(api::ObjectMeta& metadata);

}  // namespace ksched::scheduler

// Reading a pod's PersistentVolumeClaims as kube-scheduler's VolumeBinding
// PreFilter does (podHasPVCs, GetPodVolumeClaims): through the assume
// cache, with kube's messages for claims that make the pod unschedulable.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/plugins/volumebinding/assume_cache.h"
#include "pkg/plugins/volumebinding/binder.h"
#include "pkg/util/result.h"

namespace ksched::plugins::volumebinding {

// The claim a volume uses: its persistentVolumeClaim, or "<pod>-<volume>"
// for a generic ephemeral volume (ephemeral.VolumeClaimName); nullopt for
// any other volume.
std::optional<std::string> ClaimNameOf(const api::Pod& pod,
                                       const api::Volume& volume);

// podHasPVCs: the claims of the pod's volumes, in volume order (empty when
// it has none). The error, for the first volume whose claim is missing,
// lost, being deleted or (ephemeral) not owned by the pod, is the reason of
// an UnschedulableAndUnresolvable status.
util::Result<std::vector<ClaimPtr>> ReadPodClaims(
    const api::Pod& pod, const framework::ClusterObjects& objects,
    AssumeCache& cache);

// GetPodVolumeClaims: sorts the claims by binding state and mode, and
// reads the PVs the sorting calls for.
PodVolumeClaims ClassifyClaims(const std::vector<ClaimPtr>& claims,
                               const framework::ClusterObjects& objects,
                               AssumeCache& cache);

// arePodVolumesBound: every claim of the pod exists and is fully bound now.
bool ArePodVolumesBound(const api::Pod& pod,
                        const framework::ClusterObjects& objects,
                        AssumeCache& cache);

}  // namespace ksched::plugins::volumebinding

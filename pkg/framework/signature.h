// What plugins copy into a pod's scheduling signature (SignPlugin): small
// helpers so that plugins reading the same fields copy them the same way.
#pragma once

#include "pkg/api/pod.h"

namespace ksched::framework::signature {

// Requests, limits and restart policies of every container and init
// container, and the pod's overhead: what resource accounting reads.
void CopyResources(const api::Pod& pod, api::Pod& into);
// Every container's and init container's ports (host ports among them).
void CopyPorts(const api::Pod& pod, api::Pod& into);
// Every container's and init container's image.
void CopyImages(const api::Pod& pod, api::Pod& into);
void CopyTolerations(const api::Pod& pod, api::Pod& into);
// spec.nodeSelector and spec.affinity.nodeAffinity.
void CopyNodeSelection(const api::Pod& pod, api::Pod& into);
// Every volume but its name (which no plugin reads).
void CopyVolumes(const api::Pod& pod, api::Pod& into);
// Whether a volume refers to a claim (persistentVolumeClaim or ephemeral):
// what a claim binds to changes as pods are scheduled, so plugins that
// read claims do not sign such pods.
bool HasClaims(const api::Pod& pod);

}  // namespace ksched::framework::signature

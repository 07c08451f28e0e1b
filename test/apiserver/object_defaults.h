// Defaulting, as kube-apiserver's decoder applies it to every object
// written (create, update and patch alike), and the create-time resets
// the registry strategies make.
#pragma once

#include <optional>
#include <string>

#include "test/apiserver/json_util.h"

namespace ksched::testing::apiserver {

struct ResourceInfo;

// Fills the fields the API defaults (pod restartPolicy, container
// imagePullPolicy, requests from limits, node allocatable, the fields a
// container status always serializes, ...) as a default kube-apiserver
// v1.<kube_minor> does: before v1.33 containers' resizePolicy is defaulted
// (the recorded v1.32 server did it); from v1.34 (PodLevelResources on)
// pod-level requests default to pod-level limits where no container asks
// for that resource; from v1.36 device taints get their timeAdded.
void ApplyDefaults(const ResourceInfo& resource, JsonDocument& object,
                   int kube_minor);

// What a strategy's PrepareForCreate does: a pod's status is reset to
// Pending with its QoS class, and from v1.34 its metadata.generation
// starts at 1; before v1.34 pod-level resources (spec.resources) are
// dropped, their gate being off; a namespace becomes Active.
void PrepareForCreate(const ResourceInfo& resource, JsonDocument& object,
                      int kube_minor);

// What a pod strategy's PrepareForUpdate does besides: before v1.34 a
// spec.resources the pod did not have is dropped; from v1.34 a change of
// spec bumps metadata.generation.
void PrepareForUpdate(const ResourceInfo& resource, const JsonValue& previous,
                      JsonDocument& next, int kube_minor);

// The pod's QoS class, "Guaranteed", "Burstable" or "BestEffort", as
// kube's ComputePodQOS decides it: from pod-level resources when the pod
// has them (and `pod_level` says the server reads them), else from its
// containers' requests and limits.
std::string PodQosClass(const JsonValue& pod, bool pod_level = true);

// A resource.Quantity's value ("500m" -> 0.5, "1Gi" -> 1073741824), for
// comparisons; nullopt when it is not a quantity.
std::optional<long double> QuantityValue(const JsonValue& quantity);

// Orders metadata fields (and puts metadata first) as the API's Go types
// serialize them; unknown fields keep their place after the known ones.
void CanonicalizeOrder(JsonDocument& object);

}  // namespace ksched::testing::apiserver

// Defaulting, as kube-apiserver's decoder applies it to every object
// written (create, update and patch alike), and the create-time resets
// the registry strategies make.
#pragma once

#include <string>

#include "test/apiserver/json_util.h"

namespace ksched::testing::apiserver {

struct ResourceInfo;

// Fills the fields the API defaults (pod restartPolicy, container
// imagePullPolicy, requests from limits, node allocatable, ...).
void ApplyDefaults(const ResourceInfo& resource, JsonDocument& object);

// What a strategy's PrepareForCreate does: a pod's status is reset to
// Pending with its QoS class; a namespace becomes Active.
void PrepareForCreate(const ResourceInfo& resource, JsonDocument& object);

// The pod's QoS class: "Guaranteed", "Burstable" or "BestEffort".
std::string PodQosClass(const JsonValue& pod);

// Orders metadata fields (and puts metadata first) as the API's Go types
// serialize them; unknown fields keep their place after the known ones.
void CanonicalizeOrder(JsonDocument& object);

}  // namespace ksched::testing::apiserver

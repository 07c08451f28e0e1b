// What kube-apiserver refuses in a written object: bodies its decoder
// cannot read into the Go type (400 BadRequest), and objects validation
// rejects (422 Invalid).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "test/apiserver/json_util.h"
#include "test/apiserver/status.h"

namespace ksched::testing::apiserver {

struct ResourceInfo;

// Checks kind/apiVersion against the resource and the JSON types of the
// fields clients commonly get wrong; returns the 400 the decoder gives.
std::optional<ApiError> CheckDecodable(const ResourceInfo& resource,
                                       const JsonValue& object);

// Validation causes (empty: valid), as a default kube-apiserver
// v1.<kube_minor> finds them. `object` is complete (defaulted, with its
// name resolved). From v1.36 (NodeDeclaredFeatures,
// RestartAllContainersOnContainerExits on by default) a node's
// status.declaredFeatures and containers' restartPolicy and
// restartPolicyRules are checked as well.
std::vector<StatusCause> Validate(const ResourceInfo& resource,
                                  const JsonValue& object, int kube_minor);

// Causes for changing `previous` into `next` (both complete objects) that
// only creation may do: a pod's spec is immutable but for a few fields.
std::vector<StatusCause> ValidateUpdate(const ResourceInfo& resource,
                                        const JsonValue& previous,
                                        const JsonValue& next, int kube_minor);

}  // namespace ksched::testing::apiserver

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

// Validation causes (empty: valid). `object` is complete (defaulted, with
// its name resolved).
std::vector<StatusCause> Validate(const ResourceInfo& resource,
                                  const JsonValue& object);

// Causes for changing `previous` into `next` (both complete objects) that
// only creation may do: a pod's spec is immutable but for a few fields.
std::vector<StatusCause> ValidateUpdate(const ResourceInfo& resource,
                                        const JsonValue& previous,
                                        const JsonValue& next);

}  // namespace ksched::testing::apiserver

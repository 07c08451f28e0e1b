// The three patch formats kube-apiserver accepts for built-in types:
// JSON merge patch (RFC 7386), strategic merge patch (lists with a merge
// key merged element by element, e.g. pod conditions by "type"), and JSON
// patch (RFC 6902).
#pragma once

#include <string>

#include "test/apiserver/json_util.h"

namespace ksched::testing::apiserver {

// Applies `patch` to `target` in place.
void ApplyMergePatch(JsonValue& target, const JsonValue& patch,
                     JsonAllocator& alloc);

// Applies `patch` to `target` in place; false (and why) when the patch
// breaks the format's rules (e.g. an element without its merge key).
bool ApplyStrategicMergePatch(JsonValue& target, const JsonValue& patch,
                              JsonAllocator& alloc, std::string* error);

// Applies the operations of `patch` (an array) to `target` in place.
bool ApplyJsonPatch(JsonValue& target, const JsonValue& patch,
                    JsonAllocator& alloc, std::string* error);

}  // namespace ksched::testing::apiserver

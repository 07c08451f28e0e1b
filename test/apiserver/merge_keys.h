// The patchMergeKey of the API's associative lists, by field name: how
// strategic merge patch matches list elements and how managed fields name
// them ("k:{\"type\":\"PodScheduled\"}").
#pragma once

#include <string_view>

namespace ksched::testing::apiserver {

// The merge key of list field `field`, or "" for atomic lists.
std::string_view MergeKeyFor(std::string_view field);

// Whether list field `field` holds scalars merged as a set (finalizers).
bool IsSetOfScalars(std::string_view field);

}  // namespace ksched::testing::apiserver

// The patchMergeKey of the API's associative lists, by field name: how
// strategic merge patch matches list elements and how managed fields name
// them ("k:{\"type\":\"PodScheduled\"}").
#pragma once

#include <string_view>
#include <vector>

namespace ksched::testing::apiserver {

// The merge key of list field `field`, or "" for atomic lists.
std::string_view MergeKeyFor(std::string_view field);

// The keys that name an element of list field `field` in managed fields
// (its listMapKeys): the merge key, or more where the schema has more
// (a container port is its containerPort and protocol). Empty for atomic
// lists.
std::vector<std::string_view> ListMapKeysFor(std::string_view field);

// Whether list field `field` holds scalars merged as a set (finalizers).
bool IsSetOfScalars(std::string_view field);

}  // namespace ksched::testing::apiserver

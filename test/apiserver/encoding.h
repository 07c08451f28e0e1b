// Response bodies from stored objects: objects with their kind and
// apiVersion first, lists around stored item JSON (no re-serialization),
// compact with a trailing newline or pretty, as the real server writes.
#pragma once

#include <string>
#include <vector>

#include "test/apiserver/object_store.h"

namespace ksched::testing::apiserver {

struct ResourceInfo;

// The object as GET answers it (compact, no newline).
std::string ObjectJson(const ResourceInfo& resource,
                       const StoredObject& object);

struct ListMeta {
  int64_t rv = 0;
  std::string continue_token;
  int64_t remaining = -1;  // remainingItemCount when >= 0
};
std::string ListJson(const ResourceInfo& resource, const ListMeta& meta,
                     const std::vector<ObjectPtr>& items);

// Compact JSON text as a response body: with Go's trailing newline, or
// re-indented when `pretty`.
std::string ResponseBody(const std::string& compact_json, bool pretty);

}  // namespace ksched::testing::apiserver

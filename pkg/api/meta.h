// metav1 ObjectMeta / ListMeta / OwnerReference and core ObjectReference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/string_map.h"
#include "pkg/api/time.h"

namespace ksched::api {

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
  friend bool operator==(const OwnerReference&,
                         const OwnerReference&) = default;
};

struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string ns;  // "namespace" in JSON
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  Time creation_timestamp;
  std::optional<Time> deletion_timestamp;
  std::optional<int64_t> deletion_grace_period_seconds;
  StringMap labels;
  StringMap annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  // Not in the API, never encoded: a digest of kubectl's last-applied
  // annotation, which the scheduler's informers keep in the annotation's
  // place (scheduler/last_applied_digest.h); 0 when there was none.
  uint64_t last_applied_digest = 0;
  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

struct ListMeta {
  std::string resource_version;
  std::string continue_token;  // "continue" in JSON
  std::optional<int64_t> remaining_item_count;
  friend bool operator==(const ListMeta&, const ListMeta&) = default;
};

struct ObjectReference {
  std::string kind;
  std::string ns;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string resource_version;
  std::string field_path;
  friend bool operator==(const ObjectReference&,
                         const ObjectReference&) = default;
};

}  // namespace ksched::api

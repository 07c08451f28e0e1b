// metadata.managedFields: which manager (the User-Agent's product, or the
// fieldManager parameter) last wrote which fields, as the API server
// records for every create, update and patch.
#pragma once

#include <string>
#include <string_view>

#include "test/apiserver/json_util.h"

namespace ksched::testing::apiserver {

struct FieldManager {
  std::string manager;
  std::string operation = "Update";
  std::string api_version;
  std::string subresource;  // "status" or ""
  std::string time;         // RFC 3339
};

// "kubectl-client-side-apply/v1.32.0 (linux/amd64)" -> its product name.
std::string ManagerFromUserAgent(std::string_view user_agent);

// Sets `object`'s managedFields: those of `previous` (the stored state;
// null on create) with `manager`'s entry now also owning every field
// `written` sets (the request body or the patch).
void RecordManagedFields(JsonDocument& object, const JsonValue* previous,
                         const JsonValue& written, const FieldManager& manager);

}  // namespace ksched::testing::apiserver

#include "test/apiserver/merge_keys.h"

namespace ksched::testing::apiserver {

// Lists not here are atomic: replaced whole by a patch, one leaf in managed
// fields (containerStatuses among them: +listType=atomic, no merge key).
std::string_view MergeKeyFor(std::string_view field) {
  if (field == "conditions" || field == "addresses") return "type";
  if (field == "containers" || field == "initContainers" ||
      field == "ephemeralContainers" || field == "volumes" || field == "env" ||
      field == "imagePullSecrets" || field == "resourceClaims" ||
      field == "schedulingGates" || field == "resourceClaimStatuses" ||
      field == "claims") {
    return "name";
  }
  if (field == "volumeMounts") return "mountPath";
  if (field == "ports") return "containerPort";
  // A ResourceClaim's reservedFor: its consumers, by uid.
  if (field == "ownerReferences" || field == "reservedFor") return "uid";
  if (field == "podIPs" || field == "hostIPs") return "ip";
  if (field == "topologySpreadConstraints") return "topologyKey";
  return "";
}

std::vector<std::string_view> ListMapKeysFor(std::string_view field) {
  if (field == "ports") return {"containerPort", "protocol"};
  if (field == "topologySpreadConstraints") {
    return {"topologyKey", "whenUnsatisfiable"};
  }
  const std::string_view key = MergeKeyFor(field);
  if (key.empty()) return {};
  return {key};
}

bool IsSetOfScalars(std::string_view field) { return field == "finalizers"; }

}  // namespace ksched::testing::apiserver

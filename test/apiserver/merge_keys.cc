#include "test/apiserver/merge_keys.h"

namespace ksched::testing::apiserver {

std::string_view MergeKeyFor(std::string_view field) {
  if (field == "conditions" || field == "addresses") return "type";
  if (field == "containers" || field == "initContainers" ||
      field == "ephemeralContainers" || field == "volumes" || field == "env" ||
      field == "imagePullSecrets" || field == "resourceClaims" ||
      field == "schedulingGates" || field == "containerStatuses" ||
      field == "initContainerStatuses") {
    return "name";
  }
  if (field == "volumeMounts") return "mountPath";
  if (field == "ports") return "containerPort";
  if (field == "ownerReferences") return "uid";
  if (field == "podIPs" || field == "hostIPs") return "ip";
  if (field == "topologySpreadConstraints") return "topologyKey";
  return "";
}

bool IsSetOfScalars(std::string_view field) { return field == "finalizers"; }

}  // namespace ksched::testing::apiserver

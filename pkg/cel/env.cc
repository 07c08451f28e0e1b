#include "pkg/cel/env.h"

#include "pkg/cel/libraries.h"
#include "pkg/cel/stdlib.h"

namespace ksched::cel {

Env StandardEnv() {
  Env env;
  RegisterStandardLibrary(env.functions);
  RegisterMatches(env.functions);
  RegisterOptionalLibrary(env.functions);
  RegisterMapInsert(env.functions);
  RegisterStringsExt(env.functions);
  // Strings v2 adds the format validator along with format.
  env.validate_format_calls = true;
  RegisterListsExt(env.functions);
  RegisterSetsExt(env.functions);
  // The standard library's type identifiers with dotted names.
  env.type_names.insert(
      {"google.protobuf.Timestamp", "google.protobuf.Duration"});
  return env;
}

Env KubernetesEnv() {
  Env env = StandardEnv();
  RegisterKubernetesLists(env.functions);
  RegisterKubernetesRegex(env.functions);
  RegisterQuantity(env.functions);
  RegisterSemver(env.functions);
  RegisterUrls(env.functions);
  RegisterIp(env.functions);
  RegisterCidr(env.functions);
  RegisterFormat(env.functions);
  // The IP and CIDR libraries declare their types (cel.Types).
  env.type_names.insert({"net.IP", "net.CIDR"});
  env.homogeneous_aggregate_literals = true;
  env.optimize = true;
  env.validate_regex_literals = true;
  env.presence_test_has_cost = false;
  return env;
}

}  // namespace ksched::cel

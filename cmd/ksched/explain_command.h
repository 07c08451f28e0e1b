// `ksched explain POD` (and `kubectl ksched explain POD`): why a pod is
// pending, or where it would go now, from one recorded scheduling cycle
// run against the cluster as listed from its API server. Read-only.
#pragma once

#include <string>
#include <vector>

namespace ksched::cmd {

// `program` names the command in usage and messages: "ksched", or
// "kubectl ksched" when run as a kubectl plugin. Returns the exit code.
int RunExplain(const std::vector<std::string>& args,
               const std::string& program);

}  // namespace ksched::cmd

// `ksched` (no command): schedule a cluster's pods through its API server.
#pragma once

#include <string>
#include <vector>

namespace ksched::cmd {

// Returns the process exit code.
int RunScheduler(const std::vector<std::string>& args);

}  // namespace ksched::cmd

// `ksched simulate`: schedule the pending pods of a manifest file in-process.
#pragma once

#include <string>
#include <vector>

namespace ksched::cmd {

// Returns the process exit code.
int RunSimulate(const std::vector<std::string>& args,
                const std::string& program = "ksched");

}  // namespace ksched::cmd

// What a user should hear once at start-up: configuration fields ksched
// accepts but does not act on, and enabled plugins it does not implement.
#pragma once

#include <string>
#include <vector>

#include "pkg/config/types.h"

namespace ksched::cmd {

std::vector<std::string> StartupNotes(
    const config::KubeSchedulerConfiguration& cfg);

}  // namespace ksched::cmd

// Profiles: one Framework per schedulerName (scheduler/profile).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "pkg/config/types.h"
#include "pkg/framework/registry.h"
#include "pkg/framework/runtime/framework.h"
#include "pkg/util/result.h"

namespace ksched::scheduler {

using ProfileMap =
    std::map<std::string, std::unique_ptr<framework::Framework>, std::less<>>;

// Builds every profile of the configuration; the first error names the
// profile and the plugin.
util::Result<ProfileMap> BuildProfiles(
    const config::KubeSchedulerConfiguration& cfg,
    const framework::Registry& registry,
    const framework::Framework::Options& options);

}  // namespace ksched::scheduler

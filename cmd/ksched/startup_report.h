// Loading the scheduler configuration for any command, and what a user
// should hear once at start-up: configuration fields ksched accepts but does
// not act on, and enabled plugins it does not implement.
#pragma once

#include <string>
#include <vector>

#include "pkg/config/feature_gates.h"
#include "pkg/config/types.h"
#include "pkg/framework/registry.h"
#include "pkg/util/result.h"

namespace ksched::cmd {

// The file at `path`, checked against the registry's plugin names, or
// ksched's built-in configuration when `path` is empty; defaulted and
// validated under `gates` (--emulated-version and --feature-gates), as
// kube-scheduler's configuration is.
util::Result<config::KubeSchedulerConfiguration> LoadConfiguration(
    const std::string& path, const framework::Registry& registry,
    const config::FeatureGates& gates);

std::vector<std::string> StartupNotes(
    const config::KubeSchedulerConfiguration& cfg);

}  // namespace ksched::cmd

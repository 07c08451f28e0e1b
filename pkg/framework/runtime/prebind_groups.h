// How a cycle's PreBind plugins run (getPreBindPluginGroups, v1.36):
// neighbours in the profile that all allowed it at PreBindPreFlight form
// one group and run in parallel; every other plugin is a group of its own;
// plugins that answered Skip are left out.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "pkg/framework/interface.h"

namespace ksched::framework {

using PluginNames = std::set<std::string, std::less<>>;

std::vector<std::vector<PreBindPlugin*>> PreBindPluginGroups(
    const std::vector<PreBindPlugin*>& plugins, const PluginNames& skipped,
    const PluginNames& parallel);

}  // namespace ksched::framework

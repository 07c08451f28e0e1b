// The in-tree plugin registry: every plugin name kube-scheduler v1.35 knows.
#pragma once

#include <string>
#include <vector>

#include "pkg/framework/registry.h"

namespace ksched::plugins {

framework::Registry NewInTreeRegistry();

// Names accepted in configuration that ksched does not implement yet: they
// have no effect and are reported at start-up.
const std::vector<std::string>& UnimplementedPluginNames();

}  // namespace ksched::plugins

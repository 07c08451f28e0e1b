// SchedulingGates: keeps a pod out of the active queue while it carries
// spec.schedulingGates.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

class SchedulingGates final : public framework::PreEnqueuePlugin,
                              public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return names::kSchedulingGates; }
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;
  framework::Status PreEnqueue(const api::Pod& pod) const override;
};

util::Result<std::unique_ptr<framework::Plugin>> NewSchedulingGates(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

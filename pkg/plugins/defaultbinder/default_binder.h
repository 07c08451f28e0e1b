// DefaultBinder: binds through the handle's Binder (a v1.Binding POST in a
// cluster, an in-memory record in the simulator).
#pragma once

#include <memory>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

class DefaultBinder final : public framework::BindPlugin {
 public:
  explicit DefaultBinder(framework::Handle& handle) : handle_(handle) {}

  std::string_view Name() const override { return names::kDefaultBinder; }
  framework::Status Bind(framework::CycleState& state,
                         const framework::PodInfo& pod,
                         const std::string& node) override;

 private:
  framework::Handle& handle_;
};

util::Result<std::unique_ptr<framework::Plugin>> NewDefaultBinder(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

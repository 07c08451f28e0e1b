// Placeholders for kube-scheduler in-tree plugins ksched does not implement
// yet. A configuration that names one (say, disabling NodeVolumeLimits)
// still loads, as it would for kube-scheduler; the plugin joins no extension
// point, and start-up reports that it has no effect.
#pragma once

#include <memory>
#include <string>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

class UnimplementedPlugin final : public framework::Plugin {
 public:
  explicit UnimplementedPlugin(std::string name) : name_(std::move(name)) {}
  std::string_view Name() const override { return name_; }

 private:
  std::string name_;
};

// A factory for the placeholder named `name`.
inline auto UnimplementedFactory(std::string name) {
  return [name](const config::PluginArgs*, framework::Handle&)
             -> util::Result<std::unique_ptr<framework::Plugin>> {
    return std::unique_ptr<framework::Plugin>(
        std::make_unique<UnimplementedPlugin>(name));
  };
}

}  // namespace ksched::plugins

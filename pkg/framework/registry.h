// Registry: plugin name -> factory. A profile instantiates the plugins its
// configuration names, each once, with its pluginConfig args.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/util/result.h"

namespace ksched::framework {

// `args` is null when the profile has no pluginConfig for the plugin.
using PluginFactory = std::function<util::Result<std::unique_ptr<Plugin>>(
    const config::PluginArgs* args, Handle& handle)>;

class Registry {
 public:
  // Fails when the name is taken.
  util::Result<void> Register(const std::string& name, PluginFactory factory);
  const PluginFactory* Find(const std::string& name) const;
  std::vector<std::string> Names() const;  // sorted

 private:
  std::map<std::string, PluginFactory> factories_;
};

// Casts typed args for a factory: nullptr args give a default-constructed T.
template <typename T>
util::Result<T> ArgsAs(const config::PluginArgs* args,
                       std::string_view plugin) {
  if (args == nullptr) return T{};
  const T* typed = dynamic_cast<const T*>(args);
  if (typed == nullptr) {
    return util::Error("plugin " + std::string(plugin) +
                       ": pluginConfig args are of the wrong type");
  }
  return *typed;
}

}  // namespace ksched::framework

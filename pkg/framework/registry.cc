#include "pkg/framework/registry.h"

namespace ksched::framework {

util::Result<void> Registry::Register(const std::string& name,
                                      PluginFactory factory) {
  if (!factories_.emplace(name, std::move(factory)).second) {
    return util::Error("a plugin named " + name + " already exists");
  }
  return {};
}

const PluginFactory* Registry::Find(const std::string& name) const {
  auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> names;
  names.reserve(factories_.size());
  for (const auto& [name, factory] : factories_) names.push_back(name);
  return names;
}

}  // namespace ksched::framework

#include "pkg/cel/function.h"

#include <cmath>

namespace ksched::cel {

void FunctionRegistry::Add(const std::string& name, Overload overload) {
  auto it = functions_.find(name);
  if (it == functions_.end()) {
    it = functions_.emplace(name, Function{name, {}}).first;
  }
  it->second.overloads.push_back(std::move(overload));
}

const Function* FunctionRegistry::Find(std::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

Overload Global(std::string id, std::vector<Type> params, Type result,
                FunctionImpl impl, CallCost cost) {
  return Overload{std::move(id),     false,           std::move(params),
                  std::move(result), std::move(impl), std::move(cost)};
}

Overload Member(std::string id, std::vector<Type> params, Type result,
                FunctionImpl impl, CallCost cost) {
  return Overload{std::move(id),     true,
                  std::move(params), std::move(result),
                  std::move(impl),   std::move(cost)};
}

uint64_t TraversalCost(uint64_t size, double factor) {
  return static_cast<uint64_t>(std::ceil(static_cast<double>(size) * factor));
}

}  // namespace ksched::cel

#include "pkg/framework/resource.h"

#include <algorithm>

#include "pkg/api/resource_names.h"

namespace ksched::framework {
namespace {

auto FindScalar(std::vector<std::pair<std::string, int64_t>>& v,
                std::string_view name) {
  return std::lower_bound(
      v.begin(), v.end(), name,
      [](const auto& e, std::string_view n) { return e.first < n; });
}

}  // namespace

Resource Resource::FromList(const api::ResourceList& list) {
  Resource r;
  r.Add(list);
  return r;
}

void Resource::Add(const api::ResourceList& list) {
  for (const auto& [name, quantity] : list) {
    if (name == api::kResourceCpu) {
      milli_cpu += quantity.MilliValue();
    } else if (name == api::kResourceMemory) {
      memory += quantity.Value();
    } else if (name == api::kResourcePods) {
      allowed_pod_number += quantity.Value();
    } else if (name == api::kResourceEphemeralStorage) {
      ephemeral_storage += quantity.Value();
    } else if (api::IsScalarResourceName(name)) {
      AddScalar(name, quantity.Value());
    }
  }
}

void Resource::SetMaxResource(const api::ResourceList& list) {
  for (const auto& [name, quantity] : list) {
    if (name == api::kResourceCpu) {
      milli_cpu = std::max(milli_cpu, quantity.MilliValue());
    } else if (name == api::kResourceMemory) {
      memory = std::max(memory, quantity.Value());
    } else if (name == api::kResourceEphemeralStorage) {
      ephemeral_storage = std::max(ephemeral_storage, quantity.Value());
    } else if (api::IsScalarResourceName(name)) {
      int64_t value = quantity.Value();
      if (value > Scalar(name)) SetScalar(name, value);
    }
  }
}

void Resource::AddResource(const Resource& other, int64_t sign) {
  milli_cpu += sign * other.milli_cpu;
  memory += sign * other.memory;
  ephemeral_storage += sign * other.ephemeral_storage;
  allowed_pod_number += sign * other.allowed_pod_number;
  for (const auto& [name, value] : other.scalar_resources) {
    AddScalar(name, sign * value);
  }
}

int64_t Resource::Scalar(std::string_view name) const {
  auto it = std::lower_bound(
      scalar_resources.begin(), scalar_resources.end(), name,
      [](const auto& e, std::string_view n) { return e.first < n; });
  return (it != scalar_resources.end() && it->first == name) ? it->second : 0;
}

void Resource::SetScalar(std::string_view name, int64_t value) {
  auto it = FindScalar(scalar_resources, name);
  if (it != scalar_resources.end() && it->first == name) {
    it->second = value;
  } else {
    scalar_resources.insert(it, {std::string(name), value});
  }
}

void Resource::AddScalar(std::string_view name, int64_t value) {
  auto it = FindScalar(scalar_resources, name);
  if (it != scalar_resources.end() && it->first == name) {
    it->second += value;
  } else {
    scalar_resources.insert(it, {std::string(name), value});
  }
}

int64_t Resource::Get(std::string_view name) const {
  if (name == api::kResourceCpu) return milli_cpu;
  if (name == api::kResourceMemory) return memory;
  if (name == api::kResourceEphemeralStorage) return ephemeral_storage;
  if (name == api::kResourcePods) return allowed_pod_number;
  return Scalar(name);
}

}  // namespace ksched::framework

#include "pkg/cel/dra.h"

#include <map>

#include "pkg/cel/dra_cost.h"
#include "pkg/cel/libraries.h"

namespace ksched::cel::dra {
namespace dra_detail {

// A small map with string keys. With a fallback, Find answers it for any
// missing key while Contains stays exact, as Kubernetes' attribute and
// capacity maps do (a missing domain reads as an empty map).
class StringKeyMap final : public MapValue {
 public:
  void Add(std::string_view key, Value value) {
    keys_.push_back(key);
    values_.push_back(std::move(value));
  }
  void SetFallback(const MapValue* fallback) { fallback_ = fallback; }

  size_t size() const override { return keys_.size(); }
  std::optional<Value> Find(const Value& key) const override {
    if (key.kind() == Kind::kString) {
      std::string_view k = key.string_value();
      for (size_t i = 0; i < keys_.size(); ++i)
        if (keys_[i] == k) return values_[i];
    }
    if (fallback_) return Value::MapRef(fallback_);
    return std::nullopt;
  }
  bool Contains(const Value& key) const override {
    if (key.kind() != Kind::kString) return false;
    for (std::string_view k : keys_)
      if (k == key.string_value()) return true;
    return false;
  }
  Value KeyAt(size_t index) const override {
    return Value::StringView(keys_[index]);
  }

 private:
  std::vector<std::string_view> keys_;
  std::vector<Value> values_;
  const MapValue* fallback_ = nullptr;
};

namespace {

std::pair<std::string_view, std::string_view> SplitQualifiedName(
    std::string_view name, std::string_view driver) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

Type DeviceType(const Features& features) {
  std::map<std::string, Type> fields{
      {"driver", Type::String()},
      {"attributes",
       Type::Map(Type::String(), Type::Map(Type::String(), Type::Dyn()))},
      {"capacity", Type::Map(Type::String(),
                             Type::Map(Type::String(),
                                       Type::Opaque("kubernetes.Quantity")))},
  };
  if (features.consumable_capacity) {
    fields.emplace("allowMultipleAllocations", Type::Bool());
  }
  return Type::Object("kubernetes.DRADevice", std::move(fields));
}

const std::shared_ptr<const Env>& SelectorEnv(const Features& features) {
  auto make = [](bool consumable) {
    Env env = KubernetesEnv();
    env.variables.emplace(
        "device", DeviceType(Features{.consumable_capacity = consumable}));
    return std::make_shared<const Env>(std::move(env));
  };
  static const auto* without = new std::shared_ptr<const Env>(make(false));
  static const auto* with = new std::shared_ptr<const Env>(make(true));
  return features.consumable_capacity ? *with : *without;
}

// cel-go's ConvertToNative(bool) of a dyn result, which is how Kubernetes
// reads a selector's answer: a bool, or an optional holding one; anything
// else fails with that type's own words.
util::Result<bool> ToNativeBool(const Value& v) {
  auto fail = [](const char* text) { return util::Error(text); };
  switch (v.kind()) {
    case Kind::kBool:
      return v.bool_value();
    case Kind::kOptional:
      if (!v.optional_has_value()) return fail("optional.none() dereference");
      return ToNativeBool(v.optional_value());
    case Kind::kString:
      return fail("unsupported native conversion from string to 'bool'");
    case Kind::kInt:
      return fail("unsupported type conversion from 'int' to bool");
    case Kind::kUint:
      return fail("unsupported type conversion from 'uint' to bool");
    case Kind::kDouble:
      return fail("type conversion error from Double to 'bool'");
    case Kind::kBytes:
      return fail("type conversion error from Bytes to 'bool'");
    case Kind::kList:
      return fail("type conversion error from list to 'bool'");
    case Kind::kMap:
      return fail("type conversion error from map to 'bool'");
    case Kind::kNull:
      return fail("type conversion error from 'null_type' to 'bool'");
    case Kind::kType:
      return fail("type conversion not supported for 'type'");
    case Kind::kQuantity:
      return fail("type conversion error from 'Quantity' to 'bool'");
    case Kind::kSemver:
      return fail("type conversion error from 'Semver' to 'bool'");
    case Kind::kIp:
      return fail("type conversion error from 'IP' to 'bool'");
    case Kind::kCidr:
      return fail("type conversion error from 'CIDR' to 'bool'");
    case Kind::kUrl:
      return fail("type conversion error from 'URL' to 'bool'");
    case Kind::kFormat:
      return fail("type conversion error from 'Format' to 'bool'");
    case Kind::kTimestamp:
      return fail("type conversion error from 'Timestamp' to 'bool'");
    case Kind::kDuration:
      return fail("type conversion error from 'Duration' to 'bool'");
    case Kind::kError:
      return util::Error(std::string(v.error_message()));
  }
  return fail("unsupported type conversion to bool");
}

}  // namespace
}  // namespace dra_detail

using namespace dra_detail;  // NOLINT: this file's own helpers

struct DeviceActivation::Maps {
  StringKeyMap empty;
  StringKeyMap device;
  StringKeyMap attributes;  // domain -> StringKeyMap (in attribute_domains)
  StringKeyMap capacity;
  std::vector<std::unique_ptr<StringKeyMap>> domains;
  std::vector<Semver> versions;
};

DeviceActivation::DeviceActivation() : maps_(std::make_unique<Maps>()) {}
DeviceActivation::~DeviceActivation() = default;

util::Result<std::unique_ptr<DeviceActivation>> DeviceActivation::Make(
    const Device& device) {
  std::unique_ptr<DeviceActivation> act(new DeviceActivation());
  Maps& m = *act->maps_;
  // Versions first: values point into the vector, so it must not grow
  // afterwards.
  size_t version_count = 0;
  for (const auto& [name, attr] : device.attributes)
    if (attr.kind == DeviceAttribute::Kind::kVersion) ++version_count;
  m.versions.reserve(version_count);
  // The inner map of each domain, by outer map and domain.
  std::map<std::pair<const StringKeyMap*, std::string_view>, StringKeyMap*>
      inner;
  auto domain_map = [&](StringKeyMap& outer,
                        std::string_view domain) -> StringKeyMap& {
    StringKeyMap*& slot = inner[{&outer, domain}];
    if (!slot) {
      m.domains.push_back(std::make_unique<StringKeyMap>());
      slot = m.domains.back().get();
      outer.Add(domain, Value::MapRef(slot));
    }
    return *slot;
  };
  for (const auto& [name, attr] : device.attributes) {
    auto [domain, id] = SplitQualifiedName(name, device.driver);
    Value v;
    switch (attr.kind) {
      case DeviceAttribute::Kind::kInt:
        v = Value::Int(attr.int_value);
        break;
      case DeviceAttribute::Kind::kBool:
        v = Value::Bool(attr.bool_value);
        break;
      case DeviceAttribute::Kind::kString:
        v = Value::StringView(attr.string_value);
        break;
      case DeviceAttribute::Kind::kVersion: {
        util::Result<Semver> parsed = ParseSemver(attr.string_value);
        if (!parsed) {
          return util::Error(
              "attribute " + name +
              ": parse semantic version: " + parsed.error().message());
        }
        m.versions.push_back(std::move(*parsed));
        v = Value::SemverRef(&m.versions.back());
        break;
      }
    }
    domain_map(m.attributes, domain).Add(id, v);
  }
  for (const auto& [name, quantity] : device.capacity) {
    auto [domain, id] = SplitQualifiedName(name, device.driver);
    domain_map(m.capacity, domain).Add(id, Value::QuantityRef(&quantity));
  }
  m.attributes.SetFallback(&m.empty);
  m.capacity.SetFallback(&m.empty);
  m.device.Add("driver", Value::StringView(device.driver));
  m.device.Add("allowMultipleAllocations",
               Value::Bool(device.allow_multiple_allocations.value_or(false)));
  m.device.Add("attributes", Value::MapRef(&m.attributes));
  m.device.Add("capacity", Value::MapRef(&m.capacity));
  act->device_ = Value::MapRef(&m.device);
  return act;
}

const Value* DeviceActivation::Find(std::string_view name) const {
  return name == "device" ? &device_ : nullptr;
}

util::Result<std::shared_ptr<const Selector>> Selector::Compile(
    std::string_view expression, const Features& features,
    uint64_t cost_limit) {
  // The API server refuses longer selectors (resourceapi's
  // CELSelectorExpressionMaxLength); one that got through is not compiled.
  if (expression.size() > kSelectorMaxLength) {
    return util::Error("Too long: may not be more than " +
                       std::to_string(kSelectorMaxLength) + " bytes");
  }
  CompileOptions options;
  options.program.cost_limit = cost_limit;
  options.cost_estimator = &SelectorCostEstimator();
  Compiled c = cel::Compile(SelectorEnv(features), expression, options);
  if (!c.program) {
    if (c.error.starts_with("program instantiation failed: "))
      return util::Error(c.error);
    return util::Error("compilation failed: " + c.error);
  }
  Type::Kind out = c.output_type.kind();
  if (out != Type::Kind::kBool && out != Type::Kind::kDyn) {
    return util::Error("must evaluate to bool or the unknown type, not " +
                       c.output_type.ToString());
  }
  return std::shared_ptr<const Selector>(
      new Selector(std::move(c.program), c.cost_estimate->max));
}

util::Result<bool> Selector::Matches(const DeviceActivation& device,
                                     uint64_t* cost,
                                     const std::atomic<bool>* interrupt) const {
  Evaluation r = program_->Eval(device, interrupt);
  if (cost) *cost = r.cost;
  if (r.value.is_error()) {
    return util::Error(std::string(r.value.error_message()));
  }
  util::Result<bool> matched = ToNativeBool(r.value);
  if (!matched) {
    return util::Error(
        "CEL result of type " + std::string(r.value.TypeName()) +
        " could not be converted to bool: " + matched.error().message());
  }
  return matched;
}

util::Result<std::shared_ptr<const Selector>> SelectorCache::Get(
    std::string_view expr) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(expr);
  if (it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }
  lru_.emplace_front(std::string(expr), Selector::Compile(expr, features_));
  index_[lru_.front().first] = lru_.begin();
  if (lru_.size() > capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  return lru_.front().second;
}

}  // namespace ksched::cel::dra

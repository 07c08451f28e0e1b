// CEL device selectors as Kubernetes' DRA compiles and evaluates them
// (k8s.io/dynamic-resource-allocation/cel, v1.35; the cost estimate as
// v1.36 makes it): the variable `device` with driver, attributes and
// capacity, compiled once per distinct expression and evaluated per device
// without allocating.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/quantity.h"
#include "pkg/cel/program.h"
#include "pkg/util/result.h"

namespace ksched::cel::dra {

// resourceapi.CELSelectorExpressionMaxCost and ...MaxLength.
inline constexpr uint64_t kSelectorMaxCost = 1000000;
inline constexpr size_t kSelectorMaxLength = 10 * 1024;

struct DeviceAttribute {
  enum class Kind : uint8_t { kInt, kBool, kString, kVersion };
  Kind kind = Kind::kString;
  int64_t int_value = 0;
  bool bool_value = false;
  std::string string_value;  // string, or the version text
};

// A device as a selector sees it. Qualified names without a domain
// ("memory") belong to the driver's domain.
struct Device {
  std::string driver;
  std::optional<bool> allow_multiple_allocations;
  std::vector<std::pair<std::string, DeviceAttribute>> attributes;
  std::vector<std::pair<std::string, api::Quantity>> capacity;
};

struct Features {
  bool consumable_capacity = false;  // DRAConsumableCapacity
};

// A device made ready for evaluation: its maps are built once and reused
// by every selector evaluated on it. Borrows from the Device, which must
// outlive it.
class DeviceActivation final : public Activation {
 public:
  // Fails as Kubernetes does when a version attribute is not a semantic
  // version ("attribute <name>: parse semantic version: ...").
  static util::Result<std::unique_ptr<DeviceActivation>> Make(
      const Device& device);
  ~DeviceActivation() override;

  const Value* Find(std::string_view name) const override;

 private:
  DeviceActivation();
  struct Maps;
  std::unique_ptr<Maps> maps_;
  Value device_;
};

// One compiled selector.
class Selector {
 public:
  // Compiles expression and estimates its worst-case cost; the error
  // (Kubernetes' wording: "compilation failed: ERROR: <input>:1:1: ...",
  // "must evaluate to bool or the unknown type, not int") is returned as an
  // error result. cost_limit bounds evaluation (Matches), not compilation:
  // an expression estimated over the limit still compiles, see
  // estimated_max_cost.
  static util::Result<std::shared_ptr<const Selector>> Compile(
      std::string_view expression, const Features& features = {},
      uint64_t cost_limit = kSelectorMaxCost);

  // Whether the device matches. A runtime error (a missing attribute, the
  // cost limit) is an error, not a mismatch. *cost, when given, receives
  // the runtime cost.
  // interrupt, when given and set, ends a long evaluation with "operation
  // interrupted".
  util::Result<bool> Matches(
      const DeviceActivation& device, uint64_t* cost = nullptr,
      const std::atomic<bool>* interrupt = nullptr) const;

  const std::string& expression() const { return program_->source(); }

  // The worst-case cost of evaluating the selector on any device the API
  // allows, as kube-apiserver v1.36 estimates it (CompilationResult.MaxCost
  // of k8s.io/dynamic-resource-allocation/cel; cel-go's static estimate
  // with Kubernetes' library costs and the ResourceSlice limits on device
  // attributes and capacities; UINT64_MAX when unbounded).
  //
  // kube-apiserver refuses to create a DeviceClass, ResourceClaim or
  // ResourceClaimTemplate with a selector whose estimate is over
  // kSelectorMaxCost (1,000,000; an estimate equal to it is accepted),
  // with a Forbidden error on the expression's field:
  //   <path>.cel.expression: Forbidden: too complex, exceeds cost limit
  // e.g. "spec.devices.requests[0].exactly.selectors[0].cel.expression:
  // Forbidden: too complex, exceeds cost limit". The detail is exactly
  // "too complex, exceeds cost limit" (pkg/apis/resource/validation).
  uint64_t estimated_max_cost() const { return estimated_max_cost_; }

 private:
  Selector(std::shared_ptr<const Program> program, uint64_t estimated_max_cost)
      : program_(std::move(program)), estimated_max_cost_(estimated_max_cost) {}
  std::shared_ptr<const Program> program_;
  uint64_t estimated_max_cost_;
};

// Compiled selectors by expression, least recently used dropped first (as
// Kubernetes keeps its compiled programs). Safe to use from several
// threads.
class SelectorCache {
 public:
  explicit SelectorCache(size_t capacity = 1000, Features features = {})
      : capacity_(capacity), features_(features) {}

  util::Result<std::shared_ptr<const Selector>> Get(std::string_view expr);

 private:
  using Entry =
      std::pair<std::string, util::Result<std::shared_ptr<const Selector>>>;
  size_t capacity_;
  Features features_;
  std::mutex mu_;
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;
};

}  // namespace ksched::cel::dra

#include "pkg/dra/allocator.h"

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "pkg/dra/allocator_search.h"
#include "pkg/dra/pools.h"

namespace ksched::dra {

namespace allocator_ctor_detail {
namespace {

std::shared_ptr<const SliceIndex> OrEmpty(
    std::shared_ptr<const SliceIndex> slices) {
  if (slices) return slices;
  return std::make_shared<const SliceIndex>(
      std::vector<std::shared_ptr<const api::ResourceSlice>>{});
}

AllocatedDevices ToBits(const SliceIndex& index, const DeviceIdSet& ids) {
  AllocatedDevices bits(index.num_devices());
  for (const DeviceId& id : ids) {
    for (uint32_t ordinal : index.Ordinals(id)) bits.Set(ordinal, true);
  }
  return bits;
}

}  // namespace
}  // namespace allocator_ctor_detail
using namespace allocator_ctor_detail;

Allocator::Allocator(Features features, const DeviceIdSet& allocated,
                     DeviceClassLookup classes,
                     std::shared_ptr<const SliceIndex> slices,
                     std::shared_ptr<cel::dra::SelectorCache> selectors)
    : Allocator(features, allocated, SharedAllocationsById{},
                std::move(classes), std::move(slices), std::move(selectors)) {}

Allocator::Allocator(Features features, const DeviceIdSet& allocated,
                     const SharedAllocationsById& shared,
                     DeviceClassLookup classes,
                     std::shared_ptr<const SliceIndex> slices,
                     std::shared_ptr<cel::dra::SelectorCache> selectors)
    : Allocator(features, AllocatedDevices(), nullptr, std::move(classes),
                OrEmpty(std::move(slices)), std::move(selectors)) {
  taken_ = ToBits(*slices_, allocated);
  auto by_ordinal = std::make_shared<SharedAllocations>();
  by_ordinal->shared = AllocatedDevices(slices_->num_devices());
  for (const DeviceId& id : shared.shared) {
    for (uint32_t ordinal : slices_->Ordinals(id)) {
      by_ordinal->shared.Set(ordinal, true);
    }
  }
  for (const auto& [id, consumed] : shared.capacity) {
    for (uint32_t ordinal : slices_->Ordinals(id)) {
      AddCapacity(by_ordinal->capacity[ordinal], consumed);
    }
  }
  shared_allocations_ = std::move(by_ordinal);
}

Allocator::Allocator(Features features, AllocatedDevices taken,
                     DeviceClassLookup classes,
                     std::shared_ptr<const SliceIndex> slices,
                     std::shared_ptr<cel::dra::SelectorCache> selectors)
    : Allocator(features, std::move(taken), nullptr, std::move(classes),
                std::move(slices), std::move(selectors)) {}

Allocator::Allocator(Features features, AllocatedDevices taken,
                     std::shared_ptr<const SharedAllocations> shared,
                     DeviceClassLookup classes,
                     std::shared_ptr<const SliceIndex> slices,
                     std::shared_ptr<cel::dra::SelectorCache> selectors)
    : features_(features),
      classes_(std::move(classes)),
      slices_(OrEmpty(std::move(slices))),
      selectors_(selectors ? std::move(selectors)
                           : std::make_shared<cel::dra::SelectorCache>(
                                 1000,
                                 cel::dra::Features{
                                     .consumable_capacity =
                                         features.consumable_capacity})),
      taken_(std::move(taken)),
      shared_allocations_(std::move(shared)),
      shared_(std::make_unique<Shared>()) {
  if (taken_.capacity() < slices_->num_devices()) {
    taken_ = AllocatedDevices(slices_->num_devices());
  }
  if (!shared_allocations_) {
    shared_allocations_ = std::make_shared<const SharedAllocations>();
  }
}

Allocator::~Allocator() = default;

AllocateResult Allocator::Allocate(
    const api::Node& node, std::span<const api::ResourceClaim* const> claims,
    const AllocateLimits& limits) const {
  AllocatorSearch search(*this, node, claims, limits);
  return search.Run();
}

AllocateResult Allocator::Allocate(
    const api::Node& node, std::string_view node_name,
    std::span<const api::ResourceClaim* const> claims,
    const AllocateLimits& limits, const CountCheck* check) const {
  if (check == nullptr) return Allocate(node, claims, limits);
  auto pools =
      PoolsForNode(*slices_, node, node_name, features_.partitionable_devices);
  // A node selector that does not parse: the search reports it.
  if (!pools) return Allocate(node, claims, limits);
  switch (check->Check(**pools)) {
    case CountCheck::Verdict::kNoFit:
      return AllocateResult{.code = AllocateResult::Code::kNoFit};
    case CountCheck::Verdict::kFits:
      if (!limits.build_results) {
        return AllocateResult{.code = AllocateResult::Code::kAllocated};
      }
      break;
    case CountCheck::Verdict::kSearch:
      break;
  }
  AllocatorSearch search(*this, node, claims, limits);
  return search.Run(std::move(*pools));
}

std::unique_ptr<const CountCheck> Allocator::MakeCountCheck(
    std::span<const api::ResourceClaim* const> claims) const {
  return CountCheck::Make(*this, claims);
}

std::shared_ptr<const std::vector<std::string_view>> Allocator::NodesThatMayFit(
    const CountCheck& check) const {
  if (!slices_->ClusterWideSlices().empty()) return nullptr;
  // What a node without slices of its own sees (no slice names the empty
  // node name): the pools Allocate counts for each such node.
  static const api::Node kWithoutSlices;
  auto pools = PoolsForNode(*slices_, kWithoutSlices, "",
                            features_.partitionable_devices);
  if (!pools || check.Check(**pools) != CountCheck::Verdict::kNoFit) {
    return nullptr;
  }
  return std::shared_ptr<const std::vector<std::string_view>>(
      slices_, &slices_->NodesWithSlices());
}

std::string Allocator::Diagnose(
    const api::Node& node,
    std::span<const api::ResourceClaim* const> claims) const {
  AllocateLimits limits;
  limits.build_results = false;
  AllocatorSearch search(*this, node, claims, limits);
  return search.Diagnose();
}

}  // namespace ksched::dra

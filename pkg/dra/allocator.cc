#include "pkg/dra/allocator.h"

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "pkg/dra/allocator_search.h"

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
    : Allocator(features, AllocatedDevices(), std::move(classes),
                OrEmpty(std::move(slices)), std::move(selectors)) {
  taken_ = ToBits(*slices_, allocated);
}

Allocator::Allocator(Features features, AllocatedDevices taken,
                     DeviceClassLookup classes,
                     std::shared_ptr<const SliceIndex> slices,
                     std::shared_ptr<cel::dra::SelectorCache> selectors)
    : features_(features),
      classes_(std::move(classes)),
      slices_(OrEmpty(std::move(slices))),
      selectors_(selectors ? std::move(selectors)
                           : std::make_shared<cel::dra::SelectorCache>()),
      taken_(std::move(taken)),
      shared_(std::make_unique<Shared>()) {
  if (taken_.capacity() < slices_->num_devices()) {
    taken_ = AllocatedDevices(slices_->num_devices());
  }
}

Allocator::~Allocator() = default;

AllocateResult Allocator::Allocate(
    const api::Node& node, std::span<const api::ResourceClaim* const> claims,
    const AllocateLimits& limits) const {
  AllocatorSearch search(*this, node, claims, limits);
  return search.Run();
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

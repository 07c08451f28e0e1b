#include "pkg/dra/allocator.h"

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "pkg/dra/allocator_search.h"

namespace ksched::dra {

Allocator::Allocator(Features features, DeviceIdSet allocated,
                     DeviceClassLookup classes,
                     std::shared_ptr<const SliceIndex> slices,
                     std::shared_ptr<cel::dra::SelectorCache> selectors)
    : features_(features),
      allocated_(std::move(allocated)),
      classes_(std::move(classes)),
      slices_(
          slices
              ? std::move(slices)
              : std::make_shared<const SliceIndex>(
                    std::vector<std::shared_ptr<const api::ResourceSlice>>{})),
      selectors_(selectors ? std::move(selectors)
                           : std::make_shared<cel::dra::SelectorCache>()),
      shared_(std::make_unique<Shared>(slices_->slices().size())) {}

Allocator::~Allocator() = default;

AllocateResult Allocator::Allocate(
    const api::Node& node, std::span<const api::ResourceClaim* const> claims,
    const AllocateLimits& limits) const {
  AllocatorSearch search(*this, node, claims, limits);
  return search.Run();
}

}  // namespace ksched::dra

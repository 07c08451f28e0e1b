// CountCheck: what counting a node's free matching devices decides about a
// claim set before any search.
//
// Filter asks every node of a GPU cluster about the same claims, and most
// nodes answer "no" for the plainest of reasons: no devices at all, or
// fewer free ones than a request asks for. The search finds that out too,
// but only after setting itself up for the node. A request that has fewer
// free devices matching its class and selectors than it asks for fails in
// every order of picking them, so where nothing could have stopped the
// search earlier (no invalid claim, no selector error on a device it would
// look at) the answer is the search's "cannot allocate all claims". And a
// lone request whose matching devices nothing else can refuse (no taint,
// counter, share or binding condition; no constraint) is met by the first
// of them. Every other case is left to the search, so answers stay
// exactly the allocator's.
//
// Made once per cycle for one claim set; Check is thread-safe. Selector
// outcomes are read from, and written to, the slice index's tables, so a
// selector runs once per device and index.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "pkg/api/resource.h"
#include "pkg/dra/pools.h"
#include "pkg/dra/slice_index.h"

namespace ksched::dra {

class Allocator;

class CountCheck {
 public:
  enum class Verdict : uint8_t {
    kNoFit,   // the search would answer "cannot allocate all claims"
    kFits,    // the search would allocate, on this node's slices only
    kSearch,  // only the search can tell
  };

  // Null when only the search can answer for `claims` on any node:
  // subrequests, mode All, admin access, capacity requests, a class that
  // is missing, a selector that does not compile, a claim over the size
  // limit (the search reports each as Kubernetes does).
  static std::unique_ptr<const CountCheck> Make(
      const Allocator& allocator,
      std::span<const api::ResourceClaim* const> claims);

  // The verdict for the node that sees `pools`.
  Verdict Check(const std::vector<Pool>& pools) const;

 private:
  struct Request {
    int64_t count = 0;
    // The class's selectors, then the request's, in the order the search
    // evaluates them.
    std::vector<const SliceIndex::SelectorResults*> selectors;
  };
  // 1 match, 0 no match, -1 the evaluation failed (the search reports it
  // where it meets it).
  int Matches(const Request& request, uint32_t slice, uint32_t device,
              uint32_t ordinal) const;

  explicit CountCheck(const Allocator& allocator) : allocator_(allocator) {}

  const Allocator& allocator_;
  std::vector<Request> requests_;  // every claim's, in the search's order
  // One claim with one request and no constraint: enough plain devices
  // decide it.
  bool lone_request_ = false;
};

}  // namespace ksched::dra

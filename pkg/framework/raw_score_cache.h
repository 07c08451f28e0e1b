// RawScoreCache: raw Score answers a caller kept from earlier cycles, so
// that a score pass computes only those of the nodes that changed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ksched::framework {

class RawScoreCache {
 public:
  virtual ~RawScoreCache() = default;
  // The raw scores of the i-th node scored, one per Score plugin the pass
  // runs (in profile order), or nullptr when none are kept for it.
  virtual const int64_t* Find(size_t i) const = 0;
  // Keeps the i-th node's raw scores. The pass calls it from several
  // threads, never twice for one i.
  virtual void Store(size_t i, std::span<const int64_t> scores) = 0;
};

}  // namespace ksched::framework

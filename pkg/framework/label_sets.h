// LabelSets: one shared copy of each distinct label set.
//
// The pods of a Deployment, DaemonSet or ReplicaSet carry identical labels,
// and the cache keeps every running pod of the cluster: keeping one copy
// per distinct set instead of one per pod saves most of what labels cost
// (each entry is 64 bytes plus its long keys on the heap).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "pkg/api/string_map.h"

namespace ksched::framework {

class LabelSets {
 public:
  // The shared copy of `labels`, made on first sight.
  std::shared_ptr<const api::StringMap> Intern(const api::StringMap& labels);
  // Distinct sets still held by someone.
  size_t size() const;
  // Entries kept, live or not: sweeping keeps them under about twice the
  // live sets (at least 64).
  size_t tracked() const;

 private:
  static uint64_t Hash(const api::StringMap& labels);
  // Drops entries whose sets nobody holds any more (expects mu_ held).
  void SweepLocked();

  mutable std::mutex mu_;
  // By hash; a bucket holds the (rare) sets whose hashes collide.
  std::unordered_map<uint64_t, std::vector<std::weak_ptr<const api::StringMap>>>
      sets_;
  size_t entries_ = 0;
  // Sweep when the entries double since the last sweep: amortised O(1).
  size_t sweep_at_ = 64;
};

}  // namespace ksched::framework

#include "pkg/queue/unschedulable_pods.h"

#include <algorithm>
#include <utility>

namespace ksched::queue {

void UnschedulablePods::AddOrUpdate(QueuedPodInfoPtr info) {
  const bool gated = info->gated;
  oldest_ = std::min(oldest_, info->timestamp);
  Entry& entry = pods_[PodKey(info->pod())];
  if (entry.info != nullptr && entry.counted_gated) --gated_;
  entry.info = std::move(info);
  entry.counted_gated = gated;
  if (gated) ++gated_;
}

QueuedPodInfoPtr UnschedulablePods::Get(const std::string& key) const {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : it->second.info;
}

QueuedPodInfoPtr UnschedulablePods::Delete(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return nullptr;
  if (it->second.counted_gated) --gated_;
  QueuedPodInfoPtr out = std::move(it->second.info);
  pods_.erase(it);
  return out;
}

}  // namespace ksched::queue

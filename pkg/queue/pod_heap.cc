#include "pkg/queue/pod_heap.h"

#include <utility>

namespace ksched::queue {

std::string PodKey(const api::Pod& pod) {
  std::string key;
  key.reserve(pod.metadata.ns.size() + 1 + pod.metadata.name.size());
  key += pod.metadata.ns;
  key += '/';
  key += pod.metadata.name;
  return key;
}

void PodHeap::AddOrUpdate(QueuedPodInfoPtr info) {
  std::string key = PodKey(info->pod());
  auto it = index_.find(key);
  if (it != index_.end()) {
    items_[it->second].info = std::move(info);
    Fix(it->second);
    return;
  }
  index_.emplace(key, items_.size());
  items_.push_back({std::move(info), std::move(key)});
  Up(items_.size() - 1);
}

QueuedPodInfoPtr PodHeap::Get(const std::string& key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : items_[it->second].info;
}

QueuedPodInfoPtr PodHeap::Delete(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  const size_t i = it->second;
  const size_t last = items_.size() - 1;
  if (i != last) Swap(i, last);
  QueuedPodInfoPtr out = std::move(items_.back().info);
  index_.erase(items_.back().key);
  items_.pop_back();
  if (i < items_.size()) Fix(i);
  return out;
}

QueuedPodInfoPtr PodHeap::Pop() {
  if (items_.empty()) return nullptr;
  std::string key = items_.front().key;
  return Delete(key);
}

void PodHeap::Swap(size_t i, size_t j) {
  std::swap(items_[i], items_[j]);
  index_[items_[i].key] = i;
  index_[items_[j].key] = j;
}

bool PodHeap::Up(size_t i) {
  const size_t start = i;
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!Less(i, parent)) break;
    Swap(i, parent);
    i = parent;
  }
  return i != start;
}

void PodHeap::Down(size_t i) {
  const size_t n = items_.size();
  while (true) {
    size_t least = i;
    const size_t left = 2 * i + 1;
    const size_t right = left + 1;
    if (left < n && Less(left, least)) least = left;
    if (right < n && Less(right, least)) least = right;
    if (least == i) return;
    Swap(i, least);
    i = least;
  }
}

}  // namespace ksched::queue

// PodHeap: a binary heap of queued pods that also finds, replaces and
// removes a pod by its key in O(log n) (kube-scheduler's backend/heap).
// Not thread-safe: the scheduling queue's lock guards it.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "pkg/framework/types.h"

namespace ksched::queue {

using QueuedPodInfoPtr = std::shared_ptr<framework::QueuedPodInfo>;
using LessFn = std::function<bool(const framework::QueuedPodInfo&,
                                  const framework::QueuedPodInfo&)>;

// "<namespace>/<name>": pods are queued by name, as kube keys them, so a
// pod re-created under the same name replaces the stale entry.
std::string PodKey(const api::Pod& pod);

class PodHeap {
 public:
  explicit PodHeap(LessFn less) : less_(std::move(less)) {}

  // Inserts `info`, or replaces the entry with the same key and restores
  // the order (its priority or timestamp may have changed).
  void AddOrUpdate(QueuedPodInfoPtr info);
  QueuedPodInfoPtr Get(const std::string& key) const;
  bool Has(const std::string& key) const { return index_.count(key) != 0; }
  // The removed entry, or null when absent.
  QueuedPodInfoPtr Delete(const std::string& key);
  // The least entry, or null when empty.
  QueuedPodInfoPtr Peek() const {
    return items_.empty() ? nullptr : items_.front().info;
  }
  QueuedPodInfoPtr Pop();

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

  template <typename F>
  void ForEach(F&& f) const {
    for (const Item& item : items_) f(item.info);
  }

 private:
  struct Item {
    QueuedPodInfoPtr info;
    std::string key;
  };

  bool Less(size_t i, size_t j) const {
    return less_(*items_[i].info, *items_[j].info);
  }
  void Swap(size_t i, size_t j);
  // Sift the item at `i` toward the root; true if it moved.
  bool Up(size_t i);
  void Down(size_t i);
  // Restores the order around `i` after its item changed or was placed.
  void Fix(size_t i) {
    if (!Up(i)) Down(i);
  }

  LessFn less_;
  std::vector<Item> items_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace ksched::queue

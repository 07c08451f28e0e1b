// Memoised per-node pod counts.
//
// PodTopologySpread and InterPodAffinity ask, for every node of every
// cycle, how many of the node's pods a label selector matches in some
// namespaces. Answering by matching all of a large cluster's pods costs
// milliseconds, yet between two cycles almost every node is unchanged, and
// consecutive pods of one workload ask the same question. A NodeInfo
// therefore remembers its last few answers, keyed by an id that
// PodCountKeys gives to each distinct question.
//
// Soundness rests on two rules. The memo is emptied whenever the node's
// pods or the Node itself change and is never copied, so an answer always
// describes the NodeInfo as it is now. And ids are only comparable within one
// PodCountKeys: the cache attaches its own to every snapshot it produces,
// and those snapshots hold only NodeInfos the cache copied, so no NodeInfo
// is ever asked under two id spaces. Snapshots assembled by hand have no
// PodCountKeys, and plugins then count without memo.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ksched::framework {

// Interns descriptions of pod-counting questions ("pods in namespace ns
// matching selector s") into small ids. Thread-safe; plugins intern once
// per cycle, not per node.
class PodCountKeys {
 public:
  // Questions kept at once. When the table is full it starts afresh: a
  // long-running scheduler meets new questions with every new workload
  // (Job pods carry unique labels), so the table must not fill for good,
  // and forgetting only costs recounting.
  static constexpr size_t kMaxKeys = 1 << 16;

  // The id of `question`, never 0. Ids are never reused, even after the
  // table starts afresh, so an answer memoised under a forgotten id can
  // never be read as another question's. After 2^32 - 1 ids (never, in
  // practice) the answer is 0: no memo.
  uint32_t Intern(std::string_view question);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::mutex mu_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids_;
  uint32_t next_id_ = 1;
};

// The few answers one NodeInfo remembers. Lock-free: an answer is one
// 64-bit word (id << 32 | count), so concurrent readers (the scheduling
// loop, extender requests) see either a whole answer or none. Copies start
// empty.
class PodCountMemo {
 public:
  PodCountMemo() = default;
  PodCountMemo(const PodCountMemo&) {}
  PodCountMemo& operator=(const PodCountMemo&) {
    Clear();
    return *this;
  }

  std::optional<int32_t> Find(uint32_t key) const {
    if (key == 0) return std::nullopt;
    for (const std::atomic<uint64_t>& slot : slots_) {
      uint64_t v = slot.load(std::memory_order_relaxed);
      if (static_cast<uint32_t>(v >> 32) == key) {
        return static_cast<int32_t>(static_cast<uint32_t>(v));
      }
    }
    return std::nullopt;
  }
  // Keeps `count` under `key`, replacing the answer in the key's slot.
  void Store(uint32_t key, int32_t count) const {
    if (key == 0 || count < 0) return;
    slots_[key % kSlots].store(
        (uint64_t{key} << 32) | static_cast<uint32_t>(count),
        std::memory_order_relaxed);
  }
  void Clear() {
    for (std::atomic<uint64_t>& slot : slots_) {
      slot.store(0, std::memory_order_relaxed);
    }
  }

 private:
  static constexpr size_t kSlots = 4;
  mutable std::array<std::atomic<uint64_t>, kSlots> slots_{};
};

}  // namespace ksched::framework

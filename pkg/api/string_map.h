// FlatMap: a small string-keyed map stored as a sorted vector.
//
// Labels, annotations, node selectors and resource lists are tiny (a handful
// of entries) and read far more often than written. A sorted vector is a
// third of std::map's memory, iterates in key order (as Go's JSON encoder
// writes maps) and looks up by binary search without allocating.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ksched::api {

template <typename V>
class FlatMap {
 public:
  using Entry = std::pair<std::string, V>;
  using const_iterator = typename std::vector<Entry>::const_iterator;

  FlatMap() = default;
  FlatMap(std::initializer_list<Entry> entries) {
    for (const auto& e : entries) Set(e.first, e.second);
  }

  // Inserts or overwrites (the last duplicate wins, as in Go's decoder).
  void Set(std::string_view key, V value) {
    auto it = LowerBound(key);
    if (it != entries_.end() && it->first == key) {
      it->second = std::move(value);
    } else {
      entries_.insert(it, Entry(std::string(key), std::move(value)));
    }
  }

  // Returns nullptr when absent.
  const V* Find(std::string_view key) const {
    // Labels maps are small, and plugins look up the same few keys on
    // thousands of nodes a cycle. Scanning compares lengths (held in the
    // entries) and reads a key's characters, which for long keys live in a
    // separate allocation, only when the lengths agree; a binary search
    // would read the characters of every key it probes.
    if (entries_.size() <= kScanBelow) {
      for (const Entry& e : entries_) {
        if (e.first.size() == key.size() && std::string_view(e.first) == key) {
          return &e.second;
        }
      }
      return nullptr;
    }
    auto it = LowerBound(key);
    return (it != entries_.end() && it->first == key) ? &it->second : nullptr;
  }
  V* Find(std::string_view key) {
    return const_cast<V*>(static_cast<const FlatMap&>(*this).Find(key));
  }
  bool Contains(std::string_view key) const { return Find(key) != nullptr; }

  bool Erase(std::string_view key) {
    auto it = LowerBound(key);
    if (it == entries_.end() || it->first != key) return false;
    entries_.erase(it);
    return true;
  }

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  void clear() { entries_.clear(); }
  void reserve(size_t n) { entries_.reserve(n); }
  void shrink_to_fit() { entries_.shrink_to_fit(); }

  friend bool operator==(const FlatMap&, const FlatMap&) = default;

 private:
  typename std::vector<Entry>::iterator LowerBound(std::string_view key) {
    return std::lower_bound(
        entries_.begin(), entries_.end(), key,
        [](const Entry& e, std::string_view k) { return e.first < k; });
  }
  const_iterator LowerBound(std::string_view key) const {
    return std::lower_bound(
        entries_.begin(), entries_.end(), key,
        [](const Entry& e, std::string_view k) { return e.first < k; });
  }

  static constexpr size_t kScanBelow = 16;

  std::vector<Entry> entries_;
};

// metadata.labels, metadata.annotations, spec.nodeSelector.
using StringMap = FlatMap<std::string>;

}  // namespace ksched::api

#include "pkg/framework/label_sets.h"

#include <algorithm>
#include <functional>
#include <string_view>

namespace ksched::framework {

uint64_t LabelSets::Hash(const api::StringMap& labels) {
  uint64_t h = labels.size();
  auto mix = [&h](std::string_view s) {
    h ^= std::hash<std::string_view>{}(s) + 0x9e3779b97f4a7c15ULL + (h << 6) +
         (h >> 2);
  };
  for (const auto& [key, value] : labels) {
    mix(key);
    mix(value);
  }
  return h;
}

std::shared_ptr<const api::StringMap> LabelSets::Intern(
    const api::StringMap& labels) {
  const uint64_t hash = Hash(labels);
  std::lock_guard lock(mu_);
  std::vector<std::weak_ptr<const api::StringMap>>& bucket = sets_[hash];
  for (const std::weak_ptr<const api::StringMap>& weak : bucket) {
    if (auto set = weak.lock(); set != nullptr && *set == labels) return set;
  }
  auto set = std::make_shared<const api::StringMap>(labels);
  bucket.push_back(set);
  if (++entries_ >= sweep_at_) SweepLocked();
  return set;
}

void LabelSets::SweepLocked() {
  entries_ = 0;
  for (auto it = sets_.begin(); it != sets_.end();) {
    std::erase_if(it->second, [](const auto& weak) { return weak.expired(); });
    entries_ += it->second.size();
    it = it->second.empty() ? sets_.erase(it) : std::next(it);
  }
  sweep_at_ = std::max<size_t>(64, 2 * entries_);
}

size_t LabelSets::size() const {
  std::lock_guard lock(mu_);
  size_t live = 0;
  for (const auto& [hash, bucket] : sets_) {
    for (const auto& weak : bucket) live += !weak.expired();
  }
  return live;
}

}  // namespace ksched::framework

namespace ksched::framework {

size_t LabelSets::tracked() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [hash, bucket] : sets_) n += bucket.size();
  return n;
}

}  // namespace ksched::framework

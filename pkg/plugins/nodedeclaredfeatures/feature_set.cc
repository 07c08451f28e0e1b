#include "pkg/plugins/nodedeclaredfeatures/feature_set.h"

#include <algorithm>
#include <utility>

namespace ksched::plugins::nodedeclaredfeatures {

bool FeatureSet::IsEmpty() const {
  return std::all_of(words_.begin(), words_.end(),
                     [](uint64_t w) { return w == 0; });
}

util::Result<bool> FeatureSet::IsSubsetOf(const FeatureSet& other) const {
  if (size_ != other.size_) {
    return util::Error("bitmap size mismatch; " + std::to_string(size_) +
                       " != " + std::to_string(other.size_));
  }
  for (size_t i = 0; i < words_.size(); ++i) {
    if ((words_[i] & ~other.words_[i]) != 0) return false;
  }
  return true;
}

std::string FeatureSet::String() const {
  std::string out(size_, '0');
  for (size_t i = 0; i < size_; ++i) {
    if (Get(i)) out[i] = '1';
  }
  return out;
}

FeatureMapper::FeatureMapper(std::vector<std::string> features)
    : features_(std::move(features)) {
  std::sort(features_.begin(), features_.end());
}

util::Result<FeatureSet> FeatureMapper::MapSorted(
    const std::vector<std::string>& sorted) const {
  return Map(sorted, /*ignore_unknown=*/false);
}

FeatureSet FeatureMapper::TryMap(const std::vector<std::string>& sorted) const {
  return *Map(sorted, /*ignore_unknown=*/true);
}

util::Result<FeatureSet> FeatureMapper::Map(
    const std::vector<std::string>& sorted, bool ignore_unknown) const {
  FeatureSet set = NewFeatureSet();
  // One merge pass over both sorted lists, as kube walks them: a list that
  // is not sorted loses the features the walk steps over.
  size_t i = 0;
  size_t j = 0;
  while (i < sorted.size() && j < features_.size()) {
    if (sorted[i] == features_[j]) {
      set.Set(j);
      ++i;
      ++j;
    } else if (sorted[i] < features_[j]) {
      if (!ignore_unknown) {
        return util::Error("unknown feature " + sorted[i]);
      }
      ++i;
    } else {
      ++j;
    }
  }
  if (!ignore_unknown && i < sorted.size()) {
    return util::Error("unknown feature " + sorted[i]);
  }
  return set;
}

util::Result<std::vector<std::string>> FeatureMapper::Unmap(
    const FeatureSet& set) const {
  if (set.size() != features_.size()) {
    return util::Error(
        "feature size mismatch! s.size=" + std::to_string(set.size()) +
        "; len(m.registeredFeatures)=" + std::to_string(features_.size()));
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < set.size(); ++i) {
    if (set.Get(i)) names.push_back(features_[i]);
  }
  return names;
}

}  // namespace ksched::plugins::nodedeclaredfeatures

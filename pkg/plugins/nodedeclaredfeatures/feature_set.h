// Sets of declared features as bits, one per feature a FeatureMapper knows
// (kube's nodedeclaredfeatures FeatureSet and FeatureMapper): a pod's
// requirements and a node's declared features are compared a word at a
// time instead of name by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/result.h"

namespace ksched::plugins::nodedeclaredfeatures {

class FeatureSet {
 public:
  FeatureSet() = default;  // sized for no feature
  explicit FeatureSet(size_t size) : words_((size + 63) / 64), size_(size) {}

  size_t size() const { return size_; }
  // `i` must be below size().
  void Set(size_t i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
  bool Get(size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  bool IsEmpty() const;
  // Whether every feature in this set is in `other`; an error when the two
  // were sized for different registries.
  util::Result<bool> IsSubsetOf(const FeatureSet& other) const;
  // One character per feature, '1' for those in the set, the first feature
  // leftmost.
  std::string String() const;

  friend bool operator==(const FeatureSet&, const FeatureSet&) = default;

 private:
  std::vector<uint64_t> words_;
  size_t size_ = 0;
};

class FeatureMapper {
 public:
  // The known features, in any order (they are kept sorted).
  explicit FeatureMapper(std::vector<std::string> features);

  const std::vector<std::string>& features() const { return features_; }
  FeatureSet NewFeatureSet() const { return FeatureSet(features_.size()); }
  // The set of `sorted` (ascending, as the API server keeps a node's list);
  // an error names the first feature not known.
  util::Result<FeatureSet> MapSorted(
      const std::vector<std::string>& sorted) const;
  // As MapSorted, leaving out features not known: only known features are
  // ever required of a node, so the others cannot matter.
  FeatureSet TryMap(const std::vector<std::string>& sorted) const;
  // The names in `set`, sorted.
  util::Result<std::vector<std::string>> Unmap(const FeatureSet& set) const;

 private:
  util::Result<FeatureSet> Map(const std::vector<std::string>& sorted,
                               bool ignore_unknown) const;

  std::vector<std::string> features_;
};

}  // namespace ksched::plugins::nodedeclaredfeatures

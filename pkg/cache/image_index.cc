#include "pkg/cache/image_index.h"

#include <algorithm>
#include <vector>

namespace ksched::cache {

namespace {

struct NamedSize {
  std::string_view name;
  int64_t size;
};

// The distinct image names of a node, sorted, each with the size of its
// first mention (a node may list a name under two images).
std::vector<NamedSize> DistinctNames(const api::Node& node) {
  std::vector<NamedSize> names;
  for (const api::ContainerImage& image : node.status.images) {
    for (const std::string& name : image.names) {
      names.push_back({name, image.size_bytes});
    }
  }
  std::stable_sort(
      names.begin(), names.end(),
      [](const NamedSize& a, const NamedSize& b) { return a.name < b.name; });
  names.erase(std::unique(names.begin(), names.end(),
                          [](const NamedSize& a, const NamedSize& b) {
                            return a.name == b.name;
                          }),
              names.end());
  return names;
}

}  // namespace

void ImageIndex::AddNode(const api::Node& node) {
  for (const NamedSize& n : DistinctNames(node)) {
    auto it = states_.find(n.name);
    if (it == states_.end()) {
      states_.emplace(std::string(n.name),
                      framework::ImageStateSummary{n.size, 1});
    } else {
      ++it->second.num_nodes;
    }
  }
}

void ImageIndex::RemoveNode(const api::Node& node) {
  for (const NamedSize& n : DistinctNames(node)) {
    auto it = states_.find(n.name);
    if (it == states_.end()) continue;
    // Dropping unused names keeps size() the number of distinct images.
    if (--it->second.num_nodes <= 0) states_.erase(it);
  }
}

api::FlatMap<framework::ImageStateSummary> ImageIndex::Summaries(
    const api::Node& node) const {
  api::FlatMap<framework::ImageStateSummary> out;
  std::vector<NamedSize> names = DistinctNames(node);
  out.reserve(names.size());
  // Sorted input: every Set appends.
  for (const NamedSize& n : names) {
    const framework::ImageStateSummary* state = Find(n.name);
    out.Set(n.name, state ? *state : framework::ImageStateSummary{n.size, 1});
  }
  return out;
}

const framework::ImageStateSummary* ImageIndex::Find(
    std::string_view name) const {
  auto it = states_.find(name);
  return it == states_.end() ? nullptr : &it->second;
}

}  // namespace ksched::cache

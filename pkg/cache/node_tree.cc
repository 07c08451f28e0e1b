#include "pkg/cache/node_tree.h"

#include <algorithm>

namespace ksched::cache {

namespace {

constexpr std::string_view kZoneLabel = "topology.kubernetes.io/zone";
constexpr std::string_view kRegionLabel = "topology.kubernetes.io/region";
constexpr std::string_view kBetaZoneLabel =
    "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kBetaRegionLabel =
    "failure-domain.beta.kubernetes.io/region";

std::string_view LabelOr(const api::StringMap& labels, std::string_view key,
                         std::string_view fallback_key) {
  if (const std::string* v = labels.Find(key)) return *v;
  if (const std::string* v = labels.Find(fallback_key)) return *v;
  return {};
}

}  // namespace

std::string ZoneKey(const api::Node& node) {
  const api::StringMap& labels = node.metadata.labels;
  std::string_view zone = LabelOr(labels, kZoneLabel, kBetaZoneLabel);
  std::string_view region = LabelOr(labels, kRegionLabel, kBetaRegionLabel);
  if (zone.empty() && region.empty()) return "";
  // Same separator as kube (a NUL between colons): label values cannot hold
  // a NUL, so distinct region/zone pairs never share a key.
  std::string key(region);
  key.append(":\0:", 3);
  key.append(zone);
  return key;
}

void NodeTree::AddNode(const api::Node& node) {
  std::string zone = ZoneKey(node);
  if (!members_[zone].insert(node.metadata.name).second) return;
  auto it = tree_.find(zone);
  if (it == tree_.end()) {
    zones_.push_back(zone);
    tree_.emplace(std::move(zone),
                  std::vector<std::string>{node.metadata.name});
  } else {
    it->second.push_back(node.metadata.name);
  }
  ++num_nodes_;
  ++version_;
}

util::Result<void> NodeTree::RemoveNode(const api::Node& node) {
  std::string zone = ZoneKey(node);
  auto it = tree_.find(zone);
  if (it != tree_.end()) {
    std::vector<std::string>& names = it->second;
    auto pos = std::find(names.begin(), names.end(), node.metadata.name);
    if (pos != names.end()) {
      // Order within a zone is the List() order: erase, don't swap.
      names.erase(pos);
      members_[zone].erase(node.metadata.name);
      if (names.empty()) RemoveZone(zone);
      --num_nodes_;
      ++version_;
      return {};
    }
  }
  return util::Error("node " + node.metadata.name + " was not found in zone " +
                     zone);
}

void NodeTree::RemoveZone(const std::string& zone) {
  tree_.erase(zone);
  members_.erase(zone);
  zones_.erase(std::find(zones_.begin(), zones_.end(), zone));
}

void NodeTree::UpdateNode(const api::Node& old_node,
                          const api::Node& new_node) {
  if (ZoneKey(old_node) == ZoneKey(new_node)) return;
  (void)RemoveNode(old_node);  // it may never have been added
  AddNode(new_node);
}

std::vector<std::string> NodeTree::List() const {
  std::vector<std::string> out;
  out.reserve(num_nodes_);
  // Round i takes the i-th node of every zone that has one; zones only grow
  // at the end, so the order is stable between calls.
  for (size_t i = 0; out.size() < num_nodes_; ++i) {
    bool any = false;
    for (const std::string& zone : zones_) {
      const std::vector<std::string>& names = tree_.at(zone);
      if (i < names.size()) {
        out.push_back(names[i]);
        any = true;
      }
    }
    if (!any) break;  // counts disagree; never loop forever
  }
  return out;
}

}  // namespace ksched::cache

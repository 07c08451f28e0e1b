#include "pkg/framework/snapshot.h"

namespace ksched::framework {

void Snapshot::Reset(std::vector<NodeInfoPtr> nodes) {
  nodes_ = std::move(nodes);
  RebuildIndexes();
}

void Snapshot::RebuildIndexes() {
  with_affinity_.clear();
  with_required_anti_affinity_.clear();
  by_name_.clear();
  by_name_.reserve(nodes_.size());
  for (const NodeInfoPtr& n : nodes_) {
    by_name_[n->name()] = n;
    if (!n->pods_with_affinity().empty()) with_affinity_.push_back(n);
    if (!n->pods_with_required_anti_affinity().empty()) {
      with_required_anti_affinity_.push_back(n);
    }
  }
}

const NodeInfo* Snapshot::Get(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second.get();
}

NodeInfoPtr Snapshot::GetPtr(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

bool Snapshot::IsPvcUsedByPods(std::string_view key) const {
  for (const NodeInfoPtr& n : nodes_) {
    if (n->pvc_ref_counts().Contains(key)) return true;
  }
  return false;
}

}  // namespace ksched::framework

// Cache::UpdateSnapshot: the incremental copy of the cache into the
// snapshot a scheduling cycle reads (kube's UpdateSnapshot).
#include <string>

#include "pkg/cache/cache.h"

namespace ksched::cache {

util::Result<void> Cache::UpdateSnapshot(framework::Snapshot* snapshot) {
  snapshot->set_pod_count_keys(pod_count_keys_);
  snapshot->set_generations_unique(true);
  std::lock_guard lock(mu_);
  const int64_t seen = snapshot->generation();
  // nodes() must be rebuilt when a node joined or left.
  bool all_lists = false;
  // An affinity list must be rebuilt when a node joined or left it.
  bool affinity_lists = false;

  // An empty snapshot of a large cluster (the first, or one released) is
  // filled whole, in one block; the loop below then has nothing to add.
  const bool whole = snapshot->num_node_infos() == 0 &&
                     tree_.num_nodes() >= framework::Snapshot::kMinCompactNodes;
  if (whole) FillSnapshotInBlock(snapshot);

  // The list is ordered by recency: everything past the first entry the
  // snapshot has seen is already in it.
  for (const NodeEntry& entry : list_) {
    if (whole || entry.info.generation() <= seen) break;
    // Node-less NodeInfos (pods of a removed or not yet seen node) are not
    // schedulable and never enter a snapshot.
    if (entry.info.node() == nullptr) continue;
    framework::Snapshot::UpsertEffect effect =
        snapshot->Upsert(CopyForSnapshot(entry.info));
    all_lists |= effect.added;
    affinity_lists |= effect.affinity_changed || effect.anti_affinity_changed;
  }
  if (!list_.empty()) snapshot->set_generation(list_.front().info.generation());

  // Removed nodes left the tree but may linger in the snapshot.
  if (snapshot->num_node_infos() > tree_.num_nodes()) {
    snapshot->EraseIf([this](std::string_view name) {
      auto it = nodes_.find(name);
      return it == nodes_.end() || it->second->info.node() == nullptr;
    });
    all_lists = true;
  }

  // kube relists only when the snapshot gains or loses a name; a node that
  // was removed and re-added, or moved zone, also changes the tree's order.
  if (snapshot->node_order_version() != tree_.version()) all_lists = true;

  if (all_lists || affinity_lists) RefreshLists(snapshot, all_lists);
  if (snapshot->ShouldCompact()) snapshot->Compact();

  if (snapshot->size() != tree_.num_nodes() ||
      snapshot->num_node_infos() != tree_.num_nodes()) {
    std::string message =
        "snapshot state is not consistent, length of NodeInfoList=" +
        std::to_string(snapshot->size()) +
        " not equal to length of nodes in tree=" +
        std::to_string(tree_.num_nodes()) + ", length of NodeInfoMap=" +
        std::to_string(snapshot->num_node_infos()) +
        ", length of nodes in cache=" + std::to_string(nodes_.size()) +
        ", trying to recover";
    // kube only relists what the snapshot has; recopying everything also
    // recovers a snapshot that missed NodeInfos (e.g. a generation from
    // another cache). The error still fails the current cycle.
    RebuildSnapshot(snapshot);
    return util::Error(std::move(message));
  }
  return {};
}

void Cache::RefreshLists(framework::Snapshot* snapshot, bool all) const {
  if (all) {
    snapshot->RebuildLists(tree_.List());
    snapshot->set_node_order_version(tree_.version());
  } else {
    snapshot->RebuildAffinityLists();
  }
}

void Cache::FillSnapshotInBlock(framework::Snapshot* snapshot) const {
  const std::vector<std::string> order = tree_.List();
  auto block = std::make_shared<std::vector<framework::NodeInfo>>();
  block->reserve(order.size());
  for (const std::string& name : order) {
    auto it = nodes_.find(std::string_view(name));
    if (it == nodes_.end() || it->second->info.node() == nullptr) continue;
    block->push_back(SnapshotCopyOf(it->second->info));
  }
  snapshot->ResetInBlock(std::move(block));
  snapshot->RebuildLists(order);
  snapshot->set_node_order_version(tree_.version());
}

void Cache::RebuildSnapshot(framework::Snapshot* snapshot) const {
  std::vector<framework::NodeInfoPtr> copies;
  copies.reserve(tree_.num_nodes());
  for (const NodeEntry& entry : list_) {
    if (entry.info.node() != nullptr) {
      copies.push_back(CopyForSnapshot(entry.info));
    }
  }
  snapshot->Reset(std::move(copies));
  snapshot->RebuildLists(tree_.List());
  snapshot->set_node_order_version(tree_.version());
  snapshot->set_generation(list_.empty() ? 0 : list_.front().info.generation());
}

}  // namespace ksched::cache

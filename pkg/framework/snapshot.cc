#include "pkg/framework/snapshot.h"

#include <algorithm>

namespace ksched::framework {

void Snapshot::Reset(std::vector<NodeInfoPtr> nodes) {
  nodes_ = std::move(nodes);
  block_.reset();
  RebuildIndexes();
}

void Snapshot::ResetInBlock(std::shared_ptr<std::vector<NodeInfo>> block) {
  std::vector<NodeInfoPtr> nodes;
  nodes.reserve(block->size());
  for (NodeInfo& info : *block) nodes.emplace_back(block, &info);
  upserted_since_compact_ = 0;
  Reset(std::move(nodes));
  block_ = std::move(block);
}

void Snapshot::RebuildIndexes() {
  Relaid();
  generations_.clear();
  for (const NodeInfoPtr& n : nodes_) generations_.push_back(n->generation());
  slots_.clear();
  slots_.reserve(nodes_.size());
  pvc_users_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const NodeInfoPtr& n = nodes_[i];
    Slot& slot = slots_[n->name()];
    // A name listed twice: the last one wins, as lookups always did.
    if (slot.info) CountPvcs(*slot.info, -1);
    slot.info = n;
    slot.pos = static_cast<int32_t>(i);
    CountPvcs(*n, +1);
  }
  RebuildAffinityLists();
}

Snapshot::UpsertEffect Snapshot::Upsert(NodeInfoPtr info) {
  UpsertEffect effect;
  ++upserted_since_compact_;
  auto it = slots_.find(std::string_view(info->name()));
  if (it == slots_.end()) {
    CountPvcs(*info, +1);
    Slot& slot = slots_[info->name()];
    slot.info = std::move(info);
    effect.added = true;
    return effect;
  }
  Slot& slot = it->second;
  const NodeInfo& old = *slot.info;
  const bool had_affinity = !old.pods_with_affinity().empty();
  const bool has_affinity = !info->pods_with_affinity().empty();
  const bool had_anti = !old.pods_with_required_anti_affinity().empty();
  const bool has_anti = !info->pods_with_required_anti_affinity().empty();
  effect.affinity_changed = had_affinity != has_affinity;
  effect.anti_affinity_changed = had_anti != has_anti;
  // PVC keys are few per node; a count update beats kube's full rescan.
  if (old.pvc_ref_counts() != info->pvc_ref_counts()) {
    CountPvcs(old, -1);
    CountPvcs(*info, +1);
  }
  if (slot.pos >= 0) {
    nodes_[slot.pos] = info;
    generations_[slot.pos] = info->generation();
    LogChange(slot.pos);
  }
  // A listed node joins or leaves an affinity list in place: appended, or
  // swapped with the list's last entry. The lists' order then differs from
  // nodes(), which no reader depends on (they sum over them), and a pod
  // with anti-affinity bound to a fresh node no longer costs a pass over
  // every node.
  if (slot.pos >= 0) {
    PlaceInList(with_affinity_, &Slot::affinity_pos, slot, info, has_affinity);
    PlaceInList(with_required_anti_affinity_, &Slot::anti_affinity_pos, slot,
                info, has_anti);
    effect.affinity_changed = false;
    effect.anti_affinity_changed = false;
  } else {
    if (slot.affinity_pos >= 0 && has_affinity) {
      with_affinity_[slot.affinity_pos] = info;
    }
    if (slot.anti_affinity_pos >= 0 && has_anti) {
      with_required_anti_affinity_[slot.anti_affinity_pos] = info;
    }
  }
  slot.info = std::move(info);
  return effect;
}

size_t Snapshot::EraseIf(
    const std::function<bool(std::string_view name)>& drop) {
  size_t dropped = 0;
  for (auto it = slots_.begin(); it != slots_.end();) {
    if (drop(it->first)) {
      CountPvcs(*it->second.info, -1);
      it = slots_.erase(it);
      ++dropped;
    } else {
      ++it;
    }
  }
  return dropped;
}

void Snapshot::PlaceInList(std::vector<NodeInfoPtr>& list, int32_t Slot::*pos,
                           Slot& slot, const NodeInfoPtr& info, bool member) {
  int32_t& at = slot.*pos;
  if (member) {
    if (at >= 0) {
      list[at] = info;
    } else {
      at = static_cast<int32_t>(list.size());
      list.push_back(info);
    }
    return;
  }
  if (at < 0) return;
  const int32_t last = static_cast<int32_t>(list.size()) - 1;
  if (at != last) {
    list[at] = std::move(list[last]);
    auto moved = slots_.find(std::string_view(list[at]->name()));
    if (moved != slots_.end()) moved->second.*pos = at;
  }
  list.pop_back();
  at = -1;
}

void Snapshot::RebuildLists(const std::vector<std::string>& order) {
  Relaid();
  for (auto& [name, slot] : slots_) slot.pos = -1;
  nodes_.clear();
  nodes_.reserve(order.size());
  generations_.clear();
  generations_.reserve(order.size());
  for (const std::string& name : order) {
    auto it = slots_.find(std::string_view(name));
    if (it == slots_.end()) continue;
    it->second.pos = static_cast<int32_t>(nodes_.size());
    nodes_.push_back(it->second.info);
    generations_.push_back(it->second.info->generation());
  }
  RebuildAffinityLists();
}

void Snapshot::RebuildAffinityLists() {
  with_affinity_.clear();
  with_required_anti_affinity_.clear();
  for (auto& [name, slot] : slots_) {
    slot.affinity_pos = -1;
    slot.anti_affinity_pos = -1;
  }
  for (const NodeInfoPtr& n : nodes_) {
    const bool affinity = !n->pods_with_affinity().empty();
    const bool anti = !n->pods_with_required_anti_affinity().empty();
    if (!affinity && !anti) continue;
    auto it = slots_.find(std::string_view(n->name()));
    // Only a name listed twice (Reset with duplicates) has a listed
    // NodeInfo that is not its slot's; it gets no in-place swaps.
    Slot* slot =
        it != slots_.end() && it->second.info == n ? &it->second : nullptr;
    if (affinity) {
      if (slot)
        slot->affinity_pos = static_cast<int32_t>(with_affinity_.size());
      with_affinity_.push_back(n);
    }
    if (anti) {
      if (slot) {
        slot->anti_affinity_pos =
            static_cast<int32_t>(with_required_anti_affinity_.size());
      }
      with_required_anti_affinity_.push_back(n);
    }
  }
}

void Snapshot::LogChange(int32_t position) {
  // Kept long enough for a question asked again after a few hundred
  // cycles; older changes are dropped in halves, and a question that
  // needs them is asked of every node again.
  const size_t limit = std::max<size_t>(4096, nodes_.size() / 2);
  if (changed_positions_.size() >= limit) {
    const size_t drop = changed_positions_.size() / 2;
    changed_positions_.erase(changed_positions_.begin(),
                             changed_positions_.begin() + drop);
    changes_base_ += drop;
  }
  changed_positions_.push_back(position);
}

void Snapshot::Relaid() {
  ++layout_version_;
  changes_base_ += changed_positions_.size();
  changed_positions_.clear();
}

bool Snapshot::ChangedSince(uint64_t layout, uint64_t since,
                            std::vector<int32_t>* out) const {
  if (layout != layout_version_ || since < changes_base_ ||
      since > change_count()) {
    return false;
  }
  out->insert(out->end(), changed_positions_.begin() + (since - changes_base_),
              changed_positions_.end());
  return true;
}

bool Snapshot::ShouldCompact() const {
  return nodes_.size() >= kMinCompactNodes &&
         upserted_since_compact_ >= nodes_.size() / 4;
}

bool Snapshot::CompactInPlace() {
  if (block_ == nullptr || block_->size() != nodes_.size()) return false;
  const NodeInfo* const first = block_->data();
  const NodeInfo* const end = first + block_->size();
  auto in_block = [first, end](const NodeInfoPtr& p) {
    return std::greater_equal<const NodeInfo*>()(p.get(), first) &&
           std::less<const NodeInfo*>()(p.get(), end);
  };
  // The block may be written only if every pointer into it is one of this
  // snapshot's (and nodes() still lists it in its order): a cycle's or a
  // binding's NodeInfoPtr, or a copy of this snapshot, must keep seeing
  // what it saw.
  long ours = 1;  // block_
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!in_block(nodes_[i])) continue;
    if (nodes_[i].get() != first + i) return false;
    ++ours;
  }
  for (const auto& [name, slot] : slots_) ours += in_block(slot.info);
  for (const NodeInfoPtr& n : with_affinity_) ours += in_block(n);
  for (const NodeInfoPtr& n : with_required_anti_affinity_) {
    ours += in_block(n);
  }
  if (block_.use_count() != ours) return false;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (in_block(nodes_[i])) continue;
    // The replaced entry at i is referenced by nothing: overwrite it.
    (*block_)[i] = *nodes_[i];
    Relist(i, NodeInfoPtr(block_, &(*block_)[i]));
  }
  return true;
}

void Snapshot::Relist(size_t i, NodeInfoPtr copy) {
  auto it = slots_.find(std::string_view(copy->name()));
  // Only a name listed twice (Reset with duplicates) has a listed
  // NodeInfo that is not its slot's: the slot keeps its own.
  if (it != slots_.end() && it->second.info == nodes_[i]) {
    Slot& slot = it->second;
    if (slot.affinity_pos >= 0) with_affinity_[slot.affinity_pos] = copy;
    if (slot.anti_affinity_pos >= 0) {
      with_required_anti_affinity_[slot.anti_affinity_pos] = copy;
    }
    slot.info = copy;
  }
  nodes_[i] = std::move(copy);
}

void Snapshot::Compact() {
  upserted_since_compact_ = 0;
  if (CompactInPlace()) return;
  auto block = std::make_shared<std::vector<NodeInfo>>();
  block->reserve(nodes_.size());
  for (const NodeInfoPtr& n : nodes_) block->push_back(*n);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Relist(i, NodeInfoPtr(block, &(*block)[i]));
  }
  block_ = std::move(block);
}

void Snapshot::CountPvcs(const NodeInfo& info, int delta) {
  for (const auto& [key, count] : info.pvc_ref_counts()) {
    auto it = pvc_users_.find(std::string_view(key));
    if (it == pvc_users_.end()) {
      if (delta > 0) pvc_users_.emplace(key, delta);
      continue;
    }
    it->second += delta;
    if (it->second <= 0) pvc_users_.erase(it);
  }
}

const NodeInfo* Snapshot::Get(std::string_view name) const {
  auto it = slots_.find(name);
  return it == slots_.end() ? nullptr : it->second.info.get();
}

NodeInfoPtr Snapshot::GetPtr(std::string_view name) const {
  auto it = slots_.find(name);
  return it == slots_.end() ? nullptr : it->second.info;
}

int32_t Snapshot::PositionOf(std::string_view name) const {
  auto it = slots_.find(name);
  return it == slots_.end() ? -1 : it->second.pos;
}

bool Snapshot::IsPvcUsedByPods(std::string_view key) const {
  return pvc_users_.find(key) != pvc_users_.end();
}

}  // namespace ksched::framework

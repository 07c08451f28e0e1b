#include "pkg/cache/cache.h"

#include <algorithm>
#include <sstream>
#include <utility>

namespace ksched::cache {

namespace {

std::string PodRef(const api::Pod& pod) {
  return pod.metadata.ns + "/" + pod.metadata.name + "(" + pod.metadata.uid +
         ")";
}

std::string PodRef(const framework::PodInfo& pod) {
  return pod.ns() + "/" + pod.name() + "(" + pod.uid() + ")";
}

util::Result<void> CheckKey(const api::Pod& pod) {
  if (pod.metadata.uid.empty()) {
    return util::Error("pod " + pod.metadata.ns + "/" + pod.metadata.name +
                       " has no UID");
  }
  return {};
}

util::Result<void> CheckKey(const framework::PodInfo& pod) {
  if (pod.uid().empty()) {
    return util::Error("pod " + pod.ns() + "/" + pod.name() + " has no UID");
  }
  return {};
}

}  // namespace

Cache::Cache(const util::Clock& clock, std::chrono::nanoseconds ttl)
    : clock_(clock), ttl_(ttl) {}

// ---- Node entries ----

Cache::NodeList::iterator Cache::GetOrCreateNode(std::string_view name) {
  auto found = nodes_.find(name);
  if (found != nodes_.end()) return found->second;
  list_.push_front(NodeEntry{std::string(name), framework::NodeInfo()});
  nodes_.emplace(list_.front().name, list_.begin());
  return list_.begin();
}

void Cache::Touch(NodeList::iterator it) {
  it->info.set_generation(++generation_);
  list_.splice(list_.begin(), list_, it);
}

void Cache::EraseNode(NodeList::iterator it) {
  nodes_.erase(std::string_view(it->name));
  list_.erase(it);
}

// ---- Pods ----

util::Result<void> Cache::AddPodLocked(framework::PodInfoPtr pod,
                                       bool assumed) {
  const framework::PodInfo& p = *pod;
  NodeList::iterator node = GetOrCreateNode(p.node_name());
  node->info.AddPod(pod);
  Touch(node);
  std::string_view key = p.uid();  // lives as long as the state
  pod_states_.emplace(key, PodState{std::move(pod), std::nullopt, false});
  if (assumed) assumed_.insert(key);
  return {};
}

util::Result<void> Cache::RemovePodLocked(framework::PodInfoPtr pod) {
  // `pod` (a copy of the state's pointer) keeps the UID the keys view alive
  // until the end.
  const framework::PodInfo& p = *pod;
  auto node = nodes_.find(std::string_view(p.node_name()));
  // Without a NodeInfo kube only logs and still forgets the pod.
  if (node != nodes_.end()) {
    NodeList::iterator entry = node->second;
    if (!entry->info.RemovePod(p.uid())) {
      return util::Error("pod " + PodRef(p) + " is not on node " +
                         p.node_name() + " in the cache");
    }
    if (entry->info.pods().empty() && entry->info.node() == nullptr) {
      EraseNode(entry);
    } else {
      Touch(entry);
    }
  }
  assumed_.erase(std::string_view(p.uid()));
  auto state = pod_states_.find(std::string_view(p.uid()));
  if (state != pod_states_.end()) pod_states_.erase(state);
  return {};
}

util::Result<void> Cache::AssumePod(framework::PodInfoPtr pod) {
  const framework::PodInfo& p = *pod;
  if (auto ok = CheckKey(p); !ok) return ok;
  if (p.node_name().empty()) {
    return util::Error("pod " + PodRef(p) + " names no node to assume it on");
  }
  std::lock_guard lock(mu_);
  if (pod_states_.contains(std::string_view(p.uid()))) {
    return util::Error("pod " + PodRef(p) +
                       " is in the cache, so can't be assumed");
  }
  return AddPodLocked(std::move(pod), /*assumed=*/true);
}

util::Result<void> Cache::FinishBinding(const api::Pod& pod) {
  if (auto ok = CheckKey(pod); !ok) return ok;
  std::lock_guard lock(mu_);
  std::string_view key = pod.metadata.uid;
  auto it = pod_states_.find(key);
  if (it == pod_states_.end() || !assumed_.contains(key)) return {};
  if (ttl_.count() == 0) {
    it->second.deadline.reset();
  } else {
    it->second.deadline = clock_.Now() + ttl_;
  }
  it->second.binding_finished = true;
  return {};
}

util::Result<void> Cache::ForgetPod(const api::Pod& pod) {
  if (auto ok = CheckKey(pod); !ok) return ok;
  std::lock_guard lock(mu_);
  std::string_view key = pod.metadata.uid;
  auto it = pod_states_.find(key);
  if (it != pod_states_.end() &&
      it->second.pod->node_name() != pod.spec.node_name) {
    return util::Error("pod " + PodRef(pod) + " was assumed on " +
                       pod.spec.node_name + " but assigned to " +
                       it->second.pod->node_name());
  }
  if (it == pod_states_.end() || !assumed_.contains(key)) {
    return util::Error("pod " + PodRef(pod) +
                       " wasn't assumed so cannot be forgotten");
  }
  return RemovePodLocked(it->second.pod);
}

bool Cache::IsAssumedPod(const api::Pod& pod) const {
  std::lock_guard lock(mu_);
  return assumed_.contains(std::string_view(pod.metadata.uid));
}

util::Result<void> Cache::AddPod(framework::PodInfoPtr pod) {
  const framework::PodInfo& p = *pod;
  if (auto ok = CheckKey(p); !ok) return ok;
  if (p.node_name().empty()) {
    return util::Error("pod " + PodRef(p) + " is not bound to a node");
  }
  std::lock_guard lock(mu_);
  std::string_view key = p.uid();
  auto it = pod_states_.find(key);
  if (it == pod_states_.end()) {
    // New, or assumed earlier and expired before the informer caught up.
    return AddPodLocked(std::move(pod), /*assumed=*/false);
  }
  if (!assumed_.contains(key)) {
    return util::Error("pod " + PodRef(p) + " was already in added state");
  }
  // Confirmation: replace the assumed copy with the informer's (which also
  // corrects the node if the binding landed elsewhere).
  if (auto removed = RemovePodLocked(it->second.pod); !removed) return removed;
  return AddPodLocked(std::move(pod), /*assumed=*/false);
}

util::Result<void> Cache::UpdatePod(const api::Pod& old_pod,
                                    framework::PodInfoPtr new_pod) {
  if (auto ok = CheckKey(old_pod); !ok) return ok;
  if (new_pod->node_name().empty()) {
    return util::Error("pod " + PodRef(old_pod) +
                       " lost its node name in an update");
  }
  std::lock_guard lock(mu_);
  std::string_view key = old_pod.metadata.uid;
  auto it = pod_states_.find(key);
  if (it == pod_states_.end()) {
    return util::Error("pod " + PodRef(old_pod) +
                       " is not added to scheduler cache, so cannot be "
                       "updated");
  }
  if (assumed_.contains(key)) {
    return util::Error("assumed pod " + PodRef(old_pod) +
                       " should not be updated");
  }
  // Remove what the cache holds (not the caller's old copy): that is what
  // the NodeInfo accounted.
  framework::PodInfoPtr cached = it->second.pod;
  if (auto removed = RemovePodLocked(cached); !removed) return removed;
  const std::string& was_on = cached->node_name();
  const std::string& now_on = new_pod->node_name();
  std::string moved = was_on == now_on ? "" : was_on + " to " + now_on;
  if (auto added = AddPodLocked(std::move(new_pod), false); !added) {
    return added;
  }
  if (!moved.empty()) {
    return util::Error("pod " + PodRef(old_pod) + " moved from " + moved +
                       ": the scheduler cache missed events");
  }
  return {};
}

util::Result<void> Cache::RemovePod(const api::Pod& pod) {
  if (auto ok = CheckKey(pod); !ok) return ok;
  std::lock_guard lock(mu_);
  auto it = pod_states_.find(std::string_view(pod.metadata.uid));
  if (it == pod_states_.end()) {
    return util::Error("pod " + PodRef(pod) +
                       " is not found in scheduler cache, so cannot be "
                       "removed from it");
  }
  framework::PodInfoPtr cached = it->second.pod;
  if (auto removed = RemovePodLocked(cached); !removed) return removed;
  const std::string& was_on = cached->node_name();
  // An empty node name is a deletion replayed from the informer's last
  // known state after a missed event: nothing is wrong.
  if (!pod.spec.node_name.empty() && pod.spec.node_name != was_on) {
    return util::Error("pod " + PodRef(pod) + " was removed from " +
                       pod.spec.node_name + " but the cache had it on " +
                       was_on + ": the scheduler cache missed events");
  }
  return {};
}

framework::PodInfoPtr Cache::GetPod(std::string_view uid) const {
  std::lock_guard lock(mu_);
  auto it = pod_states_.find(uid);
  return it == pod_states_.end() ? nullptr : it->second.pod;
}

std::vector<framework::PodInfoPtr> Cache::CleanupExpiredAssumedPods() {
  std::vector<framework::PodInfoPtr> expired;
  std::lock_guard lock(mu_);
  if (ttl_.count() == 0) return expired;
  const util::Clock::TimePoint now = clock_.Now();
  // Few pods are assumed at a time; collect first, the removal edits the
  // set being walked.
  for (std::string_view key : assumed_) {
    const PodState& state = pod_states_.at(key);
    if (!state.binding_finished || !state.deadline) continue;
    if (now > *state.deadline) expired.push_back(state.pod);
  }
  for (const framework::PodInfoPtr& pod : expired) {
    (void)RemovePodLocked(pod);
  }
  return expired;
}

// ---- Nodes ----

void Cache::AddNode(std::shared_ptr<const api::Node> node) {
  std::lock_guard lock(mu_);
  NodeList::iterator entry = GetOrCreateNode(node->metadata.name);
  if (const api::Node* old = entry->info.node()) {
    images_.RemoveNode(*old);
    // A second Add for a known node: keep the tree exact even if its zone
    // changed (kube would list it under both zones).
    tree_.UpdateNode(*old, *node);
  } else {
    tree_.AddNode(*node);
  }
  images_.AddNode(*node);
  entry->info.SetNode(std::move(node));
  Touch(entry);
}

void Cache::UpdateNode(const api::Node& old_node,
                       std::shared_ptr<const api::Node> new_node) {
  // The cached node, not the event's old copy, is what the tree and the
  // image counts hold; old_node only matters to callers' logs.
  (void)old_node;
  std::lock_guard lock(mu_);
  NodeList::iterator entry = GetOrCreateNode(new_node->metadata.name);
  if (const api::Node* old = entry->info.node()) {
    images_.RemoveNode(*old);
    tree_.UpdateNode(*old, *new_node);
  } else {
    // Unknown, or a node-less NodeInfo holding pods: the node (re)appears.
    tree_.AddNode(*new_node);
  }
  images_.AddNode(*new_node);
  entry->info.SetNode(std::move(new_node));
  Touch(entry);
}

void Cache::RemoveNode(const api::Node& node) {
  std::lock_guard lock(mu_);
  auto found = nodes_.find(std::string_view(node.metadata.name));
  if (found == nodes_.end()) return;
  NodeList::iterator entry = found->second;
  std::shared_ptr<const api::Node> cached = entry->info.node_ptr();
  if (cached == nullptr) return;  // already removed, pods pending
  (void)tree_.RemoveNode(*cached);
  images_.RemoveNode(*cached);
  entry->info.RemoveNode();
  if (entry->info.pods().empty()) {
    EraseNode(entry);
  } else {
    Touch(entry);
  }
}

// ---- Introspection ----

Cache::Stats Cache::GetStats() const {
  std::lock_guard lock(mu_);
  return Stats{nodes_.size(), pod_states_.size(), assumed_.size()};
}

void Cache::ForEachNodeInfo(
    const std::function<void(const framework::NodeInfo&)>& visit) const {
  std::lock_guard lock(mu_);
  for (const NodeEntry& entry : list_) {
    if (entry.info.node() != nullptr) visit(entry.info);
  }
}

framework::NodeInfoPtr Cache::CopyForSnapshot(
    const framework::NodeInfo& info) const {
  return std::make_shared<framework::NodeInfo>(SnapshotCopyOf(info));
}

framework::NodeInfo Cache::SnapshotCopyOf(
    const framework::NodeInfo& info) const {
  framework::NodeInfo copy(info);
  // Counts as of the copy, as kube's NodeInfo.Snapshot() reads them; a
  // NodeInfo the snapshot does not recopy keeps its older counts.
  if (info.node() != nullptr) {
    copy.set_image_states(images_.Summaries(*info.node()));
  }
  return copy;
}

framework::NodeInfoPtr Cache::GetNodeInfo(std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : CopyForSnapshot(it->second->info);
}

std::vector<std::string> Cache::NodeNamesByRecency() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> names;
  names.reserve(list_.size());
  for (const NodeEntry& e : list_) names.push_back(e.name);
  return names;
}

std::vector<std::string> Cache::NodeTreeList() const {
  std::lock_guard lock(mu_);
  return tree_.List();
}

std::optional<framework::ImageStateSummary> Cache::GetImageState(
    std::string_view name) const {
  std::lock_guard lock(mu_);
  const framework::ImageStateSummary* state = images_.Find(name);
  if (state == nullptr) return std::nullopt;
  return *state;
}

std::string Cache::Dump() const {
  std::lock_guard lock(mu_);
  std::vector<const NodeEntry*> entries;
  for (const NodeEntry& e : list_) entries.push_back(&e);
  std::sort(
      entries.begin(), entries.end(),
      [](const NodeEntry* a, const NodeEntry* b) { return a->name < b->name; });
  std::ostringstream out;
  out << "Dump of cached NodeInfo\n";
  for (const NodeEntry* e : entries) {
    const framework::NodeInfo& info = e->info;
    const framework::Resource& req = info.requested();
    const framework::Resource& alloc = info.allocatable();
    out << "Node name: " << e->name
        << (info.node() == nullptr ? " (removed)" : "")
        << "\nGeneration: " << info.generation()
        << "\nRequested: cpu=" << req.milli_cpu << "m memory=" << req.memory
        << " ephemeral-storage=" << req.ephemeral_storage
        << "\nAllocatable: cpu=" << alloc.milli_cpu
        << "m memory=" << alloc.memory << " pods=" << alloc.allowed_pod_number
        << "\nScheduled Pods(number: " << info.pods().size() << "):\n";
    for (const framework::PodInfoPtr& pod : info.pods()) {
      const framework::PodInfo& p = *pod;
      out << "  name: " << p.name() << ", namespace: " << p.ns()
          << ", uid: " << p.uid()
          << (assumed_.contains(std::string_view(p.uid())) ? " (assumed)" : "")
          << "\n";
    }
  }
  std::vector<std::string_view> assumed(assumed_.begin(), assumed_.end());
  std::sort(assumed.begin(), assumed.end());
  out << "Dump of assumed pods (number: " << assumed.size() << ")\n";
  for (std::string_view key : assumed) {
    const framework::PodInfo& p = *pod_states_.at(key).pod;
    out << "  " << p.ns() << "/" << p.name() << " uid: " << key
        << " node: " << p.node_name() << "\n";
  }
  return out.str();
}

}  // namespace ksched::cache

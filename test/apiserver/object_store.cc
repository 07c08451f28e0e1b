#include "test/apiserver/object_store.h"

#include <algorithm>

#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

std::string StoreKey(const ResourceInfo& resource, const std::string& ns,
                     const std::string& name) {
  return resource.namespaced ? ns + "/" + name : name;
}

ObjectStore::ObjectStore(std::function<void(const StoreEvent&)> on_event,
                         size_t max_history)
    : on_event_(std::move(on_event)), max_history_(max_history) {}

int64_t ObjectStore::CurrentRv() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rv_;
}

int64_t ObjectStore::CompactedRv() const {
  std::lock_guard<std::mutex> lock(mu_);
  return compacted_rv_;
}

ObjectStore::ResourceState& ObjectStore::StateLocked(
    const ResourceInfo& resource) {
  return resources_[&resource];
}

const ObjectStore::ResourceState* ObjectStore::FindStateLocked(
    const ResourceInfo& resource) const {
  auto it = resources_.find(&resource);
  return it == resources_.end() ? nullptr : &it->second;
}

const ObjectStore::Version* ObjectStore::VersionAt(
    const std::vector<Version>& versions, int64_t at_rv) {
  if (at_rv == 0) return versions.empty() ? nullptr : &versions.back();
  // Versions are in revision order; the last one at or before at_rv.
  auto it =
      std::upper_bound(versions.begin(), versions.end(), at_rv,
                       [](int64_t rv, const Version& v) { return rv < v.rv; });
  if (it == versions.begin()) return nullptr;
  return &*(it - 1);
}

ObjectPtr ObjectStore::Get(const ResourceInfo& resource,
                           const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  const ResourceState* state = FindStateLocked(resource);
  if (state == nullptr) return nullptr;
  auto it = state->keys.find(key);
  if (it == state->keys.end() || it->second.empty() ||
      it->second.back().deleted) {
    return nullptr;
  }
  return it->second.back().object;
}

ObjectPtr ObjectStore::GetLatestIncludingDeleted(const ResourceInfo& resource,
                                                 const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  const ResourceState* state = FindStateLocked(resource);
  if (state == nullptr) return nullptr;
  auto it = state->keys.find(key);
  if (it == state->keys.end() || it->second.empty()) return nullptr;
  return it->second.back().object;
}

std::optional<ObjectPtr> ObjectStore::Commit(
    const ResourceInfo& resource, const std::string& key,
    const ObjectPtr& expected, std::unique_ptr<StoredObject> next) {
  std::lock_guard<std::mutex> lock(mu_);
  ResourceState& state = StateLocked(resource);
  auto found = state.keys.find(key);
  ObjectPtr current;
  if (found != state.keys.end() && !found->second.empty() &&
      !found->second.back().deleted) {
    current = found->second.back().object;
  }
  if (current != expected) return std::nullopt;
  if (next == nullptr && current == nullptr) return std::nullopt;
  std::vector<Version>& versions =
      found != state.keys.end() ? found->second : state.keys[key];

  const int64_t rv = ++rv_;
  const std::string rv_text = std::to_string(rv);
  StoreEvent event{.rv = rv, .resource = &resource, .previous = current};
  bool deleted = false;
  if (next == nullptr) {
    // The tombstone: the last state, stamped with the deletion's revision
    // (watchers see DELETED carry it).
    next = std::make_unique<StoredObject>();
    next->doc.CopyFrom(current->doc, next->doc.GetAllocator());
    next->ns = current->ns;
    next->name = current->name;
    next->uid = current->uid;
    next->created = current->created;
    event.type = EventType::kDeleted;
    deleted = true;
  } else {
    event.type = current == nullptr ? EventType::kAdded : EventType::kModified;
  }
  JsonValue& metadata =
      EnsureObject(next->doc, "metadata", next->doc.GetAllocator());
  SetString(metadata, "resourceVersion", rv_text, next->doc.GetAllocator());
  next->rv = rv;
  next->json = ToJson(next->doc);
  ObjectPtr committed(std::move(next));
  event.object = committed;

  versions.push_back(Version{rv, committed, deleted});
  state.log.push_back(event);
  ++history_size_;
  on_event_(event);
  if (max_history_ > 0 && history_size_ > max_history_) {
    CompactLocked(rv_ - static_cast<int64_t>(max_history_ / 2));
  }
  return committed;
}

ObjectStore::ListResult ObjectStore::List(const ResourceInfo& resource,
                                          const ListRequest& request) const {
  std::lock_guard<std::mutex> lock(mu_);
  ListResult result;
  result.rv = request.at_rv == 0 ? rv_ : request.at_rv;
  if (request.at_rv != 0 && request.at_rv < compacted_rv_) {
    result.too_old = true;
    return result;
  }
  if (request.at_rv > rv_) {
    result.too_new = true;
    return result;
  }
  const ResourceState* state = FindStateLocked(resource);
  if (state == nullptr) return result;

  // The key range of the namespace ("ns/" up to "ns0", '0' following '/'),
  // from the continue key on.
  std::string low = request.ns.empty() ? "" : request.ns + "/";
  const std::string high = request.ns.empty() ? "" : request.ns + "0";
  if (request.start_key > low) low = request.start_key;
  if (!high.empty() && low >= high) return result;
  auto begin = state->keys.lower_bound(low);
  auto end = high.empty() ? state->keys.end() : state->keys.lower_bound(high);
  std::string last_key;
  auto it = begin;
  for (; it != end; ++it) {
    const Version* v = VersionAt(it->second, request.at_rv);
    if (v == nullptr || v->deleted) continue;
    if (request.limit > 0 &&
        static_cast<int64_t>(result.items.size()) >= request.limit) {
      break;  // a further live key: the list continues
    }
    if (request.match && !request.match(*v->object)) continue;
    result.items.push_back(v->object);
    last_key = it->first;
  }
  if (it != end) {
    // etcd's continue key: just after the last key returned.
    result.next_key = last_key + std::string(1, '\0');
    if (request.count_remaining) {
      int64_t remaining = 0;
      for (; it != end; ++it) {
        const Version* v = VersionAt(it->second, request.at_rv);
        if (v != nullptr && !v->deleted) ++remaining;
      }
      result.remaining = remaining;
    }
  }
  return result;
}

ObjectStore::WatchStart ObjectStore::StartWatch(
    const ResourceInfo& resource, const std::string& ns, int64_t from_rv,
    const std::function<void(int64_t, std::vector<StoreEvent>)>& attach) const {
  std::lock_guard<std::mutex> lock(mu_);
  WatchStart start;
  if (from_rv != 0 && from_rv < compacted_rv_) {
    start.too_old = true;
    start.oldest_rv = compacted_rv_;
    return start;
  }
  std::vector<StoreEvent> replay;
  const ResourceState* state = FindStateLocked(resource);
  if (state != nullptr) {
    if (from_rv == 0) {
      for (const auto& [key, versions] : state->keys) {
        if (versions.empty() || versions.back().deleted) continue;
        const ObjectPtr& obj = versions.back().object;
        if (!ns.empty() && obj->ns != ns) continue;
        replay.push_back(StoreEvent{.rv = obj->rv,
                                    .type = EventType::kAdded,
                                    .resource = &resource,
                                    .object = obj});
      }
    } else {
      auto first = std::upper_bound(
          state->log.begin(), state->log.end(), from_rv,
          [](int64_t rv, const StoreEvent& e) { return rv < e.rv; });
      for (auto it = first; it != state->log.end(); ++it) {
        if (!ns.empty() && it->object->ns != ns) continue;
        replay.push_back(*it);
      }
    }
  }
  attach(rv_, std::move(replay));
  return start;
}

void ObjectStore::Compact(int64_t rv) {
  std::lock_guard<std::mutex> lock(mu_);
  CompactLocked(rv == 0 ? rv_ : rv);
}

void ObjectStore::CompactLocked(int64_t rv) {
  if (rv <= compacted_rv_) return;
  compacted_rv_ = rv;
  for (auto& [resource, state] : resources_) {
    for (auto it = state.keys.begin(); it != state.keys.end();) {
      std::vector<Version>& versions = it->second;
      // Keep the newest version at or before `rv` (the state then) and
      // everything after it; a deletion then leaves nothing behind.
      auto keep = std::upper_bound(
          versions.begin(), versions.end(), rv,
          [](int64_t r, const Version& v) { return r < v.rv; });
      if (keep != versions.begin()) {
        --keep;
        if (keep->deleted) ++keep;
        versions.erase(versions.begin(), keep);
      }
      it = versions.empty() ? state.keys.erase(it) : std::next(it);
    }
    while (!state.log.empty() && state.log.front().rv <= rv) {
      state.log.pop_front();
      --history_size_;
    }
  }
}

std::vector<ObjectPtr> ObjectStore::Snapshot(
    const ResourceInfo& resource) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ObjectPtr> out;
  const ResourceState* state = FindStateLocked(resource);
  if (state == nullptr) return out;
  for (const auto& [key, versions] : state->keys) {
    if (!versions.empty() && !versions.back().deleted) {
      out.push_back(versions.back().object);
    }
  }
  return out;
}

}  // namespace ksched::testing::apiserver

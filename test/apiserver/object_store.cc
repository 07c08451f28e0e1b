#include "test/apiserver/object_store.h"

#include <algorithm>

#include "test/apiserver/resources.h"
#include "test/apiserver/selectors.h"

namespace ksched::testing::apiserver {

namespace {

// Stored JSON is what ToJson wrote: full precision reads every number back
// as the value that was serialized, so that a document parsed again equals
// the one committed (RapidJSON's default, faster path may be off by a unit
// in the last place).
constexpr unsigned kReparseFlags =
    rapidjson::kParseIterativeFlag | rapidjson::kParseFullPrecisionFlag;

JsonDocument ParseStored(const std::string& json) {
  JsonDocument doc;
  doc.Parse<kReparseFlags>(json.data(), json.size());
  return doc;
}

}  // namespace

JsonDocument StoredObject::Parse() const { return ParseStored(json); }

JsonDocument StoredObject::ParseSelectable() const {
  return ParseStored(selectable);
}

void ObjectStore::WriteSelected(const JsonValue& from, const KeyTree& keys,
                                JsonWriter& writer) {
  writer.StartObject();
  for (const KeyTree& child : keys.children) {
    const JsonValue* value = Member(from, child.key);
    // A selector reads through objects only.
    if (value == nullptr || (!child.whole && !value->IsObject())) continue;
    writer.Key(child.key.data(), static_cast<unsigned>(child.key.size()));
    if (child.whole) {
      value->Accept(writer);
    } else {
      WriteSelected(*value, child, writer);
    }
  }
  writer.EndObject();
}

std::string ObjectStore::SelectableJson(const JsonValue& doc,
                                        const KeyTree& keys) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  WriteSelected(doc, keys, writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

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
  auto [it, added] = resources_.try_emplace(&resource);
  if (added) {
    // What field and label selectors can read; any other member reads as
    // absent to them anyway.
    std::vector<std::string> fields = {"metadata.name", "metadata.namespace",
                                       "metadata.labels"};
    fields.insert(fields.end(), resource.selectable_fields.begin(),
                  resource.selectable_fields.end());
    for (const std::string& field : fields) {
      KeyTree* node = &it->second.selectable;
      for (const std::string& key : SplitFieldPath(field)) {
        auto child =
            std::find_if(node->children.begin(), node->children.end(),
                         [&key](const KeyTree& c) { return c.key == key; });
        if (child == node->children.end()) {
          node->children.push_back(KeyTree{.key = key});
          child = node->children.end() - 1;
        }
        node = &*child;
      }
      node->whole = true;
    }
  }
  return it->second;
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

std::optional<ObjectPtr> ObjectStore::Commit(const ResourceInfo& resource,
                                             const std::string& key,
                                             const ObjectPtr& expected,
                                             JsonDocument* next) {
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
  auto object = std::make_unique<StoredObject>();
  bool deleted = false;
  if (next == nullptr) {
    // The tombstone: the last state, stamped with the deletion's revision
    // (watchers see DELETED carry it).
    JsonDocument last = current->Parse();
    SetString(EnsureObject(last, "metadata", last.GetAllocator()),
              "resourceVersion", rv_text, last.GetAllocator());
    object->json = ToJson(last);
    object->selectable = current->selectable;
    object->ns = current->ns;
    object->name = current->name;
    object->uid = current->uid;
    object->created = current->created;
    event.type = EventType::kDeleted;
    deleted = true;
  } else {
    JsonDocument& doc = *next;
    JsonValue& metadata = EnsureObject(doc, "metadata", doc.GetAllocator());
    SetString(metadata, "resourceVersion", rv_text, doc.GetAllocator());
    object->json = ToJson(doc);
    object->selectable = SelectableJson(doc, state.selectable);
    object->ns = StringAt(metadata, {"namespace"});
    object->name = StringAt(metadata, {"name"});
    object->uid = StringAt(metadata, {"uid"});
    object->created = current != nullptr ? current->created
                                         : std::chrono::steady_clock::now();
    event.type = current == nullptr ? EventType::kAdded : EventType::kModified;
  }
  object->rv = rv;
  ObjectPtr committed(std::move(object));
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
  int64_t live = 0;  // live keys passed, matching or not
  auto it = begin;
  for (; it != end; ++it) {
    const Version* v = VersionAt(it->second, request.at_rv);
    if (v == nullptr || v->deleted) continue;
    if (request.limit > 0 &&
        static_cast<int64_t>(result.items.size()) >= request.limit) {
      break;  // a further live key: the list continues
    }
    ++live;
    if (request.match && !request.match(*v->object)) continue;
    result.items.push_back(v->object);
    last_key = it->first;
  }
  if (it != end) {
    // etcd's continue key: just after the last key returned.
    result.next_key = last_key + std::string(1, '\0');
    if (request.count_remaining) {
      result.remaining = CountRemainingLocked(resource, request, result.rv,
                                              live, it, end, result.next_key);
    }
  }
  return result;
}

int64_t ObjectStore::CountRemainingLocked(const ResourceInfo& resource,
                                          const ListRequest& request,
                                          int64_t rv, int64_t live,
                                          KeyMap::const_iterator it,
                                          KeyMap::const_iterator end,
                                          const std::string& next_key) const {
  // The state at a revision never changes (until compacted, when the list
  // is refused before this), so the page before this one, at the same
  // revision and ending where this one starts, counted this page's keys
  // and the rest: its count less the live keys this page passed is ours.
  // Counting the rest of the range again instead would make listing N
  // objects in pages of L take N * N / L steps.
  int64_t remaining = 0;
  auto cached = remaining_.find(
      RemainingKey{&resource, request.ns, rv, request.start_key});
  if (cached != remaining_.end()) {
    remaining = cached->second - live;
    remaining_.erase(cached);
  } else {
    for (; it != end; ++it) {
      const Version* v = VersionAt(it->second, request.at_rv);
      if (v != nullptr && !v->deleted) ++remaining;
    }
  }
  RemainingKey key{&resource, request.ns, rv, next_key};
  if (remaining_.insert_or_assign(key, remaining).second) {
    remaining_order_.push_back(std::move(key));
  }
  // Listings that were left unfinished (or whose entries were used) age
  // out; an evicted one is counted again, no less exactly.
  while (remaining_order_.size() > kMaxRemainingEntries) {
    remaining_.erase(remaining_order_.front());
    remaining_order_.pop_front();
  }
  return remaining;
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

// ObjectStore: the test API server's etcd. Objects are immutable JSON
// snapshots kept per key as a chain of versions (multi-version, as etcd's
// MVCC), stamped with one global, increasing resourceVersion; every change
// is also an event in a per-resource history for watches. Compaction
// forgets versions and history up to a revision, as etcd's does.
//
// One mutex guards everything; writers compute new objects outside it and
// commit with a compare-and-swap on the version they started from, so the
// lock covers only stamping, serializing and indexing. Objects are kept as
// their serialization alone (see StoredObject).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "test/apiserver/json_util.h"

namespace ksched::testing::apiserver {

struct ResourceInfo;

// One version of an object. Only its serialization is kept: a parsed
// rapidjson document costs several times the text (and its pool allocator
// a 64 KiB first chunk), which at 100,000 nodes and 300,000 pods is
// gigabytes. Writers and checks that need the document parse it again,
// which reads back exactly what was written.
struct StoredObject {
  std::string json;  // compact, without kind/apiVersion, as list items carry it
  // The members field and label selectors read (metadata name, namespace
  // and labels, and the resource's selectable fields), as compact JSON:
  // lists and watches with selectors match against this small document
  // instead of parsing the whole object for every candidate.
  std::string selectable;
  std::string ns;
  std::string name;
  std::string uid;
  int64_t rv = 0;
  std::chrono::steady_clock::time_point created;

  // `json` parsed, for the caller to read or change.
  JsonDocument Parse() const;
  // `selectable` parsed: what FieldSelector and LabelSelector match.
  JsonDocument ParseSelectable() const;
};
using ObjectPtr = std::shared_ptr<const StoredObject>;

enum class EventType { kAdded, kModified, kDeleted };

struct StoreEvent {
  int64_t rv = 0;
  EventType type = EventType::kAdded;
  const ResourceInfo* resource = nullptr;
  // For DELETED: the last state, stamped with the deletion's revision.
  ObjectPtr object;
  // The state before this event (null for ADDED): watches with selectors
  // need it to tell "stopped matching" from "never matched".
  ObjectPtr previous;
};

// "ns/name", or "name" for cluster-scoped objects: etcd's key order.
std::string StoreKey(const ResourceInfo& resource, const std::string& ns,
                     const std::string& name);

class ObjectStore {
 public:
  // `on_event` runs under the store lock, in revision order, for every
  // committed change; it must be quick and must not call back in.
  // `max_history` bounds the retained events: beyond it the oldest half is
  // compacted away (watches from before then get 410), as etcd's periodic
  // compaction would.
  ObjectStore(std::function<void(const StoreEvent&)> on_event,
              size_t max_history);

  int64_t CurrentRv() const;
  int64_t CompactedRv() const;

  // The live object, or null.
  ObjectPtr Get(const ResourceInfo& resource, const std::string& key) const;
  // The last state of the key even if deleted, or null.
  ObjectPtr GetLatestIncludingDeleted(const ResourceInfo& resource,
                                      const std::string& key) const;

  // Commits `next` (null: deletes) over `expected` (null: the key must be
  // absent). Fails with nullopt when the key no longer holds `expected`;
  // the caller recomputes from the new state and tries again.
  // `*next` gets metadata.resourceVersion and is serialized here; the
  // stored object takes its namespace, name and uid from its metadata, and
  // keeps `expected`'s creation time (a new key's is now).
  std::optional<ObjectPtr> Commit(const ResourceInfo& resource,
                                  const std::string& key,
                                  const ObjectPtr& expected,
                                  JsonDocument* next);

  struct ListRequest {
    std::string ns;         // "" lists every namespace
    int64_t at_rv = 0;      // 0: the latest state
    std::string start_key;  // first key to consider (continue)
    int64_t limit = 0;      // 0: no limit
    bool count_remaining = false;
    std::function<bool(const StoredObject&)> match;  // null: all
  };
  struct ListResult {
    bool too_old = false;  // at_rv was compacted away
    bool too_new = false;  // at_rv is in the future
    int64_t rv = 0;        // the revision listed
    std::vector<ObjectPtr> items;
    // Where the next page starts; empty when nothing follows.
    std::string next_key;
    int64_t remaining = -1;  // with count_remaining and a next page
  };
  ListResult List(const ResourceInfo& resource,
                  const ListRequest& request) const;

  // Starts a watch atomically with respect to writers: computes the events
  // it must replay first, then calls `attach(start_rv, events)` under the
  // lock; every change committed afterwards has rv > start_rv.
  // `from_rv` 0 replays the current state as ADDED events; otherwise the
  // history after it (too_old when compacted).
  struct WatchStart {
    bool too_old = false;
    int64_t oldest_rv = 0;  // for the "too old resource version" message
  };
  WatchStart StartWatch(
      const ResourceInfo& resource, const std::string& ns, int64_t from_rv,
      const std::function<void(int64_t start_rv,
                               std::vector<StoreEvent> replay)>& attach) const;

  // Forgets versions and history up to `rv` (the current revision when 0).
  void Compact(int64_t rv = 0);

  // A stable snapshot of every live object of `resource`, for the
  // in-process API and tests.
  std::vector<ObjectPtr> Snapshot(const ResourceInfo& resource) const;

 private:
  // The members of a resource's objects that selectors read
  // (StoredObject::selectable), as a tree of keys: a `whole` key is copied
  // as it is, another one descends into an object.
  struct KeyTree {
    std::string key;
    bool whole = false;
    std::vector<KeyTree> children;
  };
  struct Version {
    int64_t rv;
    ObjectPtr object;  // for a deletion: the tombstone state
    bool deleted;
  };
  using KeyMap = std::map<std::string, std::vector<Version>>;
  struct ResourceState {
    KeyMap keys;
    std::deque<StoreEvent> log;  // events after the compacted revision
    KeyTree selectable;
  };

  ResourceState& StateLocked(const ResourceInfo& resource);
  const ResourceState* FindStateLocked(const ResourceInfo& resource) const;
  void CompactLocked(int64_t rv);
  // The remainingItemCount of a page that passed `live` live keys and
  // stopped at `it` (of the range up to `end`), at revision `rv`; kept for
  // the page that continues from `next_key`.
  int64_t CountRemainingLocked(const ResourceInfo& resource,
                               const ListRequest& request, int64_t rv,
                               int64_t live, KeyMap::const_iterator it,
                               KeyMap::const_iterator end,
                               const std::string& next_key) const;
  static const Version* VersionAt(const std::vector<Version>& versions,
                                  int64_t at_rv);
  // `doc`'s members that `keys` names, as compact JSON.
  static std::string SelectableJson(const JsonValue& doc, const KeyTree& keys);
  using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;
  static void WriteSelected(const JsonValue& from, const KeyTree& keys,
                            JsonWriter& writer);

  const std::function<void(const StoreEvent&)> on_event_;
  const size_t max_history_;

  mutable std::mutex mu_;
  int64_t rv_ = 0;
  int64_t compacted_rv_ = 0;
  size_t history_size_ = 0;
  std::map<const ResourceInfo*, ResourceState> resources_;

  // Remaining counts of recent pages, by resource, namespace, revision and
  // the key their next page starts from (see CountRemainingLocked), oldest
  // entries first in `remaining_order_`.
  using RemainingKey =
      std::tuple<const ResourceInfo*, std::string, int64_t, std::string>;
  static constexpr size_t kMaxRemainingEntries = 1024;
  mutable std::map<RemainingKey, int64_t> remaining_;
  mutable std::deque<RemainingKey> remaining_order_;
};

}  // namespace ksched::testing::apiserver

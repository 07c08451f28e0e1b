// WatchHub: every open watch and the one thread that feeds them. Writers
// only queue the store's events (under the store lock, in revision order);
// the hub's thread encodes each event once per event type, filters it per
// watch (namespace, field and label selectors, with the watch cache's
// ADDED/DELETED translation when an object starts or stops matching) and
// appends it to the watch's stream. It also sends BOOKMARKs and ends
// watches at their timeout.
//
// A watch whose peer does not keep up is cut once its unsent backlog
// passes a limit, so that a slow reader never holds up writers or memory.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "test/apiserver/object_store.h"
#include "test/apiserver/selectors.h"

namespace ksched::testing::apiserver {

struct ResourceInfo;

// The receiving end of a watch: an HTTP chunked body.
class WatchSink {
 public:
  virtual ~WatchSink() = default;
  // Appends `bytes` to the stream; returns how many bytes are buffered and
  // not yet taken by the peer, or nullopt when the stream is gone.
  virtual std::optional<size_t> Write(const std::string& bytes) = 0;
  // Ends the stream: with the final chunk, or `abrupt`ly (the connection
  // is cut mid-stream).
  virtual void Close(bool abrupt) = 0;
};

struct WatchSpec {
  const ResourceInfo* resource = nullptr;
  std::string ns;  // "" watches every namespace
  FieldSelector fields;
  LabelSelector labels;
  bool bookmarks = false;  // allowWatchBookmarks
  // sendInitialEvents: a BOOKMARK marked "k8s.io/initial-events-end"
  // follows the replayed state.
  bool initial_events_end = false;
  std::chrono::steady_clock::time_point deadline;
};

// The encoded event line for `type` and `object` ("{"type":...}\n").
std::string EncodeWatchEvent(std::string_view type,
                             const ResourceInfo& resource,
                             const StoredObject& object);

class WatchHub {
 public:
  // `null_creation_timestamp`: bookmarks carry "creationTimestamp":null,
  // as servers before v1.35 (whose ObjectMeta had no omitzero) wrote it.
  WatchHub(std::chrono::milliseconds bookmark_interval,
           size_t backlog_limit_bytes, bool null_creation_timestamp = false);
  ~WatchHub();  // ends every watch cleanly
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  // A committed change (called under the store lock; only queues it).
  void OnEvent(const StoreEvent& event);

  // Adds a watch: `replay` goes out first, then every event after
  // `start_rv`. Call from ObjectStore::StartWatch's attach callback.
  void Add(WatchSpec spec, std::unique_ptr<WatchSink> sink, int64_t start_rv,
           std::vector<StoreEvent> replay);

  // Ends every open watch now; `abrupt`: without the final chunk. How
  // many it ended.
  size_t EndAll(bool abrupt);
  size_t ActiveCount() const;

 private:
  struct Watch;
  void Run();
  // Appends the event's line (if the watch wants it) to the watch's
  // batch; `encoded` caches the line per event type across watches.
  void Deliver(Watch& watch, const StoreEvent& event, std::string* encoded);
  // Sends the batch; ends the watch if its peer is gone or too far behind.
  void Flush(Watch& watch);
  void AddBookmark(Watch& watch, bool initial_events_end);
  void End(Watch& watch, bool abrupt);
  void AdvanceDelivered(int64_t rv);

  const std::chrono::milliseconds bookmark_interval_;
  const size_t backlog_limit_;
  const bool null_creation_timestamp_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::vector<StoreEvent> queue_;
  std::vector<std::shared_ptr<Watch>> watches_;
  bool stopping_ = false;
  bool added_ = false;  // watches wait for their replay
  // Highest revision delivered (or with no watch to deliver to): what
  // bookmarks carry.
  std::atomic<int64_t> delivered_rv_{0};
  std::thread thread_;
};

}  // namespace ksched::testing::apiserver

#include "test/apiserver/watch_hub.h"

#include <algorithm>
#include <array>

#include "test/apiserver/encoding.h"
#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

namespace {

constexpr std::array<std::string_view, 3> kTypeNames = {"ADDED", "MODIFIED",
                                                        "DELETED"};

}  // namespace

std::string EncodeWatchEvent(std::string_view type,
                             const ResourceInfo& resource,
                             const StoredObject& object) {
  return "{\"type\":\"" + std::string(type) +
         "\",\"object\":" + ObjectJson(resource, object) + "}\n";
}

struct WatchHub::Watch {
  WatchSpec spec;
  std::unique_ptr<WatchSink> sink;
  int64_t start_rv = 0;
  std::vector<StoreEvent> replay;
  bool replayed = false;
  // Backlog allowed on top of the limit: the replay, sent at once.
  size_t allowance = 0;
  std::chrono::steady_clock::time_point next_bookmark;
  // Lines for this round of the hub's loop, written in one go.
  std::string batch;
  std::mutex mu;  // guards `sink` and `ended` against EndAll
  bool ended = false;
};

WatchHub::WatchHub(std::chrono::milliseconds bookmark_interval,
                   size_t backlog_limit_bytes, bool null_creation_timestamp)
    : bookmark_interval_(bookmark_interval),
      backlog_limit_(backlog_limit_bytes),
      null_creation_timestamp_(null_creation_timestamp),
      thread_([this] { Run(); }) {}

WatchHub::~WatchHub() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  EndAll(false);
}

void WatchHub::OnEvent(const StoreEvent& event) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (watches_.empty()) {
      // Nobody to tell; bookmarks still move on.
      AdvanceDelivered(event.rv);
      return;
    }
    queue_.push_back(event);
  }
  wake_.notify_one();
}

void WatchHub::Add(WatchSpec spec, std::unique_ptr<WatchSink> sink,
                   int64_t start_rv, std::vector<StoreEvent> replay) {
  auto watch = std::make_shared<Watch>();
  watch->spec = std::move(spec);
  watch->sink = std::move(sink);
  watch->start_rv = start_rv;
  watch->replay = std::move(replay);
  watch->next_bookmark = std::chrono::steady_clock::now() + bookmark_interval_;
  {
    std::lock_guard<std::mutex> lock(mu_);
    watches_.push_back(std::move(watch));
    added_ = true;
  }
  wake_.notify_one();
}

size_t WatchHub::EndAll(bool abrupt) {
  std::vector<std::shared_ptr<Watch>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all.swap(watches_);
  }
  for (auto& w : all) End(*w, abrupt);
  return all.size();
}

size_t WatchHub::ActiveCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return watches_.size();
}

void WatchHub::AdvanceDelivered(int64_t rv) {
  int64_t seen = delivered_rv_.load();
  while (seen < rv && !delivered_rv_.compare_exchange_weak(seen, rv)) {
  }
}

void WatchHub::End(Watch& watch, bool abrupt) {
  std::lock_guard<std::mutex> lock(watch.mu);
  if (watch.ended) return;
  watch.ended = true;
  watch.sink->Close(abrupt);
}

void WatchHub::Flush(Watch& watch) {
  if (watch.batch.empty()) return;
  std::string batch;
  batch.swap(watch.batch);
  std::lock_guard<std::mutex> lock(watch.mu);
  if (watch.ended) return;
  std::optional<size_t> backlog = watch.sink->Write(batch);
  if (!backlog.has_value() || *backlog > backlog_limit_ + watch.allowance) {
    // Gone, or too slow: end it as the watch cache ends a blocked watcher.
    watch.ended = true;
    watch.sink->Close(false);
  }
}

void WatchHub::AddBookmark(Watch& watch, bool initial_events_end) {
  const ResourceInfo& r = *watch.spec.resource;
  const int64_t rv = std::max(watch.start_rv, delivered_rv_.load());
  std::string& out = watch.batch;
  out += "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"" + r.kind +
         "\",\"apiVersion\":\"" + r.ApiVersion() +
         "\",\"metadata\":{\"resourceVersion\":\"" + std::to_string(rv) + "\"";
  if (null_creation_timestamp_) out += ",\"creationTimestamp\":null";
  if (initial_events_end) {
    out += ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}";
  }
  out += "}";
  if (!r.zero_value_fields.empty()) out += "," + r.zero_value_fields;
  out += "}}\n";
}

void WatchHub::Deliver(Watch& watch, const StoreEvent& event,
                       std::string* encoded) {
  const WatchSpec& spec = watch.spec;
  if (event.resource != spec.resource) return;
  if (!spec.ns.empty() && event.object->ns != spec.ns) return;
  EventType type = event.type;
  const StoredObject* object = event.object.get();
  if (!spec.fields.empty() || !spec.labels.empty()) {
    auto matches = [&](const StoredObject* o) {
      if (o == nullptr) return false;
      const JsonDocument selectable = o->ParseSelectable();
      return spec.fields.Matches(selectable) && spec.labels.Matches(selectable);
    };
    const bool now = matches(object);
    const bool before = matches(event.previous.get());
    switch (event.type) {
      case EventType::kAdded:
        if (!now) return;
        break;
      case EventType::kModified:
        // An object that starts matching is new to the watcher; one that
        // stops matching is gone for it.
        if (now && !before) {
          type = EventType::kAdded;
        } else if (!now && before) {
          type = EventType::kDeleted;
        } else if (!now) {
          return;
        }
        break;
      case EventType::kDeleted:
        if (!before) return;
        break;
    }
  }
  std::string& line = encoded[static_cast<int>(type)];
  if (line.empty()) {
    line = EncodeWatchEvent(kTypeNames[static_cast<int>(type)], *spec.resource,
                            *object);
  }
  watch.batch += line;
}

void WatchHub::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    // Timeouts and bookmarks are checked at least this often.
    const auto tick = std::min<std::chrono::milliseconds>(
        bookmark_interval_, std::chrono::milliseconds(100));
    wake_.wait_for(lock, tick,
                   [this] { return stopping_ || added_ || !queue_.empty(); });
    if (stopping_) break;
    added_ = false;
    std::vector<StoreEvent> events;
    events.swap(queue_);
    std::vector<std::shared_ptr<Watch>> watches = watches_;
    lock.unlock();

    for (auto& w : watches) {
      if (w->replayed) continue;
      w->replayed = true;
      std::array<std::string, 3> encoded;
      for (const StoreEvent& e : w->replay) {
        for (auto& line : encoded) line.clear();
        Deliver(*w, e, encoded.data());
      }
      w->replay.clear();
      w->allowance = w->batch.size();
      if (w->spec.initial_events_end) AddBookmark(*w, true);
    }
    for (const StoreEvent& e : events) {
      std::array<std::string, 3> encoded;
      for (auto& w : watches) {
        if (e.rv > w->start_rv) Deliver(*w, e, encoded.data());
      }
      AdvanceDelivered(e.rv);
    }
    const auto now = std::chrono::steady_clock::now();
    for (auto& w : watches) {
      const bool expired = now >= w->spec.deadline;
      if (w->spec.bookmarks && (expired || now >= w->next_bookmark)) {
        AddBookmark(*w, false);
        w->next_bookmark = now + bookmark_interval_;
      }
      Flush(*w);
      if (expired) End(*w, false);
    }

    lock.lock();
    watches_.erase(std::remove_if(watches_.begin(), watches_.end(),
                                  [](const std::shared_ptr<Watch>& w) {
                                    std::lock_guard<std::mutex> g(w->mu);
                                    return w->ended;
                                  }),
                   watches_.end());
  }
}

}  // namespace ksched::testing::apiserver

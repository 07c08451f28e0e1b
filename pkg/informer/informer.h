// Informer<T>: keeps a local copy of one kind of object in step with the
// API server and tells handlers of every change, as client-go's reflector
// and shared informer do:
//   - a paginated LIST (limit/continue) fills the store; the first one
//     completes the initial sync;
//   - a WATCH from the list's resourceVersion, with bookmarks, streams the
//     changes; when it ends or drops it resumes from the last
//     resourceVersion seen;
//   - a 410 (as an HTTP answer or as a watch ERROR event) means the server
//     no longer has that history: LIST again, and tell the handlers what
//     changed in between (deletions included);
//   - failures back off exponentially (0.8 s doubling to 30 s, jittered).
// Handlers run on the informer's thread, after the store is updated.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/client/api_error.h"
#include "pkg/client/backoff.h"
#include "pkg/client/list_watch.h"
#include "pkg/informer/failure_log.h"
#include "pkg/util/cancellation.h"
#include "pkg/util/logger.h"
#include "pkg/util/random.h"

namespace ksched::informer {

template <typename T>
struct Handlers {
  std::function<void(std::shared_ptr<const T>)> on_add;
  std::function<void(std::shared_ptr<const T>, std::shared_ptr<const T>)>
      on_update;                                            // old, new
  std::function<void(std::shared_ptr<const T>)> on_delete;  // last known
  // Applied to every object listed or watched before it is stored (as
  // client-go's TransformFunc): what the handlers and the store see.
  std::function<void(T&)> transform;
};

struct InformerOptions {
  std::string field_selector;
  std::string label_selector;
  int64_t page_size = 500;
  // Each watch asks the server to end it after a random time in this
  // range, so that a silently dead connection cannot last forever and
  // many clients do not reconnect at once.
  int64_t min_watch_seconds = 300;
  int64_t max_watch_seconds = 600;
  client::RetryBackoff backoff{.initial = std::chrono::milliseconds(800),
                               .factor = 2.0,
                               .max = std::chrono::seconds(30),
                               .jitter = 1.0};
  // Told of each restart, for metrics: "relist" (a LIST after the first,
  // after a 410), "rewatch" (a watch ended and was resumed), "failure" (a
  // LIST or WATCH failed and is retried after backoff).
  std::function<void(const std::string& informer, const char* restart)>
      observer;
  // Where failed LISTs and WATCHes are reported; informers of one process
  // share it so that an outage is one warning. Each informer has its own
  // when unset.
  std::shared_ptr<FailureLog> failure_log;
};

// Waits for a duration; true if the informer is being stopped meanwhile.
using WaitFn = std::function<bool(std::chrono::nanoseconds)>;

// "namespace/name", or "name" for cluster-scoped objects.
template <typename T>
std::string StoreKey(const T& object) {
  if (object.metadata.ns.empty()) return object.metadata.name;
  return object.metadata.ns + "/" + object.metadata.name;
}

template <typename T>
class Informer {
 public:
  Informer(std::string name, std::unique_ptr<client::ListerWatcher<T>> source,
           Handlers<T> handlers, InformerOptions options, util::Logger& log,
           util::Random& random)
      : name_(std::move(name)),
        source_(std::move(source)),
        handlers_(std::move(handlers)),
        options_(std::move(options)),
        log_(log),
        random_(random) {
    if (options_.failure_log == nullptr) {
      options_.failure_log = std::make_shared<FailureLog>(log_);
    }
  }

  // Lists and watches until `stop` is cancelled. `wait` does the backoff
  // waits (stop.WaitFor in production).
  void Run(util::Cancellation& stop, const WaitFn& wait);

  bool HasSynced() const { return synced_.load(std::memory_order_acquire); }
  std::shared_ptr<const T> Get(const std::string& key) const {
    std::shared_lock lock(mu_);
    auto it = store_.find(key);
    return it == store_.end() ? nullptr : it->second;
  }
  std::vector<std::shared_ptr<const T>> List() const {
    std::shared_lock lock(mu_);
    std::vector<std::shared_ptr<const T>> out;
    out.reserve(store_.size());
    for (const auto& [key, object] : store_) out.push_back(object);
    return out;
  }
  size_t size() const {
    std::shared_lock lock(mu_);
    return store_.size();
  }
  const std::string& name() const { return name_; }
  // How often the store was filled by a LIST (the first sync included),
  // and how many watches were started.
  int64_t lists() const { return lists_.load(); }
  int64_t watches() const { return watches_.load(); }
  std::string last_resource_version() const {
    std::shared_lock lock(mu_);
    return resource_version_;
  }

 private:
  enum class WatchEnd { kRewatch, kRelist, kFailed, kStopped };

  // A whole LIST: its objects (transformed) and its resourceVersion.
  struct Listed {
    std::vector<std::shared_ptr<const T>> items;
    std::string resource_version;
  };
  // Every page of a consistent LIST; an expired continue token restarts
  // the list in one answer. Each page's objects are put in their shared
  // places as the page arrives: a list of every object by value (and its
  // doubling capacity) was the largest allocation of a start-up.
  client::ApiOr<Listed> ListAll();
  // Replaces the store with a LIST's items, telling the handlers.
  void Replace(Listed listed);
  WatchEnd Watch(util::Cancellation& stop);
  void Apply(client::WatchEvent<T> event);
  std::chrono::nanoseconds Backoff(int failures) {
    return options_.backoff.Wait(failures - 1, 0, random_);
  }

  const std::string name_;
  std::unique_ptr<client::ListerWatcher<T>> source_;
  Handlers<T> handlers_;
  InformerOptions options_;
  util::Logger& log_;
  util::Random& random_;

  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const T>> store_;
  std::string resource_version_;
  std::atomic<bool> synced_{false};
  std::atomic<int64_t> lists_{0};
  std::atomic<int64_t> watches_{0};
};

template <typename T>
void Informer<T>::Run(util::Cancellation& stop, const WaitFn& wait) {
  bool need_list = true;
  bool listed_once = false;
  int failures = 0;
  auto observe = [this](const char* restart) {
    if (options_.observer) options_.observer(name_, restart);
  };
  while (!stop.cancelled()) {
    if (need_list) {
      if (listed_once) observe("relist");
      auto listed = ListAll();
      if (!listed.ok()) {
        if (stop.cancelled()) return;
        observe("failure");
        ++failures;
        options_.failure_log->Failed(name_, "list", listed.error().message());
        if (wait(Backoff(failures))) return;
        continue;
      }
      options_.failure_log->Succeeded(name_);
      Replace(std::move(*listed));
      need_list = false;
      listed_once = true;
      failures = 0;
    }
    switch (Watch(stop)) {
      case WatchEnd::kStopped:
        return;
      case WatchEnd::kRewatch:
        observe("rewatch");
        failures = 0;
        break;
      case WatchEnd::kRelist:
        need_list = true;
        break;
      case WatchEnd::kFailed:
        observe("failure");
        ++failures;
        if (wait(Backoff(failures))) return;
        break;
    }
  }
}

template <typename T>
client::ApiOr<typename Informer<T>::Listed> Informer<T>::ListAll() {
  client::ListOptions options{.field_selector = options_.field_selector,
                              .label_selector = options_.label_selector,
                              .limit = options_.page_size};
  Listed all;
  while (true) {
    auto page = source_->List(options);
    if (!page.ok()) {
      if (!options.continue_token.empty() &&
          client::IsResourceExpired(page.error())) {
        // The snapshot the pages came from is gone: start again, whole.
        log_.Info(2, "informer " + name_ +
                         ": continue token expired, listing in one answer");
        all = {};
        options.continue_token.clear();
        options.limit = 0;
        continue;
      }
      return page.error();
    }
    for (T& item : page->items) {
      if (handlers_.transform) handlers_.transform(item);
      all.items.push_back(std::make_shared<const T>(std::move(item)));
    }
    page->items = {};
    all.resource_version = page->resource_version;
    if (page->continue_token.empty()) return all;
    options.continue_token = page->continue_token;
  }
}

template <typename T>
void Informer<T>::Replace(Listed listed) {
  std::unordered_map<std::string, std::shared_ptr<const T>> fresh;
  fresh.reserve(listed.items.size());
  for (std::shared_ptr<const T>& item : listed.items) {
    std::string key = StoreKey(*item);
    fresh.emplace(std::move(key), std::move(item));
  }
  listed.items = {};
  std::unordered_map<std::string, std::shared_ptr<const T>> old;
  {
    std::unique_lock lock(mu_);
    old.swap(store_);
    store_ = std::move(fresh);
    resource_version_ = listed.resource_version;
  }
  lists_.fetch_add(1);
  // Only this thread writes the store, so it reads it without the lock
  // (readers share it meanwhile); the handlers may take it to read.
  const auto& fresh_store = store_;
  // What disappeared while we were not watching is deleted first, so a
  // node's room is freed before pods that replaced it arrive.
  for (const auto& [key, object] : old) {
    if (!fresh_store.contains(key) && handlers_.on_delete)
      handlers_.on_delete(object);
  }
  for (const auto& [key, object] : fresh_store) {
    auto it = old.find(key);
    if (it == old.end()) {
      if (handlers_.on_add) handlers_.on_add(object);
    } else if (it->second->metadata.resource_version !=
                   object->metadata.resource_version &&
               handlers_.on_update) {
      handlers_.on_update(it->second, object);
    }
  }
  if (!synced_.exchange(true, std::memory_order_acq_rel)) {
    log_.Info(1, "informer " + name_ + ": synced " +
                     std::to_string(fresh_store.size()) + " objects at " +
                     "resourceVersion " + listed.resource_version);
  }
}

template <typename T>
typename Informer<T>::WatchEnd Informer<T>::Watch(util::Cancellation& stop) {
  const int64_t spread =
      options_.max_watch_seconds - options_.min_watch_seconds;
  client::WatchOptions options{
      .field_selector = options_.field_selector,
      .label_selector = options_.label_selector,
      .resource_version = last_resource_version(),
      .allow_bookmarks = true,
      .timeout_seconds =
          options_.min_watch_seconds +
          (spread > 0 ? static_cast<int64_t>(random_.Intn(spread + 1)) : 0)};
  watches_.fetch_add(1);
  auto stream = source_->Watch(options, stop);
  if (!stream.ok()) {
    if (stop.cancelled()) return WatchEnd::kStopped;
    if (client::IsResourceExpired(stream.error()) ||
        client::IsGone(stream.error())) {
      log_.Info(1, "informer " + name_ + ": resourceVersion " +
                       options.resource_version +
                       " expired, listing again: " + stream.error().message());
      return WatchEnd::kRelist;
    }
    options_.failure_log->Failed(name_, "watch", stream.error().message());
    return WatchEnd::kFailed;
  }
  options_.failure_log->Succeeded(name_);
  while (true) {
    auto next = (*stream)->Next();
    if (!next.ok()) {
      if (stop.cancelled()) return WatchEnd::kStopped;
      options_.failure_log->Failed(
          name_, "watch from resourceVersion " + last_resource_version(),
          "broke off: " + next.error().message());
      return WatchEnd::kFailed;
    }
    if (!next->has_value()) return WatchEnd::kRewatch;
    client::WatchEvent<T>& event = **next;
    if (event.type == client::WatchEventType::kError) {
      if (event.status.code == 410 || event.status.reason == "Expired" ||
          event.status.reason == "Gone") {
        log_.Info(1, "informer " + name_ + ": " + event.status.message +
                         ", listing again");
        return WatchEnd::kRelist;
      }
      log_.Warning("informer " + name_ +
                   ": watch error event: " + event.status.message);
      return WatchEnd::kFailed;
    }
    Apply(std::move(event));
  }
}

template <typename T>
void Informer<T>::Apply(client::WatchEvent<T> event) {
  using client::WatchEventType;
  if (event.type == WatchEventType::kBookmark) {
    std::unique_lock lock(mu_);
    if (!event.resource_version.empty()) {
      resource_version_ = event.resource_version;
    }
    return;
  }
  if (handlers_.transform) handlers_.transform(event.object);
  auto object = std::make_shared<const T>(std::move(event.object));
  const std::string key = StoreKey(*object);
  std::shared_ptr<const T> previous;
  {
    std::unique_lock lock(mu_);
    if (!event.resource_version.empty()) {
      resource_version_ = event.resource_version;
    }
    auto it = store_.find(key);
    if (it != store_.end()) previous = it->second;
    if (event.type == WatchEventType::kDeleted) {
      if (it != store_.end()) store_.erase(it);
    } else {
      store_[key] = object;
    }
  }
  if (event.type == WatchEventType::kDeleted) {
    // The last state we knew carries what handlers accounted for.
    if (handlers_.on_delete) handlers_.on_delete(previous ? previous : object);
  } else if (previous == nullptr) {
    if (handlers_.on_add) handlers_.on_add(object);
  } else if (handlers_.on_update) {
    handlers_.on_update(previous, object);
  }
}

}  // namespace ksched::informer

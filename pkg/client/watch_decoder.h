// Watch decoding: the API server writes a watch as one JSON event per line
// ({"type":"ADDED","object":{...}}\n), cut into chunks anywhere. The
// framer reassembles lines as chunks arrive, never holding more than one
// event; each line decodes to a typed event.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "pkg/api/codec.h"
#include "pkg/client/list_watch.h"
#include "pkg/util/json.h"
#include "pkg/util/result.h"

namespace ksched::client {

class WatchFramer {
 public:
  // An event longer than this is an error, not a reason to buffer forever.
  explicit WatchFramer(size_t max_event_bytes = 64 << 20)
      : max_event_bytes_(max_event_bytes) {}

  // Adds a chunk and calls `on_event` with each line it completes (blank
  // lines skipped).
  util::Status Feed(
      std::string_view chunk,
      const std::function<util::Status(std::string_view)>& on_event);
  // Bytes of an unfinished event held.
  size_t pending() const { return partial_.size(); }

 private:
  size_t max_event_bytes_;
  std::string partial_;
};

// One event, parsed but not yet decoded into its object type.
struct RawWatchEvent {
  WatchEventType type = WatchEventType::kError;
  rapidjson::Document document;
  const rapidjson::Value* object = nullptr;  // inside `document`
};

util::Result<RawWatchEvent> ParseWatchEvent(std::string_view line);

// The object's metadata.resourceVersion, "" when absent.
std::string ResourceVersionOf(const rapidjson::Value& object);

template <typename T>
util::Result<WatchEvent<T>> DecodeWatchEvent(std::string_view line) {
  util::Result<RawWatchEvent> raw = ParseWatchEvent(line);
  if (!raw.ok()) return raw.error();
  WatchEvent<T> event;
  event.type = raw->type;
  event.resource_version = ResourceVersionOf(*raw->object);
  if (raw->type == WatchEventType::kError) {
    auto status =
        api::DecodeJson<api::Status>(*raw->object, {.base_path = "object"});
    if (!status.ok()) return status.error().Wrap("watch ERROR event");
    event.status = std::move(*status);
    return event;
  }
  if (raw->type == WatchEventType::kBookmark) return event;
  auto object = api::DecodeJson<T>(*raw->object, {.base_path = "object"});
  if (!object.ok()) return object.error().Wrap("watch event");
  event.object = std::move(*object);
  return event;
}

}  // namespace ksched::client

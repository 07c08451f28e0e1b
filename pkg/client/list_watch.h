// ListerWatcher seam: how a reflector lists and watches one kind of object.
// The REST implementation talks to the API server; tests script pages and
// events.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/objects.h"
#include "pkg/client/api_or.h"
#include "pkg/util/cancellation.h"
#include "pkg/util/result.h"

namespace ksched::client {

struct ListOptions {
  std::string field_selector;
  std::string label_selector;
  std::string resource_version;
  std::string resource_version_match;
  int64_t limit = 0;  // 0: everything in one answer
  std::string continue_token;
};

struct WatchOptions {
  std::string field_selector;
  std::string label_selector;
  std::string resource_version;
  bool allow_bookmarks = true;
  int64_t timeout_seconds = 0;  // 0: the server's default
};

// "?fieldSelector=...&limit=500": URL-encoded, empty options left out.
std::string ListQuery(const ListOptions& options);
std::string WatchQuery(const WatchOptions& options);
// Percent-encodes a query parameter value.
std::string EscapeQueryValue(std::string_view value);

template <typename T>
struct ListPage {
  std::vector<T> items;
  std::string resource_version;
  std::string continue_token;
};

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };

template <typename T>
struct WatchEvent {
  WatchEventType type = WatchEventType::kError;
  T object;            // kAdded, kModified, kDeleted; kBookmark: metadata
  api::Status status;  // kError
  std::string resource_version;  // of the object or bookmark
};

template <typename T>
class WatchStream {
 public:
  virtual ~WatchStream() = default;
  // The next event; nullopt when the server ended the watch; an error when
  // the connection failed or an event could not be decoded.
  virtual util::Result<std::optional<WatchEvent<T>>> Next() = 0;
};

template <typename T>
class ListerWatcher {
 public:
  virtual ~ListerWatcher() = default;
  virtual ApiOr<ListPage<T>> List(const ListOptions& options) = 0;
  // `cancel` ends the watch from another thread; it must outlive the stream.
  virtual ApiOr<std::unique_ptr<WatchStream<T>>> Watch(
      const WatchOptions& options, util::Cancellation& cancel) = 0;
};

}  // namespace ksched::client

// RestListerWatcher<T>: lists and watches one kind of object through the
// REST client: GET {collection}?limit=..&continue=.. and
// GET {collection}?watch=true&allowWatchBookmarks=true&resourceVersion=..,
// the watch decoded event by event as its chunks arrive.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "pkg/api/codec.h"
#include "pkg/client/list_watch.h"
#include "pkg/client/resources.h"
#include "pkg/client/rest_client.h"
#include "pkg/client/watch_decoder.h"

namespace ksched::client {

// Decodes a list answer ({"metadata":{...},"items":[...]}) of T.
template <typename T>
util::Result<ListPage<T>> DecodeListPage(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return util::Error("list answer is not a JSON object");
  }
  ListPage<T> page;
  if (auto meta = doc.FindMember("metadata");
      meta != doc.MemberEnd() && meta->value.IsObject()) {
    page.resource_version = ResourceVersionOf(doc);
    if (auto c = meta->value.FindMember("continue");
        c != meta->value.MemberEnd() && c->value.IsString()) {
      page.continue_token = c->value.GetString();
    }
  }
  auto items = doc.FindMember("items");
  if (items == doc.MemberEnd() || items->value.IsNull()) return page;
  if (!items->value.IsArray()) return util::Error("items: expected an array");
  page.items.reserve(items->value.Size());
  for (rapidjson::SizeType i = 0; i < items->value.Size(); ++i) {
    auto item = api::DecodeJson<T>(
        items->value[i], {.base_path = "items[" + std::to_string(i) + "]"});
    if (!item.ok()) return item.error();
    page.items.push_back(std::move(*item));
  }
  return page;
}

template <typename T>
class RestWatchStream final : public WatchStream<T> {
 public:
  explicit RestWatchStream(std::unique_ptr<BodyReader> body)
      : body_(std::move(body)) {}

  util::Result<std::optional<WatchEvent<T>>> Next() override {
    while (true) {
      if (!ready_.empty()) {
        WatchEvent<T> event = std::move(ready_.front());
        ready_.pop_front();
        return std::optional<WatchEvent<T>>(std::move(event));
      }
      if (ended_) return std::optional<WatchEvent<T>>();
      std::string chunk;
      util::Result<bool> more = body_->ReadSome(chunk);
      if (!more.ok()) return more.error();
      if (!*more) {
        ended_ = true;
        if (framer_.pending() > 0) {
          return util::Error("watch ended inside an event");
        }
        continue;
      }
      util::Status fed = framer_.Feed(chunk, [this](std::string_view line) {
        util::Result<WatchEvent<T>> event = DecodeWatchEvent<T>(line);
        if (!event.ok()) return util::Status(event.error());
        ready_.push_back(std::move(*event));
        return util::Status();
      });
      if (!fed.ok()) return fed.error();
    }
  }

 private:
  std::unique_ptr<BodyReader> body_;
  WatchFramer framer_;
  std::deque<WatchEvent<T>> ready_;
  bool ended_ = false;
};

template <typename T>
class RestListerWatcher final : public ListerWatcher<T> {
 public:
  // All namespaces when `ns` is empty.
  explicit RestListerWatcher(RestClient& client, std::string ns = "")
      : client_(client),
        collection_(CollectionPath(ResourceOf<T>::kResource, ns)) {}

  ApiOr<ListPage<T>> List(const ListOptions& options) override {
    // Not retried here: the informer backs off and tries again itself, and
    // reports the failure at once (as client-go's reflector does).
    ApiResult result = client_.Do({.path = collection_ + ListQuery(options)},
                                  /*max_retries=*/0);
    if (!result.ok()) return *result.error;
    util::Result<ListPage<T>> page = DecodeListPage<T>(result.response.body);
    if (!page.ok()) {
      return ConnectionError("decoding the list of " + collection_ + ": " +
                             page.error().message());
    }
    return std::move(*page);
  }

  ApiOr<std::unique_ptr<WatchStream<T>>> Watch(
      const WatchOptions& options, util::Cancellation& cancel) override {
    RestClient::StreamResult result =
        client_.Stream({.path = collection_ + WatchQuery(options)}, cancel);
    if (!result.ok()) return *result.error;
    return std::unique_ptr<WatchStream<T>>(
        std::make_unique<RestWatchStream<T>>(std::move(result.body)));
  }

 private:
  RestClient& client_;
  std::string collection_;
};

}  // namespace ksched::client

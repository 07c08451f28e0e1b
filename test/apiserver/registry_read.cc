// Get lives in registry.cc; this file is list and watch.
#include <charconv>

#include "test/apiserver/continue_token.h"
#include "test/apiserver/encoding.h"
#include "test/apiserver/registry.h"
#include "test/apiserver/resources.h"
#include "test/apiserver/selectors.h"

namespace ksched::testing::apiserver {

namespace {

std::optional<int64_t> ParseInt(const std::string& text) {
  int64_t value = 0;
  auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// ListOptions validation failures are 422s on the ListOptions kind.
ApiError InvalidListOptions(const std::string& field,
                            const std::string& detail) {
  ApiError e{.code = 422, .reason = "Invalid"};
  e.message = "ListOptions.meta.k8s.io \"\" is invalid: " + field +
              ": Forbidden: " + detail;
  e.has_details = true;
  e.detail_group = "meta.k8s.io";
  e.detail_kind = "ListOptions";
  e.causes.push_back(FieldForbidden(field, detail));
  return e;
}

ApiError TooLargeResourceVersion(int64_t requested, int64_t current) {
  ApiError e{.code = 504, .reason = "Timeout"};
  e.message = "Too large resource version: " + std::to_string(requested) +
              ", current: " + std::to_string(current);
  e.has_details = true;
  e.causes.push_back(StatusCause{.reason = "ResourceVersionTooLarge",
                                 .message = "Too large resource version"});
  e.retry_after_seconds = 1;
  return e;
}

struct Selectors {
  FieldSelector fields;
  LabelSelector labels;
};

std::optional<ApiError> ParseSelectors(const Request& request,
                                       const ResourceInfo& resource,
                                       Selectors* out) {
  std::string error;
  if (!out->fields.Parse(request.query.Get("fieldSelector"), resource,
                         &error)) {
    return BadRequest(error);
  }
  if (!out->labels.Parse(request.query.Get("labelSelector"), &error)) {
    return BadRequest(error);
  }
  return std::nullopt;
}

}  // namespace

Response Registry::List(const Request& request, const ApiPath& path) {
  const ResourceInfo& r = *path.resource;
  const bool pretty = request.pretty;
  Selectors selectors;
  if (auto error = ParseSelectors(request, r, &selectors)) {
    return ErrorResponse(*error, pretty);
  }
  const std::string rv_text = request.query.Get("resourceVersion");
  const std::string match = request.query.Get("resourceVersionMatch");
  const std::string continue_text = request.query.Get("continue");
  int64_t limit = 0;
  if (request.query.Has("limit")) {
    std::optional<int64_t> parsed = ParseInt(request.query.Get("limit"));
    if (!parsed.has_value()) {
      return ErrorResponse(
          BadRequest("strconv.ParseInt: parsing \"" +
                     request.query.Get("limit") + "\": invalid syntax"),
          pretty);
    }
    limit = std::max<int64_t>(*parsed, 0);
  }
  if (!match.empty() && rv_text.empty()) {
    return ErrorResponse(
        InvalidListOptions("resourceVersionMatch",
                           "resourceVersionMatch is forbidden unless "
                           "resourceVersion is provided"),
        pretty);
  }
  if (!continue_text.empty() && !rv_text.empty()) {
    return ErrorResponse(
        InvalidListOptions("resourceVersion",
                           "specifying resource version is not allowed "
                           "when using continue"),
        pretty);
  }
  if (!match.empty() && match != "Exact" && match != "NotOlderThan") {
    return ErrorResponse(
        InvalidListOptions("resourceVersionMatch",
                           "unsupported value \"" + match + "\""),
        pretty);
  }

  ObjectStore::ListRequest list;
  list.ns = path.ns;
  list.limit = limit;
  if (!continue_text.empty()) {
    std::string error;
    std::optional<ContinueToken> token = DecodeContinue(continue_text, &error);
    if (!token.has_value()) return ErrorResponse(BadRequest(error), pretty);
    list.start_key = token->start_key;
    if (token->rv > 0 && token->rv < store_.CompactedRv()) {
      ApiError expired = Expired(
          "The provided continue parameter is too old to display a "
          "consistent list result. You can start a new list without the "
          "continue parameter, or use the continue token in this response "
          "to retrieve the remainder of the results. Continuing with the "
          "provided token results in an inconsistent list - objects that "
          "were created, modified, or deleted between the time the first "
          "chunk was returned and now may show up in the list.");
      expired.continue_token =
          EncodeContinue(ContinueToken{-1, token->start_key});
      ++expired_served_;
      return ErrorResponse(expired, pretty);
    }
    list.at_rv = token->rv > 0 ? token->rv : 0;  // -1: inconsistent, latest
  } else if (!rv_text.empty() && rv_text != "0") {
    std::optional<int64_t> rv = ParseInt(rv_text);
    if (!rv.has_value() || *rv < 0) {
      return ErrorResponse(BadRequest("invalid resource version: " + rv_text),
                           pretty);
    }
    // Exact when asked, and for a paginated list (its legacy meaning).
    if (match == "Exact" || (match.empty() && limit > 0)) {
      list.at_rv = *rv;
    } else if (*rv > store_.CurrentRv()) {
      return ErrorResponse(TooLargeResourceVersion(*rv, store_.CurrentRv()),
                           pretty);
    }
  } else if (rv_text == "0") {
    if (match == "Exact") {
      return ErrorResponse(
          InvalidListOptions("resourceVersionMatch",
                             "resourceVersionMatch \"exact\" is forbidden "
                             "for resourceVersion \"0\""),
          pretty);
    }
    // Served from the watch cache, which does not paginate.
    list.limit = 0;
  }
  const bool filtered = !selectors.fields.empty() || !selectors.labels.empty();
  list.count_remaining = !filtered;
  if (filtered) {
    list.match = [&selectors](const StoredObject& o) {
      const JsonDocument selectable = o.ParseSelectable();
      return selectors.fields.Matches(selectable) &&
             selectors.labels.Matches(selectable);
    };
  }
  ObjectStore::ListResult result = store_.List(r, list);
  if (result.too_old) {
    ++expired_served_;
    return ErrorResponse(
        Expired("The resourceVersion for the provided list is too old."),
        pretty);
  }
  if (result.too_new) {
    return ErrorResponse(
        TooLargeResourceVersion(list.at_rv, store_.CurrentRv()), pretty);
  }
  ListMeta meta{.rv = result.rv, .remaining = result.remaining};
  if (!result.next_key.empty()) {
    meta.continue_token =
        EncodeContinue(ContinueToken{result.rv, result.next_key});
  }
  return Response{.body =
                      ResponseBody(ListJson(r, meta, result.items), pretty)};
}

Response Registry::Watch(const Request& request, const ApiPath& path) {
  const ResourceInfo& r = *path.resource;
  const bool pretty = request.pretty;
  Selectors selectors;
  if (auto error = ParseSelectors(request, r, &selectors)) {
    return ErrorResponse(*error, pretty);
  }
  const std::string rv_text = request.query.Get("resourceVersion");
  int64_t from_rv = 0;
  if (!rv_text.empty() && rv_text != "0") {
    std::optional<int64_t> rv = ParseInt(rv_text);
    if (!rv.has_value() || *rv < 0) {
      return ErrorResponse(BadRequest("invalid resource version: " + rv_text),
                           pretty);
    }
    from_rv = *rv;
  }
  WatchSpec spec;
  spec.resource = &r;
  spec.ns = path.ns;
  spec.fields = std::move(selectors.fields);
  spec.labels = std::move(selectors.labels);
  spec.bookmarks = request.query.GetBool("allowWatchBookmarks");
  if (request.query.GetBool("sendInitialEvents")) {
    if (!spec.bookmarks ||
        request.query.Get("resourceVersionMatch") != "NotOlderThan") {
      return ErrorResponse(
          InvalidListOptions("sendInitialEvents",
                             "sendInitialEvents requires setting "
                             "allowWatchBookmarks=true and "
                             "resourceVersionMatch=NotOlderThan"),
          pretty);
    }
    spec.initial_events_end = true;
    from_rv = 0;  // the current state, whatever the revision given
  }
  std::chrono::seconds timeout = options_.default_watch_timeout;
  if (request.query.Has("timeoutSeconds")) {
    std::optional<int64_t> seconds =
        ParseInt(request.query.Get("timeoutSeconds"));
    if (!seconds.has_value()) {
      return ErrorResponse(BadRequest("invalid timeoutSeconds"), pretty);
    }
    if (*seconds > 0) timeout = std::chrono::seconds(*seconds);
  }
  spec.deadline = std::chrono::steady_clock::now() + timeout;

  Response response;
  response.stream = [this, spec = std::move(spec),
                     from_rv](std::unique_ptr<WatchSink> sink) mutable {
    const ResourceInfo& resource = *spec.resource;
    const std::string ns = spec.ns;
    ObjectStore::WatchStart start = store_.StartWatch(
        resource, ns, from_rv,
        [&](int64_t start_rv, std::vector<StoreEvent> replay) {
          hub_.Add(std::move(spec), std::move(sink), start_rv,
                   std::move(replay));
        });
    if (start.too_old) {
      ++expired_served_;
      // HTTP 200 and then a single ERROR event, as the watch cache does.
      std::string status = StatusJson(
          Expired("too old resource version: " + std::to_string(from_rv) +
                  " (" + std::to_string(start.oldest_rv) + ")"),
          false);
      status.pop_back();  // the newline
      sink->Write("{\"type\":\"ERROR\",\"object\":" + status + "}\n");
      sink->Close(false);
    }
  };
  return response;
}

}  // namespace ksched::testing::apiserver

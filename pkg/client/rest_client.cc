#include "pkg/client/rest_client.h"

#include <chrono>
#include <string_view>
#include <utility>
#include <vector>

namespace ksched::client {

std::string ResourceOfPath(std::string_view path) {
  if (size_t q = path.find('?'); q != std::string_view::npos) {
    path = path.substr(0, q);
  }
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const size_t slash = path.find('/');
    if (slash != 0) parts.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  // /api/v1/... or /apis/<group>/<version>/...
  size_t at = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    at = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    at = 3;
  } else {
    return "";
  }
  if (at + 1 < parts.size() && parts[at] == "namespaces" &&
      parts.size() > at + 2) {
    at += 2;  // namespaced: skip "namespaces/<ns>"
  }
  if (at >= parts.size()) return "";
  std::string resource(parts[at]);
  if (at + 2 < parts.size()) resource += "/" + std::string(parts[at + 2]);
  return resource;
}

bool IsIdempotent(const std::string& method) {
  return method == "GET" || method == "HEAD" || method == "PUT" ||
         method == "DELETE";
}

RestClient::RestClient(std::unique_ptr<Transport> transport,
                       const util::Clock& clock, util::Random& random,
                       SleepFn sleep, const RestClientOptions& options)
    : transport_(std::move(transport)),
      random_(random),
      sleep_(std::move(sleep)),
      options_(options),
      bucket_(clock, options.qps, options.burst) {}

ApiResult RestClient::Do(const HttpRequest& request, int max_retries) {
  RetryBackoff backoff = options_.backoff;
  if (max_retries >= 0) backoff.max_retries = max_retries;
  return Send(request, backoff, nullptr);
}

ApiResult RestClient::Do(const HttpRequest& request,
                         const RetryPolicy& policy) {
  return Send(request, policy.backoff, policy.retriable);
}

ApiResult RestClient::Send(
    const HttpRequest& request, const RetryBackoff& backoff,
    const std::function<bool(const ApiError&)>& also_retry) {
  const bool idempotent = IsIdempotent(request.method);
  for (int attempt = 0;; ++attempt) {
    // Every attempt, retries included, spends a token.
    if (auto wait = bucket_.Reserve(); wait.count() > 0) sleep_(wait);
    ApiResult result;
    const auto started = std::chrono::steady_clock::now();
    util::Result<HttpResponse> answer = transport_->RoundTrip(request);
    if (options_.observer) {
      options_.observer({request, answer.ok() ? answer->code : 0,
                         std::chrono::steady_clock::now() - started});
    }
    if (!answer.ok()) {
      result.error = ConnectionError(answer.error().message());
    } else if (answer->code >= 200 && answer->code < 300) {
      result.response = std::move(*answer);
      return result;
    } else {
      result.error = ErrorFromResponse(answer->code, request.method,
                                       answer->body, answer->retry_after);
    }
    const bool retry = ShouldRetry(*result.error, idempotent) ||
                       (also_retry && also_retry(*result.error));
    if (attempt >= backoff.max_retries || !retry) return result;
    sleep_(backoff.Wait(attempt, result.error->retry_after_seconds, random_));
  }
}

RestClient::StreamResult RestClient::Stream(const HttpRequest& request,
                                            util::Cancellation& cancel) {
  if (auto wait = bucket_.Reserve(); wait.count() > 0) sleep_(wait);
  Transport& transport = stream_transport_ ? *stream_transport_ : *transport_;
  StreamResult result;
  const auto started = std::chrono::steady_clock::now();
  util::Result<StreamedResponse> answer = transport.Stream(request, cancel);
  if (options_.observer) {
    options_.observer({request, answer.ok() ? answer->code : 0,
                       std::chrono::steady_clock::now() - started});
  }
  if (!answer.ok()) {
    result.error = ConnectionError(answer.error().message());
    return result;
  }
  if (answer->code >= 200 && answer->code < 300) {
    result.body = std::move(answer->body);
    return result;
  }
  // An error body is a Status of a few hundred bytes; more is not one.
  constexpr size_t kMaxErrorBody = 1 << 20;
  std::string body;
  while (body.size() < kMaxErrorBody) {
    util::Result<bool> more = answer->body->ReadSome(body);
    if (!more.ok() || !*more) break;
  }
  result.error = ErrorFromResponse(answer->code, request.method, body,
                                   answer->retry_after);
  return result;
}

}  // namespace ksched::client

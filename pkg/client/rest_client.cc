#include "pkg/client/rest_client.h"

#include <utility>

namespace ksched::client {

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

ApiResult RestClient::Do(const HttpRequest& request) {
  const bool idempotent = IsIdempotent(request.method);
  for (int attempt = 0;; ++attempt) {
    // Every attempt, retries included, spends a token.
    if (auto wait = bucket_.Reserve(); wait.count() > 0) sleep_(wait);
    ApiResult result;
    util::Result<HttpResponse> answer = transport_->RoundTrip(request);
    if (!answer.ok()) {
      result.error = ConnectionError(answer.error().message());
    } else if (answer->code >= 200 && answer->code < 300) {
      result.response = std::move(*answer);
      return result;
    } else {
      result.error = ErrorFromResponse(answer->code, request.method,
                                       answer->body, answer->retry_after);
    }
    if (attempt >= options_.backoff.max_retries ||
        !ShouldRetry(*result.error, idempotent)) {
      return result;
    }
    sleep_(options_.backoff.Wait(attempt, result.error->retry_after_seconds,
                                 random_));
  }
}

RestClient::StreamResult RestClient::Stream(const HttpRequest& request,
                                            util::Cancellation& cancel) {
  if (auto wait = bucket_.Reserve(); wait.count() > 0) sleep_(wait);
  Transport& transport = stream_transport_ ? *stream_transport_ : *transport_;
  StreamResult result;
  util::Result<StreamedResponse> answer = transport.Stream(request, cancel);
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

// RestClient: requests to the API server as client-go's rest client sends
// them: throttled by a token bucket (clientConnection.qps / burst), retried
// with backoff when that may help (see ShouldRetry), and every failure
// turned into an ApiError.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "pkg/client/api_error.h"
#include "pkg/client/backoff.h"
#include "pkg/client/rate_limiter.h"
#include "pkg/client/transport.h"
#include "pkg/util/clock.h"
#include "pkg/util/random.h"

namespace ksched::client {

// One answered (or failed) attempt, for metrics: the HTTP code, 0 when no
// answer came; for a stream, the time until its headers.
struct RequestRecord {
  const HttpRequest& request;
  int code;
  std::chrono::nanoseconds duration;
};

struct RestClientOptions {
  // KubeSchedulerConfiguration's clientConnection defaults.
  double qps = 50;
  int burst = 100;
  RetryBackoff backoff;
  // Called after every attempt, retries included, from the calling thread.
  std::function<void(const RequestRecord&)> observer;
};

// The resource a request path names, with its subresource:
// "/api/v1/namespaces/a/pods/b/binding" -> "pods/binding",
// "/apis/coordination.k8s.io/v1/namespaces/a/leases/b" -> "leases",
// "/api/v1/nodes?watch=true" -> "nodes"; "" for other paths.
std::string ResourceOfPath(std::string_view path);

// A 2xx response, or the error that ended the request.
struct ApiResult {
  HttpResponse response;
  std::optional<ApiError> error;
  bool ok() const { return !error.has_value(); }
};

class RestClient {
 public:
  // Waits (for a token, before a retry) go through `sleep`, so tests can
  // advance a fake clock instead.
  using SleepFn = std::function<void(util::Clock::Duration)>;

  RestClient(std::unique_ptr<Transport> transport, const util::Clock& clock,
             util::Random& random, SleepFn sleep,
             const RestClientOptions& options);

  // `max_retries` overrides the options' backoff.max_retries (-1: keep it).
  ApiResult Do(const HttpRequest& request, int max_retries = -1);

  // A caller's own retry rule on top of ShouldRetry's, as client-go's
  // retry.OnError wraps a request: errors `retriable` accepts are sent
  // again too, and every retry waits as `backoff` says.
  struct RetryPolicy {
    RetryBackoff backoff;
    std::function<bool(const ApiError&)> retriable;
  };
  ApiResult Do(const HttpRequest& request, const RetryPolicy& policy);

  // A streamed GET (a watch): throttled like any request, never retried
  // (the caller relists or rewatches). A non-2xx answer is read whole and
  // returned as the error.
  struct StreamResult {
    std::unique_ptr<BodyReader> body;
    std::optional<ApiError> error;
    bool ok() const { return !error.has_value(); }
  };
  StreamResult Stream(const HttpRequest& request, util::Cancellation& cancel);

  // Streams through `transport` instead, e.g. one whose timeout outlasts a
  // watch's quiet periods and whose connections a watch may hold.
  void UseStreamTransport(std::unique_ptr<Transport> transport) {
    stream_transport_ = std::move(transport);
  }

  // Closes the idle connections of the request transport (not the stream
  // transport's, which the watches hold), e.g. those the LISTs of a
  // start-up opened side by side and later requests will not need all of.
  void CloseIdleConnections() { transport_->CloseIdleConnections(); }

 private:
  ApiResult Send(const HttpRequest& request, const RetryBackoff& backoff,
                 const std::function<bool(const ApiError&)>& also_retry);

  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Transport> stream_transport_;
  util::Random& random_;
  SleepFn sleep_;
  RestClientOptions options_;
  TokenBucket bucket_;
};

// GET, HEAD, PUT and DELETE cannot take effect twice; POST and PATCH can.
bool IsIdempotent(const std::string& method);

}  // namespace ksched::client

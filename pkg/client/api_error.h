// ApiError: a failed API request, as client-go's StatusError reports it.
//
// The API server answers a failure with a metav1.Status body; that body is
// the error. Anything else (an answer from a proxy, an empty body) becomes
// the Status client-go would synthesise for the HTTP code, with the same
// reasons and messages, so logs and callers read alike.
#pragma once

#include <string>
#include <string_view>

#include "pkg/api/objects.h"

namespace ksched::client {

struct ApiError {
  // Failure status; code 0 when no response came (connection error).
  api::Status status;
  // From the Retry-After header, else the Status details; 0 when absent.
  int retry_after_seconds = 0;

  const std::string& message() const { return status.message; }
  int code() const { return status.code; }
};

// The error for an HTTP answer with a non-2xx `code`.
ApiError ErrorFromResponse(int code, std::string_view verb,
                           std::string_view body,
                           std::string_view retry_after_header);
// The error for a request that got no answer.
ApiError ConnectionError(std::string message);

// apimachinery's errors.IsX, on the reason.
bool IsNotFound(const ApiError& e);
bool IsAlreadyExists(const ApiError& e);
bool IsConflict(const ApiError& e);
bool IsUnauthorized(const ApiError& e);
bool IsForbidden(const ApiError& e);
bool IsGone(const ApiError& e);
// A watch or list at a resourceVersion the server no longer has.
bool IsResourceExpired(const ApiError& e);
bool IsTooManyRequests(const ApiError& e);
bool IsInternalError(const ApiError& e);
bool IsServiceUnavailable(const ApiError& e);
// No answer came; refused: the server's port took no connection, so
// nothing was sent (Go's net.IsConnectionRefused).
bool IsConnectionError(const ApiError& e);
bool IsConnectionRefused(const ApiError& e);

// Whether sending the request again may succeed: 429 always (the server
// turned the request away unprocessed); 5xx and connection errors only for
// idempotent requests, which cannot take effect twice.
bool ShouldRetry(const ApiError& e, bool idempotent);

}  // namespace ksched::client

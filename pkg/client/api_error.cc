#include "pkg/client/api_error.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "pkg/api/codec.h"

namespace ksched::client {
namespace {

// Long enough for any proxy's error page to be recognisable in a log.
constexpr size_t kMaxServerMessage = 1024;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(c));
  return out;
}

// NewGenericServerResponse: reason and message by HTTP code.
api::Status GenericStatus(int code, std::string_view verb,
                          std::string_view server_message) {
  api::Status s;
  s.status = "Failure";
  s.code = code;
  s.reason = "Unknown";
  s.message = "the server responded with the status code " +
              std::to_string(code) + " but did not return more information";
  const std::string server(server_message.substr(
      0, std::min(server_message.size(), kMaxServerMessage)));
  switch (code) {
    case 409:
      s.reason = Lower(verb) == "post" ? "AlreadyExists" : "Conflict";
      s.message = "the server reported a conflict";
      break;
    case 404:
      s.reason = "NotFound";
      s.message = "the server could not find the requested resource";
      break;
    case 400:
      s.reason = "BadRequest";
      s.message = "the server rejected our request for an unknown reason";
      break;
    case 401:
      s.reason = "Unauthorized";
      s.message = "the server has asked for the client to provide credentials";
      break;
    case 403:
      s.reason = "Forbidden";
      s.message = server;
      break;
    case 405:
      s.reason = "MethodNotAllowed";
      s.message =
          "the server does not allow this method on the requested resource";
      break;
    case 422:
      s.reason = "Invalid";
      s.message =
          "the server rejected our request due to an error in our request";
      break;
    case 406:
      s.reason = "NotAcceptable";
      s.message = server.empty() || server == "unknown"
                      ? "the server was unable to respond with a content "
                        "type that the client supports"
                      : server;
      break;
    case 415:
      s.reason = "UnsupportedMediaType";
      s.message = server;
      break;
    case 503:
      s.reason = "ServiceUnavailable";
      s.message = "the server is currently unable to handle the request";
      break;
    case 504:
      s.reason = "Timeout";
      s.message =
          "the server was unable to return a response in the time allotted, "
          "but may still be processing the request";
      break;
    case 429:
      s.reason = "TooManyRequests";
      s.message =
          "the server has received too many requests and has asked us to try "
          "again later";
      break;
    default:
      if (code >= 500) {
        s.reason = "InternalError";
        s.message = "an error on the server (\"" + server +
                    "\") has prevented the request from succeeding";
      }
  }
  return s;
}

int ParseRetryAfter(std::string_view header) {
  int seconds = 0;
  auto [end, ec] =
      std::from_chars(header.data(), header.data() + header.size(), seconds);
  if (ec != std::errc() || end != header.data() + header.size()) return 0;
  return seconds > 0 ? seconds : 0;
}

}  // namespace

ApiError ErrorFromResponse(int code, std::string_view verb,
                           std::string_view body,
                           std::string_view retry_after_header) {
  ApiError e;
  auto decoded = api::DecodeJson<api::Status>(body);
  // A Status body is the server's own account, when it is a failure.
  if (decoded.ok() && decoded->status == "Failure") {
    e.status = std::move(*decoded);
    if (e.status.code == 0) e.status.code = code;
  } else {
    e.status = GenericStatus(code, verb, body);
  }
  e.retry_after_seconds = ParseRetryAfter(retry_after_header);
  if (e.retry_after_seconds == 0 && e.status.details) {
    e.retry_after_seconds = std::max(0, e.status.details->retry_after_seconds);
  }
  return e;
}

ApiError ConnectionError(std::string message) {
  ApiError e;
  e.status.status = "Failure";
  e.status.reason = "Unknown";
  e.status.message = std::move(message);
  return e;
}

bool IsNotFound(const ApiError& e) { return e.status.reason == "NotFound"; }
bool IsAlreadyExists(const ApiError& e) {
  return e.status.reason == "AlreadyExists";
}
bool IsConflict(const ApiError& e) { return e.status.reason == "Conflict"; }
bool IsUnauthorized(const ApiError& e) {
  return e.status.reason == "Unauthorized";
}
bool IsForbidden(const ApiError& e) { return e.status.reason == "Forbidden"; }
bool IsGone(const ApiError& e) { return e.status.reason == "Gone"; }
bool IsResourceExpired(const ApiError& e) {
  return e.status.reason == "Expired";
}
bool IsTooManyRequests(const ApiError& e) {
  return e.status.reason == "TooManyRequests" || e.status.code == 429;
}
bool IsInternalError(const ApiError& e) {
  return e.status.reason == "InternalError";
}
bool IsServiceUnavailable(const ApiError& e) {
  return e.status.reason == "ServiceUnavailable";
}
bool IsConnectionError(const ApiError& e) { return e.status.code == 0; }
bool IsConnectionRefused(const ApiError& e) {
  // The transport words a refused connect as Go's net package does.
  return IsConnectionError(e) &&
         e.status.message.find("connection refused") != std::string::npos;
}

bool ShouldRetry(const ApiError& e, bool idempotent) {
  if (IsTooManyRequests(e)) return true;
  if (!idempotent) return false;
  return IsConnectionError(e) || e.status.code >= 500;
}

}  // namespace ksched::client

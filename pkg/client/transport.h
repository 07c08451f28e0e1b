// Transport seam: one HTTP exchange with the API server. The REST client
// (rate limiting, retries, typed errors) sits on top; tests swap in fakes.
#pragma once

#include <memory>
#include <string>

#include "pkg/util/cancellation.h"
#include "pkg/util/result.h"

namespace ksched::client {

struct HttpRequest {
  std::string method = "GET";
  // Path and query, e.g. "/api/v1/pods?limit=500".
  std::string path;
  std::string body;
  std::string content_type;  // with a body
};

struct HttpResponse {
  int code = 0;
  std::string body;
  std::string content_type;
  std::string retry_after;
};

// The body of a response, read as it arrives (a watch stream).
class BodyReader {
 public:
  virtual ~BodyReader() = default;
  // Waits for more of the body and appends what has arrived (at least one
  // byte) to `out`; false at the end of the body. An error when the
  // connection fails, goes quiet past the timeout, or is cancelled.
  virtual util::Result<bool> ReadSome(std::string& out) = 0;
};

// Status line and headers of a response whose body is still coming.
struct StreamedResponse {
  int code = 0;
  std::string content_type;
  std::string retry_after;
  std::unique_ptr<BodyReader> body;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Any HTTP answer is a response; no answer (refused, reset, timed out,
  // TLS failure) is an error saying why.
  virtual util::Result<HttpResponse> RoundTrip(const HttpRequest& request) = 0;
  // Returns once the headers are in; the body is read from the reader.
  // Cancelling `cancel` (which must outlive the reader) ends the exchange
  // at any point, from any thread.
  virtual util::Result<StreamedResponse> Stream(const HttpRequest& request,
                                                util::Cancellation& cancel) = 0;
  // Closes the connections kept open for reuse that no request is using
  // now (as Go's http.Transport.CloseIdleConnections); a request in flight
  // keeps its connection until it ends. Later requests connect again.
  virtual void CloseIdleConnections() {}
};

}  // namespace ksched::client

// Transport seam: one HTTP exchange with the API server. The REST client
// (rate limiting, retries, typed errors) sits on top; tests swap in fakes.
#pragma once

#include <string>

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

class Transport {
 public:
  virtual ~Transport() = default;
  // Any HTTP answer is a response; no answer (refused, reset, timed out,
  // TLS failure) is an error saying why.
  virtual util::Result<HttpResponse> RoundTrip(const HttpRequest& request) = 0;
};

}  // namespace ksched::client

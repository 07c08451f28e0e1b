// One API request and its answer, independent of how they travel (HTTPS
// or the in-process API).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "test/apiserver/query.h"

namespace ksched::testing::apiserver {

class WatchSink;

struct Request {
  std::string method = "GET";
  std::string target;  // path and query as received
  std::string path;    // decoded, without the query
  QueryParams query;
  std::string body;
  std::string content_type;
  std::string user_agent;
  // Indented JSON: curl/Wget user agents and pretty=true, as the real
  // server decides.
  bool pretty = false;
  // The authenticated user the request is made as, whom the checks a
  // registry strategy makes of the authorizer itself ask about; empty for
  // the in-process API, which nothing authorizes (as a system:masters
  // client).
  std::string user;
};

// Splits `target` into the request's path and query and decides `pretty`.
Request MakeRequest(std::string method, std::string target, std::string body,
                    std::string content_type, std::string user_agent);

struct Response {
  int code = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  // A watch: the transport sends the headers (200, chunked), then hands
  // the stream to this, which feeds it until the watch ends.
  std::function<void(std::unique_ptr<WatchSink>)> stream;
};

}  // namespace ksched::testing::apiserver

#include "test/apiserver/request.h"

namespace ksched::testing::apiserver {

Request MakeRequest(std::string method, std::string target, std::string body,
                    std::string content_type, std::string user_agent) {
  Request r;
  r.method = std::move(method);
  r.target = std::move(target);
  const size_t q = r.target.find('?');
  r.path = PercentDecode(r.target.substr(0, q), false);
  r.query = QueryParams(q == std::string::npos
                            ? std::string_view()
                            : std::string_view(r.target).substr(q + 1));
  r.body = std::move(body);
  r.content_type = std::move(content_type);
  r.user_agent = std::move(user_agent);
  if (r.query.Has("pretty")) {
    r.pretty = r.query.GetBool("pretty");
  } else {
    r.pretty = r.user_agent.rfind("curl", 0) == 0 ||
               r.user_agent.rfind("Wget", 0) == 0;
  }
  return r;
}

}  // namespace ksched::testing::apiserver

#include "pkg/http/reply.h"

// boost/asio, under cpprestsdk, uses std::exchange without including
// <utility>.
// clang-format off
#include <utility>
#include <cpprest/http_msg.h>
// clang-format on

namespace ksched::http {

void ReplyAsync(web::http::http_request& request, int code,
                const std::string& body, const std::string& content_type,
                const std::vector<std::pair<std::string, std::string>>& headers,
                std::function<void()> sent) {
  web::http::http_response response(static_cast<web::http::status_code>(code));
  // As bytes: cpprestsdk's std::string overload reads the string through a
  // stream buffer of another character type (undefined behaviour that
  // UBSan reports).
  response.set_body(std::vector<unsigned char>(body.begin(), body.end()));
  response.headers().set_content_type(content_type);
  for (const auto& [name, value] : headers) response.headers().add(name, value);
  try {
    request.reply(response).then([sent](pplx::task<void> done) {
      try {
        done.get();
      } catch (const std::exception&) {
        // The client went away.
      }
      if (sent) sent();
    });
  } catch (const std::exception&) {
    if (sent) sent();
  }
}

}  // namespace ksched::http

#include "pkg/http/reply.h"

#include <stdexcept>

// boost/asio, under cpprestsdk, uses std::exchange without including
// <utility>.
// clang-format off
#include <utility>
#include <cpprest/http_msg.h>
// clang-format on

namespace ksched::http {
namespace {

// A refused body of a declared length up to this is read to its end and
// dropped before the answer goes out, as Go's net/http does for up to
// 256 KiB: a client still sending when the connection closes gets a reset
// and may never read the answer.
constexpr uint64_t kDrainBytes = 256 << 10;

// cpprestsdk sends an answer only once the request's body is all in, and
// goes on reading the body into memory meanwhile, however long it is. So
// an answer given before a longer body was read (a refusal) ends the body,
// which stops the reading, and closes the connection once sent, as the
// rest of the body would otherwise be read as the next request. Whether
// it did.
bool EndUnreadBody(web::http::http_request& request) {
  const auto& arrived = request._get_impl()->_get_data_available();
  if (pplx::create_task(arrived).is_done()) return false;
  const auto& headers = request.headers();
  if (headers.has(web::http::header_names::content_length) &&
      headers.content_length() <= kDrainBytes) {
    return false;
  }
  request._get_impl()->_complete(
      0, std::make_exception_ptr(std::runtime_error("request body not read")));
  return true;
}

}  // namespace

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
  if (EndUnreadBody(request)) response.headers().add("Connection", "close");
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

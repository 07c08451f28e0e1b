// ReplyAsync: answers a cpprestsdk listener request without waiting for the
// answer to go out (waiting would hold one of the library's few pool
// threads), then runs `sent` either way, so a server can count what it has
// in flight. An answer given before the request's body has all arrived
// stops the reading of the body and closes the connection once sent.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace web::http {
class http_request;
}  // namespace web::http

namespace ksched::http {

void ReplyAsync(web::http::http_request& request, int code,
                const std::string& body, const std::string& content_type,
                const std::vector<std::pair<std::string, std::string>>& headers,
                std::function<void()> sent);

}  // namespace ksched::http

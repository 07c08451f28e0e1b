// A blocking HTTPS/1.1 client for the test API server's tests, on OpenSSL
// directly: it shows what a test must check byte for byte (status line,
// headers, chunked framing, a stream cut mid-way) and can stop reading
// to play a slow watcher.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace ksched::testing {

struct HttpResult {
  int code = 0;  // 0: no answer
  std::string reason;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  bool chunked = false;

  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
};

struct RequestOptions {
  std::string method = "GET";
  std::string target;
  std::string body;
  std::string content_type = "application/json";
  std::string token;  // "" sends no Authorization header
  std::string user_agent = "apiserver-test/1.0";
};

class HttpsConnection {
 public:
  // Connects to 127.0.0.1:port and verifies the server against `ca_pem`;
  // connected() says whether that worked.
  HttpsConnection(int port, const std::string& ca_pem);
  ~HttpsConnection();
  HttpsConnection(const HttpsConnection&) = delete;
  HttpsConnection& operator=(const HttpsConnection&) = delete;

  bool connected() const { return ssl_ != nullptr; }

  // One exchange on this (kept-alive) connection.
  HttpResult RoundTrip(
      const RequestOptions& request,
      std::chrono::milliseconds timeout = std::chrono::seconds(20));

  // A streaming exchange: sends the request and reads the status line and
  // headers; the body is then read with ReadLine.
  HttpResult Open(const RequestOptions& request,
                  std::chrono::milliseconds timeout = std::chrono::seconds(20));
  enum class LineStatus { kLine, kEnd, kCut, kTimeout };
  // The next "\n"-terminated line of the chunked body: kEnd after the
  // final chunk, kCut when the connection closed without it.
  LineStatus ReadLine(std::string* line, std::chrono::milliseconds timeout);

 private:
  bool Send(const RequestOptions& request);
  bool ReadHead(HttpResult* result, std::chrono::steady_clock::time_point by);
  // Appends at least one byte to `buffer_`; false on close or deadline.
  bool Fill(std::chrono::steady_clock::time_point by, bool* closed);
  bool ReadChunk(std::string* data, bool* last,
                 std::chrono::steady_clock::time_point by, bool* closed);
  std::optional<std::string> ReadCrlfLine(
      std::chrono::steady_clock::time_point by, bool* closed);

  struct CtxFree {
    void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
  };
  struct SslFree {
    void operator()(SSL* s) const { SSL_free(s); }
  };
  int fd_ = -1;
  std::unique_ptr<SSL_CTX, CtxFree> ctx_;
  std::unique_ptr<SSL, SslFree> ssl_;
  std::string buffer_;   // bytes read, not yet consumed
  std::string pending_;  // decoded body bytes not yet returned as lines
  bool stream_done_ = false;
};

// One request on a fresh connection.
HttpResult Fetch(int port, const std::string& ca_pem,
                 const RequestOptions& request);

}  // namespace ksched::testing

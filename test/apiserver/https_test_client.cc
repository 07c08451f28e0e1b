#include "test/apiserver/https_test_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace ksched::testing {

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

HttpsConnection::HttpsConnection(int port, const std::string& ca_pem) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return;
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  ctx_.reset(SSL_CTX_new(TLS_client_method()));
  BIO* bio = BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size()));
  X509_STORE* store = SSL_CTX_get_cert_store(ctx_.get());
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(store, cert);
    X509_free(cert);
  }
  BIO_free(bio);
  ERR_clear_error();
  SSL_CTX_set_verify(ctx_.get(), SSL_VERIFY_PEER, nullptr);
  std::unique_ptr<SSL, SslFree> ssl(SSL_new(ctx_.get()));
  X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), "127.0.0.1");
  SSL_set_fd(ssl.get(), fd_);
  if (SSL_connect(ssl.get()) != 1) return;
  ssl_ = std::move(ssl);
}

HttpsConnection::~HttpsConnection() {
  ssl_.reset();
  if (fd_ >= 0) ::close(fd_);
}

bool HttpsConnection::Send(const RequestOptions& request) {
  if (ssl_ == nullptr) return false;
  std::string out =
      request.method + " " + request.target +
      " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n";
  if (!request.token.empty()) {
    out += "Authorization: Bearer " + request.token + "\r\n";
  }
  if (!request.user_agent.empty()) {
    out += "User-Agent: " + request.user_agent + "\r\n";
  }
  if (!request.body.empty() || request.method == "POST" ||
      request.method == "PUT" || request.method == "PATCH") {
    out += "Content-Type: " + request.content_type + "\r\n";
    out += "Content-Length: " + std::to_string(request.body.size()) + "\r\n";
  }
  out += "\r\n" + request.body;
  size_t sent = 0;
  while (sent < out.size()) {
    const int n = SSL_write(ssl_.get(), out.data() + sent,
                            static_cast<int>(out.size() - sent));
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

bool HttpsConnection::Fill(std::chrono::steady_clock::time_point by,
                           bool* closed) {
  char buf[16384];
  while (true) {
    if (SSL_pending(ssl_.get()) == 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          by - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
      if (ready <= 0) return false;
    }
    const int n = SSL_read(ssl_.get(), buf, sizeof(buf));
    if (n > 0) {
      buffer_.append(buf, static_cast<size_t>(n));
      return true;
    }
    const int error = SSL_get_error(ssl_.get(), n);
    if (error == SSL_ERROR_WANT_READ) continue;
    *closed = true;
    return false;
  }
}

std::optional<std::string> HttpsConnection::ReadCrlfLine(
    std::chrono::steady_clock::time_point by, bool* closed) {
  while (true) {
    const size_t eol = buffer_.find("\r\n");
    if (eol != std::string::npos) {
      std::string line = buffer_.substr(0, eol);
      buffer_.erase(0, eol + 2);
      return line;
    }
    if (!Fill(by, closed)) return std::nullopt;
  }
}

bool HttpsConnection::ReadHead(HttpResult* result,
                               std::chrono::steady_clock::time_point by) {
  bool closed = false;
  std::optional<std::string> status = ReadCrlfLine(by, &closed);
  if (!status.has_value()) return false;
  // "HTTP/1.1 404 Not Found"
  const size_t sp1 = status->find(' ');
  const size_t sp2 = status->find(' ', sp1 + 1);
  if (sp1 == std::string::npos) return false;
  result->code = std::atoi(status->substr(sp1 + 1, 3).c_str());
  result->reason = sp2 == std::string::npos ? "" : status->substr(sp2 + 1);
  while (true) {
    std::optional<std::string> line = ReadCrlfLine(by, &closed);
    if (!line.has_value()) return false;
    if (line->empty()) break;
    const size_t colon = line->find(':');
    if (colon == std::string::npos) continue;
    std::string value = line->substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    result->headers[Lower(line->substr(0, colon))] = value;
  }
  result->chunked =
      Lower(result->Header("transfer-encoding")).find("chunked") !=
      std::string::npos;
  return true;
}

bool HttpsConnection::ReadChunk(std::string* data, bool* last,
                                std::chrono::steady_clock::time_point by,
                                bool* closed) {
  std::optional<std::string> size_line = ReadCrlfLine(by, closed);
  if (!size_line.has_value()) return false;
  const size_t size = std::stoul(*size_line, nullptr, 16);
  if (size == 0) {
    *last = true;  // the trailer section follows, up to an empty line
    return true;
  }
  while (buffer_.size() < size + 2) {
    if (!Fill(by, closed)) return false;
  }
  data->append(buffer_, 0, size);
  buffer_.erase(0, size + 2);
  *last = false;
  return true;
}

HttpResult HttpsConnection::RoundTrip(const RequestOptions& request,
                                      std::chrono::milliseconds timeout) {
  const auto by = std::chrono::steady_clock::now() + timeout;
  HttpResult result;
  if (!Send(request) || !ReadHead(&result, by)) return HttpResult{};
  bool closed = false;
  if (result.chunked) {
    bool last = false;
    while (!last) {
      if (!ReadChunk(&result.body, &last, by, &closed)) return HttpResult{};
    }
    // Trailer section: an empty line.
    if (!ReadCrlfLine(by, &closed).has_value()) return HttpResult{};
  } else {
    const size_t length = static_cast<size_t>(
        std::atoll(result.Header("content-length").c_str()));
    while (buffer_.size() < length) {
      if (!Fill(by, &closed)) return HttpResult{};
    }
    result.body = buffer_.substr(0, length);
    buffer_.erase(0, length);
  }
  return result;
}

HttpResult HttpsConnection::Open(const RequestOptions& request,
                                 std::chrono::milliseconds timeout) {
  HttpResult result;
  stream_done_ = false;
  pending_.clear();
  if (!Send(request) ||
      !ReadHead(&result, std::chrono::steady_clock::now() + timeout)) {
    return HttpResult{};
  }
  return result;
}

HttpsConnection::LineStatus HttpsConnection::ReadLine(
    std::string* line, std::chrono::milliseconds timeout) {
  const auto by = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const size_t eol = pending_.find('\n');
    if (eol != std::string::npos) {
      *line = pending_.substr(0, eol);
      pending_.erase(0, eol + 1);
      return LineStatus::kLine;
    }
    if (stream_done_) return LineStatus::kEnd;
    bool closed = false;
    bool last = false;
    if (!ReadChunk(&pending_, &last, by, &closed)) {
      return closed ? LineStatus::kCut : LineStatus::kTimeout;
    }
    if (last) {
      stream_done_ = true;
      ReadCrlfLine(by, &closed);
    }
  }
}

HttpResult Fetch(int port, const std::string& ca_pem,
                 const RequestOptions& request) {
  HttpsConnection connection(port, ca_pem);
  return connection.RoundTrip(request);
}

}  // namespace ksched::testing

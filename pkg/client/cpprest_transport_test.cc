#include "pkg/client/cpprest_transport.h"

#include <arpa/inet.h>
#include <cpprest/http_listener.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "pkg/client/testing/loopback.h"
#include "pkg/util/cancellation.h"
#include "pkg/util/clock.h"

namespace ksched::client {
namespace {

namespace http = web::http;
using web::http::experimental::listener::http_listener;

using testing::FreePort;

struct Seen {
  std::string method, path, accept, user_agent, authorization, content_type,
      body;
};

// A plain-HTTP server on loopback that records the last request and
// answers 201 with a fixed body and a Retry-After header.
class RecordingServer {
 public:
  // With `accepted_token`, any other bearer token is answered 401.
  explicit RecordingServer(std::chrono::milliseconds delay = {},
                           std::string accepted_token = "")
      : url_("http://127.0.0.1:" + std::to_string(FreePort())),
        listener_(url_) {
    listener_.support([this, delay, accepted_token](http::http_request req) {
      bool refused = false;
      {
        std::lock_guard lock(mu_);
        ++requests_;
        seen_.method = req.method();
        seen_.path = req.relative_uri().to_string();
        auto get = [&](const char* name) {
          auto it = req.headers().find(name);
          return it == req.headers().end() ? std::string() : it->second;
        };
        seen_.accept = get("Accept");
        seen_.user_agent = get("User-Agent");
        seen_.authorization = get("Authorization");
        seen_.content_type = get("Content-Type");
        std::vector<unsigned char> body = req.extract_vector().get();
        seen_.body.assign(body.begin(), body.end());
        refused = !accepted_token.empty() &&
                  seen_.authorization != "Bearer " + accepted_token;
      }
      if (refused) {
        req.reply(http::http_response(401)).wait();
        return;
      }
      if (delay.count() > 0) std::this_thread::sleep_for(delay);
      http::http_response response(201);
      response.headers().add("Retry-After", "3");
      const std::string body = R"({"kind":"Status"})";
      // As bytes, for the reason given in cpprest_transport.cc.
      response.set_body(std::vector<unsigned char>(body.begin(), body.end()));
      response.headers().set_content_type("application/json");
      req.reply(response).wait();
    });
    listener_.open().wait();
  }
  ~RecordingServer() { listener_.close().wait(); }

  const std::string& url() const { return url_; }
  Seen seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }
  int requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  std::string url_;
  http_listener listener_;
  std::mutex mu_;
  Seen seen_;
  int requests_ = 0;
};

// A plain-HTTP/1.1 server on loopback that keeps connections alive and
// counts them: how many were accepted and how many the client has closed.
// GET /stream answers "helloworld" in two chunks, the second only once the
// test calls SendRestOfStream(); any other request gets "{}".
class KeepAliveServer {
 public:
  KeepAliveServer() {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(listen_fd_, 16);
    thread_ = std::thread([this] { Serve(); });
  }
  ~KeepAliveServer() {
    stop_ = true;
    thread_.join();
    for (const auto& [fd, unused] : pending_) close(fd);
    close(listen_fd_);
  }

  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_);
  }
  void SendRestOfStream() { send_rest_ = true; }
  int accepted() {
    std::lock_guard lock(mu_);
    return accepted_;
  }
  // Waits up to 10 s for the client to have closed `n` connections.
  bool WaitForClosed(int n) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, std::chrono::seconds(10),
                             [&] { return closed_ >= n; });
  }
  int closed() {
    std::lock_guard lock(mu_);
    return closed_;
  }

 private:
  void Serve() {
    // The stream is chunked, as a watch is: a body of known length would
    // be read whole before any of it is handed over.
    static constexpr char kRest[] = "5\r\nworld\r\n0\r\n\r\n";
    std::vector<int> streaming;  // connections owed the stream's rest
    while (!stop_) {
      std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
      for (const auto& [fd, unused] : pending_) fds.push_back({fd, POLLIN, 0});
      poll(fds.data(), fds.size(), 20);
      if (send_rest_) {
        for (int fd : streaming) (void)!write(fd, kRest, sizeof kRest - 1);
        streaming.clear();
      }
      if (fds[0].revents & POLLIN) {
        const int fd = accept(listen_fd_, nullptr, nullptr);
        if (fd >= 0) {
          pending_[fd];
          std::lock_guard lock(mu_);
          ++accepted_;
        }
      }
      for (size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const int fd = fds[i].fd;
        char buf[4096];
        const ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) {
          close(fd);
          pending_.erase(fd);
          std::erase(streaming, fd);
          std::lock_guard lock(mu_);
          ++closed_;
          changed_.notify_all();
          continue;
        }
        std::string& in = pending_[fd];
        in.append(buf, n);
        const size_t end = in.find("\r\n\r\n");
        if (end == std::string::npos) continue;
        const bool stream = in.starts_with("GET /stream ");
        in.erase(0, end + 4);
        const std::string answer =
            stream ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "5\r\nhello\r\n"
                   : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
        (void)!write(fd, answer.data(), answer.size());
        if (stream) streaming.push_back(fd);
      }
    }
  }

  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> send_rest_{false};
  std::map<int, std::string> pending_;  // open connection -> unread input
  std::mutex mu_;
  std::condition_variable changed_;
  int accepted_ = 0;
  int closed_ = 0;
};

std::unique_ptr<CpprestTransport> Connect(const RestConfig& config,
                                          TransportOptions options = {}) {
  auto transport =
      CpprestTransport::Create(config, testing::RealTestClock(), options);
  EXPECT_TRUE(transport.ok()) << transport.error().message();
  return transport.ok() ? std::move(*transport) : nullptr;
}

TEST(CpprestTransportTest, SendsTheRequestAndReadsTheAnswer) {
  RecordingServer server;
  RestConfig config;
  config.server = server.url();
  config.bearer_token = "secret-token";
  auto transport = Connect(config);
  ASSERT_NE(transport, nullptr);
  auto response =
      transport->RoundTrip({.method = "POST",
                            .path = "/api/v1/namespaces/default/pods/p/binding",
                            .body = R"({"kind":"Binding"})"});
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->code, 201);
  EXPECT_EQ(response->body, R"({"kind":"Status"})");
  EXPECT_EQ(response->content_type, "application/json");
  EXPECT_EQ(response->retry_after, "3");

  Seen seen = server.seen();
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.path, "/api/v1/namespaces/default/pods/p/binding");
  EXPECT_EQ(seen.accept, "application/json");
  EXPECT_EQ(seen.user_agent, std::string("ksched/") + KSCHED_VERSION);
  EXPECT_EQ(seen.authorization, "Bearer secret-token");
  EXPECT_EQ(seen.content_type, "application/json");
  EXPECT_EQ(seen.body, R"({"kind":"Binding"})");
}

TEST(CpprestTransportTest, QueryAndMergePatchContentType) {
  RecordingServer server;
  RestConfig config;
  config.server = server.url();
  config.username = "admin";
  config.password = "pw";
  auto transport = Connect(config);
  ASSERT_NE(transport, nullptr);
  auto response = transport->RoundTrip(
      {.method = "PATCH",
       .path = "/api/v1/namespaces/default/pods/p/status?fieldManager=x",
       .body = "{}",
       .content_type = "application/merge-patch+json"});
  ASSERT_TRUE(response.ok()) << response.error().message();
  Seen seen = server.seen();
  EXPECT_EQ(seen.path,
            "/api/v1/namespaces/default/pods/p/status?fieldManager=x");
  EXPECT_EQ(seen.content_type, "application/merge-patch+json");
  // Basic auth when there is no token: "admin:pw".
  EXPECT_EQ(seen.authorization, "Basic YWRtaW46cHc=");
}

TEST(CpprestTransportTest, NoAnswerIsAnError) {
  RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(FreePort());
  auto transport = Connect(config);
  ASSERT_NE(transport, nullptr);
  auto response = transport->RoundTrip({.path = "/api/v1/nodes"});
  ASSERT_FALSE(response.ok());
  // The address and the cause, as kube's clients print them.
  const std::string address =
      config.server.substr(std::string("http://").size());
  EXPECT_EQ(response.error().message(), "GET " + config.server +
                                            "/api/v1/nodes: connect to " +
                                            address + ": connection refused");
}

// A server that accepts the connection and never speaks TLS.
TEST(CpprestTransportTest, SilentServerIsATlsHandshakeTimeout) {
  const int port = FreePort();
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  RestConfig config;
  config.server = "https://127.0.0.1:" + std::to_string(port);
  auto transport = Connect(config, {.timeout = std::chrono::seconds(1)});
  ASSERT_NE(transport, nullptr);
  auto response = transport->RoundTrip({.path = "/api/v1/nodes"});
  ::close(fd);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().message(),
            "GET " + config.server +
                "/api/v1/nodes: TLS handshake with 127.0.0.1:" +
                std::to_string(port) + ": timeout");
}

// A token rotated in its file while the server already refuses the old
// one: the 401 makes the transport read the file again and send the same
// request once more, so the caller sees the answer, not the refusal.
TEST(CpprestTransportTest, RotatedTokenIsReadAgainAndTheRequestResent) {
  RecordingServer server({}, "new-token");
  const std::string token_file = ::testing::TempDir() + "/rotating-token";
  std::ofstream(token_file) << "old-token\n";
  RestConfig config;
  config.server = server.url();
  config.token_file = token_file;
  auto transport = Connect(config);
  ASSERT_NE(transport, nullptr);
  auto first = transport->RoundTrip({.path = "/api/v1/nodes"});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->code, 401);  // the file still holds the old token
  // The file was read again and held the same token: not sent twice.
  EXPECT_EQ(server.requests(), 1);

  // Within the file's recheck interval, so only the 401 makes the
  // transport look at it.
  std::ofstream(token_file) << "new-token\n";
  auto bound =
      transport->RoundTrip({.method = "POST",
                            .path = "/api/v1/namespaces/default/pods/p/binding",
                            .body = "{}"});
  ASSERT_TRUE(bound.ok()) << bound.error().message();
  EXPECT_EQ(bound->code, 201);
  EXPECT_EQ(server.seen().authorization, "Bearer new-token");
  EXPECT_EQ(server.seen().body, "{}");
  EXPECT_EQ(server.requests(), 3);
}

// A server that does not answer in time costs the timeout, not a hang.
TEST(CpprestTransportTest, SlowAnswerTimesOut) {
  RecordingServer server(std::chrono::milliseconds(2500));
  RestConfig config;
  config.server = server.url();
  auto transport = Connect(config, {.timeout = std::chrono::seconds(1)});
  ASSERT_NE(transport, nullptr);
  // The server would answer 201 after 2.5 s: an error means the client
  // gave up first.
  auto response = transport->RoundTrip({.path = "/api/v1/nodes"});
  ASSERT_FALSE(response.ok());
}

std::unique_ptr<CpprestTransport> ConnectTo(const KeepAliveServer& server) {
  RestConfig config;
  config.server = server.url();
  return Connect(config);
}

// Reads from `body` into `got` until it holds `size` bytes.
::testing::AssertionResult ReadUntil(BodyReader& body, std::string& got,
                                     size_t size) {
  while (got.size() < size) {
    auto more = body.ReadSome(got);
    if (!more.ok()) {
      return ::testing::AssertionFailure() << more.error().message();
    }
    if (!*more) {
      return ::testing::AssertionFailure() << "the body ended early: " << got;
    }
  }
  return ::testing::AssertionSuccess();
}

// The connections pooled after requests are closed by
// CloseIdleConnections, and the next request connects again.
TEST(CpprestTransportTest, CloseIdleConnectionsClosesThePooledConnection) {
  KeepAliveServer server;
  auto transport = ConnectTo(server);
  ASSERT_NE(transport, nullptr);
  for (int i = 0; i < 3; ++i) {
    auto response = transport->RoundTrip({.path = "/api/v1/nodes"});
    ASSERT_TRUE(response.ok()) << response.error().message();
    EXPECT_EQ(response->body, "{}");
  }
  // cpprestsdk hands a connection back to its pool after the answer is
  // delivered, so a request sent at once may open a second one.
  const int opened = server.accepted();
  EXPECT_GE(opened, 1);
  EXPECT_EQ(server.closed(), 0);

  transport->CloseIdleConnections();
  EXPECT_TRUE(server.WaitForClosed(opened))
      << server.closed() << " of " << opened << " idle connections closed";

  auto again = transport->RoundTrip({.path = "/api/v1/nodes"});
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(again->body, "{}");
  EXPECT_EQ(server.accepted(), opened + 1);
}

// A body being read (a watch) keeps its connection through
// CloseIdleConnections and is read to its end.
TEST(CpprestTransportTest, CloseIdleConnectionsLeavesAStreamInFlight) {
  KeepAliveServer server;
  auto transport = ConnectTo(server);
  ASSERT_NE(transport, nullptr);
  util::Cancellation cancel;
  auto stream = transport->Stream({.path = "/stream"}, cancel);
  ASSERT_TRUE(stream.ok()) << stream.error().message();
  std::string body;
  ASSERT_TRUE(ReadUntil(*stream->body, body, 5));
  EXPECT_EQ(body, "hello");

  transport->CloseIdleConnections();
  server.SendRestOfStream();
  ASSERT_TRUE(ReadUntil(*stream->body, body, 10));
  EXPECT_EQ(body, "helloworld");
  EXPECT_EQ(server.closed(), 0);
  EXPECT_EQ(server.accepted(), 1);
}

TEST(CpprestTransportTest, ConfigurationsThatCannotWork) {
  auto expect_error = [](const RestConfig& config, const std::string& part) {
    auto t = CpprestTransport::Create(config, testing::RealTestClock(), {});
    ASSERT_FALSE(t.ok()) << part;
    EXPECT_NE(t.error().message().find(part), std::string::npos)
        << t.error().message();
  };
  RestConfig bad_ca;
  bad_ca.server = "https://127.0.0.1:6443";
  bad_ca.ca_pem = "not a certificate";
  expect_error(bad_ca, "TLS credentials");
  RestConfig bad_scheme;
  bad_scheme.server = "ftp://127.0.0.1";
  expect_error(bad_scheme, "scheme must be https or http");
  RestConfig sni;
  sni.server = "https://127.0.0.1:6443";
  sni.tls_server_name = "kubernetes";
  expect_error(sni, "tls-server-name is not supported");
}

}  // namespace
}  // namespace ksched::client

// Its own executable: the test must size cpprestsdk's pool before anything
// in the process starts it, as ksched does.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>

// boost/asio, under cpprestsdk, uses std::exchange without including
// <utility>.
// clang-format off
#include <utility>
#include <cpprest/http_msg.h>
#include <pplx/threadpool.h>
// clang-format on

#include "pkg/client/testing/loopback.h"
#include "pkg/http/listener.h"
#include "pkg/http/reply.h"

namespace ksched::http {
namespace {

// A client that keeps its connection open after an answer, as Prometheus
// does between scrapes.
class KeepAliveClient {
 public:
  explicit KeepAliveClient(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ =
        ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~KeepAliveClient() { ::close(fd_); }
  // The first line of the answer to one GET.
  std::string Get() {
    const std::string request = "GET /metrics HTTP/1.1\r\nHost: k\r\n\r\n";
    if (!connected_ || ::send(fd_, request.data(), request.size(), 0) < 0) {
      return "";
    }
    std::string answer;
    char buf[512];
    while (answer.find("\r\n\r\nok") == std::string::npos) {
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      answer.append(buf, static_cast<size_t>(n));
    }
    return answer.substr(0, answer.find("\r\n"));
  }

 private:
  int fd_;
  bool connected_ = false;
};

TEST(ListenerCloseTest, ClosesWithAKeepAliveConnectionOnAPoolOfOneThread) {
  // ksched's pool (see pkg/client/cpprest_threads.h).
  crossplat::threadpool::initialize_with_threads(1);
  const int port = client::testing::FreePort();
  auto listener = Listener::Create(
      {.bind_address = "127.0.0.1:" + std::to_string(port), .name = "test"});
  ASSERT_TRUE(listener.ok()) << listener.error().message();
  ASSERT_TRUE((*listener)
                  ->Start([](web::http::http_request request,
                             std::function<void()> done) {
                    ReplyAsync(request, 200, "ok", "text/plain", {},
                               std::move(done));
                  })
                  .ok());
  KeepAliveClient client(port);
  ASSERT_EQ(client.Get(), "HTTP/1.1 200 OK");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  // cpprestsdk closes on a pool task that may wait for the open
  // connection; Close must return while the only pool thread does that.
  auto closed = std::async(
      std::launch::async, [&] { (*listener)->Close(std::chrono::seconds(1)); });
  if (closed.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    ADD_FAILURE() << "Close did not return within 20 s";
    std::_Exit(1);  // the closing thread cannot be joined
  }
}

}  // namespace
}  // namespace ksched::http

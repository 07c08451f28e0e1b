// CpprestTransport::Stream against a loopback server that writes a chunked
// body piece by piece, as a watch does: pieces are read as they arrive, the
// end of the body is seen, and a cancelled or silent stream ends the read.
#include <cpprest/http_listener.h>
#include <cpprest/producerconsumerstream.h>
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <optional>

#include "pkg/client/cpprest_transport.h"
#include "pkg/client/testing/loopback.h"

namespace ksched::client {
namespace {

namespace http = web::http;
using Buffer = concurrency::streams::producer_consumer_buffer<uint8_t>;
using web::http::experimental::listener::http_listener;

// Answers every request with 200 and a body the test writes into.
class StreamingServer {
 public:
  StreamingServer()
      : url_("http://127.0.0.1:" + std::to_string(testing::FreePort())),
        listener_(url_) {
    listener_.support([this](http::http_request req) {
      Buffer buffer;
      http::http_response response(200);
      response.headers().set_content_type("application/json");
      response.set_body(buffer.create_istream());
      {
        std::lock_guard lock(mu_);
        body_ = buffer;
      }
      opened_.set_value();
      req.reply(response).wait();
    });
    listener_.open().wait();
  }
  ~StreamingServer() {
    End();
    listener_.close().wait();
  }

  const std::string& url() const { return url_; }
  void WaitOpened() { opened_.get_future().wait(); }
  void Write(const std::string& piece) {
    std::lock_guard lock(mu_);
    body_
        ->putn_nocopy(reinterpret_cast<const uint8_t*>(piece.data()),
                      piece.size())
        .wait();
    body_->sync().wait();
  }
  void End() {
    std::lock_guard lock(mu_);
    if (body_) body_->close(std::ios_base::out).wait();
    body_.reset();
  }

 private:
  std::string url_;
  http_listener listener_;
  std::promise<void> opened_;
  std::mutex mu_;
  std::optional<Buffer> body_;
};

std::unique_ptr<CpprestTransport> ConnectTo(const std::string& url,
                                            std::chrono::seconds timeout) {
  RestConfig config;
  config.server = url;
  auto transport = CpprestTransport::Create(config, testing::RealTestClock(),
                                            {.timeout = timeout});
  EXPECT_TRUE(transport.ok());
  return std::move(*transport);
}

TEST(CpprestStreamTest, ReadsEachPieceAsItArrivesThenTheEnd) {
  StreamingServer server;
  auto transport = ConnectTo(server.url(), std::chrono::seconds(30));
  util::Cancellation cancel;
  auto response = transport->Stream({.path = "/api/v1/pods?watch=1"}, cancel);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->code, 200);
  EXPECT_EQ(response->content_type, "application/json");
  server.WaitOpened();

  // The second piece is written only after the first was read: a reader
  // that waited for more than what arrived would hang here.
  server.Write("{\"type\":\"ADDED\"}\n");
  std::string got;
  while (got.size() < 16) {
    auto more = response->body->ReadSome(got);
    ASSERT_TRUE(more.ok()) << more.error().message();
    ASSERT_TRUE(*more);
  }
  EXPECT_EQ(got, "{\"type\":\"ADDED\"}\n");
  server.Write("{\"type\":\"DELETED\"}\n");
  while (got.size() < 35) {
    auto more = response->body->ReadSome(got);
    ASSERT_TRUE(more.ok()) << more.error().message();
    ASSERT_TRUE(*more);
  }
  EXPECT_EQ(got, "{\"type\":\"ADDED\"}\n{\"type\":\"DELETED\"}\n");

  server.End();
  auto more = response->body->ReadSome(got);
  ASSERT_TRUE(more.ok()) << more.error().message();
  EXPECT_FALSE(*more);
}

TEST(CpprestStreamTest, CancelEndsABlockedRead) {
  StreamingServer server;
  auto transport = ConnectTo(server.url(), std::chrono::seconds(30));
  util::Cancellation cancel;
  auto response = transport->Stream({.path = "/watch"}, cancel);
  ASSERT_TRUE(response.ok()) << response.error().message();
  server.WaitOpened();
  auto read = std::async(std::launch::async, [&] {
    std::string got;
    return response->body->ReadSome(got);
  });
  cancel.Cancel();
  ASSERT_EQ(read.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_FALSE(read.get().ok());
}

TEST(CpprestStreamTest, CancelledBeforeTheRequestFailsAtOnce) {
  StreamingServer server;
  auto transport = ConnectTo(server.url(), std::chrono::seconds(30));
  util::Cancellation cancel;
  cancel.Cancel();
  auto response = transport->Stream({.path = "/watch"}, cancel);
  EXPECT_FALSE(response.ok());
}

TEST(CpprestStreamTest, ASilentStreamTimesOut) {
  StreamingServer server;
  auto transport = ConnectTo(server.url(), std::chrono::seconds(1));
  util::Cancellation cancel;
  auto response = transport->Stream({.path = "/watch"}, cancel);
  ASSERT_TRUE(response.ok()) << response.error().message();
  server.WaitOpened();
  std::string got;
  auto more = response->body->ReadSome(got);
  ASSERT_FALSE(more.ok());
  EXPECT_NE(more.error().message().find("reading the response body"),
            std::string::npos);
}

}  // namespace
}  // namespace ksched::client

#include "test/apiserver/apiserver_test_util.h"

#include <thread>

#include "test/apiserver/test_objects.h"

namespace ksched::testing {

rapidjson::Document ParseJsonOrDie(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  EXPECT_FALSE(doc.HasParseError()) << text.substr(0, 500);
  return doc;
}

std::string PodJson(const std::string& name, const std::string& ns,
                    const std::string& extra_spec, const std::string& labels) {
  return PodJson(PodFixture{
      .name = name, .ns = ns, .labels = labels, .extra_spec = extra_spec});
}

std::string NodeJson(const std::string& name, const std::string& labels) {
  return NodeJson(NodeFixture{.name = name, .labels = labels});
}

std::string BindingJson(const std::string& pod, const std::string& node,
                        const std::string& uid) {
  std::string json =
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + pod +
      R"(","namespace":"default")";
  if (!uid.empty()) json += R"(,"uid":")" + uid + "\"";
  json += R"(},"target":{"apiVersion":"v1","kind":"Node","name":")" + node +
          R"("}})";
  return json;
}

void ApiServerTest::SetUp() { StartServer({}); }

void ApiServerTest::StartServer(const TestApiServerOptions& options) {
  server_.reset();
  server_ = TestApiServer::Start(options);
  ASSERT_NE(server_, nullptr);
}

RequestOptions ApiServerTest::Request(const std::string& method,
                                      const std::string& target,
                                      const std::string& body) const {
  RequestOptions r;
  r.method = method;
  r.target = target;
  r.body = body;
  r.token = server_->token();
  return r;
}

HttpResult ApiServerTest::Call(const std::string& method,
                               const std::string& target,
                               const std::string& body,
                               const std::string& content_type) {
  RequestOptions r = Request(method, target, body);
  r.content_type = content_type;
  return Call(r);
}

HttpResult ApiServerTest::Call(const RequestOptions& request) {
  return Fetch(server_->port(), server_->ca_pem(), request);
}

std::unique_ptr<HttpsConnection> ApiServerTest::OpenWatch(
    const std::string& target) {
  auto watch =
      std::make_unique<HttpsConnection>(server_->port(), server_->ca_pem());
  HttpResult head = watch->Open(Request("GET", target));
  EXPECT_EQ(head.code, 200) << target;
  EXPECT_TRUE(head.chunked);
  return watch;
}

void ApiServerTest::WaitForWatches(int count) {
  const auto by = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (server_->ActiveWatchCount() < count &&
         std::chrono::steady_clock::now() < by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_GE(server_->ActiveWatchCount(), count);
}

std::vector<std::string> ReadEvents(HttpsConnection& watch, size_t count,
                                    std::chrono::milliseconds timeout) {
  std::vector<std::string> lines;
  const auto by = std::chrono::steady_clock::now() + timeout;
  while (lines.size() < count) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        by - std::chrono::steady_clock::now());
    std::string line;
    HttpsConnection::LineStatus status =
        watch.ReadLine(&line, std::max(left, std::chrono::milliseconds(1)));
    if (status != HttpsConnection::LineStatus::kLine) {
      ADD_FAILURE() << "watch ended (" << static_cast<int>(status) << ") after "
                    << lines.size() << " of " << count << " events";
      break;
    }
    lines.push_back(line);
  }
  return lines;
}

std::string EventType(const std::string& line) {
  rapidjson::Document doc = ParseJsonOrDie(line);
  if (!doc.IsObject() || !doc.HasMember("type")) return "";
  return doc["type"].GetString();
}

std::string EventObjectName(const std::string& line) {
  rapidjson::Document doc = ParseJsonOrDie(line);
  const auto& metadata = doc["object"]["metadata"];
  if (!metadata.HasMember("name")) return "";
  return metadata["name"].GetString();
}

}  // namespace ksched::testing

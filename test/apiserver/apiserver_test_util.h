// Shared by the test API server's tests: a fixture that starts a server
// and talks to it over HTTPS, and object builders.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "pkg/util/json.h"
#include "test/apiserver/https_test_client.h"
#include "test/apiserver/test_api_server.h"
#include "test/apiserver/test_objects.h"

namespace ksched::testing {

rapidjson::Document ParseJsonOrDie(const std::string& text);

// {"apiVersion":"v1","kind":"Pod",...} in `ns` requesting 100m CPU, with
// `extra_spec` (JSON members, may be empty) added to its spec.
std::string PodJson(const std::string& name, const std::string& ns = "default",
                    const std::string& extra_spec = "",
                    const std::string& labels = "");
std::string NodeJson(const std::string& name, const std::string& labels = "");
std::string BindingJson(const std::string& pod, const std::string& node,
                        const std::string& uid = "");

class ApiServerTest : public ::testing::Test {
 protected:
  void SetUp() override;
  // Replaces the server (SetUp starts one with default options).
  void StartServer(const TestApiServerOptions& options);

  HttpResult Call(const std::string& method, const std::string& target,
                  const std::string& body = "",
                  const std::string& content_type = "application/json");
  HttpResult Call(const RequestOptions& request);
  RequestOptions Request(const std::string& method, const std::string& target,
                         const std::string& body = "") const;
  // Opens a watch on a new connection; fails the test if it does not
  // answer 200.
  std::unique_ptr<HttpsConnection> OpenWatch(const std::string& target);
  // Waits until the server has registered `count` watches.
  void WaitForWatches(int count);

  std::unique_ptr<TestApiServer> server_;
};

// Reads watch events until one of `type` (or `count` lines); returns the
// lines read. Fails on timeout.
std::vector<std::string> ReadEvents(
    HttpsConnection& watch, size_t count,
    std::chrono::milliseconds timeout = std::chrono::seconds(10));
std::string EventType(const std::string& line);
std::string EventObjectName(const std::string& line);

}  // namespace ksched::testing

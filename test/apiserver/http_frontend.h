// HttpFrontend: the HTTPS listener in front of the registry. It does what
// kube-apiserver's filters do before a request reaches a resource:
// authentication (bearer token), authorization (the RBAC policy and the
// denials a test asked for, worded as RBAC words them), and what tests
// inject (failures, delays); it counts requests, stamps the headers every
// answer carries, and streams watches as chunked bodies.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "test/apiserver/delay_queue.h"
#include "test/apiserver/faults.h"
#include "test/apiserver/ids.h"
#include "test/apiserver/rbac.h"
#include "test/apiserver/registry.h"
#include "test/apiserver/reviews.h"

namespace web::http {
class http_request;
namespace experimental::listener {
class http_listener;
}  // namespace experimental::listener
}  // namespace web::http

namespace ksched::testing::apiserver {

struct FrontendConfig {
  int port = 0;
  std::string cert_pem;
  std::string key_pem;
  std::string token;
  std::string user;  // who the token is, for denial messages
  std::string flowschema_uid;
  std::string prioritylevel_uid;
  size_t max_body_bytes = 3 * 1024 * 1024;  // kube-apiserver's limit
};

class HttpFrontend {
 public:
  // Listens on https://127.0.0.1:<port>; nullptr if it cannot.
  static std::unique_ptr<HttpFrontend> Start(const FrontendConfig& config,
                                             Registry& registry, Faults& faults,
                                             Rbac& rbac, const Reviews& reviews,
                                             IdSource& ids);
  // Stops listening and waits for the requests in flight.
  ~HttpFrontend();

 private:
  HttpFrontend(const FrontendConfig& config, Registry& registry, Faults& faults,
               Rbac& rbac, const Reviews& reviews, IdSource& ids);
  // Counts requests from arrival until their answer is sent (watches:
  // until the stream ends), so that destruction waits for them.
  class InFlight;
  using Guard = std::shared_ptr<InFlight>;
  Guard Enter();
  // Waits (at most `timeout`) until no request is in flight.
  bool WaitIdle(std::chrono::milliseconds timeout);

  void Receive(web::http::http_request request);
  void Process(web::http::http_request request, Request parsed,
               std::string authorization, Guard guard);
  void Reply(web::http::http_request& request, const Response& response,
             bool authenticated, Guard guard);
  // The 403 for a resource request the user may not make, if it is one.
  std::optional<ApiError> Authorize(const Request& request) const;

  const FrontendConfig config_;
  Registry& registry_;
  Faults& faults_;
  Rbac& rbac_;
  const Reviews& reviews_;
  IdSource& ids_;

  // Shared with the guards, which may outlive the front end if the
  // listener never finishes an answer.
  struct Tracker {
    std::mutex mu;
    std::condition_variable idle;
    int in_flight = 0;
  };
  const std::shared_ptr<Tracker> tracker_ = std::make_shared<Tracker>();

  std::unique_ptr<DelayQueue> delays_;
  std::unique_ptr<web::http::experimental::listener::http_listener> listener_;
  bool listening_ = false;  // open() succeeded
};

}  // namespace ksched::testing::apiserver

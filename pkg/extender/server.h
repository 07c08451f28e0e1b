// ExtenderServer: the extender verbs over HTTP(S), on cpprestsdk's
// listener.
//
// The listener's threads are cpprestsdk's small shared pool, which the API
// client needs too; a verb that waited there (bind waits on a Binding POST)
// could starve it. So the listener only reads bodies, asynchronously and up
// to the size limit, and hands each request to this server's own workers,
// which answer it. When every worker is busy and the backlog is full, new
// requests get 503 at once rather than queueing without bound.
//
// Answers:
//   200  the verb's result. filter and bind also answer 200 when a request
//        that decoded cannot be served (unknown node or profile, a plugin
//        error), with the reason in Error: kube-scheduler reports that text,
//        while for any other code it reports only the code.
//   400  a body that does not decode (malformed JSON, wrong types, no Pod)
//        or ended early (the client went away);
//        for prioritize and preempt, which have no Error field, also an
//        unknown node or profile.
//   401  with an authorizer: no bearer token, or one the API server does
//        not authenticate (TokenReview);
//   403  with an authorizer: the user may not (SubjectAccessReview for
//        "post" on the request's path, or for bind "create" on
//        pods/binding of the pod's namespace);
//   404  unknown path, and bind unless it is enabled; 405 a method other
//   than POST; 413 a body over the limit; 500 a plugin failed (prioritize,
//   preempt), or the API server could not answer an access review; 503
//   overloaded or shutting down.
// 401, 403 and their 500 carry kube's Status body, as kube's filters
// answer them.
// Error bodies are {"Error": "..."}; each refused request is logged once.
// A refusal given before the whole body arrived (413, 404, ...) stops the
// reading of the body and closes the connection once it is sent.
//
// What the listener does not bound: cpprestsdk has no read timeout, so a
// client that never finishes its headers or body holds its connection (a
// descriptor and a few KiB) until it goes away; the number of such
// connections is bounded only by the open file limit.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pkg/auth/reviewer.h"
#include "pkg/extender/routes.h"
#include "pkg/extender/service.h"
#include "pkg/util/logger.h"
#include "pkg/util/result.h"

namespace web::http {
class http_request;
}  // namespace web::http

namespace ksched::http {
class Listener;
}  // namespace ksched::http

namespace ksched::auth {
class DelegatingAuthorizer;
}  // namespace ksched::auth

namespace ksched::extender {

struct ServerOptions {
  // HOST:PORT to listen on.
  std::string bind_address = "0.0.0.0:10262";
  RouteTable routes;
  // Enough for the NodeList of a 5,000-node cluster.
  size_t max_body_bytes = 64u << 20;
  // Threads answering verbs, and requests waiting for one.
  int workers = 4;
  size_t backlog = 256;
  // HTTPS when both are set (PEM files); with client_ca_file, clients must
  // present a certificate it signed.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string client_ca_file;
  // bind writes to the cluster: it is served only when asked for; off, its
  // path is a 404 like any unknown one.
  bool bind_enabled = false;
  // Bearer tokens checked by the API server (TokenReview) and each request
  // authorized by it (SubjectAccessReview); every client is served when
  // null.
  auth::DelegatingAuthorizer* authorizer = nullptr;
};

class ExtenderServer {
 public:
  // Errors when the address or the TLS files are unusable, or the port is
  // taken.
  static util::Result<std::unique_ptr<ExtenderServer>> Start(
      ExtenderService& service, const ServerOptions& options,
      util::Logger& log);
  // Stops listening, then answers what was accepted.
  ~ExtenderServer();
  ExtenderServer(const ExtenderServer&) = delete;
  ExtenderServer& operator=(const ExtenderServer&) = delete;

  std::string url() const;

  // Requests answered so far, by HTTP code (for tests and metrics).
  int64_t Answered(int code) const;

  // Per verb ("filter", ...; "" for requests no verb was found for): the
  // answers by HTTP code, and how long requests took from arrival to
  // answer, in kube-scheduler's latency buckets (seconds).
  static constexpr std::array<double, 12> kLatencyBuckets = {
      0.001, 0.002, 0.004, 0.008, 0.016, 0.032,
      0.064, 0.128, 0.256, 0.512, 1.024, 2.048};
  struct VerbStats {
    std::map<int, int64_t> by_code;
    // Answers of 200 that carry an Error (filter could not run, a Binding
    // failed): kube-scheduler reads these as the extender's failure.
    int64_t errors = 0;
    // Cumulative counts per bucket bound, then the total (+Inf).
    std::array<int64_t, kLatencyBuckets.size() + 1> latency_counts{};
    double latency_sum_seconds = 0;
  };
  std::map<std::string, VerbStats> Stats() const;

 private:
  struct Job;
  ExtenderServer(ExtenderService& service, const ServerOptions& options,
                 util::Logger& log);
  void Receive(web::http::http_request request, std::function<void()> done);
  void ReadBody(std::shared_ptr<Job> job);
  void Enqueue(std::shared_ptr<Job> job);
  void WorkerLoop();
  void Answer(Job& job);
  // With an authorizer: whether the request's token may do `attributes`
  // (the user's name in `user`); when not, the refusal is sent.
  bool Authorized(Job& job, const auth::Attributes& attributes,
                  std::string* user);
  using Clock = std::chrono::steady_clock;
  // Sends the answer and records it under `verb` (with the time since
  // `start` when given); `done` runs once it is out.
  void Reply(web::http::http_request& request, std::function<void()> done,
             int code, const std::string& body, const char* verb = "",
             Clock::time_point start = {});
  // Counts an answer of `verb` whose Error field is set.
  void CountError(const char* verb);
  void Refuse(web::http::http_request& request, std::function<void()> done,
              int code, const std::string& what, const std::string& message,
              const char* verb = "", Clock::time_point start = {});

  ExtenderService& service_;
  const ServerOptions options_;
  util::Logger& log_;
  std::unique_ptr<http::Listener> listener_;

  std::mutex mu_;
  std::condition_variable work_cv_;
  std::deque<std::shared_ptr<Job>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;

  static constexpr int kCodes = 600;
  std::unique_ptr<std::atomic<int64_t>[]> answered_;
  mutable std::mutex stats_mu_;
  std::map<std::string, VerbStats> stats_;
};

}  // namespace ksched::extender

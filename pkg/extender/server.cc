#include "pkg/extender/server.h"

#include <optional>
#include <utility>

#include "pkg/auth/delegating_authorizer.h"
#include "pkg/http/listener.h"
#include "pkg/http/reply.h"

// boost/asio, under cpprestsdk, uses std::exchange without including
// <utility>.
// clang-format off
#include <utility>
#include <cpprest/http_listener.h>
// clang-format on

namespace ksched::extender {
namespace {

namespace http = web::http;

constexpr size_t kReadChunk = 64 * 1024;

std::string ErrorBody(const std::string& message) {
  ExtenderBindingResult error{message};  // {"Error": "..."}
  return EncodeBindingResult(error);
}

const char* VerbName(Verb verb) {
  switch (verb) {
    case Verb::kFilter:
      return "filter";
    case Verb::kPrioritize:
      return "prioritize";
    case Verb::kBind:
      return "bind";
    case Verb::kPreempt:
      return "preempt";
  }
  return "?";
}

}  // namespace

struct ExtenderServer::Job {
  http::http_request request;
  std::function<void()> done;
  std::chrono::steady_clock::time_point start;
  Route route;
  std::string body;
  std::vector<uint8_t> chunk;
};

util::Result<std::unique_ptr<ExtenderServer>> ExtenderServer::Start(
    ExtenderService& service, const ServerOptions& options, util::Logger& log) {
  auto listener = ksched::http::Listener::Create({
      .bind_address = options.bind_address,
      .tls_cert_file = options.tls_cert_file,
      .tls_key_file = options.tls_key_file,
      .client_ca_file = options.client_ca_file,
      .name = "extender",
      .half_tls_error =
          "extender TLS needs both a certificate and a private key file",
      .listen_error = "extender cannot listen on",
  });
  if (!listener.ok()) return listener.error();
  std::unique_ptr<ExtenderServer> server(
      new ExtenderServer(service, options, log));
  server->listener_ = std::move(*listener);
  ExtenderServer* s = server.get();
  auto started = server->listener_->Start(
      [s](http::http_request request, std::function<void()> done) {
        s->Receive(std::move(request), std::move(done));
      });
  if (!started.ok()) return started.error();
  return server;
}

ExtenderServer::ExtenderServer(ExtenderService& service,
                               const ServerOptions& options, util::Logger& log)
    : service_(service),
      options_(options),
      log_(log),
      answered_(new std::atomic<int64_t>[kCodes]) {
  for (int i = 0; i < kCodes; ++i) answered_[i] = 0;
  for (int i = 0; i < std::max(1, options.workers); ++i) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
}

ExtenderServer::~ExtenderServer() {
  // New requests get 503 from here on; those accepted are answered (by the
  // workers, which finish the queue) before the listener closes.
  auto stop_workers = [this] {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : workers_) t.join();
  };
  if (listener_ != nullptr) {
    listener_->Close(std::chrono::seconds(10), stop_workers);
  } else {
    stop_workers();
  }
}

std::string ExtenderServer::url() const { return listener_->url(); }

int64_t ExtenderServer::Answered(int code) const {
  return code >= 0 && code < kCodes ? answered_[code].load() : 0;
}

void ExtenderServer::Receive(http::http_request request,
                             std::function<void()> done) {
  if (listener_->closing()) {
    Reply(request, std::move(done), 503, ErrorBody("ksched is shutting down"));
    return;
  }
  const std::string path = request.relative_uri().path();
  if (request.method() != http::methods::POST) {
    Refuse(request, std::move(done), 405, request.method() + " " + path,
           "method not allowed: the extender verbs take POST");
    return;
  }
  auto route = ResolveRoute(
      path, options_.routes,
      [this](const std::string& p) { return service_.HasProfile(p); });
  if (!route.has_value() ||
      (route->verb == Verb::kBind && !options_.bind_enabled)) {
    Refuse(request, std::move(done), 404, "POST " + path,
           "no extender verb at " + path);
    return;
  }
  if (request.headers().content_length() > options_.max_body_bytes) {
    Refuse(request, std::move(done), 413, "POST " + path,
           "body over " + std::to_string(options_.max_body_bytes) + " bytes");
    return;
  }
  auto job = std::make_shared<Job>();
  job->start = Clock::now();
  job->request = std::move(request);
  job->done = std::move(done);
  job->route = std::move(*route);
  job->chunk.resize(kReadChunk);
  ReadBody(std::move(job));
}

void ExtenderServer::ReadBody(std::shared_ptr<Job> job) {
  // Asynchronous: a slow sender holds no thread.
  auto buffer = job->request.body().streambuf();
  buffer.getn(job->chunk.data(), job->chunk.size())
      .then([this, job](pplx::task<size_t> read) {
        size_t n = 0;
        try {
          n = read.get();
        } catch (const std::exception& e) {
          // The body ended early (the client went away): the answer,
          // though nobody may read it, has cpprestsdk let go of the
          // connection.
          Refuse(job->request, job->done, 400,
                 std::string("POST ") + VerbName(job->route.verb),
                 std::string("request body: ") + e.what(),
                 VerbName(job->route.verb), job->start);
          return;
        }
        if (n == 0) {
          Enqueue(job);
          return;
        }
        job->body.append(reinterpret_cast<const char*>(job->chunk.data()), n);
        if (job->body.size() > options_.max_body_bytes) {
          Refuse(
              job->request, job->done, 413,
              std::string("POST ") + VerbName(job->route.verb),
              "body over " + std::to_string(options_.max_body_bytes) + " bytes",
              VerbName(job->route.verb), job->start);
          return;
        }
        ReadBody(job);
      });
}

void ExtenderServer::Enqueue(std::shared_ptr<Job> job) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_ && jobs_.size() < options_.backlog) {
      jobs_.push_back(std::move(job));
      work_cv_.notify_one();
      return;
    }
  }
  Refuse(job->request, job->done, 503,
         std::string("POST ") + VerbName(job->route.verb),
         "ksched's extender is overloaded; try again",
         VerbName(job->route.verb), job->start);
}

void ExtenderServer::WorkerLoop() {
  while (true) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mu_);
      work_cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and nothing left
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    Answer(*job);
  }
}

bool ExtenderServer::Authorized(Job& job, const auth::Attributes& attributes,
                                std::string* user) {
  if (options_.authorizer == nullptr) return true;
  auto header = job.request.headers().find("Authorization");
  const auth::Decision decision = options_.authorizer->Check(
      header == job.request.headers().end() ? "" : header->second, attributes);
  *user = decision.user;
  if (decision.allowed()) return true;
  const char* verb = VerbName(job.route.verb);
  log_.Warning(std::string("extender POST ") + verb + ": " +
               std::to_string(decision.code) + " " + decision.message);
  Reply(job.request, job.done, decision.code, auth::StatusBody(decision), verb,
        job.start);
  return false;
}

void ExtenderServer::Answer(Job& job) {
  const std::string what = std::string("POST ") + VerbName(job.route.verb);
  const std::string& profile = job.route.profile;
  const char* verb = VerbName(job.route.verb);
  // Who may: the verbs as their path ("post"), and bind as
  // kube-scheduler's own right to bind, create pods/binding, once the body
  // says which pod (a body that does not decode is asked as its path).
  auth::Attributes attributes{.verb = "post",
                              .path = job.request.relative_uri().path()};
  std::optional<util::Result<ExtenderBindingArgs>> bind_args;
  if (job.route.verb == Verb::kBind) {
    bind_args = DecodeBindingArgs(job.body);
    if (bind_args->ok()) {
      attributes = {.verb = "create",
                    .resource_request = true,
                    .ns = (*bind_args)->pod_namespace,
                    .resource = "pods",
                    .subresource = "binding",
                    .name = (*bind_args)->pod_name};
    }
  }
  std::string user;
  if (!Authorized(job, attributes, &user)) return;
  // filter and bind carry failures in Error (200); the others in the code.
  auto filter_error = [&](const std::string& message) {
    ExtenderFilterResult result;
    result.error = message;
    log_.Warning("extender " + what + ": " + message);
    CountError(verb);
    Reply(job.request, job.done, 200, EncodeFilterResult(result), verb,
          job.start);
  };
  auto verb_error = [&](const VerbError& e) {
    Refuse(job.request, job.done,
           e.kind == VerbError::Kind::kBadRequest ? 400 : 500, what, e.message,
           verb, job.start);
  };
  switch (job.route.verb) {
    case Verb::kFilter: {
      auto args = DecodeExtenderArgs(job.body);
      if (!args.ok())
        return Refuse(job.request, job.done, 400, what, args.error().message(),
                      verb, job.start);
      auto result = service_.Filter(profile, *args);
      if (auto* e = std::get_if<VerbError>(&result))
        return filter_error(e->message);
      return Reply(job.request, job.done, 200,
                   EncodeFilterResult(std::get<ExtenderFilterResult>(result)),
                   verb, job.start);
    }
    case Verb::kPrioritize: {
      auto args = DecodeExtenderArgs(job.body);
      if (!args.ok())
        return Refuse(job.request, job.done, 400, what, args.error().message(),
                      verb, job.start);
      auto result = service_.Prioritize(profile, *args);
      if (auto* e = std::get_if<VerbError>(&result)) return verb_error(*e);
      return Reply(
          job.request, job.done, 200,
          EncodeHostPriorityList(std::get<std::vector<HostPriority>>(result)),
          verb, job.start);
    }
    case Verb::kBind: {
      const util::Result<ExtenderBindingArgs>& args = *bind_args;
      if (!args.ok())
        return Refuse(job.request, job.done, 400, what, args.error().message(),
                      verb, job.start);
      ExtenderBindingResult result = service_.Bind(profile, *args);
      const std::string pod = args->pod_namespace + "/" + args->pod_name;
      const std::string by = user.empty() ? "" : " user=\"" + user + "\"";
      if (result.error.empty()) {
        // As the scheduling loop logs an outcome.
        log_.Info(2, "Successfully bound pod to node pod=\"" + pod +
                         "\" node=\"" + args->node + "\" profile=\"" + profile +
                         "\" source=\"extender\"" + by);
      } else {
        log_.Warning("extender " + what + " " + pod + " to " + args->node +
                     ": " + result.error + by);
        CountError(verb);
      }
      return Reply(job.request, job.done, 200, EncodeBindingResult(result),
                   verb, job.start);
    }
    case Verb::kPreempt: {
      auto args = DecodePreemptionArgs(job.body);
      if (!args.ok())
        return Refuse(job.request, job.done, 400, what, args.error().message(),
                      verb, job.start);
      auto result = service_.Preempt(profile, *args);
      if (auto* e = std::get_if<VerbError>(&result)) return verb_error(*e);
      return Reply(
          job.request, job.done, 200,
          EncodePreemptionResult(std::get<ExtenderPreemptionResult>(result)),
          verb, job.start);
    }
  }
}

void ExtenderServer::Refuse(http::http_request& request,
                            std::function<void()> done, int code,
                            const std::string& what, const std::string& message,
                            const char* verb, Clock::time_point start) {
  log_.Warning("extender " + what + ": " + std::to_string(code) + " " +
               message);
  Reply(request, std::move(done), code, ErrorBody(message), verb, start);
}

void ExtenderServer::CountError(const char* verb) {
  std::lock_guard lock(stats_mu_);
  ++stats_[verb].errors;
}

std::map<std::string, ExtenderServer::VerbStats> ExtenderServer::Stats() const {
  std::lock_guard lock(stats_mu_);
  return stats_;
}

void ExtenderServer::Reply(http::http_request& request,
                           std::function<void()> done, int code,
                           const std::string& body, const char* verb,
                           Clock::time_point start) {
  if (code >= 0 && code < kCodes) ++answered_[code];
  {
    std::lock_guard lock(stats_mu_);
    VerbStats& stats = stats_[verb];
    ++stats.by_code[code];
    if (start != Clock::time_point{}) {
      const double seconds =
          std::chrono::duration<double>(Clock::now() - start).count();
      stats.latency_sum_seconds += seconds;
      for (size_t i = 0; i < kLatencyBuckets.size(); ++i) {
        if (seconds <= kLatencyBuckets[i]) ++stats.latency_counts[i];
      }
      ++stats.latency_counts.back();
    }
  }
  std::vector<std::pair<std::string, std::string>> headers;
  if (code == 405) headers.emplace_back("Allow", "POST");
  ksched::http::ReplyAsync(request, code, body, "application/json", headers,
                           std::move(done));
}

}  // namespace ksched::extender

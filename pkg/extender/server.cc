#include "pkg/extender/server.h"

#include <fstream>
#include <utility>

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
namespace ssl = boost::asio::ssl;

constexpr size_t kReadChunk = 64 * 1024;

std::string ErrorBody(const std::string& message) {
  ExtenderBindingResult error{message};  // {"Error": "..."}
  return EncodeBindingResult(error);
}

bool Readable(const std::string& path) {
  std::ifstream in(path);
  return static_cast<bool>(in);
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
  std::chrono::steady_clock::time_point start;
  Route route;
  std::string body;
  std::vector<uint8_t> chunk;
};

util::Result<std::unique_ptr<ExtenderServer>> ExtenderServer::Start(
    ExtenderService& service, const ServerOptions& options, util::Logger& log) {
  const size_t colon = options.bind_address.rfind(':');
  if (colon == std::string::npos || colon + 1 == options.bind_address.size()) {
    return util::Error("extender bind address \"" + options.bind_address +
                       "\": expected HOST:PORT");
  }
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return util::Error(
        "extender TLS needs both a certificate and a private key file");
  }
  for (const std::string* file : {&options.tls_cert_file, &options.tls_key_file,
                                  &options.client_ca_file}) {
    if (!file->empty() && !Readable(*file)) {
      return util::Error("cannot read " + *file);
    }
  }
  if (!options.client_ca_file.empty() && options.tls_cert_file.empty()) {
    return util::Error("a client CA needs the extender to serve HTTPS");
  }
  std::unique_ptr<ExtenderServer> server(
      new ExtenderServer(service, options, log));
  try {
    server->listener_->open().wait();
  } catch (const std::exception& e) {
    return util::Error("extender cannot listen on " + options.bind_address +
                       ": " + e.what());
  }
  return server;
}

ExtenderServer::ExtenderServer(ExtenderService& service,
                               const ServerOptions& options, util::Logger& log)
    : service_(service),
      options_(options),
      log_(log),
      answered_(new std::atomic<int64_t>[kCodes]) {
  for (int i = 0; i < kCodes; ++i) answered_[i] = 0;
  const bool tls = !options.tls_cert_file.empty();
  url_ = std::string(tls ? "https" : "http") + "://" + options.bind_address;
  http::experimental::listener::http_listener_config config;
  if (tls) {
    const std::string cert = options.tls_cert_file;
    const std::string key = options.tls_key_file;
    const std::string ca = options.client_ca_file;
    config.set_ssl_context_callback([cert, key, ca](ssl::context& ctx) {
      ctx.set_options(ssl::context::default_workarounds |
                      ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                      ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
      ctx.use_certificate_chain_file(cert);
      ctx.use_private_key_file(key, ssl::context::pem);
      if (!ca.empty()) {
        ctx.load_verify_file(ca);
        ctx.set_verify_mode(ssl::verify_peer |
                            ssl::verify_fail_if_no_peer_cert);
      }
    });
  }
  listener_ = std::make_unique<http::experimental::listener::http_listener>(
      url_, config);
  listener_->support(
      [this](http::http_request request) { Receive(std::move(request)); });
  for (int i = 0; i < std::max(1, options.workers); ++i) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
}

ExtenderServer::~ExtenderServer() {
  // New requests get 503 from here on; those accepted are answered before
  // the listener closes, because cpprestsdk's close() tears down sockets
  // whose handlers may still be running.
  closing_ = true;
  WaitIdle(std::chrono::seconds(10));
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  try {
    listener_->close().wait();
  } catch (const std::exception&) {
  }
  WaitIdle(std::chrono::seconds(5));
}

bool ExtenderServer::WaitIdle(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (in_flight_.load() > 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

int64_t ExtenderServer::Answered(int code) const {
  return code >= 0 && code < kCodes ? answered_[code].load() : 0;
}

void ExtenderServer::Receive(http::http_request request) {
  ++in_flight_;
  if (closing_) {
    Reply(request, 503, ErrorBody("ksched is shutting down"));
    return;
  }
  const std::string path = request.relative_uri().path();
  if (request.method() != http::methods::POST) {
    Refuse(request, 405, request.method() + " " + path,
           "method not allowed: the extender verbs take POST");
    return;
  }
  auto route = ResolveRoute(
      path, options_.routes,
      [this](const std::string& p) { return service_.HasProfile(p); });
  if (!route.has_value()) {
    Refuse(request, 404, "POST " + path, "no extender verb at " + path);
    return;
  }
  if (request.headers().content_length() > options_.max_body_bytes) {
    Refuse(request, 413, "POST " + path,
           "body over " + std::to_string(options_.max_body_bytes) + " bytes");
    return;
  }
  auto job = std::make_shared<Job>();
  job->start = Clock::now();
  job->request = std::move(request);
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
        } catch (const std::exception&) {
          --in_flight_;  // the connection broke; nobody to answer
          return;
        }
        if (n == 0) {
          Enqueue(job);
          return;
        }
        job->body.append(reinterpret_cast<const char*>(job->chunk.data()), n);
        if (job->body.size() > options_.max_body_bytes) {
          Refuse(
              job->request, 413,
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
  Refuse(job->request, 503, std::string("POST ") + VerbName(job->route.verb),
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

void ExtenderServer::Answer(Job& job) {
  const std::string what = std::string("POST ") + VerbName(job.route.verb);
  const std::string& profile = job.route.profile;
  const char* verb = VerbName(job.route.verb);
  // filter and bind carry failures in Error (200); the others in the code.
  auto filter_error = [&](const std::string& message) {
    ExtenderFilterResult result;
    result.error = message;
    log_.Warning("extender " + what + ": " + message);
    Reply(job.request, 200, EncodeFilterResult(result), verb, job.start);
  };
  auto verb_error = [&](const VerbError& e) {
    Refuse(job.request, e.kind == VerbError::Kind::kBadRequest ? 400 : 500,
           what, e.message, verb, job.start);
  };
  switch (job.route.verb) {
    case Verb::kFilter: {
      auto args = DecodeExtenderArgs(job.body);
      if (!args.ok())
        return Refuse(job.request, 400, what, args.error().message(), verb,
                      job.start);
      auto result = service_.Filter(profile, *args);
      if (auto* e = std::get_if<VerbError>(&result))
        return filter_error(e->message);
      return Reply(job.request, 200,
                   EncodeFilterResult(std::get<ExtenderFilterResult>(result)),
                   verb, job.start);
    }
    case Verb::kPrioritize: {
      auto args = DecodeExtenderArgs(job.body);
      if (!args.ok())
        return Refuse(job.request, 400, what, args.error().message(), verb,
                      job.start);
      auto result = service_.Prioritize(profile, *args);
      if (auto* e = std::get_if<VerbError>(&result)) return verb_error(*e);
      return Reply(
          job.request, 200,
          EncodeHostPriorityList(std::get<std::vector<HostPriority>>(result)),
          verb, job.start);
    }
    case Verb::kBind: {
      auto args = DecodeBindingArgs(job.body);
      if (!args.ok())
        return Refuse(job.request, 400, what, args.error().message(), verb,
                      job.start);
      ExtenderBindingResult result = service_.Bind(*args);
      if (!result.error.empty()) {
        log_.Warning("extender " + what + " " + args->pod_namespace + "/" +
                     args->pod_name + " to " + args->node + ": " +
                     result.error);
      }
      return Reply(job.request, 200, EncodeBindingResult(result), verb,
                   job.start);
    }
    case Verb::kPreempt: {
      auto args = DecodePreemptionArgs(job.body);
      if (!args.ok())
        return Refuse(job.request, 400, what, args.error().message(), verb,
                      job.start);
      auto result = service_.Preempt(profile, *args);
      if (auto* e = std::get_if<VerbError>(&result)) return verb_error(*e);
      return Reply(
          job.request, 200,
          EncodePreemptionResult(std::get<ExtenderPreemptionResult>(result)),
          verb, job.start);
    }
  }
}

void ExtenderServer::Refuse(http::http_request& request, int code,
                            const std::string& what, const std::string& message,
                            const char* verb, Clock::time_point start) {
  log_.Warning("extender " + what + ": " + std::to_string(code) + " " +
               message);
  Reply(request, code, ErrorBody(message), verb, start);
}

std::map<std::string, ExtenderServer::VerbStats> ExtenderServer::Stats() const {
  std::lock_guard lock(stats_mu_);
  return stats_;
}

void ExtenderServer::Reply(http::http_request& request, int code,
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
                           [this] { --in_flight_; });
}

}  // namespace ksched::extender

#include "test/apiserver/http_frontend.h"

#include <cpprest/http_listener.h>
#include <cpprest/producerconsumerstream.h>
#include <dirent.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <thread>

#include "test/apiserver/resources.h"
#include "test/apiserver/watch_hub.h"

namespace ksched::testing::apiserver {

namespace http = web::http;
namespace ssl = boost::asio::ssl;
using Buffer = concurrency::streams::producer_consumer_buffer<uint8_t>;

namespace {

// Go's HTTP server sends bodies longer than this chunked.
constexpr size_t kChunkedAbove = 2048;

// A watch stream: a chunked body the listener sends as it is written.
class BufferSink : public WatchSink {
 public:
  // `sent` turns true once the listener has finished with the response:
  // after the final chunk, or when the connection failed.
  BufferSink(Buffer buffer, std::shared_ptr<std::atomic<bool>> sent)
      : buffer_(std::move(buffer)), sent_(std::move(sent)) {}
  ~BufferSink() override { Close(false); }

  std::optional<size_t> Write(const std::string& bytes) override {
    // The listener reads no more once the connection is gone; it says so
    // only by finishing the response (with an error).
    if (closed_ || *sent_) return std::nullopt;
    try {
      buffer_
          .putn_nocopy(reinterpret_cast<const uint8_t*>(bytes.data()),
                       bytes.size())
          .wait();
      buffer_.sync().wait();
    } catch (const std::exception&) {
      return std::nullopt;
    }
    return buffer_.in_avail();
  }

  void Close(bool abrupt) override {
    if (closed_) return;
    closed_ = true;
    try {
      if (abrupt) {
        // A stream ending in an error: the listener drops the connection
        // without the final chunk.
        buffer_
            .close(std::ios_base::out,
                   std::make_exception_ptr(std::runtime_error("watch cut")))
            .wait();
      } else {
        buffer_.close(std::ios_base::out).wait();
      }
    } catch (const std::exception&) {
    }
  }

 private:
  Buffer buffer_;
  std::shared_ptr<std::atomic<bool>> sent_;
  bool closed_ = false;
};

// Runs `done` when the reply has been sent or has failed.
void WhenSent(pplx::task<void> task, std::function<void()> done) {
  task.then([done = std::move(done)](pplx::task<void> t) {
    try {
      t.get();
    } catch (const std::exception&) {
      // The peer went away; nothing to answer.
    }
    if (done) done();
  });
}

std::string Header(const http::http_request& request, const char* name) {
  auto it = request.headers().find(name);
  return it == request.headers().end() ? "" : it->second;
}

// What an injected failure answers for this request.
ApiError InjectedError(const FaultRule& rule, const ApiPath& path) {
  const bool object =
      path.endpoint == Endpoint::kResource && !path.name.empty();
  switch (rule.code) {
    case 429:
      return TooManyRequests(rule.retry_after_seconds);
    case 409:
      if (object) {
        const ResourceInfo& r = *path.resource;
        return path.subresource == "binding"
                   ? Conflict("", "pods/binding", path.name,
                              "the object has been modified; please apply "
                              "your changes to the latest version and try "
                              "again")
                   : ConflictModified(r, path.name);
      }
      break;
    case 404:
      if (object) return NotFound(*path.resource, path.name);
      return RouteNotFound();
    case 503: {
      ApiError e = FromCode(503,
                            "the server is currently unable to handle "
                            "the request");
      e.retry_after_seconds = rule.retry_after_seconds;
      return e;
    }
    case 504:
      return FromCode(504,
                      "the server was unable to return a response in "
                      "the time allotted, but may still be processing "
                      "the request");
    default:
      break;
  }
  ApiError e = FromCode(rule.code, "injected fault");
  if (rule.retry_after_seconds > 0) {
    e.retry_after_seconds = rule.retry_after_seconds;
  }
  return e;
}

// This process's socket listening on 127.0.0.1:`port`, or -1.
int ListeningSocket(int port) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int found = -1;
  while (dirent* entry = readdir(dir)) {
    const int fd = std::atoi(entry->d_name);
    if (fd <= 2 || fd == dirfd(dir)) continue;
    int listening = 0;
    socklen_t len = sizeof(listening);
    sockaddr_in addr{};
    socklen_t addr_len = sizeof(addr);
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 &&
        listening != 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &addr_len) == 0 &&
        addr.sin_family == AF_INET && ntohs(addr.sin_port) == port) {
      found = fd;
      break;
    }
  }
  closedir(dir);
  return found;
}

// Lets no new connection in before the listener closes: cpprestsdk's
// acceptor hands a connection accepted as it closes to a handler that
// runs after the listener is gone (a use after free). A filter dropping
// every packet keeps new handshakes out (clients retransmit their SYN and
// meet whatever listens then); the connections already queued are
// accepted, and their handlers run, before it closes.
void QuiesceAcceptor(int port) {
  const int fd = ListeningSocket(port);
  if (fd < 0) return;
  sock_filter drop_all[] = {{BPF_RET | BPF_K, 0, 0, 0}};
  sock_fprog program{.len = 1, .filter = drop_all};
  if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof(program)) !=
      0) {
    return;
  }
  // For a listener, tcpi_unacked is the accept queue's length.
  for (int i = 0; i < 200; ++i) {
    tcp_info info{};
    socklen_t len = sizeof(info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0 ||
        info.tcpi_unacked == 0) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

Response ErrorAnswer(const ApiError& error, bool pretty) {
  Response r{.code = error.code, .body = StatusJson(error, pretty)};
  if (error.retry_after_seconds > 0) {
    r.headers.emplace_back("Retry-After",
                           std::to_string(error.retry_after_seconds));
  }
  return r;
}

}  // namespace

class HttpFrontend::InFlight {
 public:
  explicit InFlight(std::shared_ptr<Tracker> tracker)
      : tracker_(std::move(tracker)) {
    std::lock_guard<std::mutex> lock(tracker_->mu);
    ++tracker_->in_flight;
  }
  ~InFlight() {
    std::lock_guard<std::mutex> lock(tracker_->mu);
    if (--tracker_->in_flight == 0) tracker_->idle.notify_all();
  }

 private:
  std::shared_ptr<Tracker> tracker_;
};

HttpFrontend::Guard HttpFrontend::Enter() {
  return std::make_shared<InFlight>(tracker_);
}

std::unique_ptr<HttpFrontend> HttpFrontend::Start(const FrontendConfig& config,
                                                  Registry& registry,
                                                  Faults& faults, Rbac& rbac,
                                                  const Reviews& reviews,
                                                  IdSource& ids) {
  std::unique_ptr<HttpFrontend> frontend(
      new HttpFrontend(config, registry, faults, rbac, reviews, ids));
  try {
    frontend->listener_->open().wait();
    frontend->listening_ = true;
  } catch (const std::exception&) {
    return nullptr;
  }
  return frontend;
}

HttpFrontend::HttpFrontend(const FrontendConfig& config, Registry& registry,
                           Faults& faults, Rbac& rbac, const Reviews& reviews,
                           IdSource& ids)
    : config_(config),
      registry_(registry),
      faults_(faults),
      rbac_(rbac),
      reviews_(reviews),
      ids_(ids),
      delays_(std::make_unique<DelayQueue>()) {
  http::experimental::listener::http_listener_config listener_config;
  const std::string cert = config.cert_pem;
  const std::string key = config.key_pem;
  listener_config.set_ssl_context_callback([cert, key](ssl::context& ctx) {
    ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                    ssl::context::no_sslv3);
    ctx.use_certificate_chain(boost::asio::buffer(cert));
    ctx.use_private_key(boost::asio::buffer(key), ssl::context::pem);
  });
  listener_ = std::make_unique<http::experimental::listener::http_listener>(
      "https://127.0.0.1:" + std::to_string(config.port), listener_config);
  listener_->support(
      [this](http::http_request request) { Receive(std::move(request)); });
}

HttpFrontend::~HttpFrontend() {
  delays_.reset();  // answers what was waiting, now
  // cpprestsdk's listener closes its connections' sockets from the closing
  // thread while their own handlers may be running on its pool: closing
  // only once every answer has gone out, and the listener has had a moment
  // to finish with those connections, keeps the two apart.
  if (listening_) QuiesceAcceptor(config_.port);
  WaitIdle(std::chrono::seconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  try {
    listener_->close().wait();
  } catch (const std::exception&) {
  }
  // Handlers still running use the registry; they finish quickly.
  WaitIdle(std::chrono::seconds(10));
}

bool HttpFrontend::WaitIdle(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(tracker_->mu);
  return tracker_->idle.wait_for(lock, timeout,
                                 [this] { return tracker_->in_flight == 0; });
}

void HttpFrontend::Receive(http::http_request request) {
  Guard guard = Enter();
  const std::string method = request.method();
  const std::string target = request.relative_uri().to_string();
  faults_.Record(method, target);
  const std::string content_type = Header(request, "Content-Type");
  const std::string user_agent = Header(request, "User-Agent");
  const std::string authorization = Header(request, "Authorization");
  const size_t max_body = config_.max_body_bytes;
  if (request.headers().content_length() > max_body) {
    Reply(request, ErrorAnswer(RequestEntityTooLarge(max_body), false), true,
          guard);
    return;
  }
  request.extract_vector().then(
      [this, request, guard, method, target, content_type, user_agent,
       authorization,
       max_body](pplx::task<std::vector<unsigned char>> body_task) mutable {
        std::vector<unsigned char> body;
        try {
          body = body_task.get();
        } catch (const std::exception&) {
          return;  // the connection broke while sending the body
        }
        if (body.size() > max_body) {
          Reply(request, ErrorAnswer(RequestEntityTooLarge(max_body), false),
                true, guard);
          return;
        }
        Request parsed =
            MakeRequest(method, target, std::string(body.begin(), body.end()),
                        content_type, user_agent);
        if (const auto until = faults_.Hanging()) {
          // Held unanswered, then timed out, never processed: an API server
          // whose storage is gone.
          faults_.CountHung();
          const auto wait =
              std::chrono::duration_cast<std::chrono::milliseconds>(
                  *until - std::chrono::steady_clock::now());
          delays_->RunAfter(std::max(wait, std::chrono::milliseconds(0)),
                            [this, request, guard]() mutable {
                              Reply(request,
                                    ErrorAnswer(GatewayTimeout(), false), true,
                                    guard);
                            });
          return;
        }
        const std::chrono::milliseconds delay = faults_.DelayFor(target);
        if (delay.count() > 0) {
          faults_.CountDelayed();
          delays_->RunAfter(delay,
                            [this, request, guard, parsed = std::move(parsed),
                             authorization]() mutable {
                              Process(std::move(request), std::move(parsed),
                                      authorization, guard);
                            });
          return;
        }
        Process(std::move(request), std::move(parsed), authorization, guard);
      });
}

std::optional<ApiError> HttpFrontend::Authorize(const Request& request) const {
  const RequestAttributes a =
      AttributesOf(request.method, request.path, request.query);
  if (!a.resource_request) return std::nullopt;
  const std::string resource = a.CombinedResource();
  // Asked of the policy first, so that the access is recorded even when a
  // Forbid() denies it as well.
  const bool allowed = rbac_.Allows(a);
  if (allowed && !faults_.IsForbidden(a.verb, resource)) return std::nullopt;
  // The RBAC authorizer gives no reason of its own (it only would for a
  // binding to a missing role), so this is the filter's message alone.
  return Forbidden(a.group, a.resource, a.name, DenialReason(config_.user, a));
}

void HttpFrontend::Process(http::http_request request, Request parsed,
                           std::string authorization, Guard guard) {
  const ApiPath path = ParseApiPath(parsed.path);
  // Health and version are public (anonymous access); a wrong token is
  // refused everywhere.
  const bool is_public =
      path.endpoint == Endpoint::kHealth || path.endpoint == Endpoint::kVersion;
  const bool authenticated =
      faults_.Authenticates(authorization, config_.token);
  if (!authenticated && !(is_public && authorization.empty())) {
    faults_.CountUnauthorized();
    Reply(request, ErrorAnswer(Unauthorized(), parsed.pretty), false, guard);
    return;
  }
  // Who the registry's own authorization checks ask about.
  parsed.user = config_.user;
  if (auto denied = Authorize(parsed)) {
    Response r = ErrorAnswer(*denied, parsed.pretty);
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    Reply(request, r, true, guard);
    return;
  }
  if (std::optional<FaultRule> fault =
          faults_.Match(parsed.method, parsed.target, ids_)) {
    Reply(request, ErrorAnswer(InjectedError(*fault, path), parsed.pretty),
          true, guard);
    return;
  }
  // Reviews are answered, never stored: they have no registry entry.
  if (Reviews::Handles(parsed)) {
    Reply(request, reviews_.Answer(parsed), true, guard);
    return;
  }
  Reply(request, registry_.Handle(parsed, path), true, guard);
}

void HttpFrontend::Reply(http::http_request& request, const Response& response,
                         bool authenticated, Guard guard) {
  http::http_response answer(static_cast<http::status_code>(response.code));
  answer.set_reason_phrase(std::string(ReasonPhrase(response.code)));
  Buffer stream;
  if (response.stream) {
    answer.set_body(stream.create_istream(), response.content_type);
  } else if (response.body.size() > kChunkedAbove) {
    stream
        .putn_nocopy(reinterpret_cast<const uint8_t*>(response.body.data()),
                     response.body.size())
        .wait();
    stream.close(std::ios_base::out).wait();
    answer.set_body(stream.create_istream(), response.content_type);
  } else {
    answer.set_body(
        std::vector<unsigned char>(response.body.begin(), response.body.end()));
  }
  http::http_headers& headers = answer.headers();
  headers.set_content_type(response.content_type);
  headers.add("Audit-Id", ids_.NewUid());
  headers.add("Cache-Control", "no-cache, private");
  if (authenticated) {
    headers.add("X-Kubernetes-Pf-Flowschema-Uid", config_.flowschema_uid);
    headers.add("X-Kubernetes-Pf-Prioritylevel-Uid", config_.prioritylevel_uid);
  }
  for (const auto& [name, value] : response.headers) headers.add(name, value);
  if (!response.stream) {
    WhenSent(request.reply(answer), [guard] {});
    return;
  }
  auto sent = std::make_shared<std::atomic<bool>>(false);
  WhenSent(request.reply(answer), [sent, guard] { *sent = true; });
  response.stream(std::make_unique<BufferSink>(stream, sent));
}

}  // namespace ksched::testing::apiserver

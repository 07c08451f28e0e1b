#include "test/apiserver/test_api_server.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <mutex>

#include "pkg/client/testing/loopback.h"
#include "pkg/client/testing/test_pki.h"
#include "test/apiserver/api_path.h"
#include "test/apiserver/base64.h"
#include "test/apiserver/faults.h"
#include "test/apiserver/http_frontend.h"
#include "test/apiserver/ids.h"
#include "test/apiserver/object_store.h"
#include "test/apiserver/rbac.h"
#include "test/apiserver/registry.h"
#include "test/apiserver/resources.h"
#include "test/apiserver/reviews.h"
#include "test/apiserver/watch_hub.h"

namespace ksched::testing {

namespace {

// A socket bound to the port of a stopped server, not listening: a
// connection to it is refused as to a stopped server, and the port is
// neither handed out to anyone else (another test's server, FreePort())
// nor picked as a client's ephemeral port before the server listens on it
// again. -1 if it cannot be bound.
int ReservePort(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int one = 1;
  // Past the TIME_WAIT connections the stopped server left.
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// The minor of a kube_version the server plays ("1.36" -> 36), 0 for one
// it does not.
int PlayedMinor(const std::string& kube_version) {
  if (kube_version == "1.36") return 36;
  if (kube_version == "1.35") return 35;
  if (kube_version == "1.32") return 32;
  return 0;
}

}  // namespace

using apiserver::FaultRule;
using apiserver::Faults;
using apiserver::HttpFrontend;
using apiserver::MakeRequest;

struct TestApiServer::State {
  explicit State(const TestApiServerOptions& o)
      : options(o),
        identity(pki.Issue("kube-apiserver", "DNS:localhost,IP:127.0.0.1")),
        hub(o.bookmark_interval, o.watch_backlog_limit_bytes,
            /*null_creation_timestamp=*/o.kube_version == "1.32"),
        store([this](const apiserver::StoreEvent& e) { hub.OnEvent(e); },
              o.max_history_events),
        registry(store, hub, ids,
                 apiserver::RegistryOptions{
                     .default_watch_timeout = o.default_watch_timeout,
                     .finalize_deleted_pods = o.finalize_deleted_pods,
                     .served = {.minor = PlayedMinor(o.kube_version),
                                .pod_group_crd = o.pod_group_crd},
                     .admission = {.mount_service_account_token =
                                       o.mount_service_account_token},
                     // As the filter authorizes: the policy, and Forbid()
                     // on top.
                     .authorize =
                         [this](const apiserver::RequestAttributes& a) {
                           const bool allowed = rbac.Allows(a);
                           return allowed && !faults.IsForbidden(
                                                 a.verb, a.CombinedResource());
                         }}),
        flowschema_uid(ids.NewUid()),
        prioritylevel_uid(ids.NewUid()),
        reviews(
            [this](const std::string& token) {
              return faults.Authenticates("Bearer " + token, options.token);
            },
            o.user, rbac) {}

  const TestApiServerOptions options;
  apiserver::IdSource ids;
  client::testing::TestPki pki;
  const client::testing::CertAndKey identity;
  Faults faults;
  apiserver::Rbac rbac;
  apiserver::WatchHub hub;
  apiserver::ObjectStore store;
  apiserver::Registry registry;
  const std::string flowschema_uid;
  const std::string prioritylevel_uid;
  apiserver::Reviews reviews;
  int port = 0;
  std::atomic<int> watches_cut{0};
  int reserved_fd = -1;  // holds the port while stopped

  mutable std::mutex frontend_mu;  // Stop/Restart
  std::unique_ptr<HttpFrontend> frontend;

  TestApiServer::Reply Call(const std::string& method,
                            const std::string& target, std::string body,
                            std::string content_type) {
    apiserver::Response r = registry.Handle(
        MakeRequest(method, target, std::move(body), std::move(content_type),
                    "ksched-test-apiserver"));
    return TestApiServer::Reply{r.code, std::move(r.body)};
  }
};

std::unique_ptr<TestApiServer> TestApiServer::Start(
    const TestApiServerOptions& options) {
  if (PlayedMinor(options.kube_version) == 0) return nullptr;
  std::unique_ptr<TestApiServer> server(
      new TestApiServer(std::make_unique<State>(options)));
  server->state_->registry.Bootstrap();
  // A free port can be taken by someone else before we bind it: try again.
  for (int attempt = 0; attempt < 10; ++attempt) {
    server->state_->port =
        options.port != 0 ? options.port : client::testing::FreePort();
    server->state_->registry.SetServerAddress(
        "127.0.0.1:" + std::to_string(server->state_->port));
    if (server->Listen()) return server;
    if (options.port != 0) break;
  }
  return nullptr;
}

TestApiServer::TestApiServer(std::unique_ptr<State> state)
    : state_(std::move(state)) {}

TestApiServer::~TestApiServer() {
  Stop();
  if (state_->reserved_fd >= 0) ::close(state_->reserved_fd);
}

bool TestApiServer::Listen() {
  State& s = *state_;
  apiserver::FrontendConfig config{.port = s.port,
                                   .cert_pem = s.identity.cert_pem,
                                   .key_pem = s.identity.key_pem,
                                   .token = s.options.token,
                                   .user = s.options.user,
                                   .flowschema_uid = s.flowschema_uid,
                                   .prioritylevel_uid = s.prioritylevel_uid};
  std::lock_guard<std::mutex> lock(s.frontend_mu);
  // Both sockets allow reuse and the reserving one does not listen, so the
  // listener binds over it and the port is never free in between.
  s.frontend = HttpFrontend::Start(config, s.registry, s.faults, s.rbac,
                                   s.reviews, s.ids);
  if (s.reserved_fd >= 0) {
    ::close(s.reserved_fd);
    s.reserved_fd = -1;
    if (s.frontend == nullptr) {
      s.frontend = HttpFrontend::Start(config, s.registry, s.faults, s.rbac,
                                       s.reviews, s.ids);
    }
  }
  return s.frontend != nullptr;
}

std::string TestApiServer::url() const {
  return "https://127.0.0.1:" + std::to_string(state_->port);
}

int TestApiServer::port() const { return state_->port; }

std::string TestApiServer::ca_pem() const { return state_->pki.ca_pem(); }

std::string TestApiServer::token() const { return state_->options.token; }

void TestApiServer::WriteKubeconfig(const std::string& path,
                                    const std::string& token_file) const {
  std::ofstream out(path, std::ios::trunc);
  out << "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: ksched-test\n"
         "  cluster:\n"
         "    server: "
      << url()
      << "\n"
         "    certificate-authority-data: "
      << apiserver::Base64Encode(ca_pem())
      << "\n"
         "users:\n"
         "- name: ksched-test\n"
         "  user:\n"
      << (token_file.empty() ? "    token: " + token()
                             : "    tokenFile: " + token_file)
      << "\n"
         "contexts:\n"
         "- name: ksched-test\n"
         "  context:\n"
         "    cluster: ksched-test\n"
         "    user: ksched-test\n"
         "    namespace: default\n"
         "current-context: ksched-test\n";
}

TestApiServer::Reply TestApiServer::Create(const std::string& collection_path,
                                           const std::string& json) {
  return state_->Call("POST", collection_path, json, "application/json");
}

TestApiServer::Reply TestApiServer::Get(const std::string& path) {
  return state_->Call("GET", path, "", "");
}

TestApiServer::Reply TestApiServer::Update(const std::string& path,
                                           const std::string& json) {
  return state_->Call("PUT", path, json, "application/json");
}

TestApiServer::Reply TestApiServer::Patch(const std::string& path,
                                          const std::string& patch,
                                          const std::string& content_type) {
  return state_->Call("PATCH", path, patch, content_type);
}

TestApiServer::Reply TestApiServer::Delete(const std::string& path) {
  return state_->Call("DELETE", path, "", "");
}

TestApiServer::Reply TestApiServer::List(const std::string& path_and_query) {
  return state_->Call("GET", path_and_query, "", "");
}

std::vector<TestApiServer::BindingRecord> TestApiServer::Bindings() const {
  std::vector<BindingRecord> out;
  for (const apiserver::BindingRecord& r : state_->registry.Bindings()) {
    out.push_back(BindingRecord{r.ns, r.name, r.uid, r.node, r.code, r.at});
  }
  return out;
}

int TestApiServer::CountBindings(int code) const {
  return state_->registry.CountBindings(code);
}

std::optional<std::chrono::steady_clock::time_point>
TestApiServer::CreationTime(const std::string& path) const {
  const apiserver::ApiPath p = apiserver::ParseApiPath(path);
  if (p.endpoint != apiserver::Endpoint::kResource || p.name.empty()) {
    return std::nullopt;
  }
  apiserver::ObjectPtr object = state_->store.GetLatestIncludingDeleted(
      *p.resource, apiserver::StoreKey(*p.resource, p.ns, p.name));
  if (object == nullptr) return std::nullopt;
  return object->created;
}

int64_t TestApiServer::ResourceVersion() const {
  return state_->store.CurrentRv();
}

int TestApiServer::ActiveWatchCount() const {
  return static_cast<int>(state_->hub.ActiveCount());
}

void TestApiServer::DropWatches() {
  state_->watches_cut += static_cast<int>(state_->hub.EndAll(/*abrupt=*/true));
}

void TestApiServer::CompactHistory() { state_->store.Compact(); }

void TestApiServer::InjectFault(const Fault& fault) {
  state_->faults.Inject(
      FaultRule{.method = fault.method,
                .path_substring = fault.path_substring,
                .code = fault.code,
                .count = fault.count,
                .probability = fault.probability,
                .every = fault.every,
                .retry_after_seconds = fault.retry_after_seconds});
}

void TestApiServer::SetResponseDelay(const std::string& path_substring,
                                     std::chrono::milliseconds delay) {
  state_->faults.SetDelay(path_substring, delay);
}

void TestApiServer::Hang(std::chrono::milliseconds duration) {
  state_->faults.HangUntil(std::chrono::steady_clock::now() + duration);
}

void TestApiServer::Forbid(const std::string& verb,
                           const std::string& resource) {
  state_->faults.Forbid(verb, resource);
}

void TestApiServer::ClearFaults() { state_->faults.Clear(); }

void TestApiServer::SetRbac(RbacPolicy policy) {
  state_->rbac.SetPolicy(std::move(policy));
}

void TestApiServer::ClearRbac() { state_->rbac.Clear(); }

std::vector<TestApiServer::Access> TestApiServer::Accesses() const {
  return state_->rbac.Accesses();
}

void TestApiServer::AddReviewUser(const std::string& token, ReviewUser user) {
  state_->reviews.AddUser(token, std::move(user));
}

void TestApiServer::SetTokens(const std::vector<std::string>& tokens) {
  state_->faults.SetTokens(tokens);
}

void TestApiServer::Stop() {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.frontend_mu);
  if (s.frontend == nullptr) return;
  s.watches_cut += static_cast<int>(s.hub.EndAll(/*abrupt=*/true));
  s.frontend.reset();
  s.reserved_fd = ReservePort(s.port);
  s.watches_cut += static_cast<int>(s.hub.EndAll(/*abrupt=*/true));
}

void TestApiServer::Restart() {
  Stop();
  // The port was just ours; give the kernel a moment if it lingers.
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (Listen()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

int TestApiServer::RequestCount(const std::string& method,
                                const std::string& path_substring) const {
  return state_->faults.Count(method, path_substring);
}

std::vector<std::pair<std::string, std::string>> TestApiServer::Requests()
    const {
  return state_->faults.Requests();
}

TestApiServer::FaultsServed TestApiServer::Served() const {
  const State& s = *state_;
  return FaultsServed{.injected = s.faults.InjectedByCode(),
                      .delayed = s.faults.Delayed(),
                      .hung = s.faults.Hung(),
                      .unauthorized = s.faults.Unauthorized(),
                      .expired = s.registry.ExpiredServed(),
                      .watches_cut = s.watches_cut};
}

}  // namespace ksched::testing

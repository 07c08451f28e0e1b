#include "test/integration/cluster_test_base.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

#include "pkg/api/codec.h"
#include "pkg/client/cpprest_transport.h"
#include "pkg/client/rest_list_watch.h"
#include "pkg/client/testing/loopback.h"
#include "test/apiserver/test_objects.h"
#include "test/integration/rbac_manifest.h"

namespace ksched::testing {

void ClusterTestBase::SetUp() {
  server_ =
      TestApiServer::Start({.bookmark_interval = std::chrono::seconds(1)});
  ASSERT_NE(server_, nullptr);
  // A parameterized test's name has a '/' ("Test/v135"): as a path it
  // would make a folder in a folder, and the outer one would stay behind.
  std::string name =
      ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::replace(name.begin(), name.end(), '/', '-');
  dir_ = std::filesystem::temp_directory_path() /
         ("ksched-it-" + std::to_string(getpid()) + "-" + name);
  std::filesystem::create_directories(dir_);
  server_->WriteKubeconfig(dir_ / "kubeconfig");
  // ksched runs with exactly the permissions its chart grants (the
  // manifests are the chart's default rendering): a request the chart
  // does not allow is answered 403 as kube's RBAC would answer it.
  auto policy = ChartPolicy();
  ASSERT_TRUE(policy.ok()) << policy.error().message();
  server_->SetRbac(*policy);
}

util::Result<RbacPolicy> ClusterTestBase::ChartPolicy() {
  return RbacPolicyFor(
      (std::filesystem::path(KSCHED_SOURCE_DIR) / "manifests/ksched.yaml")
          .string(),
      "kube-system", "ksched");
}

void ClusterTestBase::TearDown() {
  ksched_.reset();
  // Whatever the test did, ksched never needed more than the chart grants.
  if (server_ != nullptr) {
    for (const TestApiServer::Access& a : server_->Accesses()) {
      EXPECT_TRUE(a.allowed)
          << "the chart's RBAC denies " << a.verb << " " << a.group << "/"
          << a.resource << " " << a.ns << "/" << a.name;
    }
  }
  // A failed test keeps its folder, and shows the end of every process
  // log in it (ksched's, Prometheus', ...), where the cause is written.
  if (HasFailure()) {
    std::vector<std::filesystem::path> logs;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
      if (entry.path().extension() == ".log") logs.push_back(entry.path());
    }
    std::sort(logs.begin(), logs.end());
    std::string tails;
    for (const auto& log : logs) tails += KschedProcess::LogTail(log, 6000);
    ADD_FAILURE() << "logs kept in " << dir_.string() << tails;
    return;
  }
  std::filesystem::remove_all(dir_);
}

void ClusterTestBase::StartKsched(const std::vector<std::string>& extra_args) {
  ksched_ = LaunchKsched(extra_args);
}

std::unique_ptr<KschedProcess> ClusterTestBase::LaunchKsched(
    const std::vector<std::string>& extra_args) {
  std::vector<std::string> args = {"--kubeconfig", dir_ / "kubeconfig", "--v",
                                   "2"};
  // Tests run in parallel: nothing on the default ports unless asked.
  for (const auto& [flag, off] : {std::pair{"--extender-bind-address", ""},
                                  std::pair{"--metrics-bind-address", ""},
                                  std::pair{"--secure-port", "0"}}) {
    bool given = false;
    for (const std::string& a : extra_args) given |= a.rfind(flag, 0) == 0;
    if (!given) args.push_back(std::string(flag) + "=" + off);
  }
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  // A log of its own per start, so nothing reads the previous one's.
  return std::make_unique<KschedProcess>(
      args, dir_ / ("ksched-" + std::to_string(++starts_) + ".log"));
}

client::HttpResponse ClusterTestBase::HttpGet(int port,
                                              const std::string& path) {
  client::RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  return GetFrom(config, path);
}

client::HttpResponse ClusterTestBase::HttpsGet(int port,
                                               const std::string& path,
                                               const std::string& token) {
  client::RestConfig config;
  config.server = "https://127.0.0.1:" + std::to_string(port);
  config.insecure_skip_tls_verify = true;  // self-signed at start-up
  config.bearer_token = token;
  return GetFrom(config, path);
}

client::HttpResponse GetFrom(const client::RestConfig& config,
                             const std::string& path) {
  auto transport = client::CpprestTransport::Create(
      config, client::testing::RealTestClock(), {});
  if (!transport.ok()) return {.code = -1, .body = transport.error().message()};
  auto r = (*transport)->RoundTrip({.method = "GET", .path = path});
  if (!r.ok()) return {.code = -1, .body = r.error().message()};
  return *r;
}

client::HttpResponse ClusterTestBase::HttpPost(int port,
                                               const std::string& path,
                                               const std::string& json) {
  client::RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  auto transport = client::CpprestTransport::Create(
      config, client::testing::RealTestClock(), {});
  if (!transport.ok()) return {.code = -1, .body = transport.error().message()};
  auto r = (*transport)
               ->RoundTrip({.method = "POST",
                            .path = path,
                            .body = json,
                            .content_type = "application/json"});
  if (!r.ok()) return {.code = -1, .body = r.error().message()};
  return *r;
}

void ClusterTestBase::AddChartReviewUser(const std::string& token,
                                         const std::string& sa_namespace,
                                         const std::string& sa_name) {
  auto policy = RbacPolicyFor(
      (std::filesystem::path(KSCHED_SOURCE_DIR) / "manifests/ksched.yaml")
          .string(),
      sa_namespace, sa_name);
  ASSERT_TRUE(policy.ok()) << policy.error().message();
  server_->AddReviewUser(
      token, {.name = "system:serviceaccount:" + sa_namespace + ":" + sa_name,
              .groups = {"system:serviceaccounts",
                         "system:serviceaccounts:" + sa_namespace},
              .policy = *policy});
}

void ClusterTestBase::StartGangScheduler(const std::string& args) {
  const std::filesystem::path config = dir_ / "gang.yaml";
  std::ofstream(config) << R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
- schedulerName: ksched
  plugins:
    multiPoint:
      enabled:
      - name: Coscheduling
    queueSort:
      enabled:
      - name: Coscheduling
      disabled:
      - name: "*"
  pluginConfig:
  - name: Coscheduling
    args:
      )" << args << "\n";
  StartKsched({"--config", config.string()});
}

std::unique_ptr<KschedProcess> ClusterTestBase::LaunchReplica(
    const std::vector<std::string>& extra_args) {
  const std::filesystem::path config = dir_ / "leader-election.yaml";
  if (!std::filesystem::exists(config)) {
    std::ofstream(config) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                             "kind: KubeSchedulerConfiguration\n"
                             "leaderElection:\n"
                             "  leaderElect: true\n"
                             "  leaseDuration: 3s\n"
                             "  renewDeadline: 2s\n"
                             "  retryPeriod: 500ms\n";
  }
  std::vector<std::string> args = {"--config", config.string()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  return LaunchKsched(args);
}

std::string ClusterTestBase::LeaseHolder() {
  auto reply = server_->Get(
      "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ksched");
  if (reply.code != 200) return "";
  auto lease = api::DecodeJson<api::Lease>(reply.body);
  return lease.ok() ? lease->spec.holder_identity.value_or("") : "";
}

bool ClusterTestBase::Leads(const KschedProcess& p, const std::string& holder) {
  return !holder.empty() && p.Log().find("successfully acquired lease as " +
                                         holder) != std::string::npos;
}

void ClusterTestBase::CreateExtenderFixtureCluster() {
  CreateNode("node-1", "4");
  CreateNode("node-2", "250m");
  Create("/api/v1/nodes",
         NodeJson({.name = "node-3",
                   .cpu = "4",
                   .labels = R"("kubernetes.io/hostname":"node-3")"}));
  auto tainted = server_->Patch(
      "/api/v1/nodes/node-3",
      R"({"spec":{"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]}})",
      "application/merge-patch+json");
  ASSERT_EQ(tainted.code, 200) << tainted.body;
}

void ClusterTestBase::WriteFileAtomically(const std::filesystem::path& path,
                                          const std::string& text) {
  const std::filesystem::path next = path.string() + ".next";
  std::ofstream(next) << text;
  std::filesystem::rename(next, path);
}

void ClusterTestBase::Create(const std::string& collection,
                             const std::string& json) {
  auto reply = server_->Create(collection, json);
  ASSERT_EQ(reply.code, 201) << reply.body;
}

void ClusterTestBase::CreateNode(const std::string& name,
                                 const std::string& cpu) {
  Create("/api/v1/nodes",
         NodeJson({.name = name,
                   .cpu = cpu,
                   .labels = R"("kubernetes.io/hostname":")" + name + "\""}));
}

void ClusterTestBase::CreatePod(const std::string& name, const std::string& cpu,
                                const std::string& scheduler) {
  Create("/api/v1/namespaces/default/pods", PodJson({.name = name,
                                                     .cpu = cpu,
                                                     .memory = "64Mi",
                                                     .scheduler = scheduler}));
}

int ClusterTestBase::BindElsewhere(const std::string& pod,
                                   const std::string& node) {
  return server_
      ->Create("/api/v1/namespaces/default/pods/" + pod + "/binding",
               R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" +
                   pod + R"("},"target":{"kind":"Node","name":")" + node +
                   R"("}})")
      .code;
}

std::vector<api::Pod> ClusterTestBase::Pods() {
  auto reply = server_->List("/api/v1/pods");
  EXPECT_EQ(reply.code, 200);
  auto page = client::DecodeListPage<api::Pod>(reply.body);
  EXPECT_TRUE(page.ok()) << page.error().message();
  return page.ok() ? page->items : std::vector<api::Pod>{};
}

api::Pod ClusterTestBase::GetPod(const std::string& name) {
  auto reply = server_->Get("/api/v1/namespaces/default/pods/" + name);
  auto pod = api::DecodeJson<api::Pod>(reply.body);
  EXPECT_TRUE(pod.ok());
  return pod.ok() ? *pod : api::Pod{};
}

std::vector<api::Event> ClusterTestBase::Events() {
  auto reply = server_->List("/apis/events.k8s.io/v1/events");
  auto page = client::DecodeListPage<api::Event>(reply.body);
  EXPECT_TRUE(page.ok()) << reply.body.substr(0, 200);
  return page.ok() ? page->items : std::vector<api::Event>{};
}

int ClusterTestBase::Unbound() {
  int n = 0;
  for (const api::Pod& p : Pods()) {
    if (p.spec.scheduler_name == "ksched" && p.spec.node_name.empty()) ++n;
  }
  return n;
}

bool ClusterTestBase::HasEvent(const std::string& pod,
                               const std::string& reason) {
  for (const api::Event& e : Events()) {
    if (e.regarding.name == pod && e.reason == reason) return true;
  }
  return false;
}

void ClusterTestBase::ExpectBoundOnceAndFitting(
    const std::map<std::string, int>& node_cpu) {
  std::map<std::string, int> successes;
  for (const auto& b : server_->Bindings()) {
    if (b.code == 201) ++successes[b.ns + "/" + b.name];
  }
  std::map<std::string, int> used;
  for (const api::Pod& p : Pods()) {
    if (p.spec.node_name.empty()) continue;
    EXPECT_EQ(successes["default/" + p.metadata.name], 1) << p.metadata.name;
    for (const auto& c : p.spec.containers) {
      if (const api::Quantity* cpu = c.resources.requests.Find("cpu")) {
        used[p.spec.node_name] += static_cast<int>(cpu->MilliValue());
      }
    }
  }
  for (const auto& [node, millis] : used) {
    ASSERT_TRUE(node_cpu.contains(node)) << node;
    EXPECT_LE(millis, node_cpu.at(node)) << node;
  }
}

}  // namespace ksched::testing

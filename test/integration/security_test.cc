// Security defaults, checked on the real binary: credentials never reach
// the logs or the metrics endpoint, an API server whose certificate is not
// trusted gets no request (and no token), and ksched writes no file while
// it runs, so a read-only root filesystem is enough.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/client/cpprest_transport.h"
#include "pkg/client/testing/loopback.h"
#include "pkg/client/testing/test_pki.h"
#include "test/apiserver/base64.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using std::chrono::seconds;

class SecurityTest : public ClusterTestBase {
 protected:
  // The base64 body lines of a PEM block: what a leaked key would show.
  static std::vector<std::string> PemBodyLines(const std::string& pem) {
    std::vector<std::string> lines;
    std::istringstream in(pem);
    for (std::string line; std::getline(in, line);) {
      if (line.size() >= 40 && line.find("-----") == std::string::npos) {
        lines.push_back(line);
      }
    }
    return lines;
  }

  // Every way `secret` could show in a log: verbatim and base64-encoded.
  static void ExpectAbsent(const std::string& text, const std::string& secret,
                           const std::string& where) {
    EXPECT_EQ(text.find(secret), std::string::npos)
        << "a credential is in " << where;
    const std::string encoded = apiserver::Base64Encode(secret);
    EXPECT_EQ(text.find(encoded.substr(0, encoded.size() - 4)),
              std::string::npos)
        << "a base64-encoded credential is in " << where;
  }
};

// Highest verbosity, a client certificate and key in the kubeconfig, a
// token that is rotated and answered 401 meanwhile: neither the tokens nor
// the key appear in the log, the metrics or the health checks.
TEST_F(SecurityTest, CredentialsNeverReachLogsOrMetrics) {
  const std::string first_token = "first-secret-token-5f1c0a9e7d2b";
  const std::string second_token = "second-secret-token-c3e8b4a61f07";
  client::testing::TestPki pki;
  const client::testing::CertAndKey client_cert =
      pki.Issue("ksched-client", "", /*client=*/true);
  const std::filesystem::path token_file = dir_ / "token";
  WriteFileAtomically(token_file, first_token);
  server_->SetTokens({first_token});
  server_->WriteKubeconfig(dir_ / "kubeconfig", token_file.string());
  {
    // The client certificate and key go in the user entry, after its
    // tokenFile line.
    std::ifstream in(dir_ / "kubeconfig");
    std::string kubeconfig(std::istreambuf_iterator<char>(in), {});
    const size_t token_line = kubeconfig.find("tokenFile: ");
    ASSERT_NE(token_line, std::string::npos);
    kubeconfig.insert(kubeconfig.find('\n', token_line) + 1,
                      "    client-certificate-data: " +
                          apiserver::Base64Encode(client_cert.cert_pem) +
                          "\n    client-key-data: " +
                          apiserver::Base64Encode(client_cert.key_pem) + "\n");
    WriteFileAtomically(dir_ / "kubeconfig", kubeconfig);
  }

  CreateNode("node-a", "4");
  for (int i = 0; i < 4; ++i) CreatePod("s-" + std::to_string(i), "100m");
  const int metrics_port = client::testing::FreePort();
  StartKsched(
      {"--v", "10",
       "--metrics-bind-address=127.0.0.1:" + std::to_string(metrics_port)});
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();

  // The server stops taking the first token before the file changes, so
  // ksched's requests meanwhile are answered 401 and logged as failures.
  server_->SetTokens({second_token});
  server_->DropWatches();
  ASSERT_TRUE(WaitUntil(
      [&] { return ksched_->Log().find("Unauthorized") != std::string::npos; },
      seconds(30)))
      << "the 401 answers were not logged:\n"
      << ksched_->Tail();
  WriteFileAtomically(token_file, second_token);
  for (int i = 4; i < 8; ++i) CreatePod("s-" + std::to_string(i), "100m");
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();

  const std::string metrics = HttpGet(metrics_port, "/metrics").body;
  ASSERT_NE(metrics.find("scheduler_schedule_attempts_total"),
            std::string::npos);
  const std::string health = HttpGet(metrics_port, "/healthz?verbose").body +
                             HttpGet(metrics_port, "/readyz?verbose").body;
  ASSERT_EQ(ksched_->Terminate(), 0);
  const std::string log = ksched_->Log();
  ASSERT_GT(log.size(), 1000u) << "verbosity 10 logs the run";

  for (const std::string& token : {first_token, second_token}) {
    ExpectAbsent(log, token, "the log");
    ExpectAbsent(metrics, token, "/metrics");
    ExpectAbsent(health, token, "the health checks");
  }
  EXPECT_EQ(log.find("Bearer "), std::string::npos);
  EXPECT_EQ(log.find("PRIVATE KEY"), std::string::npos);
  for (const std::string& line : PemBodyLines(client_cert.key_pem)) {
    EXPECT_EQ(log.find(line), std::string::npos) << "the client key is logged";
  }
  const std::string key_data = apiserver::Base64Encode(client_cert.key_pem);
  EXPECT_EQ(log.find(key_data.substr(0, 60)), std::string::npos);
}

// TLS verification is on: with no CA for the API server's certificate the
// handshake fails, so no request and no token ever reaches it, and ksched
// says why instead of running unverified.
TEST_F(SecurityTest, ApiServerWithAnUntrustedCertificateGetsNoRequest) {
  const std::string token = "untrusted-server-token-9a7e2c";
  server_->SetTokens({token});
  std::ofstream(dir_ / "kubeconfig", std::ios::trunc)
      << "apiVersion: v1\nkind: Config\n"
      << "clusters:\n- name: c\n  cluster:\n    server: " << server_->url()
      << "\n"
      << "users:\n- name: u\n  user:\n    token: " << token << "\n"
      << "contexts:\n- name: x\n  context: {cluster: c, user: u}\n"
      << "current-context: x\n";
  auto requests = [&] {
    int n = 0;
    for (const char* method : {"GET", "POST", "PUT", "PATCH", "DELETE"}) {
      n += server_->RequestCount(method, "/");
    }
    return n;
  };
  const int before = requests();
  StartKsched({"--v", "10"});
  ASSERT_TRUE(WaitUntil(
      [&] {
        return ksched_->Log().find("TLS handshake with 127.0.0.1:" +
                                   std::to_string(server_->port()) +
                                   ": certificate verify failed") !=
               std::string::npos;
      },
      seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(requests(), before)
      << "a request went through without a verified certificate";
  ksched_->Kill();
  ExpectAbsent(ksched_->Log(), token, "the log");
}

// Under strace: every file ksched opens while it lists, watches, schedules,
// binds and serves metrics is opened for reading only (devices and /proc
// aside), so the chart's readOnlyRootFilesystem costs nothing.
TEST_F(SecurityTest, WritesNoFileWhileScheduling) {
  if (std::system("strace -V >/dev/null 2>&1") != 0) {
    GTEST_FAIL() << "strace is needed (scripts/install-deps.sh installs it)";
  }
  CreateNode("node-a", "4");
  for (int i = 0; i < 4; ++i) CreatePod("w-" + std::to_string(i), "100m");
  CreatePod("too-big", "8");
  const std::filesystem::path trace = dir_ / "strace.log";
  const int metrics_port = client::testing::FreePort();
  ksched_ = std::make_unique<KschedProcess>(
      std::vector<std::string>{
          // LeakSanitizer cannot run under ptrace (sanitizer builds).
          "-f", "-qq", "-E", "ASAN_OPTIONS=detect_leaks=0", "-o",
          trace.string(), "-e",
          "trace=open,openat,openat2,creat,mkdir,mkdirat,rename,renameat,"
          "renameat2,unlink,unlinkat,truncate,link,symlink",
          KSCHED_BINARY, "--kubeconfig", (dir_ / "kubeconfig").string(), "--v",
          "2", "--extender-bind-address=",
          "--metrics-bind-address=127.0.0.1:" + std::to_string(metrics_port)},
      (dir_ / "ksched.log").string(), "strace");
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 1; }, seconds(60)))
      << ksched_->Tail();
  ASSERT_NE(
      HttpGet(metrics_port, "/metrics").body.find("scheduler_pending_pods"),
      std::string::npos);
  // SIGTERM to ksched itself (strace's child): strace then exits with
  // ksched's exit code, having traced the shutdown too.
  std::ifstream children("/proc/" + std::to_string(ksched_->pid()) + "/task/" +
                         std::to_string(ksched_->pid()) + "/children");
  pid_t traced = 0;
  ASSERT_TRUE(children >> traced) << "strace has no child";
  ASSERT_EQ(kill(traced, SIGTERM), 0);
  ASSERT_EQ(ksched_->Wait(seconds(30)), 0) << ksched_->Tail();

  std::ifstream in(trace);
  ASSERT_TRUE(in) << "strace wrote no trace";
  int opens = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find("open") != std::string::npos) ++opens;
    const bool writes = line.find("O_WRONLY") != std::string::npos ||
                        line.find("O_RDWR") != std::string::npos ||
                        line.find("O_CREAT") != std::string::npos ||
                        line.find("O_TRUNC") != std::string::npos ||
                        line.find("creat(") != std::string::npos ||
                        line.find("mkdir") != std::string::npos ||
                        line.find("rename") != std::string::npos ||
                        line.find("unlink") != std::string::npos ||
                        line.find("truncate(") != std::string::npos ||
                        line.find("link(") != std::string::npos;
    const bool special = line.find("\"/dev/") != std::string::npos ||
                         line.find("\"/proc/") != std::string::npos ||
                         line.find("\"/sys/") != std::string::npos;
    EXPECT_FALSE(writes && !special) << "ksched writes a file: " << line;
  }
  // The kubeconfig, CA and libraries at least were opened and traced.
  EXPECT_GT(opens, 5) << "the trace saw no open";
}

}  // namespace
}  // namespace ksched::testing

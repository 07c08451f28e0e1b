#include "pkg/client/kubeconfig.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace ksched::client {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("ksched-kubeconfig-" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()) +
         "-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

  fs::path dir_;
};

const char kBasic[] = R"(apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: prod-cluster
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority-data: aGVsbG8=
contexts:
- name: prod
  context: {cluster: prod-cluster, user: admin, namespace: shop}
- name: other
  context: {cluster: prod-cluster, user: reader}
users:
- name: admin
  user:
    client-certificate-data: aGVsbG8=
    client-key-data: d29ybGQ=
- name: reader
  user:
    token: abc123
)";

TEST_F(KubeconfigTest, CurrentContextWithInlineCredentials) {
  auto config = ParseKubeconfig(kBasic, dir_.string(), "");
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_EQ(config->server, "https://10.0.0.1:6443");
  EXPECT_EQ(config->ca_pem, "hello");
  EXPECT_EQ(config->client_cert_pem, "hello");
  EXPECT_EQ(config->client_key_pem, "world");
  EXPECT_EQ(config->bearer_token, "");
  EXPECT_EQ(config->ns, "shop");
  EXPECT_FALSE(config->insecure_skip_tls_verify);
}

TEST_F(KubeconfigTest, ContextOverrideAndDefaultNamespace) {
  auto config = ParseKubeconfig(kBasic, dir_.string(), "other");
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_EQ(config->bearer_token, "abc123");
  EXPECT_EQ(config->client_cert_pem, "");
  EXPECT_EQ(config->ns, "default");
}

TEST_F(KubeconfigTest, RelativeFilesResolveAgainstTheKubeconfigsDirectory) {
  Write("certs/ca.crt", "CA-PEM");
  Write("certs/client.crt", "CERT-PEM");
  Write("certs/client.key", "KEY-PEM");
  Write("token", "file-token\n");
  const std::string path = Write("config", R"(
current-context: c
clusters:
- name: k
  cluster: {server: "https://api.example:6443", certificate-authority: certs/ca.crt,
            tls-server-name: kubernetes}
contexts:
- name: c
  context: {cluster: k, user: u}
- name: t
  context: {cluster: k, user: t}
users:
- name: u
  user: {client-certificate: certs/client.crt, client-key: certs/client.key}
- name: t
  user: {tokenFile: token}
)");
  // Loaded from another working directory: paths follow the file.
  auto config = LoadKubeconfig({.explicit_path = path});
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_EQ(config->ca_pem, "CA-PEM");
  EXPECT_EQ(config->client_cert_pem, "CERT-PEM");
  EXPECT_EQ(config->client_key_pem, "KEY-PEM");
  EXPECT_EQ(config->tls_server_name, "kubernetes");

  auto with_token = LoadKubeconfig({.explicit_path = path, .context = "t"});
  ASSERT_TRUE(with_token.ok()) << with_token.error().message();
  EXPECT_EQ(with_token->token_file, (dir_ / "token").string());
  // Read now, as clientcmd does; the client re-reads the file later.
  EXPECT_EQ(with_token->bearer_token, "file-token\n");
}

// $KUBECONFIG: files merged, the first to set anything wins, missing files
// are skipped.
TEST_F(KubeconfigTest, KubeconfigListMergesFirstWins) {
  const std::string first = Write("a", R"(
current-context: from-a
clusters:
- name: shared
  cluster: {server: "https://a:6443"}
contexts:
- name: from-a
  context: {cluster: shared, user: ua}
users:
- name: ua
  user: {token: token-a}
)");
  const std::string second = Write("b", R"(
current-context: from-b
clusters:
- name: shared
  cluster: {server: "https://b:6443"}
- name: only-b
  cluster: {server: "https://only-b:6443"}
contexts:
- name: from-b
  context: {cluster: only-b, user: ub}
users:
- name: ub
  user: {token: token-b}
)");
  const std::string list =
      first + ":" + (dir_ / "missing").string() + ":" + second;
  auto config = LoadKubeconfig({.kubeconfig_env = list});
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_EQ(config->server, "https://a:6443");
  EXPECT_EQ(config->bearer_token, "token-a");
  // Entries only the second file has are there too.
  auto b = LoadKubeconfig({.context = "from-b", .kubeconfig_env = list});
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ(b->server, "https://only-b:6443");
  EXPECT_EQ(b->bearer_token, "token-b");
}

TEST_F(KubeconfigTest, HomeConfigIsTheDefault) {
  Write(".kube/config", kBasic);
  auto config = LoadKubeconfig({.home = dir_.string()});
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_EQ(config->server, "https://10.0.0.1:6443");
}

TEST_F(KubeconfigTest, ErrorsSayWhatIsWrong) {
  auto expect_error = [](const util::Result<RestConfig>& r,
                         const std::string& part) {
    ASSERT_FALSE(r.ok()) << "expected an error containing " << part;
    EXPECT_NE(r.error().message().find(part), std::string::npos)
        << r.error().message();
  };
  expect_error(LoadKubeconfig({.explicit_path = (dir_ / "nope").string()}),
               "No such file");
  expect_error(LoadKubeconfig({.home = dir_.string()}),
               "no configuration has been provided");
  expect_error(ParseKubeconfig(kBasic, "", "missing"),
               "context was not found for specified context: missing");
  expect_error(ParseKubeconfig(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {}}]
)",
                               "", ""),
               "cluster has no server defined");
  expect_error(ParseKubeconfig(R"(
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://x"}}]
users: [{name: u, user: {exec: {command: aws}}}]
)",
                               "", ""),
               "exec credentials are not supported");
  expect_error(ParseKubeconfig(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "https://x", certificate-authority: a,
           certificate-authority-data: aGVsbG8=}}]
)",
                               "", ""),
               "certificate-authority-data and certificate-authority are both "
               "specified for k");
  expect_error(ParseKubeconfig(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "https://x", insecure-skip-tls-verify: true,
           certificate-authority-data: aGVsbG8=}}]
)",
                               "", ""),
               "insecure flag is not allowed");
  expect_error(ParseKubeconfig(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "https://x", certificate-authority-data: "!!!!"}}]
)",
                               "", ""),
               "illegal base64");
  expect_error(ParseKubeconfig(R"(
current-context: c
clusters: [{name: k, cluster: {server: [1, 2]}}]
)",
                               "", ""),
               "clusters[0].cluster.server: expected a string");
  expect_error(ParseKubeconfig("clusters: {a: b}", "", ""),
               "clusters: expected a list");
  expect_error(ParseKubeconfig("current-context: [", "", ""), "");
}

TEST_F(KubeconfigTest, InsecureIsHonouredWhenSet) {
  auto config = ParseKubeconfig(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "10.0.0.9:6443", insecure-skip-tls-verify: true}}]
)",
                                "", "");
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_TRUE(config->insecure_skip_tls_verify);
  // A server without a scheme is HTTPS when TLS is configured (here by the
  // insecure flag), else HTTP, as client-go defaults it.
  EXPECT_EQ(config->server, "https://10.0.0.9:6443");
  auto plain = ParseKubeconfig(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "localhost:8080"}}]
)",
                               "", "");
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  EXPECT_EQ(plain->server, "http://localhost:8080");
}

TEST_F(KubeconfigTest, InClusterReadsTheServiceAccount) {
  Write("sa/token", "sa-token");
  Write("sa/ca.crt", "SA-CA");
  Write("sa/namespace", "kube-system\n");
  auto config = InClusterConfig({.service_host = "10.96.0.1",
                                 .service_port = "443",
                                 .account_dir = (dir_ / "sa").string()});
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_EQ(config->server, "https://10.96.0.1:443");
  EXPECT_EQ(config->bearer_token, "sa-token");
  EXPECT_EQ(config->token_file, (dir_ / "sa" / "token").string());
  EXPECT_EQ(config->ca_pem, "SA-CA");
  EXPECT_EQ(config->ns, "kube-system");

  auto v6 = InClusterConfig({.service_host = "fd00::1",
                             .service_port = "443",
                             .account_dir = (dir_ / "sa").string()});
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->server, "https://[fd00::1]:443");

  EXPECT_FALSE(InClusterConfig({}).ok());
  auto no_token = InClusterConfig({.service_host = "10.96.0.1",
                                   .service_port = "443",
                                   .account_dir = (dir_ / "none").string()});
  ASSERT_FALSE(no_token.ok());
  EXPECT_NE(no_token.error().message().find("in-cluster token"),
            std::string::npos);
}

}  // namespace
}  // namespace ksched::client

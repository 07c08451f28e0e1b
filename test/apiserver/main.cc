// ksched-test-apiserver: the test API server as a program, for manual runs
// and benchmarks. Prints "ready <url>" once it listens and runs until
// SIGTERM or SIGINT.
#include <csignal>
#include <iostream>

#include "pkg/util/flags.h"
#include "test/apiserver/test_api_server.h"

int main(int argc, char** argv) {
  int64_t port = 0;
  std::string token = "ksched-test-token";
  std::string kubeconfig_out;
  std::string kube_version = "1.36";
  ksched::util::FlagSet flags("ksched-test-apiserver [flags]");
  flags.Int("port", &port, "Port to listen on (0: a free one).");
  flags.String("token", &token, "Bearer token clients must present.");
  flags.String("kubeconfig-out", &kubeconfig_out,
               "Write a kubeconfig for the server to this file.");
  flags.String("kube-version", &kube_version,
               "The kube-apiserver version played: 1.36, 1.35 or 1.32.");
  auto args = flags.Parse(std::vector<std::string>(argv + 1, argv + argc));
  if (!args.ok()) {
    std::cerr << args.error().message() << "\n" << flags.Usage();
    return 2;
  }
  if (flags.help_requested()) {
    std::cout << flags.Usage();
    return 0;
  }

  // Block the signals before any thread starts so that only sigwait sees
  // them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  ksched::testing::TestApiServerOptions options;
  options.port = static_cast<int>(port);
  options.token = token;
  options.kube_version = kube_version;
  if (kube_version != "1.36" && kube_version != "1.35" &&
      kube_version != "1.32") {
    std::cerr << "--kube-version must be 1.36, 1.35 or 1.32, not "
              << kube_version << "\n";
    return 2;
  }
  auto server = ksched::testing::TestApiServer::Start(options);
  if (server == nullptr) {
    std::cerr << "cannot listen on port " << port << "\n";
    return 1;
  }
  if (!kubeconfig_out.empty()) server->WriteKubeconfig(kubeconfig_out);
  std::cout << "ready " << server->url() << std::endl;

  int received = 0;
  sigwait(&signals, &received);
  server.reset();
  return 0;
}

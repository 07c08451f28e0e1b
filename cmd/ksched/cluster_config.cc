#include "cmd/ksched/cluster_config.h"

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "pkg/client/cpprest_threads.h"
#include "pkg/client/cpprest_transport.h"
#include "pkg/client/kubeconfig.h"
#include "pkg/client/rest_client.h"
#include "pkg/util/clock.h"
#include "pkg/util/random.h"

namespace ksched::cmd {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

}  // namespace

util::Result<client::RestConfig> ClusterConfig(const std::string& kubeconfig,
                                               const std::string& context) {
  client::KubeconfigSources sources{.explicit_path = kubeconfig,
                                    .context = context,
                                    .kubeconfig_env = Env("KUBECONFIG"),
                                    .home = Env("HOME")};
  std::error_code ec;
  const bool home_config =
      !sources.home.empty() &&
      std::filesystem::exists(sources.home + "/.kube/config", ec);
  if (kubeconfig.empty() && sources.kubeconfig_env.empty() && !home_config &&
      !Env("KUBERNETES_SERVICE_HOST").empty()) {
    return client::InClusterConfig(
        {.service_host = Env("KUBERNETES_SERVICE_HOST"),
         .service_port = Env("KUBERNETES_SERVICE_PORT")});
  }
  return client::LoadKubeconfig(sources);
}

util::Result<simulator::LiveCluster> ReadCluster(
    const client::RestConfig& rest_config,
    const config::ClientConnection& connection,
    const simulator::LiveReadOptions& options) {
  client::ConfigureCpprestThreads(client::DefaultCpprestThreads());
  util::RealClock clock;
  util::DefaultRandom random;
  auto transport = client::CpprestTransport::Create(rest_config, clock, {});
  if (!transport.ok()) return transport.error();
  auto sleep = [](util::Clock::Duration d) { std::this_thread::sleep_for(d); };
  client::RestClient api(std::move(*transport), clock, random, sleep,
                         {.qps = connection.qps, .burst = connection.burst});
  return simulator::ReadLiveCluster(api, options);
}

}  // namespace ksched::cmd

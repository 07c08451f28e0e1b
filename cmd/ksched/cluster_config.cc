#include "cmd/ksched/cluster_config.h"

#include <cstdlib>
#include <filesystem>

#include "pkg/client/kubeconfig.h"

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

}  // namespace ksched::cmd

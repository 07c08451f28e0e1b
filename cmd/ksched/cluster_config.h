// Where the API server is and how to reach it, found as kubectl finds it,
// for every command that talks to a cluster.
#pragma once

#include <string>

#include "pkg/client/rest_config.h"
#include "pkg/util/result.h"

namespace ksched::cmd {

// kubectl's order: `kubeconfig` (a flag, or the configuration's
// clientConnection.kubeconfig), $KUBECONFIG, ~/.kube/config; in a pod
// without any of them, the service account. `context` picks a kubeconfig
// context (empty: its current-context).
util::Result<client::RestConfig> ClusterConfig(const std::string& kubeconfig,
                                               const std::string& context);

}  // namespace ksched::cmd

// Where the API server is and how to reach it, found as kubectl finds it,
// for every command that talks to a cluster.
#pragma once

#include <string>

#include "pkg/client/rest_config.h"
#include "pkg/config/types.h"
#include "pkg/simulator/live_cluster.h"
#include "pkg/util/result.h"

namespace ksched::cmd {

// kubectl's order: `kubeconfig` (a flag, or the configuration's
// clientConnection.kubeconfig), $KUBECONFIG, ~/.kube/config; in a pod
// without any of them, the service account. `context` picks a kubeconfig
// context (empty: its current-context).
util::Result<client::RestConfig> ClusterConfig(const std::string& kubeconfig,
                                               const std::string& context);

// Lists the cluster at `rest_config` once, read-only, as `ksched explain`
// and `ksched simulate --kubeconfig` see it, within the configuration's
// client QPS and burst.
util::Result<simulator::LiveCluster> ReadCluster(
    const client::RestConfig& rest_config,
    const config::ClientConnection& connection,
    const simulator::LiveReadOptions& options = {});

}  // namespace ksched::cmd

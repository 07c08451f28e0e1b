// Reads a running cluster through its API server as the scheduler's
// informers see it: the same paginated lists (limit/continue), read-only,
// into the Cluster that `simulate` and `explain` take from files.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pkg/client/rest_client.h"
#include "pkg/simulator/cluster.h"
#include "pkg/util/result.h"

namespace ksched::simulator {

struct LiveCluster {
  Cluster cluster;
  // Kinds that could not be listed for want of permission: plugins that
  // read them see none ("cannot list csidrivers: forbidden ...").
  std::vector<std::string> warnings;
};

struct LiveReadOptions {
  // List ResourceClaimTemplates even when no pod of the cluster needs one
  // (pods from --add or --capacity files may). Otherwise they are listed
  // only for pods whose template claim the resourceclaim controller has
  // not made yet: the scheduler itself never reads them, so a ksched
  // service account may not be allowed to.
  bool resource_claim_templates = false;
  // Optional: after each page, the objects listed so far (of every kind),
  // for a progress line.
  std::function<void(uint64_t objects)> on_listed;
};

// Nodes and pods must be listable; any other kind the plugins read may be
// forbidden (a warning) but not otherwise fail.
util::Result<LiveCluster> ReadLiveCluster(client::RestClient& api,
                                          const LiveReadOptions& options = {});

}  // namespace ksched::simulator

// A cluster as one JSON List that `simulate --cluster` reads back: what a
// live run read (`--snapshot-out`), to be reviewed and replayed offline.
// Only the fields ksched models are written, so managed fields, status
// bulk and everything else the scheduler never reads are left out.
#pragma once

#include <string>

#include "pkg/simulator/cluster.h"
#include "pkg/util/result.h"

namespace ksched::simulator {

std::string SnapshotJson(const Cluster& cluster);

// Writes SnapshotJson to `path` through a temporary file renamed into
// place, so a failed write leaves no half snapshot.
util::Status WriteSnapshot(const Cluster& cluster, const std::string& path);

}  // namespace ksched::simulator

// /debug/explain?pod=NAMESPACE/NAME[&top=N][&output=json] on the secure
// port: a recorded scheduling cycle of a pending pod against the live
// cache (Scheduler::Explain), as text or as the JSON `ksched explain -o
// json` prints. Authorized as /metrics is: a token allowed to get the
// path.
#pragma once

#include "pkg/metrics/metrics_server.h"
#include "pkg/scheduler/scheduler.h"

namespace ksched::cmd {

inline constexpr char kDebugExplainPath[] = "/debug/explain";

metrics::PathHandler DebugExplainHandler(scheduler::Scheduler& scheduler);

}  // namespace ksched::cmd

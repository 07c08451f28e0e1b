// RetryBackoff: how long to wait before sending a failed request again.
//
// The server's Retry-After, when it gave one, is honoured as client-go
// does; otherwise the wait grows exponentially from `initial` up to `max`,
// with up to `jitter` of it added at random so that many clients turned
// away at once do not all come back at once.
#pragma once

#include <chrono>

#include "pkg/util/clock.h"
#include "pkg/util/random.h"

namespace ksched::client {

struct RetryBackoff {
  util::Clock::Duration initial = std::chrono::milliseconds(250);
  double factor = 2.0;
  util::Clock::Duration max = std::chrono::seconds(30);
  double jitter = 0.2;  // fraction of the wait added at most
  int max_retries = 5;

  // The wait before retry number `attempt` (0 for the first retry).
  util::Clock::Duration Wait(int attempt, int retry_after_seconds,
                             util::Random& random) const;
};

}  // namespace ksched::client

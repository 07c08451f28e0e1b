#include "pkg/client/backoff.h"

#include <algorithm>
#include <cmath>

namespace ksched::client {

util::Clock::Duration RetryBackoff::Wait(int attempt, int retry_after_seconds,
                                         util::Random& random) const {
  if (retry_after_seconds > 0) return std::chrono::seconds(retry_after_seconds);
  const double base = static_cast<double>(initial.count()) *
                      std::pow(factor, std::max(attempt, 0));
  const double capped = std::min(base, static_cast<double>(max.count()));
  // Uniform in [0, jitter * capped], in thousandths.
  const double extra =
      jitter > 0
          ? capped * jitter * static_cast<double>(random.Intn(1001)) / 1000.0
          : 0.0;
  return util::Clock::Duration(static_cast<util::Clock::Duration::rep>(
      std::min(capped + extra, static_cast<double>(max.count()) * 2)));
}

}  // namespace ksched::client

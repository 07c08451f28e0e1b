#include "pkg/client/rate_limiter.h"

#include <algorithm>
#include <chrono>

namespace ksched::client {

TokenBucket::TokenBucket(const util::Clock& clock, double qps, int burst)
    : clock_(clock),
      qps_(qps),
      burst_(std::max(burst, 1)),
      tokens_(burst_),
      last_(clock.Now()) {}

util::Clock::Duration TokenBucket::Reserve() {
  if (qps_ <= 0) return util::Clock::Duration::zero();
  std::lock_guard lock(mu_);
  const util::Clock::TimePoint now = clock_.Now();
  if (now > last_) {
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
    last_ = now;
  }
  tokens_ -= 1;
  if (tokens_ >= 0) return util::Clock::Duration::zero();
  return std::chrono::duration_cast<util::Clock::Duration>(
      std::chrono::duration<double>(-tokens_ / qps_));
}

}  // namespace ksched::client

// TokenBucket: client-side request rate limiting as client-go's
// flowcontrol.NewTokenBucketRateLimiter (clientConnection.qps / burst).
//
// The bucket starts full with `burst` tokens and refills at `qps` per
// second. Reserve() takes a token and says how long the caller must wait
// before using it; reservations queue up (the bucket may go negative), so
// concurrent callers are served in order at the configured rate.
#pragma once

#include <mutex>

#include "pkg/util/clock.h"

namespace ksched::client {

class TokenBucket {
 public:
  // qps <= 0: no limit. burst < 1 counts as 1.
  TokenBucket(const util::Clock& clock, double qps, int burst);

  // Takes a token; returns how long to wait before sending (0: now).
  util::Clock::Duration Reserve();

 private:
  const util::Clock& clock_;
  const double qps_;
  const double burst_;
  std::mutex mu_;
  double tokens_;
  util::Clock::TimePoint last_;
};

}  // namespace ksched::client

// TokenSource: the bearer token for the next request.
//
// A token file (a projected service-account token, which the kubelet
// rotates hourly) is re-read whenever its modification time or size
// changes, at most once per `recheck` interval; while it cannot be read the
// last good token (or the configured one) keeps being sent, as client-go's
// cached file token source does.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "pkg/client/rest_config.h"
#include "pkg/util/clock.h"

namespace ksched::client {

class TokenSource {
 public:
  TokenSource(const util::Clock& clock, const RestConfig& config,
              util::Clock::Duration recheck = std::chrono::seconds(1));

  // The token to send; empty for none.
  std::string Token();
  // The server refused the token (401): look at the file again on the next
  // request instead of waiting out the recheck interval, as client-go
  // resets its cached token on an Unauthorized answer.
  void Invalidate();

 private:
  const util::Clock& clock_;
  const std::string file_;
  const util::Clock::Duration recheck_;
  std::mutex mu_;
  std::string token_;
  util::Clock::TimePoint next_check_{};
  int64_t seen_mtime_ = -1;
  int64_t seen_size_ = -1;
};

}  // namespace ksched::client

// Clock seam: everything that waits or measures time (queue backoff, assumed
// pod expiry, lease renewal) reads time from a Clock so tests drive it.
#pragma once

#include <chrono>

namespace ksched::util {

class Clock {
 public:
  using Duration = std::chrono::nanoseconds;
  using TimePoint =
      std::chrono::time_point<std::chrono::steady_clock, Duration>;
  using WallTime = std::chrono::time_point<std::chrono::system_clock, Duration>;

  virtual ~Clock() = default;
  // Monotonic time, for intervals and deadlines.
  virtual TimePoint Now() const = 0;
  // Wall-clock time, for timestamps written to the API.
  virtual WallTime WallNow() const = 0;
};

class RealClock final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
  WallTime WallNow() const override {
    return std::chrono::time_point_cast<Duration>(
        std::chrono::system_clock::now());
  }
};

}  // namespace ksched::util

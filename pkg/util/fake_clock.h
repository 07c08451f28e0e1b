// A Clock that moves only when told to, for tests.
#pragma once

#include <atomic>

#include "pkg/util/clock.h"

namespace ksched::util {

class FakeClock final : public Clock {
 public:
  FakeClock() = default;
  explicit FakeClock(WallTime wall_start) : wall_start_(wall_start) {}

  TimePoint Now() const override { return TimePoint(Duration(offset_.load())); }
  WallTime WallNow() const override {
    return wall_start_ + Duration(offset_.load());
  }

  void Advance(Duration d) { offset_ += d.count(); }

 private:
  WallTime wall_start_{};
  std::atomic<Duration::rep> offset_{0};
};

}  // namespace ksched::util

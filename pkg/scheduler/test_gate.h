// For the scheduler's tests: a gate that a task or plugin hook blocks on
// until the test opens it, bounded so that a broken pool or loop fails
// the test instead of hanging it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace ksched::scheduler::test {

// Generous: only something broken ever waits this long.
inline constexpr std::chrono::seconds kWaitLimit{30};

class Gate {
 public:
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  bool Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kWaitLimit, [&] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

}  // namespace ksched::scheduler::test

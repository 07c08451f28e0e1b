// Cancellation: lets one thread end another's blocking work (a watch read,
// a backoff wait) at shutdown, without polling.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace ksched::util {

class Cancellation {
 public:
  // Ends a callback's registration when destroyed; after that the callback
  // is never running and never runs.
  class Registration {
   public:
    Registration() = default;
    Registration(Registration&& other) noexcept { *this = std::move(other); }
    Registration& operator=(Registration&& other) noexcept;
    ~Registration() { Reset(); }
    void Reset();

   private:
    friend class Cancellation;
    Registration(Cancellation* owner, uint64_t id) : owner_(owner), id_(id) {}
    Cancellation* owner_ = nullptr;
    uint64_t id_ = 0;
  };

  Cancellation() = default;
  Cancellation(const Cancellation&) = delete;
  Cancellation& operator=(const Cancellation&) = delete;

  // Runs every registered callback once; later registrations run at once.
  void Cancel();
  bool cancelled() const;

  // Callbacks run on the cancelling thread, under this object's lock: keep
  // them short and never touch this object from one.
  [[nodiscard]] Registration OnCancel(std::function<void()> fn);

  // Waits for `duration` of real time or until cancelled; true if cancelled.
  bool WaitFor(std::chrono::nanoseconds duration);

 private:
  void Unregister(uint64_t id);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool cancelled_ = false;
  uint64_t next_id_ = 1;
  std::map<uint64_t, std::function<void()>> callbacks_;
};

}  // namespace ksched::util

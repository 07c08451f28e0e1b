// BindingPool: runs binding cycles off the scheduling loop, on a fixed set
// of threads, so that many Binding requests are in flight at once while the
// loop goes on to the next pod (kube-scheduler starts a goroutine each).
//
// When the API server binds slower than the loop schedules, binding cycles
// wait in a queue, each holding its pod's cycle state. A bound on that
// queue makes Submit wait instead, so a backlog of ten thousand pods costs
// a few hundred cycle states, not ten thousand. Cycles that wait at Permit
// for other pods of their group (which only the loop can schedule) say so
// with Blocked: while every running worker is blocked that way, Submit
// never waits, so a group larger than the pool cannot deadlock it.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ksched::scheduler {

class BindingPool {
 public:
  // With 0 workers, Submit runs the task inline (the simulator, tests).
  // `max_queued` bounds the tasks waiting for a worker (0: no bound).
  explicit BindingPool(int workers, size_t max_queued = 0);
  ~BindingPool();
  BindingPool(const BindingPool&) = delete;
  BindingPool& operator=(const BindingPool&) = delete;

  // Queues the task; with a bound, first waits while the queue is full
  // and some running worker is not Blocked.
  void Submit(std::function<void()> task);

  // Held by a running task while it waits for something only the
  // scheduling loop can bring about.
  class Blocked {
   public:
    explicit Blocked(BindingPool& pool);
    ~Blocked();
    Blocked(const Blocked&) = delete;
    Blocked& operator=(const Blocked&) = delete;

   private:
    BindingPool& pool_;
  };
  // Blocks until every submitted task has finished.
  void Drain();
  size_t InFlight() const;

 private:
  void Work();

  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  std::condition_variable space_cv_;
  std::deque<std::function<void()>> tasks_;
  const size_t max_queued_;
  size_t running_ = 0;
  size_t blocked_ = 0;  // running tasks inside a Blocked
  bool stopping_ = false;
  std::vector<std::jthread> threads_;
};

}  // namespace ksched::scheduler

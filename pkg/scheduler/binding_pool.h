// BindingPool: runs binding cycles off the scheduling loop, on a fixed set
// of threads, so that many Binding requests are in flight at once while the
// loop goes on to the next pod (kube-scheduler starts a goroutine each).
//
// When the API server binds slower than the loop schedules, binding cycles
// wait in a queue, each holding its pod's cycle state. A bound on that
// queue makes Submit wait instead, so a backlog of ten thousand pods costs
// a few hundred cycle states, not ten thousand. A pod held at Permit has
// no binding cycle queued until its wait is over (Post), so a group larger
// than the pool never holds a worker while it waits.
#pragma once

#include <chrono>
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

  // Queues the task; with a bound, first waits while the queue is full.
  // Without workers, runs the posted tasks, then this one.
  void Submit(std::function<void()> task);
  // Queues the task without ever waiting: safe under any lock (a Permit
  // wait ends inside whatever allowed or rejected it). Without workers it
  // runs at the next Submit, Drain or RunPosted, on that caller's thread.
  void Post(std::function<void()> task);
  // Without workers: runs the posted tasks. With workers: nothing.
  void RunPosted();

  // Blocks until every submitted and posted task has finished.
  void Drain();
  // Drain, for at most `bound`: false when tasks were left.
  bool DrainFor(std::chrono::steady_clock::duration bound);
  // Drops the tasks no worker has started (a shutdown that will not wait
  // for them); returns how many. Those running finish.
  size_t AbandonQueued();
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
  bool stopping_ = false;
  std::vector<std::jthread> threads_;
};

}  // namespace ksched::scheduler

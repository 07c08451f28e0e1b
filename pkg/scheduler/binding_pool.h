// BindingPool: runs binding cycles off the scheduling loop, on a fixed set
// of threads, so that many Binding requests are in flight at once while the
// loop goes on to the next pod (kube-scheduler starts a goroutine each).
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
  explicit BindingPool(int workers);
  ~BindingPool();
  BindingPool(const BindingPool&) = delete;
  BindingPool& operator=(const BindingPool&) = delete;

  void Submit(std::function<void()> task);
  // Blocks until every submitted task has finished.
  void Drain();
  size_t InFlight() const;

 private:
  void Work();

  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  std::deque<std::function<void()>> tasks_;
  size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::jthread> threads_;
};

}  // namespace ksched::scheduler

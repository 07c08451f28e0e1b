#include "test/apiserver/delay_queue.h"

namespace ksched::testing::apiserver {

DelayQueue::DelayQueue() : thread_([this] { Run(); }) {}

DelayQueue::~DelayQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void DelayQueue::RunAfter(std::chrono::milliseconds delay,
                          std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.emplace(std::chrono::steady_clock::now() + delay, std::move(task));
  }
  wake_.notify_all();
}

void DelayQueue::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (tasks_.empty()) {
      if (stopping_) return;
      wake_.wait(lock);
      continue;
    }
    auto first = tasks_.begin();
    if (!stopping_ && std::chrono::steady_clock::now() < first->first) {
      wake_.wait_until(lock, first->first);
      continue;
    }
    std::function<void()> task = std::move(first->second);
    tasks_.erase(first);
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace ksched::testing::apiserver

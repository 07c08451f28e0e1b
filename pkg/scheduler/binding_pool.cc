#include "pkg/scheduler/binding_pool.h"

namespace ksched::scheduler {

BindingPool::BindingPool(int workers, size_t max_queued)
    : max_queued_(max_queued) {
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { Work(); });
}

BindingPool::~BindingPool() {
  Drain();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
}

void BindingPool::Submit(std::function<void()> task) {
  if (threads_.empty()) {
    RunPosted();
    task();
    return;
  }
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (max_queued_ > 0) {
      space_cv_.wait(lock,
                     [&] { return stopping_ || tasks_.size() < max_queued_; });
    }
    tasks_.push_back(std::move(task));
  }
  work_cv_.notify_one();
}

void BindingPool::Post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
  }
  if (!threads_.empty()) work_cv_.notify_one();
}

void BindingPool::RunPosted() {
  if (!threads_.empty()) return;
  while (true) {
    std::function<void()> task;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void BindingPool::Drain() {
  if (threads_.empty()) {
    RunPosted();
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [&] { return tasks_.empty() && running_ == 0; });
}

bool BindingPool::DrainFor(std::chrono::steady_clock::duration bound) {
  if (threads_.empty()) {
    RunPosted();
    return true;
  }
  std::unique_lock<std::mutex> lock(mu_);
  return idle_cv_.wait_for(lock, bound,
                           [&] { return tasks_.empty() && running_ == 0; });
}

size_t BindingPool::AbandonQueued() {
  size_t dropped = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    dropped = tasks_.size();
    tasks_.clear();
    if (running_ == 0) idle_cv_.notify_all();
  }
  space_cv_.notify_all();
  return dropped;
}

size_t BindingPool::InFlight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tasks_.size() + running_;
}

void BindingPool::Work() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping
      task = std::move(tasks_.front());
      tasks_.pop_front();
      ++running_;
    }
    space_cv_.notify_one();
    task();
    {
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
      if (tasks_.empty() && running_ == 0) idle_cv_.notify_all();
    }
  }
}

}  // namespace ksched::scheduler

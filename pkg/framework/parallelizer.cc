#include "pkg/framework/parallelizer.h"

#include <algorithm>
#include <cmath>

namespace ksched::framework {

Parallelizer::Parallelizer(int parallelism) {
  int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int workers = std::max(1, std::min(parallelism, hw));
  for (int i = 1; i < workers; ++i) {
    threads_.emplace_back([this] { WorkerLoop(); });
  }
}

Parallelizer::~Parallelizer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  // jthreads join on destruction.
}

void Parallelizer::RunChunks() {
  while (!stop_.load(std::memory_order_relaxed)) {
    int start = next_.fetch_add(chunk_, std::memory_order_relaxed);
    if (start >= n_) return;
    int end = std::min(n_, start + chunk_);
    for (int i = start; i < end; ++i) {
      if (!(*fn_)(i)) {
        stop_.store(true, std::memory_order_relaxed);
        return;
      }
    }
  }
}

void Parallelizer::WorkerLoop() {
  uint64_t seen = 0;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return stopping_ || job_id_ != seen; });
      if (stopping_) return;
      seen = job_id_;
    }
    RunChunks();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--active_ == 0) done_cv_.notify_one();
    }
  }
}

void Parallelizer::Until(int n, const std::function<bool(int)>& fn) {
  if (n <= 0) return;
  // Small jobs (and single-threaded pools) run inline: waking a worker costs
  // more than a few dozen plugin calls.
  constexpr int kInlineBelow = 32;
  if (threads_.empty() || n < kInlineBelow) {
    for (int i = 0; i < n; ++i) {
      if (!fn(i)) return;
    }
    return;
  }
  std::lock_guard<std::mutex> job_lock(job_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    fn_ = &fn;
    n_ = n;
    // chunkSizeFor in kube-scheduler: about sqrt(n), at most n/workers.
    int s = static_cast<int>(std::sqrt(static_cast<double>(n)));
    int per_worker = n / workers() + 1;
    chunk_ = std::max(1, std::min(s, per_worker));
    next_.store(0, std::memory_order_relaxed);
    stop_.store(false, std::memory_order_relaxed);
    active_ = static_cast<int>(threads_.size());
    ++job_id_;
  }
  work_cv_.notify_all();
  RunChunks();
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return active_ == 0; });
  fn_ = nullptr;
}

}  // namespace ksched::framework

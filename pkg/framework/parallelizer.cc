#include "pkg/framework/parallelizer.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace ksched::framework {

namespace {

// How long a worker polls for the next job before it parks: longer than
// the gap between the Filter and Score passes of a cycle, shorter than the
// gap between two pods' cycles. Polling longer keeps a core busy for
// nothing, which on a small machine is a core the API client and the
// binding threads need. Bounded by time, not by a count of pause
// instructions, whose cost differs tenfold between CPUs.
constexpr auto kJobSpin = std::chrono::microseconds(20);
// How long the caller polls for workers to finish their last chunk.
constexpr auto kDoneSpin = std::chrono::microseconds(50);
// CPU left by other processes (in cores, over the last fraction of a
// second) from which a job is shared at once: the caller's own core and
// half of another, so a woken worker runs on a core nobody else wanted.
// Below it the machine counts as busy.
constexpr double kFreeCoresToShare = 1.5;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Polls `done` for at most `budget`; whether it came true.
template <typename Done>
bool SpinFor(Done done, std::chrono::nanoseconds budget) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  while (true) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return done();
  }
}

}  // namespace

Parallelizer::Parallelizer(int parallelism,
                           std::unique_ptr<util::FreeCpu> free_cpu,
                           std::chrono::nanoseconds alone_for)
    : free_cpu_(free_cpu ? std::move(free_cpu)
                         : std::make_unique<util::ProcStatFreeCpu>()),
      alone_for_(alone_for) {
  // The first reading is a baseline; taking it now lets the first jobs,
  // a moment later, get an answer.
  free_cpu_->FreeCores();
  int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int workers = std::max(1, std::min(parallelism, hw));
  for (int i = 1; i < workers; ++i) {
    threads_.emplace_back([this] { WorkerLoop(); });
  }
}

Parallelizer::~Parallelizer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_.store(true);
  }
  work_cv_.notify_all();
  // jthreads join on destruction.
}

void Parallelizer::RunChunks() {
  while (!stop_.load(std::memory_order_relaxed)) {
    int start = next_.fetch_add(chunk_, std::memory_order_relaxed);
    if (start >= n_) return;
    int end = std::min(n_, start + chunk_);
    if (!(*fn_)(start, end)) {
      stop_.store(true, std::memory_order_relaxed);
      return;
    }
  }
}

bool Parallelizer::AwaitJob(uint64_t seen) {
  if (SpinFor(
          [&] {
            return stopping_.load(std::memory_order_relaxed) ||
                   job_id_.load(std::memory_order_acquire) != seen;
          },
          kJobSpin)) {
    return !stopping_.load(std::memory_order_relaxed);
  }
  std::unique_lock<std::mutex> lock(mu_);
  // seq_cst with the caller's job_id_ bump and sleepers_ check: either the
  // caller sees this sleeper and notifies, or this sees the new job.
  sleepers_.fetch_add(1);
  work_cv_.wait(lock,
                [&] { return stopping_.load() || job_id_.load() != seen; });
  sleepers_.fetch_sub(1);
  return !stopping_.load();
}

void Parallelizer::WorkerLoop() {
  uint64_t seen = 0;
  while (AwaitJob(seen)) {
    seen = job_id_.load(std::memory_order_acquire);
    RunChunks();
    if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mu_);
      done_cv_.notify_one();
    }
  }
}

void Parallelizer::Until(int n, const std::function<bool(int)>& fn) {
  UntilChunks(n, [&fn](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      if (!fn(i)) return false;
    }
    return true;
  });
}

void Parallelizer::UntilChunks(int n, const std::function<bool(int, int)>& fn) {
  if (n <= 0) return;
  // Small jobs (and single-threaded pools) run inline: handing work to a
  // worker costs more than a few dozen plugin calls.
  constexpr int kInlineBelow = 32;
  if (threads_.empty() || n < kInlineBelow) {
    // Chunks as a worker would see them, so callers behave the same.
    const int chunk = std::max(1, static_cast<int>(std::sqrt(n)));
    for (int begin = 0; begin < n; begin += chunk) {
      if (!fn(begin, std::min(n, begin + chunk))) return;
    }
    return;
  }
  std::lock_guard<std::mutex> job_lock(job_mu_);
  fn_ = &fn;
  n_ = n;
  // chunkSizeFor in kube-scheduler: about sqrt(n), at most n/workers.
  int s = static_cast<int>(std::sqrt(static_cast<double>(n)));
  int per_worker = n / workers() + 1;
  chunk_ = std::max(1, std::min(s, per_worker));
  next_.store(0, std::memory_order_relaxed);
  stop_.store(false, std::memory_order_relaxed);
  // On a busy machine, alone first: chunks are taken from next_ as the
  // workers will take them, so whoever joins later continues in list order.
  const bool share_at_once = free_cpu_->FreeCores() >= kFreeCoresToShare;
  const auto alone_until = std::chrono::steady_clock::now() + alone_for_;
  while (!share_at_once && !stop_.load(std::memory_order_relaxed)) {
    const int start = next_.fetch_add(chunk_, std::memory_order_relaxed);
    if (start >= n_) break;
    if (!fn(start, std::min(n_, start + chunk_))) {
      stop_.store(true, std::memory_order_relaxed);
      break;
    }
    if (std::chrono::steady_clock::now() >= alone_until) break;
  }
  if (stop_.load(std::memory_order_relaxed) ||
      next_.load(std::memory_order_relaxed) >= n_) {
    fn_ = nullptr;
    return;
  }
  active_.store(static_cast<int>(threads_.size()), std::memory_order_relaxed);
  job_id_.fetch_add(1);  // seq_cst: publishes the job
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    work_cv_.notify_all();
  }
  RunChunks();
  // Workers that are mid-chunk finish within microseconds: poll first.
  if (!SpinFor([&] { return active_.load(std::memory_order_acquire) == 0; },
               kDoneSpin)) {
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock,
                  [&] { return active_.load(std::memory_order_acquire) == 0; });
  }
  fn_ = nullptr;
}

}  // namespace ksched::framework

// Parallelizer: runs fn(0..n-1) over a fixed pool of worker threads, the
// calling thread included (parallelize.Parallelizer.Until).
//
// Workers are started once and parked between jobs: a scheduling cycle is
// tens of microseconds, so creating threads per cycle would cost more than
// the work. Waking a parked thread costs about as much again, so a worker
// that just finished a job spins briefly for the next one before it parks:
// the Filter and Score passes of a cycle, and consecutive cycles, follow
// each other closely. The pool never has more workers than hardware
// threads; extra threads would only add wake-ups on a small machine.
//
// Whether to share a job at all depends on the machine. Where other
// processes leave a core idle, sharing at once costs nobody and halves a
// cycle's latency. Where they keep the cores busy (on a small control-plane
// node, with the API server), each wake-up and poll is CPU taken from someone
// else, so the caller works alone for the first 50 us of a job and the many
// short jobs of a cycle wake nobody; longer jobs are still shared after that.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "pkg/util/free_cpu.h"

namespace ksched::framework {

class Parallelizer {
 public:
  // On a busy machine, how long the caller works alone before it hands
  // chunks to the workers. Waking a parked worker, and the worker's poll for
  // the next job after it, cost tens of microseconds of CPU; a job shorter
  // than this (a Filter pass that finds its feasible nodes in the first few
  // hundred, a Score pass over them) is cheaper done by one thread, and on a
  // machine shared with the API server the CPU saved is the server's. Longer
  // jobs still spread over every worker after this delay.
  static constexpr std::chrono::nanoseconds kAloneFor =
      std::chrono::microseconds(50);

  // `parallelism` is the configured degree (KubeSchedulerConfiguration
  // .parallelism); the pool uses min(parallelism, hardware threads).
  // `free_cpu` tells how much CPU other processes leave; null reads
  // /proc/stat. `alone_for` replaces kAloneFor (tests pick a budget that
  // never, or always, runs out, whatever the machine's load).
  explicit Parallelizer(int parallelism,
                        std::unique_ptr<util::FreeCpu> free_cpu = nullptr,
                        std::chrono::nanoseconds alone_for = kAloneFor);
  ~Parallelizer();
  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  // Calls fn(i) for every i in [0, n) and returns when all calls returned.
  // fn may return false to stop early: indices not yet started are skipped.
  // Calls are spread in chunks; order across threads is unspecified.
  void Until(int n, const std::function<bool(int)>& fn);
  // As Until, handing out whole chunks: fn(begin, end) covers [begin, end)
  // and returns false to stop. Callers that gather results per chunk touch
  // shared state once per chunk rather than once per index.
  void UntilChunks(int n, const std::function<bool(int, int)>& fn);

  int workers() const { return static_cast<int>(threads_.size()) + 1; }

 private:
  void WorkerLoop();
  void RunChunks();
  // Waits, spinning first, until job_id_ moves past `seen` or the pool
  // stops; returns false when it stops.
  bool AwaitJob(uint64_t seen);

  std::unique_ptr<util::FreeCpu> free_cpu_;
  const std::chrono::nanoseconds alone_for_;
  std::vector<std::jthread> threads_;

  // Parking: a worker registers in sleepers_ and waits on work_cv_ under
  // mu_; a caller that bumped job_id_ notifies only when someone sleeps.
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::atomic<uint64_t> job_id_{0};
  std::atomic<bool> stopping_{false};
  std::atomic<int> sleepers_{0};
  std::atomic<int> active_{0};  // workers still inside the current job

  // The current job; written before job_id_ is bumped (release) and read
  // after it is seen (acquire).
  const std::function<bool(int, int)>* fn_ = nullptr;
  int n_ = 0;
  int chunk_ = 1;
  std::atomic<int> next_{0};
  std::atomic<bool> stop_{false};
  std::mutex job_mu_;  // one job at a time
};

}  // namespace ksched::framework

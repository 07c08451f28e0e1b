// FreeCpu: how many of the machine's CPUs other processes left unused
// lately.
//
// The Parallelizer asks before it wakes its workers: waking costs CPU, and
// a core taken from a busy machine is a core the API server (often on the
// same control-plane node) does not get; a core nobody else wants costs
// nobody. The process's own use does not count as busy: its workers'
// polling would otherwise make sharing look too dear the moment it began.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace ksched::util {

class FreeCpu {
 public:
  virtual ~FreeCpu() = default;
  // CPUs that other processes left unused, averaged over a recent
  // interval: 0 when others saturate the machine, up to the number of CPUs
  // when this process is alone on it.
  virtual double FreeCores() = 0;
};

// Reads the aggregate "cpu" line of /proc/stat (all CPUs' time in clock
// ticks) and this process's CPU time at most once per `refresh`, and
// answers from the difference between the last two reads. Until two reads
// exist, and where /proc/stat cannot be read, it answers 0 (busy): the
// choice that costs no CPU.
class ProcStatFreeCpu : public FreeCpu {
 public:
  // `self_cpu` gives this process's CPU time so far (getrusage by default).
  explicit ProcStatFreeCpu(
      std::string path = "/proc/stat",
      std::chrono::milliseconds refresh = std::chrono::milliseconds(200),
      std::function<std::chrono::microseconds()> self_cpu = nullptr);
  double FreeCores() override;

 private:
  struct Sample {
    uint64_t idle_ticks = 0;
    uint64_t total_ticks = 0;  // over all CPUs
    std::chrono::microseconds self{0};
  };
  bool Read(Sample* out) const;

  const std::string path_;
  const std::chrono::milliseconds refresh_;
  const std::function<std::chrono::microseconds()> self_cpu_;
  const int cpus_;
  const double ticks_per_second_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point next_read_{};
  Sample last_;
  bool have_last_ = false;
  double free_cores_ = 0;
};

// A fixed answer, for tests and for callers that know better.
class FixedFreeCpu : public FreeCpu {
 public:
  explicit FixedFreeCpu(double cores) : cores_(cores) {}
  double FreeCores() override { return cores_; }

 private:
  double cores_;
};

}  // namespace ksched::util

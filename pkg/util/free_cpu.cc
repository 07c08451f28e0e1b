#include "pkg/util/free_cpu.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <thread>

namespace ksched::util {

namespace {

std::chrono::microseconds ProcessCpuTime() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return {};
  auto us = [](const timeval& t) {
    return std::chrono::seconds(t.tv_sec) +
           std::chrono::microseconds(t.tv_usec);
  };
  return us(usage.ru_utime) + us(usage.ru_stime);
}

}  // namespace

ProcStatFreeCpu::ProcStatFreeCpu(
    std::string path, std::chrono::milliseconds refresh,
    std::function<std::chrono::microseconds()> self_cpu)
    : path_(std::move(path)),
      refresh_(refresh),
      self_cpu_(self_cpu ? std::move(self_cpu) : ProcessCpuTime),
      cpus_(
          static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
      ticks_per_second_(
          static_cast<double>(std::max(1L, sysconf(_SC_CLK_TCK)))) {}

bool ProcStatFreeCpu::Read(Sample* out) const {
  // One small read of a kernel-generated file; stdio keeps it to a few
  // system calls.
  std::FILE* f = std::fopen(path_.c_str(), "re");
  if (f == nullptr) return false;
  unsigned long long v[8] = {};
  // cpu  user nice system idle iowait irq softirq steal (guest time is
  // already part of user).
  const int got =
      std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
                  &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
  std::fclose(f);
  if (got < 4) return false;
  out->idle_ticks = v[3] + (got > 4 ? v[4] : 0);
  out->total_ticks = 0;
  for (int i = 0; i < got; ++i) out->total_ticks += v[i];
  out->self = self_cpu_();
  return true;
}

double ProcStatFreeCpu::FreeCores() {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  if (now < next_read_) return free_cores_;
  next_read_ = now + refresh_;
  Sample sample;
  if (!Read(&sample)) {
    free_cores_ = 0;
    return free_cores_;
  }
  if (have_last_ && sample.total_ticks > last_.total_ticks &&
      sample.idle_ticks >= last_.idle_ticks) {
    const double total =
        static_cast<double>(sample.total_ticks - last_.total_ticks);
    const double busy =
        total - static_cast<double>(sample.idle_ticks - last_.idle_ticks);
    // The interval's length, from the ticks themselves: every CPU adds
    // ticks_per_second_ a second.
    const double seconds = total / cpus_ / ticks_per_second_;
    const double self_cores =
        std::chrono::duration<double>(sample.self - last_.self).count() /
        seconds;
    const double others_cores = busy / total * cpus_ - self_cores;
    free_cores_ =
        std::clamp(cpus_ - others_cores, 0.0, static_cast<double>(cpus_));
  }
  last_ = sample;
  have_last_ = true;
  return free_cores_;
}

}  // namespace ksched::util

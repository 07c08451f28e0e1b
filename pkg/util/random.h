// Random seam: host selection breaks ties at random; tests fix the sequence.
#pragma once

#include <cstdint>
#include <mutex>
#include <random>

namespace ksched::util {

class Random {
 public:
  virtual ~Random() = default;
  // Uniform in [0, n); n > 0.
  virtual uint64_t Intn(uint64_t n) = 0;
};

class DefaultRandom final : public Random {
 public:
  DefaultRandom() : engine_(std::random_device{}()) {}
  explicit DefaultRandom(uint64_t seed) : engine_(seed) {}
  uint64_t Intn(uint64_t n) override {
    std::lock_guard<std::mutex> lock(mu_);
    return std::uniform_int_distribution<uint64_t>(0, n - 1)(engine_);
  }

 private:
  std::mutex mu_;
  std::mt19937_64 engine_;
};

}  // namespace ksched::util

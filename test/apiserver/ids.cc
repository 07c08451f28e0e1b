#include "test/apiserver/ids.h"

#include <cstdio>
#include <ctime>

namespace ksched::testing::apiserver {

IdSource::IdSource() : rng_(std::random_device{}()) {}

std::string IdSource::NewUid() {
  uint64_t hi;
  uint64_t lo;
  {
    std::lock_guard<std::mutex> lock(mu_);
    hi = rng_();
    lo = rng_();
  }
  hi = (hi & ~0xF000ULL) | 0x4000ULL;                         // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // variant
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF),
                static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

std::string IdSource::NameSuffix() {
  // Consonants and digits only, so that no words form.
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < 5; ++i) out.push_back(kAlphabet[rng_() % 27]);
  return out;
}

double IdSource::Uniform() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
}

std::string Rfc3339(std::chrono::system_clock::time_point t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string Rfc3339Now() { return Rfc3339(std::chrono::system_clock::now()); }

}  // namespace ksched::testing::apiserver

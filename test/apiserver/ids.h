// Identifiers and clocks the server stamps on objects: UIDs, names for
// generateName, and RFC 3339 timestamps as metav1.Time prints them.
#pragma once

#include <chrono>
#include <mutex>
#include <random>
#include <string>

namespace ksched::testing::apiserver {

class IdSource {
 public:
  IdSource();

  // A random RFC 4122 version 4 UUID.
  std::string NewUid();
  // Five characters from the alphabet generateName draws from.
  std::string NameSuffix();
  // A number in [0, 1), for fault probabilities.
  double Uniform();

 private:
  std::mutex mu_;
  std::mt19937_64 rng_;
};

// "2026-11-21T19:38:35Z": seconds precision, UTC.
std::string Rfc3339(std::chrono::system_clock::time_point t);
std::string Rfc3339Now();

}  // namespace ksched::testing::apiserver

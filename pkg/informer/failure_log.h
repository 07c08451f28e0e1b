// FailureLog: how informers report that the API server does not answer,
// shared by all the informers of a process.
//
// When the server is unreachable every informer fails at once and then
// again at each backoff; a line per failure would bury the cause. So the
// first failure of an outage is a warning, naming the informer, the URL
// and the cause; the failures after it are logged at --v 2 only; and the
// first success after an outage says how many attempts failed meanwhile.
#pragma once

#include <mutex>
#include <string>

#include "pkg/util/logger.h"

namespace ksched::informer {

class FailureLog {
 public:
  explicit FailureLog(util::Logger& log) : log_(log) {}

  // A LIST or WATCH (`what`) of `informer` failed with `error`.
  void Failed(const std::string& informer, const std::string& what,
              const std::string& error);
  // A LIST or WATCH of `informer` got its answer.
  void Succeeded(const std::string& informer);

 private:
  util::Logger& log_;
  std::mutex mu_;
  int failures_ = 0;  // since the last success
};

}  // namespace ksched::informer

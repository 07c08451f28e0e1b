#include "pkg/informer/failure_log.h"

namespace ksched::informer {

void FailureLog::Failed(const std::string& informer, const std::string& what,
                        const std::string& error) {
  int failures;
  {
    std::lock_guard lock(mu_);
    failures = ++failures_;
  }
  const std::string line =
      "informer " + informer + ": " + what + " failed: " + error;
  if (failures == 1) {
    log_.Warning(line +
                 " (retrying with backoff; further failures are logged at "
                 "--v 2 until the API server answers)");
  } else {
    log_.Info(2, line);
  }
}

void FailureLog::Succeeded(const std::string& informer) {
  int failures;
  {
    std::lock_guard lock(mu_);
    failures = failures_;
    failures_ = 0;
  }
  if (failures > 0) {
    log_.Info(0, "informer " + informer +
                     ": the API server answers again, after " +
                     std::to_string(failures) + " failed list or watch " +
                     (failures == 1 ? "attempt" : "attempts"));
  }
}

}  // namespace ksched::informer

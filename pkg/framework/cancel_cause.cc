#include "pkg/framework/cancel_cause.h"

namespace ksched::framework {

void CancelCause::Cancel(const std::string& cause) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_.load(std::memory_order_relaxed)) return;
  // Cancelled by the parent already: that cause stands, as a Go context
  // the parent's cancellation reached first keeps it.
  cause_ =
      parent_ != nullptr && parent_->cancelled() ? parent_->cause() : cause;
  cancelled_.store(true, std::memory_order_release);
}

bool CancelCause::cancelled() const {
  return cancelled_.load(std::memory_order_acquire) ||
         (parent_ != nullptr && parent_->cancelled());
}

std::string CancelCause::cause() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_.load(std::memory_order_relaxed)) return cause_;
  }
  return parent_ != nullptr ? parent_->cause() : std::string();
}

}  // namespace ksched::framework

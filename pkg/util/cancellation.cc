#include "pkg/util/cancellation.h"

#include <utility>

namespace ksched::util {

Cancellation::Registration& Cancellation::Registration::operator=(
    Registration&& other) noexcept {
  if (this != &other) {
    Reset();
    owner_ = std::exchange(other.owner_, nullptr);
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

void Cancellation::Registration::Reset() {
  if (owner_ != nullptr) owner_->Unregister(id_);
  owner_ = nullptr;
}

void Cancellation::Cancel() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_) return;
  cancelled_ = true;
  for (auto& [id, fn] : callbacks_) fn();
  callbacks_.clear();
  cv_.notify_all();
}

bool Cancellation::cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

Cancellation::Registration Cancellation::OnCancel(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_) {
    fn();
    return Registration();
  }
  const uint64_t id = next_id_++;
  callbacks_.emplace(id, std::move(fn));
  return Registration(this, id);
}

void Cancellation::Unregister(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  callbacks_.erase(id);
}

bool Cancellation::WaitFor(std::chrono::nanoseconds duration) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, duration, [this] { return cancelled_; });
}

}  // namespace ksched::util

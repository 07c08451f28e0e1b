#include "pkg/framework/waiting_pods.h"

#include "pkg/config/duration.h"

namespace ksched::framework {

WaitingPod::WaitingPod(
    PodInfoPtr pod,
    std::vector<std::pair<std::string, std::chrono::milliseconds>> timeouts,
    util::Clock::TimePoint now)
    : pod_(std::move(pod)), started_(now) {
  for (const auto& [plugin, timeout] : timeouts) {
    pending_[plugin] = now + timeout;
    timeouts_[plugin] = timeout;
  }
  done_ = pending_.empty();
}

std::vector<std::string> WaitingPod::PendingPlugins() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [plugin, deadline] : pending_) out.push_back(plugin);
  return out;
}

void WaitingPod::Allow(const std::string& plugin) {
  std::function<void()> on_done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (done_) return;
    pending_.erase(plugin);
    if (!pending_.empty()) return;
    done_ = true;
    result_ = Status();
    on_done = std::move(on_done_);
    cv_.notify_all();
  }
  if (on_done) on_done();
}

bool WaitingPod::Reject(const std::string& plugin, const std::string& message) {
  return StopWith(Code::kUnschedulable, plugin, message);
}

bool WaitingPod::Preempt(const std::string& plugin,
                         const std::string& message) {
  return StopWith(Code::kError, plugin, message);
}

bool WaitingPod::StopWith(Code code, const std::string& plugin,
                          const std::string& message) {
  std::function<void()> on_done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (done_) return false;
    done_ = true;
    result_ = Status(code, message);
    result_.WithPlugin(plugin);
    on_done = std::move(on_done_);
    cv_.notify_all();
  }
  if (on_done) on_done();
  return true;
}

void WaitingPod::OnDone(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!done_) {
      on_done_ = std::move(fn);
      return;
    }
  }
  fn();
}

void WaitingPod::ExpireAt(util::Clock::TimePoint now) {
  std::string expired;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (done_) return;
    for (const auto& [plugin, deadline] : pending_) {
      if (deadline <= now) {
        expired = plugin;
        break;
      }
    }
  }
  if (!expired.empty()) {
    Reject(expired, "rejected due to timeout after waiting " +
                        config::FormatGoDuration(timeouts_.at(expired)) +
                        " at plugin " + expired);
  }
}

util::Clock::TimePoint WaitingPod::NextDeadline() const {
  std::lock_guard<std::mutex> lock(mu_);
  util::Clock::TimePoint next = util::Clock::TimePoint::max();
  for (const auto& [plugin, deadline] : pending_)
    next = std::min(next, deadline);
  return next;
}

Status WaitingPod::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return done_; });
  return result_;
}

bool WaitingPod::Done() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

void WaitingPods::Add(std::shared_ptr<WaitingPod> pod) {
  std::lock_guard<std::mutex> lock(mu_);
  pods_[pod->pod().metadata.uid] = std::move(pod);
}

void WaitingPods::Remove(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  pods_.erase(uid);
}

std::shared_ptr<WaitingPod> WaitingPods::Get(const std::string& uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : it->second;
}

void WaitingPods::ForEach(const std::function<void(WaitingPod&)>& fn) const {
  std::vector<std::shared_ptr<WaitingPod>> pods;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [uid, pod] : pods_) pods.push_back(pod);
  }
  for (const auto& pod : pods) fn(*pod);
}

void WaitingPods::ExpireAt(util::Clock::TimePoint now) const {
  ForEach([now](WaitingPod& p) { p.ExpireAt(now); });
}

}  // namespace ksched::framework

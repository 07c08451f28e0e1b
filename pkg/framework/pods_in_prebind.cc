#include "pkg/framework/pods_in_prebind.h"

namespace ksched::framework {

bool PodInPreBind::CancelPod(const std::string& cause) {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return false;
  cancellation_.Cancel(cause);  // the first cause stands
  return true;
}

bool PodInPreBind::MarkPrebound() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancellation_.cancelled()) return false;
  finished_ = true;
  return true;
}

std::shared_ptr<PodInPreBind> PodsInPreBind::Add(const std::string& uid) {
  auto entry = std::make_shared<PodInPreBind>();
  std::lock_guard<std::mutex> lock(mu_);
  pods_[uid] = entry;
  return entry;
}

void PodsInPreBind::Remove(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  pods_.erase(uid);
}

void PodsInPreBind::CancelAll(const std::string& cause) {
  std::map<std::string, std::shared_ptr<PodInPreBind>> pods;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pods = pods_;
  }
  for (const auto& [uid, pod] : pods) pod->CancelPod(cause);
}

std::shared_ptr<PodInPreBind> PodsInPreBind::Get(const std::string& uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : it->second;
}

}  // namespace ksched::framework

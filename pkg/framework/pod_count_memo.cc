#include "pkg/framework/pod_count_memo.h"

namespace ksched::framework {

uint32_t PodCountKeys::Intern(std::string_view question) {
  std::lock_guard<std::mutex> lock(mu_);
  auto found = ids_.find(question);
  if (found != ids_.end()) return found->second;
  if (ids_.size() >= kMaxKeys) return 0;
  const auto id = static_cast<uint32_t>(ids_.size() + 1);
  ids_.emplace(std::string(question), id);
  return id;
}

}  // namespace ksched::framework

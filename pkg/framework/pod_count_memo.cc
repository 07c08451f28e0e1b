#include "pkg/framework/pod_count_memo.h"

namespace ksched::framework {

uint32_t PodCountKeys::Intern(std::string_view question) {
  std::lock_guard<std::mutex> lock(mu_);
  auto found = ids_.find(question);
  if (found != ids_.end()) return found->second;
  if (next_id_ == 0) return 0;  // every id has been given out
  if (ids_.size() >= kMaxKeys) ids_.clear();
  const uint32_t id = next_id_++;
  ids_.emplace(std::string(question), id);
  return id;
}

}  // namespace ksched::framework

#include "pkg/framework/types.h"

#include <algorithm>
#include <map>

namespace ksched::framework {

PreFilterResult PreFilterResult::Merge(const PreFilterResult& other) const {
  if (AllNodes()) return other;
  if (other.AllNodes()) return *this;
  PreFilterResult out;
  out.node_names.emplace();
  for (const std::string& n : *node_names) {
    if (other.node_names->count(n)) out.node_names->insert(n);
  }
  return out;
}

const Status& NodeToStatus::Get(const std::string& node) const {
  auto it = statuses_.find(node);
  return it == statuses_.end() ? absent_ : it->second;
}

const Status* NodeToStatus::Find(const std::string& node) const {
  auto it = statuses_.find(node);
  return it == statuses_.end() ? nullptr : &it->second;
}

std::string FitErrorMessage(int num_all_nodes, const Diagnosis& d) {
  std::string msg =
      "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  if (!d.pre_filter_msg.empty()) {
    // PreFilter failures are reported once, not once per node.
    msg += " " + d.pre_filter_msg + ".";
  } else {
    std::map<std::string, int> counts;
    for (const auto& [node, status] : d.node_to_status.explicit_statuses()) {
      for (const std::string& reason : status.reasons()) ++counts[reason];
    }
    int absent = num_all_nodes - static_cast<int>(d.node_to_status.size());
    if (absent > 0) {
      for (const std::string& reason : d.node_to_status.absent().reasons()) {
        counts[reason] += absent;
      }
    }
    // kube-scheduler sorts the "<count> <reason>" strings themselves.
    std::vector<std::string> parts;
    parts.reserve(counts.size());
    for (const auto& [reason, count] : counts) {
      parts.push_back(std::to_string(count) + " " + reason);
    }
    std::sort(parts.begin(), parts.end());
    if (!parts.empty()) {
      msg += " ";
      for (size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) msg += ", ";
        msg += parts[i];
      }
      msg += ".";
    }
  }
  if (!d.post_filter_msg.empty()) msg += " " + d.post_filter_msg;
  return msg;
}

}  // namespace ksched::framework

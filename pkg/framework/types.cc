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

size_t NodeToStatus::SlotOf(std::string_view node, size_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint32_t at = slots_[i];
    if (at == 0) return i;
    if (hashes_[at - 1] == hash && entries_[at - 1].node == node) return i;
  }
}

void NodeToStatus::Grow() {
  size_t size = slots_.empty() ? 16 : slots_.size() * 2;
  while (size < 2 * (entries_.size() + 1)) size *= 2;
  slots_.assign(size, 0);
  for (size_t e = 0; e < entries_.size(); ++e) {
    slots_[SlotOf(entries_[e].node, hashes_[e])] = static_cast<uint32_t>(e + 1);
  }
}

void NodeToStatus::Reserve(size_t nodes) {
  entries_.reserve(nodes);
  hashes_.reserve(nodes);
  if (slots_.size() < 2 * nodes) {
    size_t size = 16;
    while (size < 2 * nodes) size *= 2;
    slots_.assign(size, 0);
    for (size_t e = 0; e < entries_.size(); ++e) {
      slots_[SlotOf(entries_[e].node, hashes_[e])] =
          static_cast<uint32_t>(e + 1);
    }
  }
}

void NodeToStatus::Set(const std::string& node, Status status) {
  if (2 * (entries_.size() + 1) > slots_.size()) Grow();
  const size_t hash = std::hash<std::string_view>()(node);
  const size_t slot = SlotOf(node, hash);
  if (slots_[slot] != 0) {
    entries_[slots_[slot] - 1].status = std::move(status);
    return;
  }
  entries_.push_back({node, std::move(status)});
  hashes_.push_back(hash);
  slots_[slot] = static_cast<uint32_t>(entries_.size());
}

const Status* NodeToStatus::Find(const std::string& node) const {
  if (entries_.empty()) return nullptr;
  const uint32_t at = slots_[SlotOf(node, std::hash<std::string_view>()(node))];
  return at == 0 ? nullptr : &entries_[at - 1].status;
}

const Status& NodeToStatus::Get(const std::string& node) const {
  const Status* status = Find(node);
  return status != nullptr ? *status : absent_;
}

std::string FitErrorMessage(int num_all_nodes, const Diagnosis& d) {
  std::string msg =
      "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  if (!d.pre_filter_msg.empty()) {
    // PreFilter failures are reported once, not once per node.
    msg += " " + d.pre_filter_msg + ".";
  } else {
    std::map<std::string, int> counts;
    for (const NodeToStatus::Entry& entry : d.node_to_status.entries()) {
      for (const std::string& reason : entry.status.reasons()) ++counts[reason];
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

#include "pkg/framework/node_info.h"

#include <algorithm>

namespace ksched::framework {

void NodeInfo::SetNode(std::shared_ptr<const api::Node> node) {
  // Memoised answers may depend on the node's labels (see pod_count_memo.h).
  pod_counts_.Clear();
  node_ = std::move(node);
  name_ = node_->metadata.name;
  unschedulable_ = node_->spec.unschedulable;
  has_taints_ = !node_->spec.taints.empty();
  hostname_label_ = node_->metadata.labels.Find(kLabelHostname);
  zone_label_ = node_->metadata.labels.Find(kLabelTopologyZone);
  hostname_hash_ = hostname_label_ ? LabelValueHash(*hostname_label_) : 0;
  zone_hash_ = zone_label_ ? LabelValueHash(*zone_label_) : 0;
  allocatable_ = Resource::FromList(node_->status.allocatable);
}

void NodeInfo::RemoveNode() {
  pod_counts_.Clear();
  node_.reset();
  name_.clear();
  unschedulable_ = false;
  has_taints_ = false;
  hostname_label_ = nullptr;
  zone_label_ = nullptr;
  hostname_hash_ = 0;
  zone_hash_ = 0;
}

void NodeInfo::Account(const PodInfo& info, int64_t sign) {
  const PodResource& r = info.resource();
  requested_.milli_cpu += sign * r.requests.milli_cpu;
  requested_.memory += sign * r.requests.memory;
  requested_.ephemeral_storage += sign * r.requests.ephemeral_storage;
  for (const auto& [name, value] : r.requests.scalar_resources) {
    requested_.AddScalar(name, sign * value);
  }
  non_zero_requested_.milli_cpu += sign * r.non_zero_milli_cpu;
  non_zero_requested_.memory += sign * r.non_zero_memory;

  for (const api::ContainerPort& p : info.host_ports()) {
    if (sign > 0) {
      used_ports_.Add(p.host_ip, p.protocol, p.host_port);
    } else {
      used_ports_.Remove(p.host_ip, p.protocol, p.host_port);
    }
  }
  for (const std::string& claim : info.claim_names()) {
    std::string key = info.ns() + "/" + claim;
    int* count = pvc_ref_counts_.Find(key);
    int next = (count ? *count : 0) + static_cast<int>(sign);
    if (next <= 0) {
      pvc_ref_counts_.Erase(key);
    } else {
      pvc_ref_counts_.Set(key, next);
    }
  }
}

void NodeInfo::AddPod(PodInfoPtr pod) {
  pod_counts_.Clear();
  if (pod->WithAffinity()) pods_with_affinity_.push_back(pod);
  if (pod->WithRequiredAntiAffinity()) {
    pods_with_required_anti_affinity_.push_back(pod);
  }
  Account(*pod, +1);
  pods_.push_back(std::move(pod));
}

bool NodeInfo::RemovePod(std::string_view uid) {
  pod_counts_.Clear();
  auto by_uid = [&](const PodInfoPtr& p) { return p->uid() == uid; };
  std::erase_if(pods_with_affinity_, by_uid);
  std::erase_if(pods_with_required_anti_affinity_, by_uid);
  auto it = std::find_if(pods_.begin(), pods_.end(), by_uid);
  if (it == pods_.end()) return false;
  Account(**it, -1);
  // Order does not matter to any reader; swap-and-pop keeps removal O(1).
  std::iter_swap(it, pods_.end() - 1);
  pods_.pop_back();
  return true;
}

}  // namespace ksched::framework

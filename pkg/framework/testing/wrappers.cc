#include "pkg/framework/testing/wrappers.h"

#include <cstdlib>
#include <iostream>

namespace ksched::testing {

api::ResourceList MakeResourceList(const ResourcePairs& pairs) {
  api::ResourceList list;
  for (const auto& [name, text] : pairs) {
    auto q = api::Quantity::Parse(text);
    if (!q.ok()) {
      std::cerr << "bad test quantity " << text << ": " << q.error().message()
                << "\n";
      std::abort();
    }
    list.Set(name, *q);
  }
  return list;
}

PodBuilder::PodBuilder(std::string name) {
  pod_.metadata.name = std::move(name);
  pod_.metadata.ns = "default";
  pod_.metadata.uid = pod_.metadata.name + "-uid";
}

PodBuilder& PodBuilder::Namespace(std::string ns) {
  pod_.metadata.ns = std::move(ns);
  return *this;
}
PodBuilder& PodBuilder::Uid(std::string uid) {
  pod_.metadata.uid = std::move(uid);
  return *this;
}
PodBuilder& PodBuilder::Label(std::string key, std::string value) {
  pod_.metadata.labels.Set(key, std::move(value));
  return *this;
}
PodBuilder& PodBuilder::Node(std::string node_name) {
  pod_.spec.node_name = std::move(node_name);
  return *this;
}
PodBuilder& PodBuilder::SchedulerName(std::string name) {
  pod_.spec.scheduler_name = std::move(name);
  return *this;
}
PodBuilder& PodBuilder::Priority(int32_t priority) {
  pod_.spec.priority = priority;
  return *this;
}
PodBuilder& PodBuilder::PreemptionPolicy(api::PreemptionPolicy policy) {
  pod_.spec.preemption_policy = policy;
  return *this;
}
PodBuilder& PodBuilder::NominatedNode(std::string node) {
  pod_.status.nominated_node_name = std::move(node);
  return *this;
}
PodBuilder& PodBuilder::CreationSeconds(int64_t seconds) {
  pod_.metadata.creation_timestamp.value =
      api::Timestamp(std::chrono::seconds(seconds));
  return *this;
}
PodBuilder& PodBuilder::Terminating() {
  pod_.metadata.deletion_timestamp =
      api::Time{api::Timestamp(std::chrono::seconds(1))};
  return *this;
}

PodBuilder& PodBuilder::Req(const ResourcePairs& requests) {
  api::Container c;
  c.name = "c" + std::to_string(pod_.spec.containers.size());
  c.resources.requests = MakeResourceList(requests);
  pod_.spec.containers.push_back(std::move(c));
  return *this;
}
PodBuilder& PodBuilder::ReqLim(const ResourcePairs& requests,
                               const ResourcePairs& limits) {
  Req(requests);
  pod_.spec.containers.back().resources.limits = MakeResourceList(limits);
  return *this;
}
PodBuilder& PodBuilder::InitReq(const ResourcePairs& requests) {
  api::Container c;
  c.name = "init" + std::to_string(pod_.spec.init_containers.size());
  c.resources.requests = MakeResourceList(requests);
  pod_.spec.init_containers.push_back(std::move(c));
  return *this;
}
PodBuilder& PodBuilder::SidecarReq(const ResourcePairs& requests) {
  InitReq(requests);
  pod_.spec.init_containers.back().restart_policy = "Always";
  return *this;
}
PodBuilder& PodBuilder::Overhead(const ResourcePairs& overhead) {
  pod_.spec.overhead = MakeResourceList(overhead);
  return *this;
}
PodBuilder& PodBuilder::PodLevelReq(const ResourcePairs& requests) {
  if (!pod_.spec.resources) pod_.spec.resources.emplace();
  pod_.spec.resources->requests = MakeResourceList(requests);
  return *this;
}
PodBuilder& PodBuilder::StatusResources(const std::string& container,
                                        const ResourcePairs& applied,
                                        const ResourcePairs& allocated) {
  api::ContainerStatus status;
  status.name = container;
  status.resources.emplace().requests = MakeResourceList(applied);
  status.allocated_resources = MakeResourceList(allocated);
  // Init containers report in their own list, as the kubelet does.
  bool init = false;
  for (const api::Container& c : pod_.spec.init_containers) {
    if (c.name == container) init = true;
  }
  (init ? pod_.status.init_container_statuses : pod_.status.container_statuses)
      .push_back(std::move(status));
  return *this;
}
PodBuilder& PodBuilder::ResizePending(std::string reason) {
  api::PodCondition c;
  c.type = std::string(api::kPodResizePending);
  c.status = "True";
  c.reason = std::move(reason);
  pod_.status.conditions.push_back(std::move(c));
  return *this;
}
PodBuilder& PodBuilder::Image(std::string image) {
  api::Container c;
  c.name = "c" + std::to_string(pod_.spec.containers.size());
  c.image = std::move(image);
  pod_.spec.containers.push_back(std::move(c));
  return *this;
}

api::Container& PodBuilder::LastContainer() {
  if (pod_.spec.containers.empty()) {
    api::Container c;
    c.name = "c0";
    pod_.spec.containers.push_back(std::move(c));
  }
  return pod_.spec.containers.back();
}

PodBuilder& PodBuilder::ContainerPort(int32_t host_port, std::string protocol,
                                      std::string host_ip,
                                      int32_t container_port) {
  api::ContainerPort p;
  p.host_port = host_port;
  p.container_port = container_port;
  p.protocol = std::move(protocol);
  p.host_ip = std::move(host_ip);
  LastContainer().ports.push_back(std::move(p));
  return *this;
}

PodBuilder& PodBuilder::Toleration(std::string key, std::string value,
                                   api::TaintEffect effect,
                                   api::TolerationOperator op) {
  api::Toleration t;
  t.key = std::move(key);
  t.value = std::move(value);
  t.effect = effect;
  t.op = op;
  pod_.spec.tolerations.push_back(std::move(t));
  return *this;
}

PodBuilder& PodBuilder::NodeSelector(std::string key, std::string value) {
  pod_.spec.node_selector.Set(key, std::move(value));
  return *this;
}

api::Affinity& PodBuilder::MutableAffinity() {
  if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
  return *pod_.spec.affinity;
}

PodBuilder& PodBuilder::NodeAffinityTerm(std::string key,
                                         api::NodeSelectorOperator op,
                                         std::vector<std::string> values) {
  api::Affinity& a = MutableAffinity();
  if (!a.node_affinity) a.node_affinity.emplace();
  if (!a.node_affinity->required) a.node_affinity->required.emplace();
  api::NodeSelectorTerm term;
  term.match_expressions.push_back({std::move(key), op, std::move(values)});
  a.node_affinity->required->node_selector_terms.push_back(std::move(term));
  return *this;
}

PodBuilder& PodBuilder::NodeAffinityFieldTerm(std::string key,
                                              api::NodeSelectorOperator op,
                                              std::vector<std::string> values) {
  api::Affinity& a = MutableAffinity();
  if (!a.node_affinity) a.node_affinity.emplace();
  if (!a.node_affinity->required) a.node_affinity->required.emplace();
  api::NodeSelectorTerm term;
  term.match_fields.push_back({std::move(key), op, std::move(values)});
  a.node_affinity->required->node_selector_terms.push_back(std::move(term));
  return *this;
}

PodBuilder& PodBuilder::PreferredNodeAffinity(int32_t weight, std::string key,
                                              api::NodeSelectorOperator op,
                                              std::vector<std::string> values) {
  api::Affinity& a = MutableAffinity();
  if (!a.node_affinity) a.node_affinity.emplace();
  api::PreferredSchedulingTerm t;
  t.weight = weight;
  t.preference.match_expressions.push_back(
      {std::move(key), op, std::move(values)});
  a.node_affinity->preferred.push_back(std::move(t));
  return *this;
}

namespace {
api::PodAffinityTerm MakeTerm(std::string topology_key, std::string label_key,
                              std::string label_value) {
  api::PodAffinityTerm term;
  term.topology_key = std::move(topology_key);
  term.label_selector.emplace();
  term.label_selector->match_labels.Set(label_key, std::move(label_value));
  return term;
}
}  // namespace

PodBuilder& PodBuilder::PodAffinity(std::string topology_key,
                                    std::string label_key,
                                    std::string label_value, bool anti) {
  api::Affinity& a = MutableAffinity();
  auto& target = anti ? a.pod_anti_affinity : a.pod_affinity;
  if (!target) target.emplace();
  target->required.push_back(MakeTerm(
      std::move(topology_key), std::move(label_key), std::move(label_value)));
  return *this;
}

PodBuilder& PodBuilder::PreferredPodAffinity(int32_t weight,
                                             std::string topology_key,
                                             std::string label_key,
                                             std::string label_value,
                                             bool anti) {
  api::Affinity& a = MutableAffinity();
  auto& target = anti ? a.pod_anti_affinity : a.pod_affinity;
  if (!target) target.emplace();
  target->preferred.push_back(
      {weight, MakeTerm(std::move(topology_key), std::move(label_key),
                        std::move(label_value))});
  return *this;
}

PodBuilder& PodBuilder::SpreadConstraint(
    int32_t max_skew, std::string topology_key,
    api::UnsatisfiableConstraintAction action, std::string label_key,
    std::string label_value) {
  api::TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = std::move(topology_key);
  c.when_unsatisfiable = action;
  c.label_selector.emplace();
  c.label_selector->match_labels.Set(label_key, std::move(label_value));
  pod_.spec.topology_spread_constraints.push_back(std::move(c));
  return *this;
}

PodBuilder& PodBuilder::EphemeralVolume(std::string volume) {
  api::Volume v;
  v.name = std::move(volume);
  v.ephemeral.emplace();
  pod_.spec.volumes.push_back(std::move(v));
  return *this;
}

PodBuilder& PodBuilder::Volume(api::Volume volume) {
  pod_.spec.volumes.push_back(std::move(volume));
  return *this;
}

PodBuilder& PodBuilder::PvcVolume(std::string volume, std::string claim) {
  api::Volume v;
  v.name = std::move(volume);
  v.persistent_volume_claim.emplace();
  v.persistent_volume_claim->claim_name = std::move(claim);
  pod_.spec.volumes.push_back(std::move(v));
  return *this;
}

PodBuilder& PodBuilder::SchedulingGate(std::string name) {
  pod_.spec.scheduling_gates.push_back({std::move(name)});
  return *this;
}

NodeBuilder::NodeBuilder(std::string name) {
  node_.metadata.name = std::move(name);
  node_.metadata.uid = node_.metadata.name + "-uid";
}

NodeBuilder& NodeBuilder::Label(std::string key, std::string value) {
  node_.metadata.labels.Set(key, std::move(value));
  return *this;
}
NodeBuilder& NodeBuilder::Capacity(const ResourcePairs& resources) {
  node_.status.capacity = MakeResourceList(resources);
  node_.status.allocatable = node_.status.capacity;
  return *this;
}
NodeBuilder& NodeBuilder::Allocatable(const ResourcePairs& resources) {
  node_.status.allocatable = MakeResourceList(resources);
  return *this;
}
NodeBuilder& NodeBuilder::Taint(std::string key, std::string value,
                                api::TaintEffect effect) {
  api::Taint t;
  t.key = std::move(key);
  t.value = std::move(value);
  t.effect = effect;
  node_.spec.taints.push_back(std::move(t));
  return *this;
}
NodeBuilder& NodeBuilder::Unschedulable(bool unschedulable) {
  node_.spec.unschedulable = unschedulable;
  return *this;
}
NodeBuilder& NodeBuilder::Image(std::string name, int64_t size_bytes) {
  api::ContainerImage image;
  image.names.push_back(std::move(name));
  image.size_bytes = size_bytes;
  node_.status.images.push_back(std::move(image));
  return *this;
}

NodeBuilder& NodeBuilder::DeclaredFeatures(std::vector<std::string> features) {
  node_.status.declared_features = std::move(features);
  return *this;
}

framework::NodeInfoPtr MakeNodeInfo(const api::Node& node,
                                    const std::vector<api::Pod>& pods) {
  auto info = std::make_shared<framework::NodeInfo>();
  info->SetNode(std::make_shared<const api::Node>(node));
  // Kept as the cache keeps running pods, so tests read them as plugins
  // do in production.
  for (api::Pod pod : pods) {
    pod.spec.node_name = node.metadata.name;
    info->AddPod(framework::PodInfo::CreateBound(pod));
  }
  return info;
}

}  // namespace ksched::testing

#include "pkg/cache/assigned_pod.h"

#include <utility>
#include <vector>

namespace ksched::cache {
namespace {

std::vector<api::Container> SlimContainers(
    const std::vector<api::Container>& containers) {
  std::vector<api::Container> out;
  out.reserve(containers.size());
  for (const api::Container& c : containers) {
    api::Container slim;
    slim.name = c.name;
    slim.ports = c.ports;
    slim.resources = c.resources;
    slim.restart_policy = c.restart_policy;  // sidecars count differently
    out.push_back(std::move(slim));
  }
  return out;
}

}  // namespace

std::shared_ptr<const api::Pod> SlimAssignedPod(const api::Pod& pod) {
  auto slim = std::make_shared<api::Pod>();
  api::ObjectMeta& meta = slim->metadata;
  meta.name = pod.metadata.name;
  meta.ns = pod.metadata.ns;
  meta.uid = pod.metadata.uid;
  // Events about the pod (a preemption) refer to this version.
  meta.resource_version = pod.metadata.resource_version;
  meta.creation_timestamp = pod.metadata.creation_timestamp;
  meta.deletion_timestamp = pod.metadata.deletion_timestamp;
  meta.deletion_grace_period_seconds =
      pod.metadata.deletion_grace_period_seconds;
  meta.labels = pod.metadata.labels;

  api::PodSpec& spec = slim->spec;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.persistent_volume_claim || v.ephemeral) spec.volumes.push_back(v);
  }
  spec.volumes.shrink_to_fit();
  spec.init_containers = SlimContainers(pod.spec.init_containers);
  spec.containers = SlimContainers(pod.spec.containers);
  spec.node_name = pod.spec.node_name;
  spec.host_network = pod.spec.host_network;
  spec.affinity = pod.spec.affinity;
  spec.scheduler_name = pod.spec.scheduler_name;
  spec.priority = pod.spec.priority;
  spec.overhead = pod.spec.overhead;

  slim->status.phase = pod.status.phase;
  // Preemption reads (and keeps up to date) the condition that says a
  // terminating pod is being evicted for a preemptor.
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == "DisruptionTarget") slim->status.conditions.push_back(c);
  }
  return slim;
}

}  // namespace ksched::cache

#include "pkg/framework/signature.h"

#include <algorithm>

namespace ksched::framework::signature {

namespace {

// `into` starts with as many (empty) containers as `pod`; each helper fills
// its own fields of them.
template <typename Copy>
void ForEachContainer(const api::Pod& pod, api::Pod& into, Copy copy) {
  into.spec.containers.resize(pod.spec.containers.size());
  into.spec.init_containers.resize(pod.spec.init_containers.size());
  for (size_t i = 0; i < pod.spec.containers.size(); ++i) {
    copy(pod.spec.containers[i], into.spec.containers[i]);
  }
  for (size_t i = 0; i < pod.spec.init_containers.size(); ++i) {
    copy(pod.spec.init_containers[i], into.spec.init_containers[i]);
  }
}

}  // namespace

void CopyResources(const api::Pod& pod, api::Pod& into) {
  ForEachContainer(pod, into, [](const api::Container& c, api::Container& to) {
    to.resources = c.resources;
    to.restart_policy = c.restart_policy;
  });
  into.spec.overhead = pod.spec.overhead;
  // Pod-level requests replace the containers' sum.
  into.spec.resources = pod.spec.resources;
}

void CopyPorts(const api::Pod& pod, api::Pod& into) {
  ForEachContainer(pod, into, [](const api::Container& c, api::Container& to) {
    to.ports = c.ports;
    // Whether an init container's host ports stay taken (a sidecar's do).
    to.restart_policy = c.restart_policy;
  });
}

void CopyImages(const api::Pod& pod, api::Pod& into) {
  ForEachContainer(pod, into, [](const api::Container& c, api::Container& to) {
    to.image = c.image;
  });
  // Image volumes are images too: the volumes are copied whole, as
  // CopyVolumes copies them, so that either copy serves both plugins.
  const bool has_image_volume =
      std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(),
                  [](const api::Volume& v) { return v.image.has_value(); });
  if (has_image_volume) CopyVolumes(pod, into);
}

void CopyTolerations(const api::Pod& pod, api::Pod& into) {
  into.spec.tolerations = pod.spec.tolerations;
}

void CopyNodeSelection(const api::Pod& pod, api::Pod& into) {
  into.spec.node_selector = pod.spec.node_selector;
  if (pod.spec.affinity && pod.spec.affinity->node_affinity) {
    if (!into.spec.affinity) into.spec.affinity.emplace();
    into.spec.affinity->node_affinity = pod.spec.affinity->node_affinity;
  }
}

void CopyVolumes(const api::Pod& pod, api::Pod& into) {
  if (!into.spec.volumes.empty()) return;  // another plugin copied them
  into.spec.volumes = pod.spec.volumes;
  for (api::Volume& v : into.spec.volumes) v.name.clear();
}

bool HasClaims(const api::Pod& pod) {
  return std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(),
                     [](const api::Volume& v) {
                       return v.persistent_volume_claim.has_value() ||
                              v.ephemeral.has_value();
                     });
}

}  // namespace ksched::framework::signature

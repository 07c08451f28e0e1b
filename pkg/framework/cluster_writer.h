// ClusterWriter: what the scheduler writes to the cluster besides bindings.
// The API client implements it with PATCH/POST/DELETE requests; the
// simulator and tests apply or record the writes in memory.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pkg/api/pod.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/storage.h"
#include "pkg/framework/status.h"

namespace ksched::framework {

struct PodStatusUpdate {
  // Set or replace the condition of this type (PodScheduled).
  std::optional<api::PodCondition> condition;
  // status.nominatedNodeName: a node to set, "" to clear, nullopt to keep.
  std::optional<std::string> nominated_node_name;
};

class ClusterWriter {
 public:
  virtual ~ClusterWriter() = default;

  // Patches the pod's status subresource.
  virtual Status UpdatePodStatus(const api::Pod& pod,
                                 const PodStatusUpdate& update) = 0;
  // Records an events.k8s.io/v1 Event about the pod ("Normal"/"Warning").
  virtual void RecordEvent(const api::Pod& regarding, std::string_view type,
                           std::string_view reason, std::string_view action,
                           const std::string& note) = 0;
  // Deletes the pod, only if it still has this UID (preemption victims).
  virtual Status DeletePod(const api::Pod& pod) = 0;
  // Sets one annotation on a claim (volume binding's selected node).
  virtual Status AnnotatePersistentVolumeClaim(
      const api::PersistentVolumeClaim& pvc, std::string_view key,
      std::string_view value) = 0;
  // Replaces the PodGroup's status (its status subresource).
  virtual Status UpdatePodGroupStatus(const api::PodGroup& group,
                                      const api::PodGroupStatus& status) = 0;
};

}  // namespace ksched::framework

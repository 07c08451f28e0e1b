// core/v1 Node: the fields a scheduler reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/meta.h"
#include "pkg/api/pod.h"
#include "pkg/api/selector.h"

namespace ksched::api {

struct NodeSpec {
  std::string pod_cidr;
  std::string provider_id;
  bool unschedulable = false;
  std::vector<Taint> taints;
  friend bool operator==(const NodeSpec&, const NodeSpec&) = default;
};

struct ContainerImage {
  std::vector<std::string> names;
  int64_t size_bytes = 0;
  friend bool operator==(const ContainerImage&,
                         const ContainerImage&) = default;
};

struct NodeCondition {
  std::string type;
  std::string status;
  std::optional<Time> last_heartbeat_time;
  std::optional<Time> last_transition_time;
  std::string reason;
  std::string message;
  friend bool operator==(const NodeCondition&, const NodeCondition&) = default;
};

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;
  std::vector<ContainerImage> images;
  // The features the kubelet declares (NodeDeclaredFeatures), sorted and
  // unique as the API server requires.
  std::vector<std::string> declared_features;
  friend bool operator==(const NodeStatus&, const NodeStatus&) = default;
};

struct Node {
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
  friend bool operator==(const Node&, const Node&) = default;
};

}  // namespace ksched::api

// Builders for test pods and nodes, in the spirit of kube-scheduler's
// testing.MakePod() / MakeNode(), so a test case reads like the situation it
// describes:
//   PodBuilder("p").Req({{"cpu", "1"}}).Toleration("k", "v", "NoSchedule")
//   NodeBuilder("n").Capacity({{"cpu", "4"}, {"pods", "110"}}).Label("zone",
//   "a")
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/pod.h"
#include "pkg/framework/node_info.h"
#include "pkg/framework/pod_info.h"

namespace ksched::testing {

using ResourcePairs = std::vector<std::pair<std::string, std::string>>;

// Parses each quantity; a bad literal in a test aborts the test binary.
api::ResourceList MakeResourceList(const ResourcePairs& pairs);

class PodBuilder {
 public:
  explicit PodBuilder(std::string name = "pod");

  PodBuilder& Namespace(std::string ns);
  PodBuilder& Uid(std::string uid);
  PodBuilder& Label(std::string key, std::string value);
  PodBuilder& Node(std::string node_name);
  PodBuilder& SchedulerName(std::string name);
  PodBuilder& Priority(int32_t priority);
  PodBuilder& PreemptionPolicy(api::PreemptionPolicy policy);
  PodBuilder& NominatedNode(std::string node);
  PodBuilder& CreationSeconds(int64_t seconds_since_epoch);
  PodBuilder& Terminating();

  // Adds an app container with these requests (and no limits).
  PodBuilder& Req(const ResourcePairs& requests);
  // Adds an app container with requests and limits.
  PodBuilder& ReqLim(const ResourcePairs& requests,
                     const ResourcePairs& limits);
  PodBuilder& InitReq(const ResourcePairs& requests);
  // An init container with restartPolicy Always.
  PodBuilder& SidecarReq(const ResourcePairs& requests);
  PodBuilder& Overhead(const ResourcePairs& overhead);
  // spec.resources.requests: pod-level requests.
  PodBuilder& PodLevelReq(const ResourcePairs& requests);
  // A container status for the container (or init container) `container`
  // reporting what the kubelet applied (`resources.requests`) and
  // allocated, as after an in-place resize; an empty `allocated` is left
  // out.
  PodBuilder& StatusResources(const std::string& container,
                              const ResourcePairs& applied,
                              const ResourcePairs& allocated = {});
  // A PodResizePending condition with this reason ("Infeasible",
  // "Deferred").
  PodBuilder& ResizePending(std::string reason);
  // Adds a container with this image (or sets the image of the last one).
  PodBuilder& Image(std::string image);
  // Adds a container port on the last container (creating one if needed).
  PodBuilder& ContainerPort(int32_t host_port, std::string protocol = "TCP",
                            std::string host_ip = "",
                            int32_t container_port = 80);

  PodBuilder& Toleration(
      std::string key, std::string value, api::TaintEffect effect,
      api::TolerationOperator op = api::TolerationOperator::kEqual);
  PodBuilder& NodeSelector(std::string key, std::string value);
  // Appends a required term (terms are ORed) with one expression.
  PodBuilder& NodeAffinityTerm(std::string key, api::NodeSelectorOperator op,
                               std::vector<std::string> values);
  PodBuilder& NodeAffinityFieldTerm(std::string key,
                                    api::NodeSelectorOperator op,
                                    std::vector<std::string> values);
  PodBuilder& PreferredNodeAffinity(int32_t weight, std::string key,
                                    api::NodeSelectorOperator op,
                                    std::vector<std::string> values);
  PodBuilder& PodAffinity(std::string topology_key, std::string label_key,
                          std::string label_value, bool anti = false);
  PodBuilder& PreferredPodAffinity(int32_t weight, std::string topology_key,
                                   std::string label_key,
                                   std::string label_value, bool anti = false);
  PodBuilder& SpreadConstraint(int32_t max_skew, std::string topology_key,
                               api::UnsatisfiableConstraintAction action,
                               std::string label_key, std::string label_value);
  PodBuilder& PvcVolume(std::string volume, std::string claim);
  // A generic ephemeral volume: its claim is "<pod>-<volume>".
  PodBuilder& EphemeralVolume(std::string volume);
  PodBuilder& Volume(api::Volume volume);
  PodBuilder& SchedulingGate(std::string name);

  api::Pod Obj() const { return pod_; }
  std::shared_ptr<const api::Pod> Ptr() const {
    return std::make_shared<const api::Pod>(pod_);
  }
  framework::PodInfoPtr Info() const {
    return framework::PodInfo::Create(Ptr());
  }

 private:
  api::Container& LastContainer();
  api::Affinity& MutableAffinity();
  api::Pod pod_;
};

class NodeBuilder {
 public:
  explicit NodeBuilder(std::string name = "node");

  NodeBuilder& Label(std::string key, std::string value);
  // Sets capacity and allocatable.
  NodeBuilder& Capacity(const ResourcePairs& resources);
  NodeBuilder& Allocatable(const ResourcePairs& resources);
  NodeBuilder& Taint(std::string key, std::string value,
                     api::TaintEffect effect);
  NodeBuilder& Unschedulable(bool unschedulable = true);
  NodeBuilder& Image(std::string name, int64_t size_bytes);
  // status.declaredFeatures, as given (the API server would sort them).
  NodeBuilder& DeclaredFeatures(std::vector<std::string> features);

  api::Node Obj() const { return node_; }
  std::shared_ptr<const api::Node> Ptr() const {
    return std::make_shared<const api::Node>(node_);
  }

 private:
  api::Node node_;
};

// A NodeInfo for `node` holding `pods` (each assigned to the node).
framework::NodeInfoPtr MakeNodeInfo(const api::Node& node,
                                    const std::vector<api::Pod>& pods = {});

}  // namespace ksched::testing

// NodeResourcesFit: a pod fits a node only if the node can allocate what
// the pod requests on top of what its pods already request, and the node
// accepts one more pod; scoring ranks nodes by allocation with one of three
// strategies (kube-scheduler v1.35, noderesources/fit.go).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/pod_resources.h"
#include "pkg/config/feature_gates.h"
#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/framework/resource.h"
#include "pkg/plugins/names.h"
#include "pkg/plugins/noderesources/resource_allocation.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

// One resource a node lacks for a pod (InsufficientResource). Also what
// preemption and autoscaling-style callers want to know.
struct InsufficientResource {
  std::string resource_name;
  // The Filter reason: "Insufficient cpu", "Too many pods", ...
  std::string reason;
  int64_t requested = 0;
  int64_t used = 0;
  int64_t capacity = 0;
  // The pod asks for more than the node's whole allocatable: evicting pods
  // cannot make room (v1.35 answers UnschedulableAndUnresolvable).
  bool unresolvable = false;
  friend bool operator==(const InsufficientResource&,
                         const InsufficientResource&) = default;
};

// Extended resources the fit check skips: by full name or by the part of
// the name before '/'.
struct IgnoredResources {
  std::set<std::string, std::less<>> names;
  std::set<std::string, std::less<>> groups;
};

// Whether a DeviceClass serves an extended resource (DRAExtendedResource):
// on a node whose allocatable lacks the resource, DynamicResources
// allocates devices for it instead, and the fit check leaves it out
// (kube's shouldDelegateResourceToDRA).
using DraBackedResource = std::function<bool(std::string_view resource)>;

// fitsRequest: every shortfall of `node` for a pod requesting
// `pod_request`, in kube's order (pods, cpu, memory, ephemeral-storage, then
// scalar resources, here sorted by name where kube's map order is random).
std::vector<InsufficientResource> FitsRequest(
    const framework::Resource& pod_request, const framework::NodeInfo& node,
    const IgnoredResources& ignored,
    const DraBackedResource* dra_backed = nullptr);

// The gates NodeResourcesFit reads (its part of kube's feature.Features).
struct NodeResourcesFitFeatures {
  // How pod requests are counted: pod-level requests in PreFilter and
  // scoring; status resources (and so scale-down events) in the hints.
  api::ResourceFeatures resources;
  // Off: pods with a restartable init container are refused.
  bool sidecar_containers = true;
  // Off: node taint and label updates are registered too, as kube does for
  // its pre-check.
  bool scheduler_queueing_hints = true;
  static NodeResourcesFitFeatures Of(const config::FeatureGates& gates);
};

class NodeResourcesFit final : public framework::SignPlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::PreScorePlugin,
                               public framework::ScorePlugin,
                               public framework::EnqueueExtensions {
 public:
  using Features = NodeResourcesFitFeatures;

  NodeResourcesFit(IgnoredResources ignored,
                   noderesources::ResourceAllocationScorer scorer,
                   Features features = {}, DraBackedResource dra_backed = {})
      : ignored_(std::move(ignored)),
        scorer_(std::move(scorer)),
        features_(features),
        dra_backed_(std::move(dra_backed)) {}

  std::string_view Name() const override { return names::kNodeResourcesFit; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  // Answers from the pod and the node alone.
  bool NodeLocal() const override { return true; }
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;

  // The queueing hints (kube's isSchedulableAfterPodEvent and
  // isSchedulableAfterNodeChange).
  framework::QueueingHint HintAfterPodEvent(
      const api::Pod& pod, const framework::EventObjects& objs) const;
  framework::QueueingHint HintAfterNodeChange(
      const api::Pod& pod, const framework::EventObjects& objs) const;
  // isSchedulableAfterDeviceClassEvent: a class that now serves an
  // extended resource the pod asks for.
  framework::QueueingHint HintAfterDeviceClassEvent(
      const api::Pod& pod, const framework::EventObjects& objs) const;

  // computePodResourceRequest: what the pod asks of a node to fit. A pod
  // to schedule has not run, so its status is not read.
  framework::Resource PodRequest(const api::Pod& pod) const;

  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Errs only when its PreFilter state is missing.
  bool FilterErrorsAreCycleWide() const override { return true; }

  framework::Status PreScore(
      framework::CycleState& state, const framework::PodInfo& pod,
      const std::vector<framework::NodeInfoPtr>& nodes) override;
  framework::Status Score(const framework::CycleState& state,
                          const framework::PodInfo& pod,
                          const framework::NodeInfo& node,
                          int64_t* score) const override;

  const IgnoredResources& ignored() const { return ignored_; }

 private:
  // isSchedulableAfterPodScaleDown: whether `modified` (a scheduled pod
  // whose requests went down, or `pod` itself) lowered something `pod`
  // asks for.
  bool ScaleDownHelps(const api::Pod& pod, const api::Pod& original,
                      const api::Pod& modified) const;

  // The extended resources this pod asks for that a DeviceClass serves.
  bool AsksForDraBackedResource(const api::Pod& pod) const;
  const DraBackedResource* dra_backed() const {
    return dra_backed_ ? &dra_backed_ : nullptr;
  }

  IgnoredResources ignored_;
  noderesources::ResourceAllocationScorer scorer_;
  Features features_;
  // Empty without DRAExtendedResource (or without DRA state).
  DraBackedResource dra_backed_;
};

// Fails, with kube's field errors, on args that do not validate. Without
// args it behaves as kube with its defaulted args (LeastAllocated on cpu:1,
// memory:1).
util::Result<std::unique_ptr<framework::Plugin>> NewNodeResourcesFit(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins

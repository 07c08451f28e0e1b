// Handle: what the framework offers its plugins beyond the pod and node at
// hand (framework.Handle): the cycle's snapshot, the worker pool, time.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/string_map.h"
#include "pkg/config/feature_gates.h"
#include "pkg/framework/binder.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/framework/cluster_writer.h"
#include "pkg/framework/cycle_state.h"
#include "pkg/framework/metrics_recorder.h"
#include "pkg/framework/parallelizer.h"
#include "pkg/framework/pod_group_members.h"
#include "pkg/framework/pod_nominator.h"
#include "pkg/framework/pods_in_prebind.h"
#include "pkg/framework/snapshot.h"
#include "pkg/framework/waiting_pods.h"
#include "pkg/util/clock.h"

namespace ksched::dra {
class DraManager;
}  // namespace ksched::dra

namespace ksched::framework {

class Handle {
 public:
  virtual ~Handle() = default;

  // The snapshot of the cycle in progress.
  virtual const Snapshot& snapshot() const = 0;
  virtual Parallelizer& parallelizer() = 0;
  virtual const util::Clock& clock() const = 0;
  // The name of the profile the plugins run in (metrics' profile label).
  virtual const std::string& profile_name() const {
    static const std::string kNone;
    return kNone;
  }
  // The labels of a namespace, for namespaceSelector; nullptr if unknown.
  // The pointer stays valid until the next scheduling cycle starts.
  virtual const api::StringMap* NamespaceLabels(std::string_view ns) const = 0;
  // Objects beyond nodes and pods; never null (possibly empty).
  virtual const ClusterObjects& objects() const = 0;
  // Where writes to the cluster go; nullptr when nothing may be written.
  virtual ClusterWriter* writer() = 0;
  // Pods nominated to nodes by preemption; nullptr when not tracked.
  virtual PodNominator* nominator() = 0;
  // Pods held at Permit, which plugins may allow or reject.
  virtual WaitingPods& waiting_pods() = 0;
  // Pods running PreBind, which preemption may cancel (v1.36).
  virtual PodsInPreBind& pods_in_prebind() = 0;
  // Filter with the pod's betters that are nominated to the node counted as
  // if they ran there (and again without them when they were counted), as
  // RunFilterPluginsWithNominatedPods does.
  virtual Status RunFilterPluginsWithNominatedPods(const CycleState& state,
                                                   const PodInfo& pod,
                                                   const NodeInfo& node) = 0;
  // Runs the PreFilter extensions (for preemption's what-if).
  virtual Status RunPreFilterExtensionAddPod(CycleState& state,
                                             const PodInfo& pod,
                                             const PodInfoPtr& to_add,
                                             const NodeInfo& node) const = 0;
  virtual Status RunPreFilterExtensionRemovePod(CycleState& state,
                                                const PodInfo& pod,
                                                const PodInfoPtr& to_remove,
                                                const NodeInfo& node) const = 0;
  // Makes a placement real (DefaultBinder); nullptr when binding is not
  // possible in this process.
  virtual Binder* binder() = 0;
  // Where plugins report what kube-scheduler's plugins put in metrics;
  // nullptr when nothing is recorded.
  virtual MetricsRecorder* metrics() { return nullptr; }
  // The members of each PodGroup (Coscheduling); nullptr when no informer
  // feeds them (a gang then never finds its members).
  virtual const PodGroupMembers* pod_group_members() const { return nullptr; }
  // The feature gates the plugins decide by (kube's feature.Features), read
  // once as a plugin is built; kube-scheduler v1.35's defaults unless the
  // caller set others.
  virtual const config::FeatureGates& features() const {
    static const config::FeatureGates kDefaults;
    return kDefaults;
  }
  // Moves the pods to activeQ (kube's Handle.Activate); nothing when no
  // scheduling queue stands behind the framework.
  virtual void Activate(
      const std::vector<std::shared_ptr<const api::Pod>>& pods) {
    (void)pods;
  }
  // The pod as the cluster knows it now (kube's pod lister); null when it is
  // gone or nothing tracks pods here.
  virtual std::shared_ptr<const api::Pod> GetPod(
      const std::string& ns, const std::string& name) const {
    (void)ns;
    (void)name;
    return nullptr;
  }
  // The DRA classes, slices, claims and in-flight allocations
  // (DynamicResources); nullptr when resource.k8s.io is not watched here.
  virtual dra::DraManager* dra_manager() { return nullptr; }
  // Runs `task` off the scheduling cycle, where kube starts a goroutine
  // (asynchronous preemption); without a scheduler behind the framework,
  // at once on the caller's thread.
  virtual void RunInBackground(std::function<void()> task) { task(); }
};

}  // namespace ksched::framework

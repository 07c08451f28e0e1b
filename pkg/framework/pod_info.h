// PodInfo: a pod plus what the scheduler derives from it once (its resource
// requests, its parsed inter-pod affinity terms), shared immutably between
// the cache, snapshots and plugins.
//
// Two kinds, one type. A pod being scheduled (Create) keeps its whole API
// object: plugins read its spec. A pod already bound to a node, of which
// the cache holds every one in the cluster (CreateBound), keeps only the
// facts below, which are all that anything reads of a pod running on a
// node: an API object per running pod would cost more memory than every
// other part of the cache together. Code that walks a NodeInfo's pods
// therefore reads the accessors, never pod().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/box.h"
#include "pkg/api/label_selector.h"
#include "pkg/api/pod.h"
#include "pkg/api/pod_resources.h"
#include "pkg/config/feature_gates.h"
#include "pkg/framework/label_sets.h"
#include "pkg/framework/resource.h"

namespace ksched::framework {

class PodInfo;

// A parsed PodAffinityTerm (framework.AffinityTerm).
struct AffinityTerm {
  std::vector<std::string> namespaces;
  api::Selector selector;
  std::string topology_key;
  api::Selector namespace_selector;

  // Whether a pod in namespace `ns` (whose labels are `namespace_labels`)
  // with `labels` is selected.
  bool Matches(std::string_view ns, const api::StringMap& labels,
               const api::StringMap& namespace_labels) const;
  bool Matches(const PodInfo& pod,
               const api::StringMap& namespace_labels) const;
};

struct WeightedAffinityTerm {
  AffinityTerm term;
  int32_t weight = 0;
};

// What a pod adds to a node: real requests (fit) and the requests with the
// non-zero defaults (scoring).
struct PodResource {
  Resource requests;
  int64_t non_zero_milli_cpu = 0;
  int64_t non_zero_memory = 0;
};

using PodInfoPtr = std::shared_ptr<const PodInfo>;

class PodInfo {
 public:
  struct AffinityTerms {
    std::vector<AffinityTerm> required_affinity;
    std::vector<AffinityTerm> required_anti_affinity;
    std::vector<WeightedAffinityTerm> preferred_affinity;
    std::vector<WeightedAffinityTerm> preferred_anti_affinity;
    // The first term that did not parse; its list is then left empty.
    std::string parse_error;
  };

  // A pod to schedule, kept whole. Never fails: a term that does not parse
  // is recorded in parse_error(), which the plugins that need the terms
  // turn into an error status. `features` decide how its requests are
  // counted (ResourceFeaturesOf the caller's gates).
  static PodInfoPtr Create(std::shared_ptr<const api::Pod> pod,
                           const api::ResourceFeatures& features = {});
  // A pod bound to a node, as the cache keeps it: the facts only, the
  // labels shared through `label_sets` when given. Its requests are counted
  // here, from the status too, since the status is not kept: a pod resized
  // in place needs a new PodInfo.
  static PodInfoPtr CreateBound(const api::Pod& pod,
                                LabelSets* label_sets = nullptr,
                                const api::ResourceFeatures& features = {});
  // The same derived data for another version of this pod whose spec did
  // not change what it derives from (the assumed copy with a node name).
  PodInfoPtr WithPod(std::shared_ptr<const api::Pod> pod) const;

  // The API object; only pods made by Create or WithPod have one.
  bool has_pod() const { return pod_ != nullptr; }
  const api::Pod& pod() const;
  const std::shared_ptr<const api::Pod>& pod_ptr() const { return pod_; }

  // ---- Facts kept for every pod. ----
  const std::string& name() const { return name_; }
  const std::string& ns() const { return ns_; }
  const std::string& uid() const { return uid_; }
  const std::string& node_name() const { return node_name_; }
  const std::string& resource_version() const { return resource_version_; }
  const api::StringMap& labels() const { return *labels_; }
  // status.startTime: unset until the kubelet starts the pod.
  const std::optional<api::Time>& start_time() const { return start_time_; }
  // Set once the pod is being deleted (it still runs until it is gone).
  bool terminating() const {
    return rare_ && rare_->deletion_timestamp.has_value();
  }
  // spec.priority; 0 when unset, as the admission plugin would resolve it.
  int32_t priority() const { return priority_; }
  // The DisruptionTarget condition, which preemption reads and sets.
  const api::PodCondition* disruption_target() const {
    return rare_ && rare_->disruption_target ? &*rare_->disruption_target
                                             : nullptr;
  }
  // Container ports with a hostPort, as NodePorts accounts them.
  const std::vector<api::ContainerPort>& host_ports() const {
    return rare_ ? rare_->host_ports : NoHostPorts();
  }
  // The claims of persistentVolumeClaim volumes, in the pod's namespace.
  const std::vector<std::string>& claim_names() const {
    return rare_ ? rare_->claim_names : NoClaimNames();
  }
  // The volumes the volume plugins look at on a node: claims, generic
  // ephemeral volumes and in-tree disks (config maps, secrets and projected
  // tokens are left out).
  const std::vector<api::Volume>& storage_volumes() const;
  const PodResource& resource() const { return resource_; }

  // Empty term lists for pods without inter-pod affinity.
  const AffinityTerms& affinity() const;
  bool has_affinity() const { return affinity_ != nullptr; }
  const std::string& parse_error() const;

  // framework.podWithAffinity / podWithRequiredAntiAffinity, on the spec.
  bool WithAffinity() const { return with_affinity_; }
  bool WithRequiredAntiAffinity() const { return with_required_anti_affinity_; }

  // An API object carrying the facts (identity, labels, node, priority,
  // deletion, start time, the DisruptionTarget condition); the pod itself when
  // kept whole. For writes about a bound pod, such as evicting a victim.
  api::Pod ToPod() const;

 private:
  // Everything but the labels.
  void SetFacts(const api::Pod& pod);

  // What few pods have, boxed together: held inline, these would cost
  // every running pod 72 bytes more.
  struct Rare {
    std::optional<api::Time> deletion_timestamp;
    std::optional<api::PodCondition> disruption_target;
    std::vector<api::ContainerPort> host_ports;
    std::vector<std::string> claim_names;
    std::vector<api::Volume> storage_volumes;
  };
  static const std::vector<api::ContainerPort>& NoHostPorts();
  static const std::vector<std::string>& NoClaimNames();

  // Null for bound pods.
  std::shared_ptr<const api::Pod> pod_;
  std::string name_;
  std::string ns_;
  std::string uid_;
  std::string node_name_;
  std::string resource_version_;
  // Shared: with the pod object when kept whole, with the other pods of a
  // workload when bound and interned.
  std::shared_ptr<const api::StringMap> labels_;
  std::optional<api::Time> start_time_;
  int32_t priority_ = 0;
  bool has_priority_ = false;
  bool with_affinity_ = false;
  bool with_required_anti_affinity_ = false;
  api::Box<Rare> rare_;  // null: none of it
  PodResource resource_;
  // Shared between versions of one pod; null: no pod (anti-)affinity.
  std::shared_ptr<const AffinityTerms> affinity_;
};

// Computes a pod's real and non-zero requests (PodInfo.CalculateResource).
PodResource ComputePodResource(const api::Pod& pod,
                               const api::ResourceFeatures& features = {});

// The gates that change how requests are counted, out of a whole gate set.
api::ResourceFeatures ResourceFeaturesOf(const config::FeatureGates& gates);

}  // namespace ksched::framework

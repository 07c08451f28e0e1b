// core/v1 Pod: the fields a scheduler reads and writes.
//
// Fields a scheduler never looks at (env, probes, config map and secret
// volume sources, ...) are not decoded: they cost memory in a cache of every
// pod in the cluster and time in every watch event.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/box.h"
#include "pkg/api/meta.h"
#include "pkg/api/quantity.h"
#include "pkg/api/selector.h"
#include "pkg/api/string_map.h"

namespace ksched::api {

using ResourceList = FlatMap<Quantity>;

struct ResourceRequirements {
  ResourceList limits;
  ResourceList requests;
  friend bool operator==(const ResourceRequirements&,
                         const ResourceRequirements&) = default;
};

struct ContainerPort {
  std::string name;
  int32_t host_port = 0;
  int32_t container_port = 0;
  std::string protocol;  // "" means TCP
  std::string host_ip;
  friend bool operator==(const ContainerPort&, const ContainerPort&) = default;
};

// restartPolicyRules[].exitCodes: the exit codes a rule applies to.
struct ContainerRestartRuleOnExitCodes {
  std::string op;  // "In" or "NotIn"
  std::vector<int32_t> values;
  friend bool operator==(const ContainerRestartRuleOnExitCodes&,
                         const ContainerRestartRuleOnExitCodes&) = default;
};

// restartPolicyRules[] (ContainerRestartRules): what the kubelet does when
// the container exits. The scheduler reads only the action: a rule that
// restarts all of the pod's containers needs a node that declares the
// RestartAllContainersOnContainerExits feature (NodeDeclaredFeatures).
struct ContainerRestartRule {
  std::string action;  // "Restart" or "RestartAllContainers"
  std::optional<ContainerRestartRuleOnExitCodes> exit_codes;
  friend bool operator==(const ContainerRestartRule&,
                         const ContainerRestartRule&) = default;
};

struct Container {
  std::string name;
  std::string image;
  std::vector<ContainerPort> ports;
  ResourceRequirements resources;
  // "Always" on an init container makes it a sidecar that keeps running.
  std::string restart_policy;
  std::vector<ContainerRestartRule> restart_policy_rules;
  friend bool operator==(const Container&, const Container&) = default;
};

struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;
  std::vector<std::string> namespaces;
  std::string topology_key;
  std::optional<LabelSelector> namespace_selector;
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;
  friend bool operator==(const PodAffinityTerm&,
                         const PodAffinityTerm&) = default;
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm pod_affinity_term;
  friend bool operator==(const WeightedPodAffinityTerm&,
                         const WeightedPodAffinityTerm&) = default;
};

struct NodeAffinity {
  std::optional<NodeSelector> required;  // requiredDuringScheduling...
  std::vector<PreferredSchedulingTerm> preferred;  // preferredDuringSch...
  friend bool operator==(const NodeAffinity&, const NodeAffinity&) = default;
};

struct PodAffinity {
  std::vector<PodAffinityTerm> required;
  std::vector<WeightedPodAffinityTerm> preferred;
  friend bool operator==(const PodAffinity&, const PodAffinity&) = default;
};

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  std::optional<PodAffinity> pod_affinity;
  std::optional<PodAffinity> pod_anti_affinity;
  friend bool operator==(const Affinity&, const Affinity&) = default;
};

enum class UnsatisfiableConstraintAction : uint8_t {
  kOther,
  kDoNotSchedule,
  kScheduleAnyway
};

enum class NodeInclusionPolicy : uint8_t { kOther, kHonor, kIgnore };

struct TopologySpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  UnsatisfiableConstraintAction when_unsatisfiable =
      UnsatisfiableConstraintAction::kOther;
  std::optional<LabelSelector> label_selector;
  std::optional<int32_t> min_domains;
  std::optional<NodeInclusionPolicy> node_affinity_policy;
  std::optional<NodeInclusionPolicy> node_taints_policy;
  std::vector<std::string> match_label_keys;
  friend bool operator==(const TopologySpreadConstraint&,
                         const TopologySpreadConstraint&) = default;
};

struct PersistentVolumeClaimVolumeSource {
  std::string claim_name;
  bool read_only = false;
  friend bool operator==(const PersistentVolumeClaimVolumeSource&,
                         const PersistentVolumeClaimVolumeSource&) = default;
};

// An OCI image mounted as a volume (ImageVolume, GA in v1.36): the image
// counts towards ImageLocality like a container's.
struct ImageVolumeSource {
  std::string reference;
  std::string pull_policy;
  friend bool operator==(const ImageVolumeSource&,
                         const ImageVolumeSource&) = default;
};

// Only whether a generic ephemeral volume is present matters: its claim is
// named "<pod>-<volume>" by the ephemeral volume controller.
struct EphemeralVolumeSource {
  friend bool operator==(const EphemeralVolumeSource&,
                         const EphemeralVolumeSource&) = default;
};

// In-tree volume sources, with the fields the volume plugins read: disk
// identity and read-only mode for VolumeRestrictions' conflicts, and what
// CSI migration turns into a driver's volume handle for NodeVolumeLimits.
// The same structs serve a PersistentVolume's source.
struct GcePersistentDiskVolumeSource {
  std::string pd_name;
  int32_t partition = 0;
  bool read_only = false;
  friend bool operator==(const GcePersistentDiskVolumeSource&,
                         const GcePersistentDiskVolumeSource&) = default;
};

struct AwsElasticBlockStoreVolumeSource {
  std::string volume_id;
  int32_t partition = 0;
  bool read_only = false;
  friend bool operator==(const AwsElasticBlockStoreVolumeSource&,
                         const AwsElasticBlockStoreVolumeSource&) = default;
};

struct RbdVolumeSource {
  std::vector<std::string> monitors;
  std::string image;
  std::string pool;
  bool read_only = false;
  friend bool operator==(const RbdVolumeSource&,
                         const RbdVolumeSource&) = default;
};

struct IscsiVolumeSource {
  std::string target_portal;
  std::string iqn;
  int32_t lun = 0;
  bool read_only = false;
  friend bool operator==(const IscsiVolumeSource&,
                         const IscsiVolumeSource&) = default;
};

struct CinderVolumeSource {
  std::string volume_id;
  bool read_only = false;
  friend bool operator==(const CinderVolumeSource&,
                         const CinderVolumeSource&) = default;
};

struct AzureDiskVolumeSource {
  std::string disk_name;
  std::string disk_uri;  // "diskURI"
  std::optional<std::string> kind;
  std::optional<bool> read_only;
  friend bool operator==(const AzureDiskVolumeSource&,
                         const AzureDiskVolumeSource&) = default;
};

struct AzureFileVolumeSource {
  std::string secret_name;
  std::string share_name;
  bool read_only = false;
  friend bool operator==(const AzureFileVolumeSource&,
                         const AzureFileVolumeSource&) = default;
};

struct VsphereVirtualDiskVolumeSource {
  std::string volume_path;
  friend bool operator==(const VsphereVirtualDiskVolumeSource&,
                         const VsphereVirtualDiskVolumeSource&) = default;
};

struct PortworxVolumeSource {
  std::string volume_id;
  bool read_only = false;
  friend bool operator==(const PortworxVolumeSource&,
                         const PortworxVolumeSource&) = default;
};

// The in-tree sources a volume may have; boxed, since almost every volume
// has none and every cached pod would pay for them otherwise.
struct InTreeVolumeSources {
  Box<GcePersistentDiskVolumeSource> gce_persistent_disk;
  Box<AwsElasticBlockStoreVolumeSource> aws_elastic_block_store;
  Box<RbdVolumeSource> rbd;
  Box<IscsiVolumeSource> iscsi;
  Box<CinderVolumeSource> cinder;
  Box<AzureDiskVolumeSource> azure_disk;
  Box<AzureFileVolumeSource> azure_file;
  Box<VsphereVirtualDiskVolumeSource> vsphere_volume;
  Box<PortworxVolumeSource> portworx_volume;
  friend bool operator==(const InTreeVolumeSources&,
                         const InTreeVolumeSources&) = default;
};

struct Volume {
  std::string name;
  std::optional<PersistentVolumeClaimVolumeSource> persistent_volume_claim;
  std::optional<EphemeralVolumeSource> ephemeral;
  std::optional<ImageVolumeSource> image;
  InTreeVolumeSources in_tree;
  friend bool operator==(const Volume&, const Volume&) = default;
};

enum class PreemptionPolicy : uint8_t { kOther, kPreemptLowerPriority, kNever };

struct PodSchedulingGate {
  std::string name;
  friend bool operator==(const PodSchedulingGate&,
                         const PodSchedulingGate&) = default;
};

// spec.resourceClaims[]: a claim the pod uses, by name or made per pod
// from a template.
struct PodResourceClaim {
  std::string name;
  std::optional<std::string> resource_claim_name;
  std::optional<std::string> resource_claim_template_name;
  friend bool operator==(const PodResourceClaim&,
                         const PodResourceClaim&) = default;
};

struct PodSpec {
  std::vector<Volume> volumes;
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  StringMap node_selector;
  std::string service_account_name;
  std::string node_name;
  bool host_network = false;
  Box<Affinity> affinity;
  std::string scheduler_name;
  std::vector<Toleration> tolerations;
  std::string priority_class_name;
  std::optional<int32_t> priority;
  std::optional<PreemptionPolicy> preemption_policy;
  ResourceList overhead;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  // false runs the pod in its own user namespace; with host_network it
  // needs a node that declares UserNamespacesHostNetworkSupport.
  std::optional<bool> host_users;
  std::vector<PodSchedulingGate> scheduling_gates;
  // Pod-level requests and limits (PodLevelResources): where set for cpu,
  // memory or hugepages they replace the sum over the containers. Boxed, as
  // almost no pod has them.
  Box<ResourceRequirements> resources;
  // Dynamic Resource Allocation: the ResourceClaims the pod needs.
  std::vector<PodResourceClaim> resource_claims;
  friend bool operator==(const PodSpec&, const PodSpec&) = default;
};

struct PodCondition {
  std::string type;
  // The pod's metadata.generation the condition was written for
  // (PodObservedGenerationTracking); 0 when unset.
  int64_t observed_generation = 0;
  std::string status;  // "True", "False", "Unknown"
  std::optional<Time> last_probe_time;
  std::optional<Time> last_transition_time;
  std::string reason;
  std::string message;
  friend bool operator==(const PodCondition&, const PodCondition&) = default;
};

// What the kubelet reports of one container that resource accounting reads
// (InPlacePodVerticalScaling): a container resized in place holds what it
// was allocated or runs with, which may exceed its spec.
struct ContainerStatus {
  std::string name;
  // The requests the node admitted for the container.
  ResourceList allocated_resources;
  // What the runtime applied; absent until the kubelet reports it, and the
  // status is then not read at all.
  Box<ResourceRequirements> resources;
  friend bool operator==(const ContainerStatus&,
                         const ContainerStatus&) = default;
};

// The claim the resourceclaim controller made for a template reference:
// resource_claim_name unset means no claim was needed.
struct PodResourceClaimStatus {
  std::string name;
  std::optional<std::string> resource_claim_name;
  friend bool operator==(const PodResourceClaimStatus&,
                         const PodResourceClaimStatus&) = default;
};

// Which device request of the claim the scheduler made for a pod's
// extended resources backed by DRA serves a container's request of one
// resource (DRAExtendedResource).
struct ContainerExtendedResourceRequest {
  std::string container_name;
  std::string resource_name;
  std::string request_name;
  friend bool operator==(const ContainerExtendedResourceRequest&,
                         const ContainerExtendedResourceRequest&) = default;
};

struct PodExtendedResourceClaimStatus {
  std::vector<ContainerExtendedResourceRequest> request_mappings;
  std::string resource_claim_name;
  friend bool operator==(const PodExtendedResourceClaimStatus&,
                         const PodExtendedResourceClaimStatus&) = default;
};

struct PodStatus {
  std::string phase;  // Pending, Running, Succeeded, Failed, Unknown
  std::vector<PodCondition> conditions;
  std::string nominated_node_name;
  // Set by the kubelet when it accepts the pod.
  std::optional<Time> start_time;
  std::vector<ContainerStatus> init_container_statuses;
  std::vector<ContainerStatus> container_statuses;
  // Pod-level counterparts of the container statuses' fields
  // (InPlacePodLevelResourcesVerticalScaling).
  ResourceList allocated_resources;
  Box<ResourceRequirements> resources;
  // The claims generated from the spec's resourceClaimTemplateName entries.
  std::vector<PodResourceClaimStatus> resource_claim_statuses;
  // The claim the scheduler made for the pod's extended resources backed
  // by DRA. Boxed, as almost no pod has one (56 bytes a pod otherwise).
  Box<PodExtendedResourceClaimStatus> extended_resource_claim_status;
  friend bool operator==(const PodStatus&, const PodStatus&) = default;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
  friend bool operator==(const Pod&, const Pod&) = default;
};

inline constexpr std::string_view kPodPhasePending = "Pending";
inline constexpr std::string_view kPodPhaseRunning = "Running";
inline constexpr std::string_view kPodPhaseSucceeded = "Succeeded";
inline constexpr std::string_view kPodPhaseFailed = "Failed";
inline constexpr std::string_view kPodScheduled = "PodScheduled";
// Set on a pod that is being evicted (by preemption, among others).
inline constexpr std::string_view kPodDisruptionTarget = "DisruptionTarget";
// Set by the kubelet on a resize it has not admitted yet; with reason
// Infeasible the node can never admit it.
inline constexpr std::string_view kPodResizePending = "PodResizePending";
inline constexpr std::string_view kPodReasonInfeasible = "Infeasible";
// The restartPolicy of an init container that makes it a sidecar.
inline constexpr std::string_view kContainerRestartPolicyAlways = "Always";
inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";

}  // namespace ksched::api

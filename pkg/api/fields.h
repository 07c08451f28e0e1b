// Field lists of the API types: JSON member name, C++ member, and whether it
// is written when empty (Kubernetes' json tags without omitempty). One list
// drives decoding and encoding, so the two cannot disagree.
#pragma once

#include "pkg/api/codec_internal.h"
#include "pkg/api/meta.h"
#include "pkg/api/node.h"
#include "pkg/api/objects.h"
#include "pkg/api/pod.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/policy.h"
#include "pkg/api/resource.h"
#include "pkg/api/selector.h"
#include "pkg/api/storage.h"
#include "pkg/api/workloads.h"

namespace ksched::api {

using codec::Emit;

// ---- enums ----
}  // namespace ksched::api

namespace ksched::api::codec {

template <>
struct EnumTraits<LabelSelectorOperator> {
  using E = LabelSelectorOperator;
  static constexpr std::pair<E, std::string_view> kNames[] = {
      {E::kIn, "In"},
      {E::kNotIn, "NotIn"},
      {E::kExists, "Exists"},
      {E::kDoesNotExist, "DoesNotExist"}};
};

template <>
struct EnumTraits<NodeSelectorOperator> {
  using E = NodeSelectorOperator;
  static constexpr std::pair<E, std::string_view> kNames[] = {
      {E::kIn, "In"},         {E::kNotIn, "NotIn"},
      {E::kExists, "Exists"}, {E::kDoesNotExist, "DoesNotExist"},
      {E::kGt, "Gt"},         {E::kLt, "Lt"}};
};

template <>
struct EnumTraits<TaintEffect> {
  using E = TaintEffect;
  static constexpr std::pair<E, std::string_view> kNames[] = {
      {E::kNone, ""},
      {E::kNoSchedule, "NoSchedule"},
      {E::kPreferNoSchedule, "PreferNoSchedule"},
      {E::kNoExecute, "NoExecute"}};
};

template <>
struct EnumTraits<TolerationOperator> {
  using E = TolerationOperator;
  static constexpr std::pair<E, std::string_view> kNames[] = {
      {E::kNone, ""}, {E::kEqual, "Equal"}, {E::kExists, "Exists"}};
};

template <>
struct EnumTraits<UnsatisfiableConstraintAction> {
  using E = UnsatisfiableConstraintAction;
  static constexpr std::pair<E, std::string_view> kNames[] = {
      {E::kDoNotSchedule, "DoNotSchedule"},
      {E::kScheduleAnyway, "ScheduleAnyway"}};
};

template <>
struct EnumTraits<NodeInclusionPolicy> {
  using E = NodeInclusionPolicy;
  static constexpr std::pair<E, std::string_view> kNames[] = {
      {E::kHonor, "Honor"}, {E::kIgnore, "Ignore"}};
};

template <>
struct EnumTraits<PreemptionPolicy> {
  using E = PreemptionPolicy;
  static constexpr std::pair<E, std::string_view> kNames[] = {
      {E::kPreemptLowerPriority, "PreemptLowerPriority"}, {E::kNever, "Never"}};
};

template <>
struct EnumTraits<DeviceTaintEffect> {
  using E = DeviceTaintEffect;
  static constexpr std::pair<E, std::string_view> kNames[] = {
      {E::kUnset, ""},
      {E::kNone, "None"},
      {E::kNoSchedule, "NoSchedule"},
      {E::kNoExecute, "NoExecute"}};
};

template <>
struct EnumTraits<DeviceTolerationOperator> {
  using E = DeviceTolerationOperator;
  static constexpr std::pair<E, std::string_view> kNames[] = {
      {E::kUnset, ""}, {E::kExists, "Exists"}, {E::kEqual, "Equal"}};
};

template <>
struct EnumTraits<DeviceAllocationMode> {
  using E = DeviceAllocationMode;
  static constexpr std::pair<E, std::string_view> kNames[] = {
      {E::kUnset, ""}, {E::kExactCount, "ExactCount"}, {E::kAll, "All"}};
};

template <>
struct EnumTraits<AllocationConfigSource> {
  using E = AllocationConfigSource;
  static constexpr std::pair<E, std::string_view> kNames[] = {
      {E::kFromClass, "FromClass"}, {E::kFromClaim, "FromClaim"}};
};

}  // namespace ksched::api::codec

namespace ksched::api {

// IntOrString is a JSON number or string, not an object; its overloads
// live beside the type so the codec's templates find them by ADL.
inline void Read(codec::Decoder& d, const codec::JsonValue& v,
                 IntOrString* out) {
  if (v.IsString()) {
    out->is_string = true;
    out->string_value.assign(v.GetString(), v.GetStringLength());
  } else if (v.IsInt()) {
    out->is_string = false;
    out->int_value = v.GetInt();
  } else {
    d.Fail("expected integer or string, got " +
           std::string(codec::TypeName(v)));
  }
}
inline void Write(codec::JsonWriter& w, const IntOrString& v) {
  if (v.is_string) {
    codec::Write(w, v.string_value);
  } else {
    w.Int(v.int_value);
  }
}
inline bool IsEmpty(const IntOrString&) { return false; }

// RawJson takes any JSON value and keeps its compact text; written back
// verbatim.
inline void Read(codec::Decoder&, const codec::JsonValue& v, RawJson* out) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  out->json.assign(buffer.GetString(), buffer.GetSize());
}
inline void Write(codec::JsonWriter& w, const RawJson& v) {
  if (v.json.empty()) {
    w.Null();
  } else {
    w.RawValue(v.json.data(), v.json.size(), rapidjson::kObjectType);
  }
}
inline bool IsEmpty(const RawJson& v) { return v.json.empty(); }

// ---- meta ----

template <typename V>
void Fields(V& v, OwnerReference& o) {
  v("apiVersion", o.api_version, Emit::kAlways);
  v("kind", o.kind, Emit::kAlways);
  v("name", o.name, Emit::kAlways);
  v("uid", o.uid, Emit::kAlways);
  v("controller", o.controller);
  v("blockOwnerDeletion", o.block_owner_deletion);
}

template <typename V>
void Fields(V& v, ObjectMeta& m) {
  v("name", m.name);
  v("generateName", m.generate_name);
  v("namespace", m.ns);
  v("uid", m.uid);
  v("resourceVersion", m.resource_version);
  v("generation", m.generation);
  v("creationTimestamp", m.creation_timestamp);
  v("deletionTimestamp", m.deletion_timestamp);
  v("deletionGracePeriodSeconds", m.deletion_grace_period_seconds);
  v("labels", m.labels);
  v("annotations", m.annotations);
  v("ownerReferences", m.owner_references);
  v("finalizers", m.finalizers);
}

template <typename V>
void Fields(V& v, ListMeta& m) {
  v("resourceVersion", m.resource_version);
  v("continue", m.continue_token);
  v("remainingItemCount", m.remaining_item_count);
}

template <typename V>
void Fields(V& v, ObjectReference& r) {
  v("kind", r.kind);
  v("namespace", r.ns);
  v("name", r.name);
  v("uid", r.uid);
  v("apiVersion", r.api_version);
  v("resourceVersion", r.resource_version);
  v("fieldPath", r.field_path);
}

// ---- selectors, taints, tolerations ----

template <typename V>
void Fields(V& v, LabelSelectorRequirement& r) {
  v("key", r.key, Emit::kAlways);
  v("operator", r.op, Emit::kAlways);
  v("values", r.values);
}

template <typename V>
void Fields(V& v, LabelSelector& s) {
  v("matchLabels", s.match_labels);
  v("matchExpressions", s.match_expressions);
}

template <typename V>
void Fields(V& v, NodeSelectorRequirement& r) {
  v("key", r.key, Emit::kAlways);
  v("operator", r.op, Emit::kAlways);
  v("values", r.values);
}

template <typename V>
void Fields(V& v, NodeSelectorTerm& t) {
  v("matchExpressions", t.match_expressions);
  v("matchFields", t.match_fields);
}

template <typename V>
void Fields(V& v, NodeSelector& s) {
  v("nodeSelectorTerms", s.node_selector_terms, Emit::kAlways);
}

template <typename V>
void Fields(V& v, PreferredSchedulingTerm& t) {
  v("weight", t.weight, Emit::kAlways);
  v("preference", t.preference, Emit::kAlways);
}

template <typename V>
void Fields(V& v, Taint& t) {
  v("key", t.key, Emit::kAlways);
  v("value", t.value);
  v("effect", t.effect, Emit::kAlways);
  v("timeAdded", t.time_added);
}

template <typename V>
void Fields(V& v, Toleration& t) {
  v("key", t.key);
  v("operator", t.op);
  v("value", t.value);
  v("effect", t.effect);
  v("tolerationSeconds", t.toleration_seconds);
}

// ---- pod ----

template <typename V>
void Fields(V& v, ResourceRequirements& r) {
  v("limits", r.limits);
  v("requests", r.requests);
}

template <typename V>
void Fields(V& v, ContainerPort& p) {
  v("name", p.name);
  v("hostPort", p.host_port);
  v("containerPort", p.container_port, Emit::kAlways);
  v("protocol", p.protocol);
  v("hostIP", p.host_ip);
}

template <typename V>
void Fields(V& v, ContainerRestartRuleOnExitCodes& e) {
  v("operator", e.op);
  v("values", e.values);
}

template <typename V>
void Fields(V& v, ContainerRestartRule& r) {
  v("action", r.action);
  v("exitCodes", r.exit_codes);
}

template <typename V>
void Fields(V& v, Container& c) {
  v("name", c.name, Emit::kAlways);
  v("image", c.image);
  v("ports", c.ports);
  v("resources", c.resources);
  v("restartPolicy", c.restart_policy);
  v("restartPolicyRules", c.restart_policy_rules);
}

template <typename V>
void Fields(V& v, PodAffinityTerm& t) {
  v("labelSelector", t.label_selector);
  v("namespaces", t.namespaces);
  v("topologyKey", t.topology_key, Emit::kAlways);
  v("namespaceSelector", t.namespace_selector);
  v("matchLabelKeys", t.match_label_keys);
  v("mismatchLabelKeys", t.mismatch_label_keys);
}

template <typename V>
void Fields(V& v, WeightedPodAffinityTerm& t) {
  v("weight", t.weight, Emit::kAlways);
  v("podAffinityTerm", t.pod_affinity_term, Emit::kAlways);
}

template <typename V>
void Fields(V& v, NodeAffinity& a) {
  v("requiredDuringSchedulingIgnoredDuringExecution", a.required);
  v("preferredDuringSchedulingIgnoredDuringExecution", a.preferred);
}

template <typename V>
void Fields(V& v, PodAffinity& a) {
  v("requiredDuringSchedulingIgnoredDuringExecution", a.required);
  v("preferredDuringSchedulingIgnoredDuringExecution", a.preferred);
}

template <typename V>
void Fields(V& v, Affinity& a) {
  v("nodeAffinity", a.node_affinity);
  v("podAffinity", a.pod_affinity);
  v("podAntiAffinity", a.pod_anti_affinity);
}

template <typename V>
void Fields(V& v, TopologySpreadConstraint& c) {
  v("maxSkew", c.max_skew, Emit::kAlways);
  v("topologyKey", c.topology_key, Emit::kAlways);
  v("whenUnsatisfiable", c.when_unsatisfiable, Emit::kAlways);
  v("labelSelector", c.label_selector);
  v("minDomains", c.min_domains);
  v("nodeAffinityPolicy", c.node_affinity_policy);
  v("nodeTaintsPolicy", c.node_taints_policy);
  v("matchLabelKeys", c.match_label_keys);
}

template <typename V>
void Fields(V& v, PersistentVolumeClaimVolumeSource& s) {
  v("claimName", s.claim_name, Emit::kAlways);
  v("readOnly", s.read_only);
}

template <typename V>
void Fields(V&, EphemeralVolumeSource&) {}

template <typename V>
void Fields(V& v, ImageVolumeSource& s) {
  v("reference", s.reference);
  v("pullPolicy", s.pull_policy);
}

template <typename V>
void Fields(V& v, GcePersistentDiskVolumeSource& s) {
  v("pdName", s.pd_name, Emit::kAlways);
  v("partition", s.partition);
  v("readOnly", s.read_only);
}

template <typename V>
void Fields(V& v, AwsElasticBlockStoreVolumeSource& s) {
  v("volumeID", s.volume_id, Emit::kAlways);
  v("partition", s.partition);
  v("readOnly", s.read_only);
}

template <typename V>
void Fields(V& v, RbdVolumeSource& s) {
  v("monitors", s.monitors, Emit::kAlways);
  v("image", s.image, Emit::kAlways);
  v("pool", s.pool);
  v("readOnly", s.read_only);
}

template <typename V>
void Fields(V& v, IscsiVolumeSource& s) {
  v("targetPortal", s.target_portal, Emit::kAlways);
  v("iqn", s.iqn, Emit::kAlways);
  v("lun", s.lun, Emit::kAlways);
  v("readOnly", s.read_only);
}

template <typename V>
void Fields(V& v, CinderVolumeSource& s) {
  v("volumeID", s.volume_id, Emit::kAlways);
  v("readOnly", s.read_only);
}

template <typename V>
void Fields(V& v, AzureDiskVolumeSource& s) {
  v("diskName", s.disk_name, Emit::kAlways);
  v("diskURI", s.disk_uri, Emit::kAlways);
  v("kind", s.kind);
  v("readOnly", s.read_only);
}

template <typename V>
void Fields(V& v, AzureFileVolumeSource& s) {
  v("secretName", s.secret_name, Emit::kAlways);
  v("shareName", s.share_name, Emit::kAlways);
  v("readOnly", s.read_only);
}

template <typename V>
void Fields(V& v, VsphereVirtualDiskVolumeSource& s) {
  v("volumePath", s.volume_path, Emit::kAlways);
}

template <typename V>
void Fields(V& v, PortworxVolumeSource& s) {
  v("volumeID", s.volume_id, Emit::kAlways);
  v("readOnly", s.read_only);
}

// The in-tree sources are members of the volume (or PV spec) itself.
template <typename V>
void InTreeSourceFields(V& v, InTreeVolumeSources& s) {
  v("gcePersistentDisk", s.gce_persistent_disk);
  v("awsElasticBlockStore", s.aws_elastic_block_store);
  v("rbd", s.rbd);
  v("iscsi", s.iscsi);
  v("cinder", s.cinder);
  v("azureDisk", s.azure_disk);
  v("azureFile", s.azure_file);
  v("vsphereVolume", s.vsphere_volume);
  v("portworxVolume", s.portworx_volume);
}

template <typename V>
void Fields(V& v, Volume& vol) {
  v("name", vol.name, Emit::kAlways);
  v("persistentVolumeClaim", vol.persistent_volume_claim);
  v("ephemeral", vol.ephemeral);
  v("image", vol.image);
  InTreeSourceFields(v, vol.in_tree);
}

template <typename V>
void Fields(V& v, PodSchedulingGate& g) {
  v("name", g.name, Emit::kAlways);
}

template <typename V>
void Fields(V& v, PodResourceClaim& c) {
  v("name", c.name, Emit::kAlways);
  v("resourceClaimName", c.resource_claim_name);
  v("resourceClaimTemplateName", c.resource_claim_template_name);
}

template <typename V>
void Fields(V& v, PodSpec& s) {
  v("volumes", s.volumes);
  v("initContainers", s.init_containers);
  v("containers", s.containers, Emit::kAlways);
  v("nodeSelector", s.node_selector);
  v("serviceAccountName", s.service_account_name);
  v("nodeName", s.node_name);
  v("hostNetwork", s.host_network);
  v("affinity", s.affinity);
  v("schedulerName", s.scheduler_name);
  v("tolerations", s.tolerations);
  v("priorityClassName", s.priority_class_name);
  v("priority", s.priority);
  v("preemptionPolicy", s.preemption_policy);
  v("overhead", s.overhead);
  v("topologySpreadConstraints", s.topology_spread_constraints);
  v("hostUsers", s.host_users);
  v("schedulingGates", s.scheduling_gates);
  v("resources", s.resources);
  v("resourceClaims", s.resource_claims);
}

template <typename V>
void Fields(V& v, PodCondition& c) {
  v("type", c.type, Emit::kAlways);
  v("observedGeneration", c.observed_generation);
  v("status", c.status, Emit::kAlways);
  v("lastProbeTime", c.last_probe_time);
  v("lastTransitionTime", c.last_transition_time);
  v("reason", c.reason);
  v("message", c.message);
}

template <typename V>
void Fields(V& v, ContainerStatus& c) {
  v("name", c.name, Emit::kAlways);
  v("allocatedResources", c.allocated_resources);
  v("resources", c.resources);
}

template <typename V>
void Fields(V& v, PodResourceClaimStatus& c) {
  v("name", c.name, Emit::kAlways);
  v("resourceClaimName", c.resource_claim_name);
}

template <typename V>
void Fields(V& v, ContainerExtendedResourceRequest& r) {
  v("containerName", r.container_name, Emit::kAlways);
  v("resourceName", r.resource_name, Emit::kAlways);
  v("requestName", r.request_name, Emit::kAlways);
}

template <typename V>
void Fields(V& v, PodExtendedResourceClaimStatus& s) {
  v("requestMappings", s.request_mappings, Emit::kAlways);
  v("resourceClaimName", s.resource_claim_name, Emit::kAlways);
}

template <typename V>
void Fields(V& v, PodStatus& s) {
  v("phase", s.phase);
  v("conditions", s.conditions);
  v("nominatedNodeName", s.nominated_node_name);
  v("startTime", s.start_time);
  v("initContainerStatuses", s.init_container_statuses);
  v("containerStatuses", s.container_statuses);
  v("allocatedResources", s.allocated_resources);
  v("resources", s.resources);
  v("resourceClaimStatuses", s.resource_claim_statuses);
  v("extendedResourceClaimStatus", s.extended_resource_claim_status);
}

template <typename V>
void Fields(V& v, Pod& p) {
  v("metadata", p.metadata);
  v("spec", p.spec);
  v("status", p.status);
}

// ---- node ----

template <typename V>
void Fields(V& v, NodeSpec& s) {
  v("podCIDR", s.pod_cidr);
  v("providerID", s.provider_id);
  v("unschedulable", s.unschedulable);
  v("taints", s.taints);
}

template <typename V>
void Fields(V& v, ContainerImage& i) {
  v("names", i.names);
  v("sizeBytes", i.size_bytes);
}

template <typename V>
void Fields(V& v, NodeCondition& c) {
  v("type", c.type, Emit::kAlways);
  v("status", c.status, Emit::kAlways);
  v("lastHeartbeatTime", c.last_heartbeat_time);
  v("lastTransitionTime", c.last_transition_time);
  v("reason", c.reason);
  v("message", c.message);
}

template <typename V>
void Fields(V& v, NodeStatus& s) {
  v("capacity", s.capacity);
  v("allocatable", s.allocatable);
  v("conditions", s.conditions);
  v("images", s.images);
  v("declaredFeatures", s.declared_features);
}

template <typename V>
void Fields(V& v, Node& n) {
  v("metadata", n.metadata);
  v("spec", n.spec);
  v("status", n.status);
}

// ---- other objects ----

template <typename V>
void Fields(V& v, Binding& b) {
  v("metadata", b.metadata);
  v("target", b.target, Emit::kAlways);
}

template <typename V>
void Fields(V& v, EventSeries& s) {
  v("count", s.count, Emit::kAlways);
  v("lastObservedTime", s.last_observed_time, Emit::kAlways);
}

template <typename V>
void Fields(V& v, Event& e) {
  v("metadata", e.metadata);
  v("eventTime", e.event_time, Emit::kAlways);
  v("series", e.series);
  v("reportingController", e.reporting_controller);
  v("reportingInstance", e.reporting_instance);
  v("action", e.action);
  v("reason", e.reason);
  v("regarding", e.regarding);
  v("related", e.related);
  v("note", e.note);
  v("type", e.type);
}

template <typename V>
void Fields(V& v, LeaseSpec& s) {
  v("holderIdentity", s.holder_identity);
  v("leaseDurationSeconds", s.lease_duration_seconds);
  v("acquireTime", s.acquire_time);
  v("renewTime", s.renew_time);
  v("leaseTransitions", s.lease_transitions);
}

template <typename V>
void Fields(V& v, Lease& l) {
  v("metadata", l.metadata);
  v("spec", l.spec);
}

template <typename V>
void Fields(V& v, StatusCause& c) {
  v("reason", c.reason);
  v("message", c.message);
  v("field", c.field);
}

template <typename V>
void Fields(V& v, StatusDetails& d) {
  v("name", d.name);
  v("group", d.group);
  v("kind", d.kind);
  v("uid", d.uid);
  v("causes", d.causes);
  v("retryAfterSeconds", d.retry_after_seconds);
}

template <typename V>
void Fields(V& v, Status& s) {
  v("metadata", s.metadata);
  v("status", s.status);
  v("message", s.message);
  v("reason", s.reason);
  v("details", s.details);
  v("code", s.code);
}

template <typename V>
void Fields(V& v, PriorityClass& c) {
  v("metadata", c.metadata);
  v("value", c.value, Emit::kAlways);
  v("globalDefault", c.global_default);
  v("preemptionPolicy", c.preemption_policy);
  v("description", c.description);
}

template <typename V>
void Fields(V& v, Namespace& n) {
  v("metadata", n.metadata);
}

// ---- storage ----

template <typename V>
void Fields(V& v, PersistentVolumeClaimSpec& s) {
  v("accessModes", s.access_modes);
  v("selector", s.selector);
  v("resources", s.resources);
  v("volumeName", s.volume_name);
  v("storageClassName", s.storage_class_name);
  v("volumeMode", s.volume_mode);
}

template <typename V>
void Fields(V& v, PersistentVolumeClaimStatus& s) {
  v("phase", s.phase);
  v("accessModes", s.access_modes);
  v("capacity", s.capacity);
}

template <typename V>
void Fields(V& v, PersistentVolumeClaim& c) {
  v("metadata", c.metadata);
  v("spec", c.spec);
  v("status", c.status);
}

template <typename V>
void Fields(V& v, VolumeNodeAffinity& a) {
  v("required", a.required);
}

template <typename V>
void Fields(V& v, CsiVolumeSource& s) {
  v("driver", s.driver, Emit::kAlways);
  v("volumeHandle", s.volume_handle, Emit::kAlways);
}

template <typename V>
void Fields(V& v, PersistentVolumeSpec& s) {
  v("capacity", s.capacity);
  v("csi", s.csi);
  v("accessModes", s.access_modes);
  v("claimRef", s.claim_ref);
  v("persistentVolumeReclaimPolicy", s.persistent_volume_reclaim_policy);
  v("storageClassName", s.storage_class_name);
  v("volumeMode", s.volume_mode);
  v("nodeAffinity", s.node_affinity);
  InTreeSourceFields(v, s.in_tree);
}

template <typename V>
void Fields(V& v, PersistentVolumeStatus& s) {
  v("phase", s.phase);
}

template <typename V>
void Fields(V& v, PersistentVolume& p) {
  v("metadata", p.metadata);
  v("spec", p.spec);
  v("status", p.status);
}

template <typename V>
void Fields(V& v, TopologySelectorLabelRequirement& r) {
  v("key", r.key, Emit::kAlways);
  v("values", r.values, Emit::kAlways);
}

template <typename V>
void Fields(V& v, TopologySelectorTerm& t) {
  v("matchLabelExpressions", t.match_label_expressions);
}

template <typename V>
void Fields(V& v, StorageClass& c) {
  v("metadata", c.metadata);
  v("provisioner", c.provisioner, Emit::kAlways);
  v("volumeBindingMode", c.volume_binding_mode);
  v("allowedTopologies", c.allowed_topologies);
}

template <typename V>
void Fields(V& v, VolumeNodeResources& r) {
  v("count", r.count);
}

template <typename V>
void Fields(V& v, CsiNodeDriver& d) {
  v("name", d.name, Emit::kAlways);
  v("nodeID", d.node_id, Emit::kAlways);
  v("topologyKeys", d.topology_keys, Emit::kAlways);
  v("allocatable", d.allocatable);
}

template <typename V>
void Fields(V& v, CsiNodeSpec& s) {
  v("drivers", s.drivers, Emit::kAlways);
}

template <typename V>
void Fields(V& v, CsiNode& n) {
  v("metadata", n.metadata);
  v("spec", n.spec, Emit::kAlways);
}

template <typename V>
void Fields(V& v, CsiDriverSpec& s) {
  v("attachRequired", s.attach_required);
  v("podInfoOnMount", s.pod_info_on_mount);
  v("storageCapacity", s.storage_capacity);
  v("volumeLifecycleModes", s.volume_lifecycle_modes);
}

template <typename V>
void Fields(V& v, CsiDriver& d) {
  v("metadata", d.metadata);
  v("spec", d.spec, Emit::kAlways);
}

template <typename V>
void Fields(V& v, VolumeAttachmentSource& s) {
  v("persistentVolumeName", s.persistent_volume_name);
}

template <typename V>
void Fields(V& v, VolumeAttachmentSpec& s) {
  v("attacher", s.attacher, Emit::kAlways);
  v("source", s.source, Emit::kAlways);
  v("nodeName", s.node_name, Emit::kAlways);
}

template <typename V>
void Fields(V& v, VolumeAttachmentStatus& s) {
  v("attached", s.attached, Emit::kAlways);
}

template <typename V>
void Fields(V& v, VolumeAttachment& a) {
  v("metadata", a.metadata);
  v("spec", a.spec, Emit::kAlways);
  v("status", a.status);
}

// ---- policy ----

template <typename V>
void Fields(V& v, PodDisruptionBudgetSpec& s) {
  v("minAvailable", s.min_available);
  v("selector", s.selector);
  v("maxUnavailable", s.max_unavailable);
}

template <typename V>
void Fields(V& v, PodDisruptionBudgetStatus& s) {
  v("observedGeneration", s.observed_generation);
  v("disruptedPods", s.disrupted_pods);
  v("disruptionsAllowed", s.disruptions_allowed, Emit::kAlways);
  v("currentHealthy", s.current_healthy, Emit::kAlways);
  v("desiredHealthy", s.desired_healthy, Emit::kAlways);
  v("expectedPods", s.expected_pods, Emit::kAlways);
}

template <typename V>
void Fields(V& v, PodDisruptionBudget& b) {
  v("metadata", b.metadata);
  v("spec", b.spec);
  v("status", b.status);
}

// ---- scheduling.x-k8s.io (scheduler-plugins' PodGroup) ----

template <typename V>
void Fields(V& v, PodGroupSpec& s) {
  v("minMember", s.min_member);
  v("minResources", s.min_resources);
  v("scheduleTimeoutSeconds", s.schedule_timeout_seconds);
}

template <typename V>
void Fields(V& v, PodGroupStatus& s) {
  v("phase", s.phase);
  v("occupiedBy", s.occupied_by);
  v("scheduled", s.scheduled);
  v("running", s.running);
  v("succeeded", s.succeeded);
  v("failed", s.failed);
  v("scheduleStartTime", s.schedule_start_time);
}

template <typename V>
void Fields(V& v, PodGroup& g) {
  v("metadata", g.metadata);
  v("spec", g.spec);
  v("status", g.status);
}

// ---- workloads (apps/v1, batch/v1) ----

template <typename V>
void Fields(V& v, PodTemplateSpec& t) {
  v("metadata", t.metadata);
  v("spec", t.spec);
}

template <typename V>
void Fields(V& v, ReplicatedSpec& s) {
  v("replicas", s.replicas);
  v("selector", s.selector);
  v("template", s.pod_template);
}

template <typename V>
void Fields(V& v, Deployment& d) {
  v("metadata", d.metadata);
  v("spec", d.spec);
}

template <typename V>
void Fields(V& v, ReplicaSet& r) {
  v("metadata", r.metadata);
  v("spec", r.spec);
}

template <typename V>
void Fields(V& v, StatefulSetSpec& s) {
  v("replicas", s.replicas);
  v("selector", s.selector);
  v("template", s.pod_template);
  v("volumeClaimTemplates", s.volume_claim_templates);
  v("serviceName", s.service_name);
}

template <typename V>
void Fields(V& v, StatefulSet& s) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}

template <typename V>
void Fields(V& v, DaemonSetSpec& s) {
  v("selector", s.selector);
  v("template", s.pod_template);
}

template <typename V>
void Fields(V& v, DaemonSet& d) {
  v("metadata", d.metadata);
  v("spec", d.spec);
}

template <typename V>
void Fields(V& v, JobSpec& s) {
  v("parallelism", s.parallelism);
  v("completions", s.completions);
  v("completionMode", s.completion_mode);
  v("template", s.pod_template);
}

template <typename V>
void Fields(V& v, Job& j) {
  v("metadata", j.metadata);
  v("spec", j.spec);
}

template <typename V>
void Fields(V& v, JobTemplateSpec& t) {
  v("metadata", t.metadata);
  v("spec", t.spec);
}

template <typename V>
void Fields(V& v, CronJobSpec& s) {
  v("schedule", s.schedule);
  v("jobTemplate", s.job_template);
}

template <typename V>
void Fields(V& v, CronJob& c) {
  v("metadata", c.metadata);
  v("spec", c.spec);
}

// ---- resource.k8s.io/v1 (DRA) ----

template <typename V>
void Fields(V& v, CelDeviceSelector& s) {
  v("expression", s.expression, Emit::kAlways);
}

template <typename V>
void Fields(V& v, DeviceSelector& s) {
  v("cel", s.cel);
}

template <typename V>
void Fields(V& v, OpaqueDeviceConfiguration& c) {
  v("driver", c.driver, Emit::kAlways);
  v("parameters", c.parameters, Emit::kAlways);
}

// Go inlines DeviceConfiguration into each config entry; so do these lists.
template <typename V>
void Fields(V& v, DeviceClassConfiguration& c) {
  v("opaque", c.config.opaque);
}

template <typename V>
void Fields(V& v, DeviceClassSpec& s) {
  v("selectors", s.selectors);
  v("config", s.config);
  v("extendedResourceName", s.extended_resource_name);
}

template <typename V>
void Fields(V& v, DeviceClass& c) {
  v("metadata", c.metadata);
  v("spec", c.spec, Emit::kAlways);
}

template <typename V>
void Fields(V& v, ResourcePool& p) {
  v("name", p.name, Emit::kAlways);
  v("generation", p.generation, Emit::kAlways);
  v("resourceSliceCount", p.resource_slice_count, Emit::kAlways);
}

template <typename V>
void Fields(V& v, DeviceAttribute& a) {
  v("int", a.int_value);
  v("bool", a.bool_value);
  v("string", a.string_value);
  v("version", a.version_value);
}

template <typename V>
void Fields(V& v, CapacityRequestPolicyRange& r) {
  v("min", r.min);
  v("max", r.max);
  v("step", r.step);
}

template <typename V>
void Fields(V& v, CapacityRequestPolicy& p) {
  v("default", p.default_value);
  v("validValues", p.valid_values);
  v("validRange", p.valid_range);
}

template <typename V>
void Fields(V& v, DeviceCapacity& c) {
  v("value", c.value, Emit::kAlways);
  v("requestPolicy", c.request_policy);
}

template <typename V>
void Fields(V& v, Counter& c) {
  v("value", c.value, Emit::kAlways);
}

template <typename V>
void Fields(V& v, CounterSet& s) {
  v("name", s.name, Emit::kAlways);
  v("counters", s.counters);
}

template <typename V>
void Fields(V& v, DeviceCounterConsumption& c) {
  v("counterSet", c.counter_set, Emit::kAlways);
  v("counters", c.counters);
}

template <typename V>
void Fields(V& v, DeviceTaint& t) {
  v("key", t.key, Emit::kAlways);
  v("value", t.value);
  v("effect", t.effect, Emit::kAlways);
  v("timeAdded", t.time_added);
}

template <typename V>
void Fields(V& v, Device& d) {
  v("name", d.name, Emit::kAlways);
  v("attributes", d.attributes);
  v("capacity", d.capacity);
  v("consumesCounters", d.consumes_counters);
  v("nodeName", d.node_name);
  v("nodeSelector", d.node_selector);
  v("allNodes", d.all_nodes);
  v("taints", d.taints);
  v("bindsToNode", d.binds_to_node);
  v("bindingConditions", d.binding_conditions);
  v("bindingFailureConditions", d.binding_failure_conditions);
  v("allowMultipleAllocations", d.allow_multiple_allocations);
}

template <typename V>
void Fields(V& v, ResourceSliceSpec& s) {
  v("driver", s.driver, Emit::kAlways);
  v("pool", s.pool, Emit::kAlways);
  v("nodeName", s.node_name);
  v("nodeSelector", s.node_selector);
  v("allNodes", s.all_nodes);
  v("devices", s.devices);
  v("perDeviceNodeSelection", s.per_device_node_selection);
  v("sharedCounters", s.shared_counters);
}

template <typename V>
void Fields(V& v, ResourceSlice& s) {
  v("metadata", s.metadata);
  v("spec", s.spec, Emit::kAlways);
}

template <typename V>
void Fields(V& v, DeviceToleration& t) {
  v("key", t.key);
  v("operator", t.op);
  v("value", t.value);
  v("effect", t.effect);
  v("tolerationSeconds", t.toleration_seconds);
}

template <typename V>
void Fields(V& v, CapacityRequirements& c) {
  v("requests", c.requests);
}

template <typename V>
void Fields(V& v, ExactDeviceRequest& r) {
  v("deviceClassName", r.device_class_name, Emit::kAlways);
  v("selectors", r.selectors);
  v("allocationMode", r.allocation_mode);
  v("count", r.count);
  v("adminAccess", r.admin_access);
  v("tolerations", r.tolerations);
  v("capacity", r.capacity);
}

template <typename V>
void Fields(V& v, DeviceSubRequest& r) {
  v("name", r.name, Emit::kAlways);
  v("deviceClassName", r.device_class_name, Emit::kAlways);
  v("selectors", r.selectors);
  v("allocationMode", r.allocation_mode);
  v("count", r.count);
  v("tolerations", r.tolerations);
  v("capacity", r.capacity);
}

template <typename V>
void Fields(V& v, DeviceRequest& r) {
  v("name", r.name, Emit::kAlways);
  v("exactly", r.exactly);
  v("firstAvailable", r.first_available);
}

template <typename V>
void Fields(V& v, DeviceConstraint& c) {
  v("requests", c.requests);
  v("matchAttribute", c.match_attribute);
  v("distinctAttribute", c.distinct_attribute);
}

template <typename V>
void Fields(V& v, DeviceClaimConfiguration& c) {
  v("requests", c.requests);
  v("opaque", c.config.opaque);
}

template <typename V>
void Fields(V& v, DeviceClaim& c) {
  v("requests", c.requests, Emit::kAlways);
  v("constraints", c.constraints);
  v("config", c.config);
}

template <typename V>
void Fields(V& v, ResourceClaimSpec& s) {
  v("devices", s.devices, Emit::kAlways);
}

template <typename V>
void Fields(V& v, DeviceRequestAllocationResult& r) {
  v("request", r.request, Emit::kAlways);
  v("driver", r.driver, Emit::kAlways);
  v("pool", r.pool, Emit::kAlways);
  v("device", r.device, Emit::kAlways);
  v("adminAccess", r.admin_access);
  v("tolerations", r.tolerations);
  v("bindingConditions", r.binding_conditions);
  v("bindingFailureConditions", r.binding_failure_conditions);
  v("shareID", r.share_id);
  v("consumedCapacity", r.consumed_capacity);
}

template <typename V>
void Fields(V& v, DeviceAllocationConfiguration& c) {
  v("source", c.source, Emit::kAlways);
  v("requests", c.requests);
  v("opaque", c.config.opaque);
}

template <typename V>
void Fields(V& v, DeviceAllocationResult& r) {
  v("results", r.results);
  v("config", r.config);
}

template <typename V>
void Fields(V& v, AllocationResult& a) {
  v("devices", a.devices);
  v("nodeSelector", a.node_selector);
  v("allocationTimestamp", a.allocation_timestamp);
}

template <typename V>
void Fields(V& v, ResourceClaimConsumerReference& r) {
  v("apiGroup", r.api_group);
  v("resource", r.resource, Emit::kAlways);
  v("name", r.name, Emit::kAlways);
  v("uid", r.uid, Emit::kAlways);
}

template <typename V>
void Fields(V& v, Condition& c) {
  v("type", c.type, Emit::kAlways);
  v("status", c.status, Emit::kAlways);
  v("observedGeneration", c.observed_generation);
  v("lastTransitionTime", c.last_transition_time, Emit::kAlways);
  v("reason", c.reason, Emit::kAlways);
  v("message", c.message, Emit::kAlways);
}

template <typename V>
void Fields(V& v, NetworkDeviceData& n) {
  v("interfaceName", n.interface_name);
  v("ips", n.ips);
  v("hardwareAddress", n.hardware_address);
}

template <typename V>
void Fields(V& v, AllocatedDeviceStatus& s) {
  v("driver", s.driver, Emit::kAlways);
  v("pool", s.pool, Emit::kAlways);
  v("device", s.device, Emit::kAlways);
  v("shareID", s.share_id);
  v("conditions", s.conditions);
  v("data", s.data);
  v("networkData", s.network_data);
}

template <typename V>
void Fields(V& v, ResourceClaimStatus& s) {
  v("allocation", s.allocation);
  v("reservedFor", s.reserved_for);
  v("devices", s.devices);
}

template <typename V>
void Fields(V& v, ResourceClaim& c) {
  v("metadata", c.metadata);
  v("spec", c.spec, Emit::kAlways);
  v("status", c.status);
}

template <typename V>
void Fields(V& v, ResourceClaimTemplateSpec& s) {
  v("metadata", s.metadata);
  v("spec", s.spec, Emit::kAlways);
}

template <typename V>
void Fields(V& v, ResourceClaimTemplate& t) {
  v("metadata", t.metadata);
  v("spec", t.spec, Emit::kAlways);
}

template <typename V, typename T>
void Fields(V& v, List<T>& l) {
  v("metadata", l.metadata);
  v("items", l.items, Emit::kAlways);
}

}  // namespace ksched::api

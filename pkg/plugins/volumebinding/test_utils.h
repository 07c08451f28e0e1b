// Builders for the volume binding tests, after kube-scheduler's
// volumebinding test_utils.go (makePVC, makePV, makeNode) and binder_test.go
// (makeTestPVC, makeTestPV).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/quantity.h"
#include "pkg/api/storage.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/volumebinding/pv_helpers.h"

namespace ksched::plugins::volumebinding::testutil {

inline const std::string kHostname = "kubernetes.io/hostname";
inline const std::string kZone = "topology.kubernetes.io/zone";

inline api::Quantity Q(const std::string& text) {
  return *api::Quantity::Parse(text);
}

class PvcBuilder {
 public:
  // makePVC: namespace "default", the class by name.
  PvcBuilder(std::string name, std::string class_name,
             std::string ns = "default") {
    pvc_.metadata.name = std::move(name);
    pvc_.metadata.ns = std::move(ns);
    pvc_.spec.storage_class_name = std::move(class_name);
  }
  // withBoundPV: spec.volumeName and the bind-completed annotation.
  PvcBuilder& BoundPv(std::string pv) {
    pvc_.spec.volume_name = std::move(pv);
    pvc_.metadata.annotations.Set(api::kAnnBindCompleted, "yes");
    return *this;
  }
  // Pre-bound by the user: spec.volumeName only.
  PvcBuilder& PreboundPv(std::string pv) {
    pvc_.spec.volume_name = std::move(pv);
    return *this;
  }
  PvcBuilder& Request(const std::string& storage) {
    pvc_.spec.resources.requests.Set(kResourceStorage, Q(storage));
    return *this;
  }
  PvcBuilder& Phase(std::string phase) {
    pvc_.status.phase = std::move(phase);
    return *this;
  }
  PvcBuilder& Uid(std::string uid) {
    pvc_.metadata.uid = std::move(uid);
    return *this;
  }
  PvcBuilder& ResourceVersion(std::string rv) {
    pvc_.metadata.resource_version = std::move(rv);
    return *this;
  }
  PvcBuilder& Annotation(std::string key, std::string value) {
    pvc_.metadata.annotations.Set(key, std::move(value));
    return *this;
  }
  PvcBuilder& SelectedNode(std::string node) {
    return Annotation(std::string(api::kAnnSelectedNode), std::move(node));
  }
  PvcBuilder& Deleting() {
    pvc_.metadata.deletion_timestamp =
        api::Time{api::Timestamp(std::chrono::seconds(1))};
    return *this;
  }
  PvcBuilder& AccessModes(std::vector<std::string> modes) {
    pvc_.spec.access_modes = std::move(modes);
    return *this;
  }
  PvcBuilder& VolumeMode(std::string mode) {
    pvc_.spec.volume_mode = std::move(mode);
    return *this;
  }
  PvcBuilder& Selector(api::LabelSelector selector) {
    pvc_.spec.selector = std::move(selector);
    return *this;
  }
  PvcBuilder& NoClass() {
    pvc_.spec.storage_class_name.reset();
    return *this;
  }
  // The pod owns the claim as its controller (a generic ephemeral volume's).
  PvcBuilder& ControlledBy(const api::Pod& pod) {
    api::OwnerReference ref;
    ref.kind = "Pod";
    ref.name = pod.metadata.name;
    ref.uid = pod.metadata.uid;
    ref.controller = true;
    pvc_.metadata.owner_references.push_back(std::move(ref));
    return *this;
  }
  api::PersistentVolumeClaim Obj() const { return pvc_; }

 private:
  api::PersistentVolumeClaim pvc_;
};

class PvBuilder {
 public:
  PvBuilder(std::string name, std::string class_name) {
    pv_.metadata.name = std::move(name);
    pv_.spec.storage_class_name = std::move(class_name);
  }
  PvBuilder& Phase(std::string phase) {
    pv_.status.phase = std::move(phase);
    return *this;
  }
  PvBuilder& Available() { return Phase(std::string(kVolumeAvailable)); }
  PvBuilder& Capacity(const std::string& storage) {
    pv_.spec.capacity.Set(kResourceStorage, Q(storage));
    return *this;
  }
  // withNodeAffinity: one required term; each call adds `key In values`.
  PvBuilder& NodeAffinity(std::string key, std::vector<std::string> values) {
    return AddExpression(std::move(key), api::NodeSelectorOperator::kIn,
                         std::move(values));
  }
  PvBuilder& AddExpression(std::string key, api::NodeSelectorOperator op,
                           std::vector<std::string> values,
                           bool field = false) {
    if (!pv_.spec.node_affinity) pv_.spec.node_affinity.emplace();
    auto& required = pv_.spec.node_affinity->required;
    if (!required) required.emplace();
    if (required->node_selector_terms.empty()) {
      required->node_selector_terms.emplace_back();
    }
    auto& term = required->node_selector_terms.front();
    (field ? term.match_fields : term.match_expressions)
        .push_back({std::move(key), op, std::move(values)});
    return *this;
  }
  // makeTestPV's boundToPVC: claimRef and bound-by-controller.
  PvBuilder& BoundTo(const api::PersistentVolumeClaim& claim) {
    api::ObjectReference ref;
    ref.kind = "PersistentVolumeClaim";
    ref.api_version = "v1";
    ref.ns = claim.metadata.ns;
    ref.name = claim.metadata.name;
    ref.uid = claim.metadata.uid;
    ref.resource_version = claim.metadata.resource_version;
    pv_.spec.claim_ref = std::move(ref);
    pv_.metadata.annotations.Set(kAnnBoundByController, "yes");
    return *this;
  }
  PvBuilder& ResourceVersion(std::string rv) {
    pv_.metadata.resource_version = std::move(rv);
    return *this;
  }
  PvBuilder& AccessModes(std::vector<std::string> modes) {
    pv_.spec.access_modes = std::move(modes);
    return *this;
  }
  PvBuilder& VolumeMode(std::string mode) {
    pv_.spec.volume_mode = std::move(mode);
    return *this;
  }
  PvBuilder& Label(std::string key, std::string value) {
    pv_.metadata.labels.Set(key, std::move(value));
    return *this;
  }
  PvBuilder& Deleting() {
    pv_.metadata.deletion_timestamp =
        api::Time{api::Timestamp(std::chrono::seconds(1))};
    return *this;
  }
  // A claimRef the user set: the volume is reserved for the claim.
  PvBuilder& ClaimRef(std::string ns, std::string name) {
    api::ObjectReference ref;
    ref.ns = std::move(ns);
    ref.name = std::move(name);
    pv_.spec.claim_ref = std::move(ref);
    return *this;
  }
  api::PersistentVolume Obj() const { return pv_; }

 private:
  api::PersistentVolume pv_;
};

inline api::StorageClass MakeClass(
    std::string name, std::string_view mode, std::string provisioner = "",
    std::vector<api::TopologySelectorTerm> topologies = {}) {
  api::StorageClass sc;
  sc.metadata.name = std::move(name);
  sc.volume_binding_mode = std::string(mode);
  sc.provisioner = std::move(provisioner);
  sc.allowed_topologies = std::move(topologies);
  return sc;
}

// One allowedTopologies term: `key In values`.
inline api::TopologySelectorTerm Topology(std::string key,
                                          std::vector<std::string> values) {
  api::TopologySelectorTerm term;
  term.match_label_expressions.push_back({std::move(key), std::move(values)});
  return term;
}

// The storage classes of TestVolumeBinding (immediate-sc, wait-sc,
// wait-hdd-sc: no provisioner), one that provisions in zone-a only
// (zonal-sc) and one for static volumes only (static-sc).
inline void AddTestClasses(framework::InMemoryClusterObjects& objects) {
  objects.Upsert(MakeClass("immediate-sc", api::kVolumeBindingImmediate));
  objects.Upsert(MakeClass("wait-sc", api::kVolumeBindingWaitForFirstConsumer));
  objects.Upsert(
      MakeClass("wait-hdd-sc", api::kVolumeBindingWaitForFirstConsumer));
  objects.Upsert(MakeClass(
      "zonal-sc", api::kVolumeBindingWaitForFirstConsumer, "csi.example.com",
      {Topology("topology.kubernetes.io/zone", {"zone-a"})}));
  objects.Upsert(MakeClass("static-sc", api::kVolumeBindingWaitForFirstConsumer,
                           std::string(kNotSupportedProvisioner)));
}

// makeNode: labelled with its hostname.
inline testing::NodeBuilder MakeNode(const std::string& name) {
  testing::NodeBuilder b(name);
  b.Label("kubernetes.io/hostname", name);
  return b;
}

// A pod volume backed by a generic ephemeral volume.
inline api::Pod WithEphemeralVolume(api::Pod pod, std::string volume) {
  api::Volume v;
  v.name = std::move(volume);
  v.ephemeral.emplace();
  pod.spec.volumes.push_back(std::move(v));
  return pod;
}

// A volume of a kind VolumeBinding ignores (emptyDir and the like).
inline api::Pod WithOtherVolume(api::Pod pod, std::string volume) {
  api::Volume v;
  v.name = std::move(volume);
  pod.spec.volumes.push_back(std::move(v));
  return pod;
}

}  // namespace ksched::plugins::volumebinding::testutil

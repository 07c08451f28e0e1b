// ClusterObjects: read-only views of the objects plugins consult besides
// nodes and pods (namespaces, PodDisruptionBudgets, volumes, CSI objects), kept
// current by informers in a cluster and filled from manifests by the simulator.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/objects.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/policy.h"
#include "pkg/api/storage.h"

namespace ksched::framework {

class ClusterObjects {
 public:
  virtual ~ClusterObjects() = default;
  virtual std::shared_ptr<const api::Namespace> GetNamespace(
      std::string_view name) const = 0;
  virtual std::vector<std::shared_ptr<const api::PodDisruptionBudget>>
  ListPodDisruptionBudgets() const = 0;
  virtual std::shared_ptr<const api::PersistentVolumeClaim>
  GetPersistentVolumeClaim(std::string_view ns,
                           std::string_view name) const = 0;
  virtual std::shared_ptr<const api::PersistentVolume> GetPersistentVolume(
      std::string_view name) const = 0;
  virtual std::vector<std::shared_ptr<const api::PersistentVolume>>
  ListPersistentVolumes() const = 0;
  virtual std::shared_ptr<const api::StorageClass> GetStorageClass(
      std::string_view name) const = 0;
  virtual std::shared_ptr<const api::CsiNode> GetCsiNode(
      std::string_view name) const = 0;
  virtual std::shared_ptr<const api::CsiDriver> GetCsiDriver(
      std::string_view name) const = 0;
  // The VolumeAttachments whose spec.nodeName is `node`.
  virtual std::vector<std::shared_ptr<const api::VolumeAttachment>>
  ListVolumeAttachments(std::string_view node) const = 0;
  // scheduler-plugins' PodGroups (Coscheduling); none when the cluster does
  // not have the custom resource.
  virtual std::shared_ptr<const api::PodGroup> GetPodGroup(
      std::string_view ns, std::string_view name) const = 0;
  virtual std::vector<std::shared_ptr<const api::PodGroup>> ListPodGroups()
      const = 0;
};

// A thread-safe store of those objects; objects are replaced whole, so a
// reader's shared_ptr stays valid and unchanged.
class InMemoryClusterObjects final : public ClusterObjects {
 public:
  void Upsert(api::Namespace ns);
  void Upsert(api::PodDisruptionBudget pdb);
  void Upsert(api::PersistentVolumeClaim pvc);
  void Upsert(api::PersistentVolume pv);
  void Upsert(api::StorageClass sc);
  void Upsert(api::CsiNode csi_node);
  void Upsert(api::CsiDriver csi_driver);
  void Upsert(api::VolumeAttachment attachment);
  void Upsert(api::PodGroup group);
  void DeleteNamespace(const std::string& name);
  void DeletePodDisruptionBudget(const std::string& ns,
                                 const std::string& name);
  void DeletePersistentVolumeClaim(const std::string& ns,
                                   const std::string& name);
  void DeletePersistentVolume(const std::string& name);
  void DeleteStorageClass(const std::string& name);
  void DeleteCsiNode(const std::string& name);
  void DeleteCsiDriver(const std::string& name);
  void DeleteVolumeAttachment(const std::string& name);
  void DeletePodGroup(const std::string& ns, const std::string& name);

  std::shared_ptr<const api::Namespace> GetNamespace(
      std::string_view name) const override;
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>>
  ListPodDisruptionBudgets() const override;
  std::shared_ptr<const api::PersistentVolumeClaim> GetPersistentVolumeClaim(
      std::string_view ns, std::string_view name) const override;
  std::shared_ptr<const api::PersistentVolume> GetPersistentVolume(
      std::string_view name) const override;
  std::vector<std::shared_ptr<const api::PersistentVolume>>
  ListPersistentVolumes() const override;
  std::shared_ptr<const api::StorageClass> GetStorageClass(
      std::string_view name) const override;
  std::shared_ptr<const api::CsiNode> GetCsiNode(
      std::string_view name) const override;
  std::shared_ptr<const api::CsiDriver> GetCsiDriver(
      std::string_view name) const override;
  std::vector<std::shared_ptr<const api::VolumeAttachment>>
  ListVolumeAttachments(std::string_view node) const override;
  std::shared_ptr<const api::PodGroup> GetPodGroup(
      std::string_view ns, std::string_view name) const override;
  std::vector<std::shared_ptr<const api::PodGroup>> ListPodGroups()
      const override;

 private:
  template <typename T>
  using Store = std::map<std::string, std::shared_ptr<const T>, std::less<>>;
  static std::string Key(std::string_view ns, std::string_view name) {
    return std::string(ns) + "/" + std::string(name);
  }

  mutable std::mutex mu_;
  Store<api::Namespace> namespaces_;
  Store<api::PodDisruptionBudget> pdbs_;    // by namespace/name
  Store<api::PersistentVolumeClaim> pvcs_;  // by namespace/name
  Store<api::PersistentVolume> pvs_;
  Store<api::StorageClass> storage_classes_;
  Store<api::CsiNode> csi_nodes_;
  Store<api::CsiDriver> csi_drivers_;
  // By name, and by node then name: Filter asks per node.
  Store<api::VolumeAttachment> attachments_;
  std::map<std::string, Store<api::VolumeAttachment>, std::less<>>
      attachments_by_node_;
  Store<api::PodGroup> pod_groups_;  // by namespace/name
};

}  // namespace ksched::framework

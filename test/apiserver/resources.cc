#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

namespace {

std::vector<ResourceInfo> BuildResources() {
  std::vector<ResourceInfo> r;
  r.push_back(ResourceInfo{
      .version = "v1",
      .resource = "pods",
      .kind = "Pod",
      .has_status = true,
      .return_deleted_object = true,
      .storage_directory = "pods",
      .zero_value_fields = R"("spec":{"containers":null},"status":{})",
      .selectable_fields = {"spec.nodeName", "spec.restartPolicy",
                            "spec.schedulerName", "spec.serviceAccountName",
                            "spec.hostNetwork", "status.phase", "status.podIP",
                            "status.nominatedNodeName"},
      .short_names = {"po"},
      .categories = {"all"}});
  r.push_back(ResourceInfo{
      .version = "v1",
      .resource = "nodes",
      .kind = "Node",
      .namespaced = false,
      .has_status = true,
      .storage_directory = "minions",
      .zero_value_fields =
          R"("spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},)"
          R"("nodeInfo":{"machineID":"","systemUUID":"","bootID":"",)"
          R"("kernelVersion":"","osImage":"","containerRuntimeVersion":"",)"
          R"("kubeletVersion":"","kubeProxyVersion":"","operatingSystem":"",)"
          R"("architecture":""}})",
      .selectable_fields = {"spec.unschedulable"},
      .short_names = {"no"}});
  r.push_back(ResourceInfo{.version = "v1",
                           .resource = "namespaces",
                           .kind = "Namespace",
                           .namespaced = false,
                           .has_status = true,
                           .return_deleted_object = true,
                           .storage_directory = "namespaces",
                           .zero_value_fields = R"("spec":{},"status":{})",
                           .selectable_fields = {"status.phase"},
                           .short_names = {"ns"},
                           .verbs = {"create", "delete", "get", "list", "patch",
                                     "update", "watch"}});
  r.push_back(ResourceInfo{
      .version = "v1",
      .resource = "persistentvolumeclaims",
      .kind = "PersistentVolumeClaim",
      .has_status = true,
      .return_deleted_object = true,
      .storage_directory = "persistentvolumeclaims",
      .zero_value_fields = R"("spec":{"resources":{}},"status":{})",
      .short_names = {"pvc"}});
  r.push_back(ResourceInfo{.version = "v1",
                           .resource = "persistentvolumes",
                           .kind = "PersistentVolume",
                           .namespaced = false,
                           .has_status = true,
                           .return_deleted_object = true,
                           .storage_directory = "persistentvolumes",
                           .zero_value_fields = R"("spec":{},"status":{})",
                           .short_names = {"pv"}});
  r.push_back(ResourceInfo{
      .group = "events.k8s.io",
      .version = "v1",
      .resource = "events",
      .kind = "Event",
      .allow_create_on_update = true,
      .storage_directory = "events",
      .zero_value_fields =
          R"("eventTime":null,"regarding":{},"deprecatedSource":{},)"
          R"("deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null)",
      .selectable_fields = {"reason", "type", "reportingController",
                            "regarding.kind", "regarding.namespace",
                            "regarding.name", "regarding.uid",
                            "regarding.apiVersion", "regarding.resourceVersion",
                            "regarding.fieldPath"},
      .short_names = {"ev"},
      .storage_gvk = "/v1/Event"});
  // scheduler-plugins' CRD (podgroups.scheduling.x-k8s.io), as the chart
  // installs it. A custom resource's DELETE answers with the object.
  r.push_back(
      ResourceInfo{.group = "scheduling.x-k8s.io",
                   .version = "v1alpha1",
                   .resource = "podgroups",
                   .kind = "PodGroup",
                   .has_status = true,
                   .return_deleted_object = true,
                   .custom = true,
                   .storage_directory = "scheduling.x-k8s.io/podgroups",
                   .short_names = {"pg", "pgs"},
                   .verbs = {"delete", "deletecollection", "get", "list",
                             "patch", "create", "update", "watch"}});
  r.push_back(ResourceInfo{.group = "coordination.k8s.io",
                           .version = "v1",
                           .resource = "leases",
                           .kind = "Lease",
                           .storage_directory = "leases",
                           .zero_value_fields = R"("spec":{})"});
  r.push_back(ResourceInfo{.group = "storage.k8s.io",
                           .version = "v1",
                           .resource = "storageclasses",
                           .kind = "StorageClass",
                           .namespaced = false,
                           .storage_directory = "storageclasses",
                           .zero_value_fields = R"("provisioner":"")",
                           .short_names = {"sc"}});
  r.push_back(ResourceInfo{.group = "storage.k8s.io",
                           .version = "v1",
                           .resource = "csinodes",
                           .kind = "CSINode",
                           .namespaced = false,
                           .storage_directory = "csinodes",
                           .zero_value_fields = R"("spec":{"drivers":null})"});
  r.push_back(ResourceInfo{.group = "storage.k8s.io",
                           .version = "v1",
                           .resource = "csidrivers",
                           .kind = "CSIDriver",
                           .namespaced = false,
                           .storage_directory = "csidrivers",
                           .zero_value_fields = R"("spec":{})"});
  r.push_back(
      ResourceInfo{.group = "storage.k8s.io",
                   .version = "v1",
                   .resource = "volumeattachments",
                   .kind = "VolumeAttachment",
                   .namespaced = false,
                   .has_status = true,
                   .storage_directory = "volumeattachments",
                   .zero_value_fields =
                       R"("spec":{"attacher":"","source":{},"nodeName":""},)"
                       R"("status":{"attached":false})"});
  r.push_back(ResourceInfo{
      .group = "policy",
      .version = "v1",
      .resource = "poddisruptionbudgets",
      .kind = "PodDisruptionBudget",
      .has_status = true,
      .storage_directory = "poddisruptionbudgets",
      .zero_value_fields =
          R"("spec":{},"status":{"disruptionsAllowed":0,"currentHealthy":0,)"
          R"("desiredHealthy":0,"expectedPods":0})",
      .short_names = {"pdb"}});
  r.push_back(ResourceInfo{.group = "scheduling.k8s.io",
                           .version = "v1",
                           .resource = "priorityclasses",
                           .kind = "PriorityClass",
                           .namespaced = false,
                           .storage_directory = "priorityclasses",
                           .zero_value_fields = R"("value":0)",
                           .short_names = {"pc"}});
  // Dynamic resource allocation at v1, which v1.34 and later serve by
  // default (a default v1.32 serves no resource.k8s.io version at all).
  r.push_back(ResourceInfo{.group = "resource.k8s.io",
                           .version = "v1",
                           .resource = "deviceclasses",
                           .kind = "DeviceClass",
                           .namespaced = false,
                           .return_deleted_object = true,
                           .storage_directory = "deviceclasses",
                           .zero_value_fields = R"("spec":{})",
                           .since_minor = 34});
  r.push_back(
      ResourceInfo{.group = "resource.k8s.io",
                   .version = "v1",
                   .resource = "resourceclaims",
                   .kind = "ResourceClaim",
                   .has_status = true,
                   .return_deleted_object = true,
                   .storage_directory = "resourceclaims",
                   .zero_value_fields =
                       R"("spec":{"devices":{"requests":null}},"status":{})",
                   .since_minor = 34});
  r.push_back(ResourceInfo{
      .group = "resource.k8s.io",
      .version = "v1",
      .resource = "resourceclaimtemplates",
      .kind = "ResourceClaimTemplate",
      .return_deleted_object = true,
      .storage_directory = "resourceclaimtemplates",
      .zero_value_fields = R"("spec":{"spec":{"devices":{"requests":null}}})",
      .since_minor = 34});
  r.push_back(ResourceInfo{
      .group = "resource.k8s.io",
      .version = "v1",
      .resource = "resourceslices",
      .kind = "ResourceSlice",
      .namespaced = false,
      .return_deleted_object = true,
      .storage_directory = "resourceslices",
      .zero_value_fields =
          R"("spec":{"driver":"","pool":{"name":"","generation":0,)"
          R"("resourceSliceCount":0}})",
      .selectable_fields = {"spec.nodeName", "spec.driver"},
      .since_minor = 34});
  return r;
}

}  // namespace

const std::vector<ResourceInfo>& AllResources() {
  // Immutable after first use; shared by every server in the process.
  static const std::vector<ResourceInfo>* const kResources =
      new std::vector<ResourceInfo>(BuildResources());
  return *kResources;
}

const ResourceInfo* FindResource(std::string_view group,
                                 std::string_view version,
                                 std::string_view resource) {
  for (const ResourceInfo& r : AllResources()) {
    if (r.group == group && r.version == version && r.resource == resource) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace ksched::testing::apiserver

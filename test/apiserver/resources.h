// The resources the test API server serves, with what kube-apiserver's
// registry knows about each: its path segments, kind, scope, storage
// behaviour and the fields its field selectors accept.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ksched::testing::apiserver {

struct ResourceInfo {
  std::string group;     // "" for the core group
  std::string version;   // "v1"
  std::string resource;  // "pods"
  std::string kind;      // "Pod"
  bool namespaced = true;
  bool has_status = false;  // a "status" subresource
  // PUT of an absent object creates it (events), instead of 404.
  bool allow_create_on_update = false;
  // DELETE answers with the object instead of a Status (pods, PVs, ...).
  bool return_deleted_object = false;
  // Served from a CustomResourceDefinition: no strategic merge patch.
  bool custom = false;
  // The directory under /registry/ in etcd (nodes live in "minions").
  std::string storage_directory;
  // Fields after "metadata" in the Go zero value of the kind, as a JSON
  // fragment: a BOOKMARK event's object is that zero value.
  std::string zero_value_fields;
  // Field selector labels the resource supports besides metadata.name
  // (and metadata.namespace when namespaced).
  std::vector<std::string> selectable_fields;
  // The first Kubernetes minor whose default API server serves it (0:
  // every version the server plays).
  int since_minor = 0;
  // Discovery's APIResource fields: the singular name (default: the kind
  // in lower case), short names and categories, and the verbs (default:
  // the eight of a built-in resource's REST storage).
  std::string singular;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<std::string> verbs;
  // The group/version/kind it is stored as, when not its own (events.k8s.io
  // events are core events in storage): discovery's storageVersionHash.
  std::string storage_gvk;

  std::string ApiVersion() const {
    return group.empty() ? version : group + "/" + version;
  }
  // "pods", "leases.coordination.k8s.io": how error messages name it.
  std::string Qualified() const {
    return group.empty() ? resource : resource + "." + group;
  }
  std::string ListKind() const { return kind + "List"; }
  const std::string& StorageDirectory() const { return storage_directory; }
  bool is_pod() const { return group.empty() && resource == "pods"; }
  bool is_node() const { return group.empty() && resource == "nodes"; }
  bool is_namespace() const {
    return group.empty() && resource == "namespaces";
  }
};

// Every resource the server may serve (see Serves).
const std::vector<ResourceInfo>& AllResources();

// Which of them the server serves, as the kube-apiserver it plays: a
// default v1.<minor> server, with scheduler-plugins' PodGroup CRD
// installed or not.
struct ServedApis {
  int minor = 35;
  bool pod_group_crd = true;
  bool Serves(const ResourceInfo& resource) const {
    if (resource.since_minor > minor) return false;
    return !resource.custom || pod_group_crd;
  }
};
// The resource at /api/<version>/<resource> (group "") or
// /apis/<group>/<version>/<resource>, or nullptr.
const ResourceInfo* FindResource(std::string_view group,
                                 std::string_view version,
                                 std::string_view resource);

}  // namespace ksched::testing::apiserver

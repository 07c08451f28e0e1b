// JSON encoding and decoding of the API objects.
//
//   auto pod = api::DecodeJson<api::Pod>(text);      // Result<Pod>
//   if (!pod.ok()) log(pod.error().message());
//   // "spec.containers[1].resources.requests.cpu: expected quantity ..."
//   std::string body = api::EncodeJson(binding);     // with apiVersion/kind
//
// Unknown fields are ignored (the API grows); a field of the wrong type is an
// error naming its JSON path, never a crash.
#pragma once

#include <string>
#include <string_view>

#include "pkg/api/meta.h"
#include "pkg/api/node.h"
#include "pkg/api/objects.h"
#include "pkg/api/pod.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/policy.h"
#include "pkg/api/resource.h"
#include "pkg/api/storage.h"
#include "pkg/api/workloads.h"
#include "pkg/util/json.h"
#include "pkg/util/result.h"

namespace ksched::api {

// apiVersion and kind written in front of a top-level object.
template <typename T>
struct TypeInfo;
#define KSCHED_API_TYPE(T, version, kind_name)               \
  template <>                                                \
  struct TypeInfo<T> {                                       \
    static constexpr std::string_view kApiVersion = version; \
    static constexpr std::string_view kKind = kind_name;     \
  };
KSCHED_API_TYPE(Pod, "v1", "Pod")
KSCHED_API_TYPE(Node, "v1", "Node")
KSCHED_API_TYPE(Binding, "v1", "Binding")
KSCHED_API_TYPE(Event, "events.k8s.io/v1", "Event")
KSCHED_API_TYPE(Lease, "coordination.k8s.io/v1", "Lease")
KSCHED_API_TYPE(Status, "v1", "Status")
KSCHED_API_TYPE(PodList, "v1", "PodList")
KSCHED_API_TYPE(NodeList, "v1", "NodeList")
KSCHED_API_TYPE(PriorityClass, "scheduling.k8s.io/v1", "PriorityClass")
KSCHED_API_TYPE(Namespace, "v1", "Namespace")
KSCHED_API_TYPE(PersistentVolumeClaim, "v1", "PersistentVolumeClaim")
KSCHED_API_TYPE(PersistentVolume, "v1", "PersistentVolume")
KSCHED_API_TYPE(StorageClass, "storage.k8s.io/v1", "StorageClass")
KSCHED_API_TYPE(PodDisruptionBudget, "policy/v1", "PodDisruptionBudget")
KSCHED_API_TYPE(CsiNode, "storage.k8s.io/v1", "CSINode")
KSCHED_API_TYPE(CsiDriver, "storage.k8s.io/v1", "CSIDriver")
KSCHED_API_TYPE(VolumeAttachment, "storage.k8s.io/v1", "VolumeAttachment")
KSCHED_API_TYPE(Deployment, "apps/v1", "Deployment")
KSCHED_API_TYPE(ReplicaSet, "apps/v1", "ReplicaSet")
KSCHED_API_TYPE(StatefulSet, "apps/v1", "StatefulSet")
KSCHED_API_TYPE(DaemonSet, "apps/v1", "DaemonSet")
KSCHED_API_TYPE(Job, "batch/v1", "Job")
KSCHED_API_TYPE(CronJob, "batch/v1", "CronJob")
KSCHED_API_TYPE(PodGroup, "scheduling.x-k8s.io/v1alpha1", "PodGroup")
KSCHED_API_TYPE(DeviceClass, "resource.k8s.io/v1", "DeviceClass")
KSCHED_API_TYPE(DeviceClassList, "resource.k8s.io/v1", "DeviceClassList")
KSCHED_API_TYPE(ResourceSlice, "resource.k8s.io/v1", "ResourceSlice")
KSCHED_API_TYPE(ResourceSliceList, "resource.k8s.io/v1", "ResourceSliceList")
KSCHED_API_TYPE(ResourceClaim, "resource.k8s.io/v1", "ResourceClaim")
KSCHED_API_TYPE(ResourceClaimList, "resource.k8s.io/v1", "ResourceClaimList")
KSCHED_API_TYPE(ResourceClaimTemplate, "resource.k8s.io/v1",
                "ResourceClaimTemplate")
KSCHED_API_TYPE(ResourceClaimTemplateList, "resource.k8s.io/v1",
                "ResourceClaimTemplateList")
#undef KSCHED_API_TYPE

struct JsonDecodeOptions {
  bool lenient_scalars = false;  // see codec::DecodeOptions
  // Prefixed to the JSON path in error messages ("items[3]").
  std::string base_path;
};

// Parses JSON text without recursion (deep nesting cannot exhaust the
// stack); a syntax error names its offset.
util::Result<rapidjson::Document> ParseJson(std::string_view text);

// Decodes one object from a parsed JSON value.
template <typename T>
util::Result<T> DecodeJson(const rapidjson::Value& value,
                           const JsonDecodeOptions& options = {});
// Parses and decodes one object from text.
template <typename T>
util::Result<T> DecodeJson(std::string_view text,
                           const JsonDecodeOptions& options = {});
// Encodes a top-level object, apiVersion and kind first.
template <typename T>
std::string EncodeJson(const T& object);
// Writes a top-level object into an existing writer.
template <typename T>
void WriteJson(const T& object, rapidjson::Writer<rapidjson::StringBuffer>& w);

#define KSCHED_API_CODEC_EXTERN(T)                                         \
  extern template util::Result<T> DecodeJson<T>(const rapidjson::Value&,   \
                                                const JsonDecodeOptions&); \
  extern template util::Result<T> DecodeJson<T>(std::string_view,          \
                                                const JsonDecodeOptions&); \
  extern template std::string EncodeJson<T>(const T&);                     \
  extern template void WriteJson<T>(                                       \
      const T&, rapidjson::Writer<rapidjson::StringBuffer>&);
KSCHED_API_CODEC_EXTERN(Pod)
KSCHED_API_CODEC_EXTERN(Node)
KSCHED_API_CODEC_EXTERN(Binding)
KSCHED_API_CODEC_EXTERN(Event)
KSCHED_API_CODEC_EXTERN(Lease)
KSCHED_API_CODEC_EXTERN(Status)
KSCHED_API_CODEC_EXTERN(PodList)
KSCHED_API_CODEC_EXTERN(NodeList)
KSCHED_API_CODEC_EXTERN(PriorityClass)
KSCHED_API_CODEC_EXTERN(Namespace)
KSCHED_API_CODEC_EXTERN(PersistentVolumeClaim)
KSCHED_API_CODEC_EXTERN(PersistentVolume)
KSCHED_API_CODEC_EXTERN(StorageClass)
KSCHED_API_CODEC_EXTERN(PodDisruptionBudget)
KSCHED_API_CODEC_EXTERN(PodGroup)
KSCHED_API_CODEC_EXTERN(DeviceClass)
KSCHED_API_CODEC_EXTERN(DeviceClassList)
KSCHED_API_CODEC_EXTERN(ResourceSlice)
KSCHED_API_CODEC_EXTERN(ResourceSliceList)
KSCHED_API_CODEC_EXTERN(ResourceClaim)
KSCHED_API_CODEC_EXTERN(ResourceClaimList)
KSCHED_API_CODEC_EXTERN(ResourceClaimTemplate)
KSCHED_API_CODEC_EXTERN(ResourceClaimTemplateList)
#undef KSCHED_API_CODEC_EXTERN

}  // namespace ksched::api

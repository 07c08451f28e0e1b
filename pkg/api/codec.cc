#include "pkg/api/codec.h"

#include "pkg/api/fields.h"

namespace ksched::api {

template <typename T>
util::Result<T> DecodeJson(const rapidjson::Value& value,
                           const JsonDecodeOptions& options) {
  codec::DecodeOptions decode_options;
  decode_options.lenient_scalars = options.lenient_scalars;
  return codec::DecodeValue<T>(value, decode_options, options.base_path);
}

template <typename T>
util::Result<T> DecodeJson(std::string_view text,
                           const JsonDecodeOptions& options) {
  auto doc = codec::ParseDocument(text);
  if (!doc.ok()) return doc.error();
  return DecodeJson<T>(static_cast<const rapidjson::Value&>(*doc), options);
}

template <typename T>
void WriteJson(const T& object, rapidjson::Writer<rapidjson::StringBuffer>& w) {
  w.StartObject();
  w.Key("apiVersion");
  w.String(TypeInfo<T>::kApiVersion.data(),
           static_cast<rapidjson::SizeType>(TypeInfo<T>::kApiVersion.size()));
  w.Key("kind");
  w.String(TypeInfo<T>::kKind.data(),
           static_cast<rapidjson::SizeType>(TypeInfo<T>::kKind.size()));
  codec::ObjectWriter writer(w);
  Fields(writer, const_cast<T&>(object));
  w.EndObject();
}

template <typename T>
std::string EncodeJson(const T& object) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  WriteJson(object, writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

#define KSCHED_API_CODEC_INSTANTIATE(T)                             \
  template util::Result<T> DecodeJson<T>(const rapidjson::Value&,   \
                                         const JsonDecodeOptions&); \
  template util::Result<T> DecodeJson<T>(std::string_view,          \
                                         const JsonDecodeOptions&); \
  template std::string EncodeJson<T>(const T&);                     \
  template void WriteJson<T>(const T&,                              \
                             rapidjson::Writer<rapidjson::StringBuffer>&);
KSCHED_API_CODEC_INSTANTIATE(Pod)
KSCHED_API_CODEC_INSTANTIATE(Node)
KSCHED_API_CODEC_INSTANTIATE(Binding)
KSCHED_API_CODEC_INSTANTIATE(Event)
KSCHED_API_CODEC_INSTANTIATE(Lease)
KSCHED_API_CODEC_INSTANTIATE(Status)
KSCHED_API_CODEC_INSTANTIATE(PodList)
KSCHED_API_CODEC_INSTANTIATE(NodeList)
KSCHED_API_CODEC_INSTANTIATE(PriorityClass)
KSCHED_API_CODEC_INSTANTIATE(Namespace)
KSCHED_API_CODEC_INSTANTIATE(PersistentVolumeClaim)
KSCHED_API_CODEC_INSTANTIATE(PersistentVolume)
KSCHED_API_CODEC_INSTANTIATE(StorageClass)
KSCHED_API_CODEC_INSTANTIATE(PodDisruptionBudget)
KSCHED_API_CODEC_INSTANTIATE(PodGroup)
KSCHED_API_CODEC_INSTANTIATE(CsiNode)
KSCHED_API_CODEC_INSTANTIATE(CsiDriver)
KSCHED_API_CODEC_INSTANTIATE(VolumeAttachment)
KSCHED_API_CODEC_INSTANTIATE(Deployment)
KSCHED_API_CODEC_INSTANTIATE(ReplicaSet)
KSCHED_API_CODEC_INSTANTIATE(StatefulSet)
KSCHED_API_CODEC_INSTANTIATE(DaemonSet)
KSCHED_API_CODEC_INSTANTIATE(Job)
KSCHED_API_CODEC_INSTANTIATE(CronJob)
KSCHED_API_CODEC_INSTANTIATE(DeviceClass)
KSCHED_API_CODEC_INSTANTIATE(DeviceClassList)
KSCHED_API_CODEC_INSTANTIATE(ResourceSlice)
KSCHED_API_CODEC_INSTANTIATE(ResourceSliceList)
KSCHED_API_CODEC_INSTANTIATE(ResourceClaim)
KSCHED_API_CODEC_INSTANTIATE(ResourceClaimList)
KSCHED_API_CODEC_INSTANTIATE(ResourceClaimTemplate)
KSCHED_API_CODEC_INSTANTIATE(ResourceClaimTemplateList)
#undef KSCHED_API_CODEC_INSTANTIATE

util::Result<rapidjson::Document> ParseJson(std::string_view text) {
  return codec::ParseDocument(text);
}

}  // namespace ksched::api

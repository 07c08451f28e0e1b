#include "pkg/apiwriter/requests.h"

#include <utility>

#include "pkg/api/codec.h"
#include "pkg/api/time.h"
#include "pkg/util/json.h"

namespace ksched::apiwriter {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void Field(Writer& w, const char* key, std::string_view value) {
  w.Key(key);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

// `value` as a JSON string, quotes included.
std::string QuotedJson(std::string_view value) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  return buffer.GetString();
}

}  // namespace

std::string BindingBody(const api::Pod& pod, const std::string& node) {
  api::Binding binding;
  binding.metadata.name = pod.metadata.name;
  binding.metadata.ns = pod.metadata.ns;
  binding.metadata.uid = pod.metadata.uid;
  binding.target.kind = "Node";
  binding.target.api_version = "v1";
  binding.target.name = node;
  return api::EncodeJson(binding);
}

std::string PodStatusPatch(const framework::PodStatusUpdate& update) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("status");
  w.StartObject();
  if (update.condition) {
    const api::PodCondition& c = *update.condition;
    w.Key("conditions");
    w.StartArray();
    w.StartObject();
    Field(w, "type", c.type);
    Field(w, "status", c.status);
    if (!c.reason.empty()) Field(w, "reason", c.reason);
    if (!c.message.empty()) Field(w, "message", c.message);
    w.Key("lastProbeTime");
    if (c.last_probe_time && !c.last_probe_time->IsZero()) {
      const std::string t = api::FormatRfc3339(c.last_probe_time->value);
      w.String(t.c_str());
    } else {
      w.Null();
    }
    if (c.last_transition_time && !c.last_transition_time->IsZero()) {
      Field(w, "lastTransitionTime",
            api::FormatRfc3339(c.last_transition_time->value));
    }
    if (c.observed_generation != 0) {
      w.Key("observedGeneration");
      w.Int64(c.observed_generation);
    }
    w.EndObject();
    w.EndArray();
  }
  if (update.nominated_node_name) {
    w.Key("nominatedNodeName");
    if (update.nominated_node_name->empty()) {
      w.Null();
    } else {
      w.String(update.nominated_node_name->c_str());
    }
  }
  if (update.extended_resource_claim_status) {
    // Keys in the order kube's patch (a map) prints them.
    const api::PodExtendedResourceClaimStatus& s =
        *update.extended_resource_claim_status;
    w.Key("extendedResourceClaimStatus");
    w.StartObject();
    w.Key("requestMappings");
    w.StartArray();
    for (const api::ContainerExtendedResourceRequest& m : s.request_mappings) {
      w.StartObject();
      Field(w, "containerName", m.container_name);
      Field(w, "requestName", m.request_name);
      Field(w, "resourceName", m.resource_name);
      w.EndObject();
    }
    w.EndArray();
    Field(w, "resourceClaimName", s.resource_claim_name);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

std::string DeleteWithUidBody(const std::string& uid) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  Field(w, "apiVersion", "v1");
  Field(w, "kind", "DeleteOptions");
  w.Key("preconditions");
  w.StartObject();
  Field(w, "uid", uid);
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

std::string PodGroupStatusPatch(const api::PodGroupStatus& status) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("status");
  w.StartObject();
  Field(w, "phase", status.phase);
  if (!status.occupied_by.empty()) Field(w, "occupiedBy", status.occupied_by);
  for (const auto& [key, value] : {std::pair{"scheduled", status.scheduled},
                                   std::pair{"running", status.running},
                                   std::pair{"succeeded", status.succeeded},
                                   std::pair{"failed", status.failed}}) {
    w.Key(key);
    w.Int(value);
  }
  if (status.schedule_start_time && !status.schedule_start_time->IsZero()) {
    Field(w, "scheduleStartTime",
          api::FormatRfc3339(status.schedule_start_time->value));
  }
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

std::string AnnotationPatch(std::string_view key, std::string_view value) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("metadata");
  w.StartObject();
  w.Key("annotations");
  w.StartObject();
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

std::string UnreservePatch(std::string_view claim_uid,
                           std::string_view pod_uid) {
  return R"({"metadata": {"uid": )" + QuotedJson(claim_uid) +
         R"(}, "status": { "reservedFor": [ {"$patch": "delete", "uid": )" +
         QuotedJson(pod_uid) + "} ] }}";
}

}  // namespace ksched::apiwriter

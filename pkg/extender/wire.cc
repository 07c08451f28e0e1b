#include "pkg/extender/wire.h"

#include <strings.h>

#include "pkg/api/codec.h"
#include "pkg/util/json.h"

namespace ksched::extender {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// A member by Go's rule: the exact name if present, else a case-insensitive
// match. Null members count as absent, as Go leaves the field nil.
const rapidjson::Value* Member(const rapidjson::Value& object,
                               std::string_view name) {
  const rapidjson::Value* folded = nullptr;
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    std::string_view key(it->name.GetString(), it->name.GetStringLength());
    if (key == name) return it->value.IsNull() ? nullptr : &it->value;
    if (folded == nullptr && key.size() == name.size() &&
        strncasecmp(key.data(), name.data(), key.size()) == 0) {
      folded = &it->value;
    }
  }
  return folded != nullptr && !folded->IsNull() ? folded : nullptr;
}

util::Result<rapidjson::Document> ParseObject(std::string_view body) {
  auto doc = api::ParseJson(body);
  if (!doc.ok()) return doc.error();
  if (!doc->IsObject()) return util::Error("body: expected a JSON object");
  return doc;
}

util::Result<std::string> String(const rapidjson::Value& object,
                                 std::string_view name) {
  const rapidjson::Value* v = Member(object, name);
  if (v == nullptr) return std::string();
  if (!v->IsString()) {
    return util::Error(std::string(name) + ": expected string");
  }
  return std::string(v->GetString(), v->GetStringLength());
}

util::Result<int64_t> Int(const rapidjson::Value& object, std::string_view name,
                          const std::string& path) {
  const rapidjson::Value* v = Member(object, name);
  if (v == nullptr) return int64_t{0};
  if (!v->IsInt64()) return util::Error(path + ": expected integer");
  return v->GetInt64();
}

util::Result<api::Pod> RequiredPod(const rapidjson::Value& object) {
  const rapidjson::Value* pod = Member(object, "Pod");
  if (pod == nullptr) return util::Error("Pod: missing");
  if (!pod->IsObject()) return util::Error("Pod: expected object");
  return api::DecodeJson<api::Pod>(*pod, {.base_path = "Pod"});
}

std::string Serialize(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  value.Accept(w);
  return std::string(buffer.GetString(), buffer.GetSize());
}

util::Result<std::vector<SentNode>> DecodeNodeList(
    const rapidjson::Value& list) {
  if (!list.IsObject()) return util::Error("Nodes: expected object");
  std::vector<SentNode> nodes;
  const rapidjson::Value* items = Member(list, "items");
  if (items == nullptr) return nodes;
  if (!items->IsArray()) return util::Error("Nodes.items: expected array");
  nodes.reserve(items->Size());
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    const std::string path = "Nodes.items[" + std::to_string(i) + "]";
    const rapidjson::Value& item = (*items)[i];
    if (!item.IsObject()) return util::Error(path + ": expected object");
    auto node = api::DecodeJson<api::Node>(item, {.base_path = path});
    if (!node.ok()) return node.error();
    if (node->metadata.name.empty()) {
      return util::Error(path + ".metadata.name: missing");
    }
    nodes.push_back({std::move(*node), Serialize(item)});
  }
  return nodes;
}

util::Result<std::vector<std::string>> DecodeStrings(
    const rapidjson::Value& array, const std::string& path) {
  if (!array.IsArray()) return util::Error(path + ": expected array");
  std::vector<std::string> out;
  out.reserve(array.Size());
  for (rapidjson::SizeType i = 0; i < array.Size(); ++i) {
    if (!array[i].IsString()) {
      return util::Error(path + "[" + std::to_string(i) + "]: expected string");
    }
    out.emplace_back(array[i].GetString(), array[i].GetStringLength());
  }
  return out;
}

// {"<node>": {"Pods": [...], "NumPDBViolations": n} | null, ...}; `pod`
// reads one entry of Pods.
template <typename V, typename ReadPod>
util::Result<std::map<std::string, V>> DecodeVictimMap(
    const rapidjson::Value& map, const std::string& path, ReadPod read_pod) {
  if (!map.IsObject()) return util::Error(path + ": expected object");
  std::map<std::string, V> out;
  for (auto it = map.MemberBegin(); it != map.MemberEnd(); ++it) {
    const std::string node(it->name.GetString(), it->name.GetStringLength());
    const std::string entry_path = path + "." + node;
    V& victims = out[node];
    if (it->value.IsNull()) continue;
    if (!it->value.IsObject()) {
      return util::Error(entry_path + ": expected object");
    }
    auto violations =
        Int(it->value, "NumPDBViolations", entry_path + ".NumPDBViolations");
    if (!violations.ok()) return violations.error();
    victims.num_pdb_violations = *violations;
    const rapidjson::Value* pods = Member(it->value, "Pods");
    if (pods == nullptr) continue;
    if (!pods->IsArray()) {
      return util::Error(entry_path + ".Pods: expected array");
    }
    for (rapidjson::SizeType i = 0; i < pods->Size(); ++i) {
      const std::string pod_path =
          entry_path + ".Pods[" + std::to_string(i) + "]";
      if (!(*pods)[i].IsObject()) {
        return util::Error(pod_path + ": expected object");
      }
      if (auto r = read_pod((*pods)[i], pod_path, victims); !r.ok()) {
        return r.error();
      }
    }
  }
  return out;
}

void WriteString(JsonWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void WriteStringMap(JsonWriter& w,
                    const std::map<std::string, std::string>& m) {
  w.StartObject();
  for (const auto& [key, value] : m) {
    WriteString(w, key);
    WriteString(w, value);
  }
  w.EndObject();
}

std::string Finish(const rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

util::Result<ExtenderArgs> DecodeExtenderArgs(std::string_view body) {
  auto doc = ParseObject(body);
  if (!doc.ok()) return doc.error();
  ExtenderArgs args;
  auto pod = RequiredPod(*doc);
  if (!pod.ok()) return pod.error();
  args.pod = std::move(*pod);
  if (const rapidjson::Value* names = Member(*doc, "NodeNames")) {
    auto decoded = DecodeStrings(*names, "NodeNames");
    if (!decoded.ok()) return decoded.error();
    args.node_names = std::move(*decoded);
  } else if (const rapidjson::Value* nodes = Member(*doc, "Nodes")) {
    auto decoded = DecodeNodeList(*nodes);
    if (!decoded.ok()) return decoded.error();
    args.nodes = std::move(*decoded);
  } else {
    return util::Error("neither Nodes nor NodeNames is set");
  }
  return args;
}

util::Result<ExtenderBindingArgs> DecodeBindingArgs(std::string_view body) {
  auto doc = ParseObject(body);
  if (!doc.ok()) return doc.error();
  ExtenderBindingArgs args;
  struct Field {
    std::string_view name;
    std::string* out;
  };
  for (const Field& f :
       {Field{"PodName", &args.pod_name},
        Field{"PodNamespace", &args.pod_namespace},
        Field{"PodUID", &args.pod_uid}, Field{"Node", &args.node}}) {
    auto value = String(*doc, f.name);
    if (!value.ok()) return value.error();
    *f.out = std::move(*value);
  }
  if (args.pod_name.empty()) return util::Error("PodName: missing");
  if (args.node.empty()) return util::Error("Node: missing");
  // An empty namespace is "default", as the API server reads it.
  if (args.pod_namespace.empty()) args.pod_namespace = "default";
  return args;
}

util::Result<ExtenderPreemptionArgs> DecodePreemptionArgs(
    std::string_view body) {
  auto doc = ParseObject(body);
  if (!doc.ok()) return doc.error();
  ExtenderPreemptionArgs args;
  auto pod = RequiredPod(*doc);
  if (!pod.ok()) return pod.error();
  args.pod = std::move(*pod);
  if (const rapidjson::Value* meta = Member(*doc, "NodeNameToMetaVictims")) {
    auto decoded = DecodeVictimMap<MetaVictims>(
        *meta, "NodeNameToMetaVictims",
        [](const rapidjson::Value& v, const std::string& path,
           MetaVictims& victims) -> util::Result<void> {
          auto uid = String(v, "UID");
          if (!uid.ok()) return util::Error(path + "." + uid.error().message());
          if (uid->empty()) return util::Error(path + ".UID: missing");
          victims.pod_uids.push_back(std::move(*uid));
          return {};
        });
    if (!decoded.ok()) return decoded.error();
    args.node_to_meta_victims = std::move(*decoded);
  } else if (const rapidjson::Value* full = Member(*doc, "NodeNameToVictims")) {
    auto decoded = DecodeVictimMap<Victims>(
        *full, "NodeNameToVictims",
        [](const rapidjson::Value& v, const std::string& path,
           Victims& victims) -> util::Result<void> {
          auto pod = api::DecodeJson<api::Pod>(v, {.base_path = path});
          if (!pod.ok()) return pod.error();
          victims.pods.push_back(std::move(*pod));
          return {};
        });
    if (!decoded.ok()) return decoded.error();
    args.node_to_victims = std::move(*decoded);
  } else {
    // No candidates: nothing to keep.
    args.node_to_meta_victims.emplace();
  }
  return args;
}

std::string EncodeFilterResult(const ExtenderFilterResult& result) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("Nodes");
  if (result.nodes_json.has_value()) {
    w.StartObject();
    w.Key("metadata");
    w.StartObject();
    w.EndObject();
    w.Key("items");
    w.StartArray();
    for (const std::string& node : *result.nodes_json) {
      w.RawValue(node.data(), node.size(), rapidjson::kObjectType);
    }
    w.EndArray();
    w.EndObject();
  } else {
    w.Null();
  }
  w.Key("NodeNames");
  if (result.node_names.has_value()) {
    w.StartArray();
    for (const std::string& name : *result.node_names) WriteString(w, name);
    w.EndArray();
  } else {
    w.Null();
  }
  w.Key("FailedNodes");
  WriteStringMap(w, result.failed_nodes);
  w.Key("FailedAndUnresolvableNodes");
  WriteStringMap(w, result.failed_and_unresolvable_nodes);
  w.Key("Error");
  WriteString(w, result.error);
  w.EndObject();
  return Finish(buffer);
}

std::string EncodeHostPriorityList(const std::vector<HostPriority>& list) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartArray();
  for (const HostPriority& p : list) {
    w.StartObject();
    w.Key("Host");
    WriteString(w, p.host);
    w.Key("Score");
    w.Int64(p.score);
    w.EndObject();
  }
  w.EndArray();
  return Finish(buffer);
}

std::string EncodeBindingResult(const ExtenderBindingResult& result) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("Error");
  WriteString(w, result.error);
  w.EndObject();
  return Finish(buffer);
}

std::string EncodePreemptionResult(const ExtenderPreemptionResult& result) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("NodeNameToMetaVictims");
  w.StartObject();
  for (const auto& [node, victims] : result.node_to_meta_victims) {
    WriteString(w, node);
    w.StartObject();
    w.Key("Pods");
    w.StartArray();
    for (const std::string& uid : victims.pod_uids) {
      w.StartObject();
      w.Key("UID");
      WriteString(w, uid);
      w.EndObject();
    }
    w.EndArray();
    w.Key("NumPDBViolations");
    w.Int64(victims.num_pdb_violations);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return Finish(buffer);
}

}  // namespace ksched::extender

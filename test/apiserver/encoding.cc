#include "test/apiserver/encoding.h"

#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

std::string ObjectJson(const ResourceInfo& resource,
                       const StoredObject& object) {
  std::string out;
  out.reserve(object.json.size() + 64);
  out += "{\"kind\":\"" + resource.kind + "\",\"apiVersion\":\"" +
         resource.ApiVersion() + "\"";
  if (object.json.size() > 2) {
    out += ",";
    out.append(object.json, 1, std::string::npos);
  } else {
    out += "}";
  }
  return out;
}

std::string ListJson(const ResourceInfo& resource, const ListMeta& meta,
                     const std::vector<ObjectPtr>& items) {
  size_t size = 256;
  for (const ObjectPtr& item : items) size += item->json.size() + 1;
  std::string out;
  out.reserve(size);
  out += "{\"kind\":\"" + resource.ListKind() + "\",\"apiVersion\":\"" +
         resource.ApiVersion() + "\",\"metadata\":{\"resourceVersion\":\"" +
         std::to_string(meta.rv) + "\"";
  if (!meta.continue_token.empty()) {
    out += ",\"continue\":\"" + meta.continue_token + "\"";
  }
  if (meta.remaining >= 0) {
    out += ",\"remainingItemCount\":" + std::to_string(meta.remaining);
  }
  out += "},\"items\":[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ",";
    out += items[i]->json;
  }
  out += "]}";
  return out;
}

std::string ResponseBody(const std::string& compact_json, bool pretty) {
  if (pretty) return Prettify(compact_json);
  return compact_json + "\n";
}

}  // namespace ksched::testing::apiserver

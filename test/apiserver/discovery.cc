#include "test/apiserver/discovery.h"

#include <openssl/sha.h>

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

#include "test/apiserver/base64.h"
#include "test/apiserver/encoding.h"
#include "test/apiserver/status.h"

namespace ksched::testing::apiserver {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// Groups in the order kube-apiserver lists them (its aggregator's group
// priorities, highest first); custom resources' groups follow, by name.
constexpr std::string_view kGroupOrder[] = {
    "apiregistration.k8s.io",
    "apps",
    "events.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "networking.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "node.k8s.io",
    "discovery.k8s.io",
    "flowcontrol.apiserver.k8s.io",
    "resource.k8s.io",
};

// One entry of an APIResourceList.
struct ApiResource {
  std::string name;
  std::string singular;
  bool namespaced = false;
  std::string kind;
  std::vector<std::string> verbs;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::string storage_version_hash;
};

// A group-version the server serves, with its resources.
struct GroupVersion {
  std::string group;
  std::string version;
  std::vector<ApiResource> resources;
  std::string Name() const {
    return group.empty() ? version : group + "/" + version;
  }
};

// discovery.StorageVersionHash: the first 8 bytes of the SHA-256 of
// "group/version/kind", in base64.
std::string StorageVersionHash(const std::string& gvk) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(gvk.data()), gvk.size(),
         digest);
  return Base64Encode(
      std::string_view(reinterpret_cast<const char*>(digest), 8));
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(c));
  return s;
}

const std::vector<std::string>& AllVerbs() {
  static const auto* const kVerbs = new std::vector<std::string>{
      "create", "delete", "deletecollection", "get",
      "list",   "patch",  "update",           "watch"};
  return *kVerbs;
}

void Add(std::map<std::pair<std::string, std::string>, GroupVersion>& out,
         const std::string& group, const std::string& version,
         ApiResource resource) {
  GroupVersion& gv = out[{group, version}];
  gv.group = group;
  gv.version = version;
  gv.resources.push_back(std::move(resource));
}

// Every group-version served, resources sorted by name as the real
// server's installer sorts them (subresources after their resource).
std::vector<GroupVersion> Served(const ServedApis& served) {
  std::map<std::pair<std::string, std::string>, GroupVersion> by_gv;
  for (const ResourceInfo& r : AllResources()) {
    if (!served.Serves(r)) continue;
    const std::string gvk = r.storage_gvk.empty()
                                ? r.group + "/" + r.version + "/" + r.kind
                                : r.storage_gvk;
    Add(by_gv, r.group, r.version,
        {.name = r.resource,
         .singular = r.singular.empty() ? Lower(r.kind) : r.singular,
         .namespaced = r.namespaced,
         .kind = r.kind,
         .verbs = r.verbs.empty() ? AllVerbs() : r.verbs,
         .short_names = r.short_names,
         .categories = r.categories,
         .storage_version_hash = StorageVersionHash(gvk)});
    if (r.has_status) {
      Add(by_gv, r.group, r.version,
          {.name = r.resource + "/status",
           .namespaced = r.namespaced,
           .kind = r.kind,
           .verbs = {"get", "patch", "update"}});
    }
    if (r.is_pod()) {
      Add(by_gv, r.group, r.version,
          {.name = "pods/binding",
           .namespaced = true,
           .kind = "Binding",
           .verbs = {"create"}});
    }
  }
  // The reviews are answered, not stored: create only, no storage hash.
  Add(by_gv, "authentication.k8s.io", "v1",
      {.name = "tokenreviews",
       .singular = "tokenreview",
       .kind = "TokenReview",
       .verbs = {"create"}});
  Add(by_gv, "authorization.k8s.io", "v1",
      {.name = "subjectaccessreviews",
       .singular = "subjectaccessreview",
       .kind = "SubjectAccessReview",
       .verbs = {"create"}});
  std::vector<GroupVersion> out;
  for (auto& [key, gv] : by_gv) {
    std::sort(gv.resources.begin(), gv.resources.end(),
              [](const ApiResource& a, const ApiResource& b) {
                return a.name < b.name;
              });
    out.push_back(std::move(gv));
  }
  auto rank = [](const std::string& group) {
    const auto* it =
        std::find(std::begin(kGroupOrder), std::end(kGroupOrder), group);
    return static_cast<size_t>(it - std::begin(kGroupOrder));
  };
  std::stable_sort(out.begin(), out.end(),
                   [&rank](const GroupVersion& a, const GroupVersion& b) {
                     if (a.group.empty() != b.group.empty()) {
                       return a.group.empty();
                     }
                     const size_t ra = rank(a.group);
                     const size_t rb = rank(b.group);
                     if (ra != rb) return ra < rb;
                     return a.group < b.group;
                   });
  return out;
}

void Strings(Writer& w, const std::vector<std::string>& values) {
  w.StartArray();
  for (const std::string& v : values) w.String(v.c_str(), v.size());
  w.EndArray();
}

void GroupVersionForDiscovery(Writer& w, const GroupVersion& gv) {
  w.StartObject();
  w.Key("groupVersion");
  w.String(gv.Name().c_str());
  w.Key("version");
  w.String(gv.version.c_str());
  w.EndObject();
}

// An APIGroup's fields after kind and apiVersion: name, versions and the
// preferred (first) version.
void GroupFields(Writer& w, const std::vector<const GroupVersion*>& versions) {
  w.Key("name");
  w.String(versions.front()->group.c_str());
  w.Key("versions");
  w.StartArray();
  for (const GroupVersion* gv : versions) GroupVersionForDiscovery(w, *gv);
  w.EndArray();
  w.Key("preferredVersion");
  GroupVersionForDiscovery(w, *versions.front());
}

std::vector<const GroupVersion*> VersionsOf(
    const std::vector<GroupVersion>& all, const std::string& group) {
  std::vector<const GroupVersion*> out;
  for (const GroupVersion& gv : all) {
    if (gv.group == group) out.push_back(&gv);
  }
  return out;
}

Response Json(const rapidjson::StringBuffer& buffer, bool pretty) {
  return Response{
      .body = ResponseBody(std::string(buffer.GetString(), buffer.GetSize()),
                           pretty)};
}

}  // namespace

Response PageNotFound() {
  Response r{.code = 404,
             .body = "404 page not found\n",
             .content_type = "text/plain; charset=utf-8"};
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

Response DiscoveryResponse(const ApiPath& path, const ServedApis& served,
                           const std::string& server_address, bool pretty) {
  const std::vector<GroupVersion> all = Served(served);
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  switch (path.endpoint) {
    case Endpoint::kApiVersions:
      // Served without an apiVersion, as the real /api is.
      w.StartObject();
      w.Key("kind");
      w.String("APIVersions");
      w.Key("versions");
      Strings(w, {"v1"});
      w.Key("serverAddressByClientCIDRs");
      w.StartArray();
      w.StartObject();
      w.Key("clientCIDR");
      w.String("0.0.0.0/0");
      w.Key("serverAddress");
      w.String(server_address.c_str());
      w.EndObject();
      w.EndArray();
      w.EndObject();
      return Json(buffer, pretty);
    case Endpoint::kGroupList: {
      w.StartObject();
      w.Key("kind");
      w.String("APIGroupList");
      w.Key("apiVersion");
      w.String("v1");
      w.Key("groups");
      w.StartArray();
      std::string previous;
      for (const GroupVersion& gv : all) {
        if (gv.group.empty() || gv.group == previous) continue;
        previous = gv.group;
        w.StartObject();
        GroupFields(w, VersionsOf(all, gv.group));
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
      return Json(buffer, pretty);
    }
    case Endpoint::kGroup: {
      const std::vector<const GroupVersion*> versions =
          VersionsOf(all, path.group);
      if (path.group.empty() || versions.empty()) return PageNotFound();
      w.StartObject();
      w.Key("kind");
      w.String("APIGroup");
      w.Key("apiVersion");
      w.String("v1");
      GroupFields(w, versions);
      w.EndObject();
      return Json(buffer, pretty);
    }
    case Endpoint::kGroupVersion: {
      const GroupVersion* found = nullptr;
      for (const GroupVersion& gv : all) {
        if (gv.group == path.group && gv.version == path.version) found = &gv;
      }
      if (found == nullptr) return PageNotFound();
      w.StartObject();
      w.Key("kind");
      w.String("APIResourceList");
      w.Key("apiVersion");
      w.String("v1");
      w.Key("groupVersion");
      w.String(found->Name().c_str());
      w.Key("resources");
      w.StartArray();
      for (const ApiResource& r : found->resources) {
        w.StartObject();
        w.Key("name");
        w.String(r.name.c_str());
        w.Key("singularName");
        w.String(r.singular.c_str());
        w.Key("namespaced");
        w.Bool(r.namespaced);
        w.Key("kind");
        w.String(r.kind.c_str());
        w.Key("verbs");
        Strings(w, r.verbs);
        if (!r.short_names.empty()) {
          w.Key("shortNames");
          Strings(w, r.short_names);
        }
        if (!r.categories.empty()) {
          w.Key("categories");
          Strings(w, r.categories);
        }
        if (!r.storage_version_hash.empty()) {
          w.Key("storageVersionHash");
          w.String(r.storage_version_hash.c_str());
        }
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
      return Json(buffer, pretty);
    }
    default:
      return PageNotFound();
  }
}

Response VersionResponse(int minor) {
  // As recorded from the real servers (test recordings v1.36/get-version,
  // v1.35/get-version and version); the server indents /version for every
  // client.
  static constexpr char kV136[] =
      "{\n"
      "  \"major\": \"1\",\n"
      "  \"minor\": \"36\",\n"
      "  \"emulationMajor\": \"1\",\n"
      "  \"emulationMinor\": \"36\",\n"
      "  \"minCompatibilityMajor\": \"1\",\n"
      "  \"minCompatibilityMinor\": \"35\",\n"
      "  \"gitVersion\": \"v1.36.3\",\n"
      "  \"gitCommit\": \"7b29fb077260554429dcef8234272e9fd25fcfbd\",\n"
      "  \"gitTreeState\": \"clean\",\n"
      "  \"buildDate\": \"2026-11-29T01:09:16Z\",\n"
      "  \"goVersion\": \"go1.26.10\",\n"
      "  \"compiler\": \"gc\",\n"
      "  \"platform\": \"linux/amd64\"\n"
      "}";
  static constexpr char kV135[] =
      "{\n"
      "  \"major\": \"1\",\n"
      "  \"minor\": \"35\",\n"
      "  \"emulationMajor\": \"1\",\n"
      "  \"emulationMinor\": \"35\",\n"
      "  \"minCompatibilityMajor\": \"1\",\n"
      "  \"minCompatibilityMinor\": \"34\",\n"
      "  \"gitVersion\": \"v1.35.6\",\n"
      "  \"gitCommit\": \"a3177b3b89764aeb87469936bf4fe8f708d88eb7\",\n"
      "  \"gitTreeState\": \"clean\",\n"
      "  \"buildDate\": \"2026-11-27T07:56:33Z\",\n"
      "  \"goVersion\": \"go1.25.12\",\n"
      "  \"compiler\": \"gc\",\n"
      "  \"platform\": \"linux/amd64\"\n"
      "}";
  static constexpr char kV132[] =
      "{\n"
      "  \"major\": \"1\",\n"
      "  \"minor\": \"32\",\n"
      "  \"gitVersion\": \"v1.32.0-beta.0.ste-cd13ec4a\",\n"
      "  \"gitCommit\": \"cd13ec4ae44e35ce12aefbb05627be4474ff2b1f\",\n"
      "  \"gitTreeState\": \"clean\",\n"
      "  \"buildDate\": \"2026-11-21T19:31:26Z\",\n"
      "  \"goVersion\": \"go1.23.5\",\n"
      "  \"compiler\": \"gc\",\n"
      "  \"platform\": \"linux/amd64\"\n"
      "}";
  if (minor >= 36) return Response{.body = kV136};
  return Response{.body = minor >= 35 ? kV135 : kV132};
}

}  // namespace ksched::testing::apiserver

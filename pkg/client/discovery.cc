#include "pkg/client/discovery.h"

#include <charconv>
#include <future>

#include "pkg/util/json.h"

namespace ksched::client {
namespace {

// The leading digits of a version field ("35", "27+"); nullopt when it
// does not start with one.
std::optional<int> LeadingNumber(std::string_view text) {
  int value = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

std::string StringMember(const rapidjson::Value& object, const char* key) {
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

util::Result<rapidjson::Document> ParseObject(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return util::Error("not a JSON object");
  }
  return doc;
}

}  // namespace

std::string ServerVersion::String() const {
  std::string out = git_version.empty() ? "v" + std::to_string(major) + "." +
                                              std::to_string(minor)
                                        : git_version;
  if (EffectiveMinor() != minor) {
    out += " emulating v1." + std::to_string(EffectiveMinor());
  }
  return out;
}

std::optional<std::string> VersionSkewNote(const ServerVersion& server,
                                           int emulated_minor, int binary_minor,
                                           int floor_minor) {
  if (server.major != 1) return std::nullopt;
  const int server_minor = server.EffectiveMinor();
  const std::string emulated = "1." + std::to_string(emulated_minor);
  if (server_minor < emulated_minor) {
    std::string note = "the API server is " + server.String() +
                       ", older than the version ksched emulates (" + emulated +
                       "): kube-scheduler is not meant to be newer than its "
                       "API server, and ksched may count on fields and "
                       "behaviour that server lacks; ";
    if (server_minor >= floor_minor) {
      return note + "consider --emulated-version=1." +
             std::to_string(server_minor);
    }
    return note + "ksched emulates v1." + std::to_string(floor_minor) +
           " at the oldest (--emulated-version=1." +
           std::to_string(floor_minor) + "), so upgrade the API server";
  }
  if (server_minor > binary_minor + 1) {
    return "the API server is " + server.String() +
           ", more than one minor newer than kube-scheduler v1." +
           std::to_string(binary_minor) +
           " that ksched decides as: the version skew policy does not "
           "cover this pairing";
  }
  return std::nullopt;
}

util::Result<ServerVersion> ParseServerVersion(std::string_view body) {
  auto doc = ParseObject(body);
  if (!doc.ok()) return util::Error("/version: " + doc.error().message());
  ServerVersion v;
  const std::optional<int> major = LeadingNumber(StringMember(*doc, "major"));
  const std::optional<int> minor = LeadingNumber(StringMember(*doc, "minor"));
  if (!major || !minor) {
    return util::Error("/version: no major and minor version in " +
                       std::string(body.substr(0, 200)));
  }
  v.major = *major;
  v.minor = *minor;
  v.git_version = StringMember(*doc, "gitVersion");
  v.emulation_major =
      LeadingNumber(StringMember(*doc, "emulationMajor")).value_or(0);
  v.emulation_minor =
      LeadingNumber(StringMember(*doc, "emulationMinor")).value_or(0);
  return v;
}

util::Result<std::set<std::string>> ParseResourceList(
    std::string_view body, std::string_view group_version) {
  auto doc = ParseObject(body);
  if (!doc.ok()) return doc.error();
  const std::string kind = StringMember(*doc, "kind");
  const std::string listed = StringMember(*doc, "groupVersion");
  if (kind != "APIResourceList" || listed != group_version) {
    return util::Error("expected the APIResourceList of " +
                       std::string(group_version) + ", got kind \"" + kind +
                       "\" of \"" + listed + "\"");
  }
  std::set<std::string> names;
  auto resources = doc->FindMember("resources");
  if (resources == doc->MemberEnd() || resources->value.IsNull()) return names;
  if (!resources->value.IsArray()) {
    return util::Error("resources: expected an array");
  }
  for (const auto& r : resources->value.GetArray()) {
    if (!r.IsObject()) continue;
    const std::string name = StringMember(r, "name");
    if (!name.empty()) names.insert(name);
  }
  return names;
}

std::string GroupVersionOfPath(std::string_view path) {
  if (path.starts_with("/apis/")) return std::string(path.substr(6));
  if (path.starts_with("/api/")) return std::string(path.substr(5));
  return std::string(path);
}

void ServedResources::Set(std::string group_version_path,
                          GroupVersionDiscovery found) {
  found_[std::move(group_version_path)] = std::move(found);
}

bool ServedResources::Serves(std::string_view group_version_path,
                             std::string_view resource) const {
  const GroupVersionDiscovery* found = Find(group_version_path);
  if (found == nullptr) return true;
  switch (found->state) {
    case GroupVersionDiscovery::State::kServed:
      return found->resources.contains(std::string(resource));
    case GroupVersionDiscovery::State::kNotServed:
      return false;
    case GroupVersionDiscovery::State::kUnknown:
      return true;
  }
  return true;
}

const GroupVersionDiscovery* ServedResources::Find(
    std::string_view group_version_path) const {
  auto it = found_.find(group_version_path);
  return it == found_.end() ? nullptr : &it->second;
}

DiscoveryResult Discover(RestClient& client,
                         const std::vector<std::string>& group_version_paths) {
  // Every request at once: a server that answers nothing costs one
  // timeout, not one per request.
  auto version = std::async(std::launch::async, [&client] {
    return client.Do({.method = "GET", .path = "/version"}, 0);
  });
  std::vector<std::future<ApiResult>> lists;
  lists.reserve(group_version_paths.size());
  for (const std::string& path : group_version_paths) {
    lists.push_back(std::async(std::launch::async, [&client, path] {
      return client.Do({.method = "GET", .path = path}, 0);
    }));
  }

  DiscoveryResult result;
  if (ApiResult v = version.get(); !v.ok()) {
    result.version_error = v.error->message();
    result.version_no_answer = IsConnectionError(*v.error);
  } else if (auto parsed = ParseServerVersion(v.response.body); parsed.ok()) {
    result.version = *parsed;
  } else {
    result.version_error = parsed.error().message();
  }
  for (size_t i = 0; i < group_version_paths.size(); ++i) {
    const std::string& path = group_version_paths[i];
    ApiResult answer = lists[i].get();
    GroupVersionDiscovery found;
    if (!answer.ok()) {
      if (IsNotFound(*answer.error)) {
        found.state = GroupVersionDiscovery::State::kNotServed;
      } else {
        found.error = answer.error->message();
        found.no_answer = IsConnectionError(*answer.error);
      }
    } else if (auto names = ParseResourceList(answer.response.body,
                                              GroupVersionOfPath(path));
               names.ok()) {
      found.state = GroupVersionDiscovery::State::kServed;
      found.resources = std::move(*names);
    } else {
      found.error = path + ": " + names.error().message();
    }
    result.served.Set(path, std::move(found));
  }
  return result;
}

}  // namespace ksched::client

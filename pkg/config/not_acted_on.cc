#include "pkg/config/not_acted_on.h"

#include <string_view>

namespace ksched::config {
namespace {

struct NotActedOn {
  std::string_view parent;  // "" for a top-level field
  std::string_view field;
  // Set when only values other than this one are ignored.
  std::string_view acted_on_value;
};

// The one list: ksched's behaviour here is fixed, so setting these changes
// nothing (a Lease is the only lock ksched takes; with leader election on,
// validation already refuses any other resourceLock).
constexpr NotActedOn kNotActedOn[] = {
    {"", "enableProfiling", ""},
    {"", "enableContentionProfiling", ""},
    {"clientConnection", "contentType", ""},
    {"clientConnection", "acceptContentTypes", ""},
    {"", "delayCacheUntilActive", ""},
    {"leaderElection", "resourceLock", "leases"},
};

const rapidjson::Value* Member(const rapidjson::Value& object,
                               std::string_view key) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(rapidjson::StringRef(key.data(), key.size()));
  if (it == object.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

}  // namespace

std::vector<std::string> FieldsNotActedOn(const rapidjson::Value& document) {
  std::vector<std::string> paths;
  for (const NotActedOn& entry : kNotActedOn) {
    const rapidjson::Value* parent =
        entry.parent.empty() ? &document : Member(document, entry.parent);
    if (parent == nullptr) continue;
    const rapidjson::Value* value = Member(*parent, entry.field);
    if (value == nullptr) continue;
    if (!entry.acted_on_value.empty() && value->IsString() &&
        std::string_view(value->GetString(), value->GetStringLength()) ==
            entry.acted_on_value) {
      continue;
    }
    std::string path(entry.parent);
    if (!path.empty()) path += '.';
    path += entry.field;
    paths.push_back(std::move(path));
  }
  return paths;
}

}  // namespace ksched::config

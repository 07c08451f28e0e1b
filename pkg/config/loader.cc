// ParseConfig, LoadConfigFile and DefaultConfig (config.h): the steps of
// kube-scheduler's loadConfig (cmd/kube-scheduler/app/options/configfile.go)
// followed by its ValidateKubeSchedulerConfiguration, then ksched's checks.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pkg/api/codec_internal.h"
#include "pkg/config/config.h"
#include "pkg/config/convert.h"
#include "pkg/config/document.h"
#include "pkg/config/ksched_rules.h"
#include "pkg/config/not_acted_on.h"
#include "pkg/config/v1_codec.h"
#include "pkg/config/validation.h"

namespace ksched::config {
namespace {

std::string Expected() {
  return "(expected apiVersion: " + std::string(v1::kGroupVersion) +
         ", kind: " + std::string(v1::kKind) + ")";
}

// The type of the document, checked before anything else is decoded, as
// the scheme looks up the kind first.
util::Status CheckTypeMeta(const rapidjson::Value& doc) {
  if (doc.IsNull()) {
    return util::Error("Object 'Kind' is missing in the configuration " +
                       Expected());
  }
  if (!doc.IsObject()) {
    return util::Error(
        "couldn't get version/kind: the configuration is a JSON " +
        std::string(doc.IsArray() ? "array" : "scalar") + ", not an object " +
        Expected());
  }
  std::string api_version, kind;
  for (auto [key, into] :
       {std::pair{"apiVersion", &api_version}, std::pair{"kind", &kind}}) {
    auto it = doc.FindMember(key);
    if (it == doc.MemberEnd() || it->value.IsNull()) continue;
    if (!it->value.IsString()) {
      return util::Error(std::string(key) + ": expected string, got " +
                         std::string(api::codec::TypeName(it->value)));
    }
    into->assign(it->value.GetString(), it->value.GetStringLength());
  }
  if (kind.empty()) {
    return util::Error("Object 'Kind' is missing in the configuration " +
                       Expected());
  }
  if (api_version.empty()) {
    return util::Error("Object 'apiVersion' is missing in the configuration " +
                       Expected());
  }
  if (api_version != v1::kGroupVersion || !v1::IsRegisteredKind(kind)) {
    return util::Error("no kind \"" + kind + "\" is registered for version \"" +
                       api_version + "\"; ksched reads " +
                       std::string(v1::kGroupVersion) + " " +
                       std::string(v1::kKind));
  }
  if (kind != v1::kKind) {
    return util::Error("couldn't decode as KubeSchedulerConfiguration, got " +
                       std::string(v1::kGroupVersion) + ", Kind=" + kind);
  }
  return {};
}

}  // namespace

util::Result<KubeSchedulerConfiguration> ParseConfig(
    std::string_view text, const LoadOptions& options) {
  auto doc = ParseConfigDocument(text);
  if (!doc.ok()) return doc.error();
  if (auto status = CheckTypeMeta(*doc); !status.ok()) return status.error();

  auto decoded = v1::Decode(*doc);
  if (!decoded.ok()) return decoded.error();
  const v1::KubeSchedulerConfiguration as_written = *decoded;

  v1::KubeSchedulerConfiguration defaulted = std::move(*decoded);
  v1::SetDefaults(&defaulted, options.gates);
  if (FieldErrors errs = v1::Validate(defaulted, options.gates);
      !errs.empty()) {
    return util::Error(AggregateMessage(errs));
  }
  if (FieldErrors errs = CheckPluginWeights(as_written); !errs.empty()) {
    return util::Error(AggregateMessage(errs));
  }
  if (std::string err = CheckKnownPlugins(as_written, options.known_plugins);
      !err.empty()) {
    return util::Error(err);
  }

  KubeSchedulerConfiguration config = Convert(defaulted);
  config.not_acted_on = FieldsNotActedOn(*doc);
  return config;
}

util::Result<KubeSchedulerConfiguration> LoadConfigFile(
    const std::string& path, const LoadOptions& options) {
  const std::string where = "config file \"" + path + "\"";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return util::Error("reading " + where + ": " + std::strerror(errno));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};

  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return util::Error("reading " + where + ": " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    return util::Error("reading " + where + ": is a directory");
  }
  if (S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) > kMaxConfigFileBytes) {
    return util::Error(where + " is " + std::to_string(st.st_size) +
                       " bytes; ksched refuses files over 16 MiB");
  }
  // Read to the limit and one byte more: a pipe or a growing file cannot
  // slip past the size check.
  std::string text;
  char buffer[64 * 1024];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return util::Error("reading " + where + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > kMaxConfigFileBytes) {
      return util::Error(where +
                         " is larger than 16 MiB; ksched refuses such files");
    }
  }
  auto config = ParseConfig(text, options);
  if (!config.ok()) return config.error().Wrap(where);
  return config;
}

KubeSchedulerConfiguration DefaultConfig(const FeatureGates& gates) {
  v1::KubeSchedulerConfiguration empty;
  empty.api_version = std::string(v1::kGroupVersion);
  empty.kind = std::string(v1::kKind);
  v1::SetDefaults(&empty, gates);
  return Convert(empty);
}

}  // namespace ksched::config

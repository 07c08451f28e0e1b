#include "pkg/client/kubeconfig.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "pkg/api/yaml.h"
#include "pkg/util/json.h"

namespace ksched::client {
namespace {

namespace fs = std::filesystem;

struct Cluster {
  std::string server;
  std::string ca_file;
  std::string ca_data;
  std::string tls_server_name;
  bool insecure = false;
};

struct User {
  std::string token;
  std::string token_file;
  std::string cert_file;
  std::string cert_data;
  std::string key_file;
  std::string key_data;
  std::string username;
  std::string password;
  bool exec = false;
  bool auth_provider = false;
};

struct Context {
  std::string cluster;
  std::string user;
  std::string ns;
};

// What the files say, merged: the first file to name an entry wins.
struct Kubeconfig {
  std::string current_context;
  std::map<std::string, Cluster> clusters;
  std::map<std::string, User> users;
  std::map<std::string, Context> contexts;
};

util::Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return util::Error(path + ": " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

util::Result<std::string> DecodeBase64(std::string_view text) {
  std::string compact;
  for (char c : text) {
    if (c != '\n' && c != '\r' && c != ' ' && c != '\t') compact.push_back(c);
  }
  if (compact.size() % 4 != 0) {
    return util::Error("illegal base64 data: length is not a multiple of 4");
  }
  std::string out(compact.size() / 4 * 3, '\0');
  int n =
      EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(compact.data()),
                      static_cast<int>(compact.size()));
  if (n < 0) return util::Error("illegal base64 data");
  // EVP_DecodeBlock counts the bytes the padding stands for.
  size_t padding = 0;
  if (!compact.empty() && compact.back() == '=') ++padding;
  if (compact.size() > 1 && compact[compact.size() - 2] == '=') ++padding;
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

// Reads `obj[key]` when present: a string, or (for flags) a boolean.
class Reader {
 public:
  Reader(const rapidjson::Value& obj, std::string path)
      : obj_(obj), path_(std::move(path)) {}

  util::Result<void> String(const char* key, std::string* out) const {
    auto it = obj_.FindMember(key);
    if (it == obj_.MemberEnd() || it->value.IsNull()) return {};
    if (!it->value.IsString()) {
      return util::Error(path_ + "." + key + ": expected a string");
    }
    *out = it->value.GetString();
    return {};
  }
  util::Result<void> Bool(const char* key, bool* out) const {
    auto it = obj_.FindMember(key);
    if (it == obj_.MemberEnd() || it->value.IsNull()) return {};
    if (!it->value.IsBool()) {
      return util::Error(path_ + "." + key + ": expected true or false");
    }
    *out = it->value.GetBool();
    return {};
  }
  bool Has(const char* key) const {
    auto it = obj_.FindMember(key);
    return it != obj_.MemberEnd() && !it->value.IsNull();
  }

 private:
  const rapidjson::Value& obj_;
  std::string path_;
};

std::string Resolve(const std::string& path, const std::string& dir) {
  if (path.empty() || fs::path(path).is_absolute() || dir.empty()) return path;
  return (fs::path(dir) / path).string();
}

// Calls fn(name, body, path) for each {name, <body_key>: {...}} of a list.
template <typename Fn>
util::Result<void> ForEachNamed(const rapidjson::Value& root,
                                const char* list_key, const char* body_key,
                                Fn fn) {
  auto it = root.FindMember(list_key);
  if (it == root.MemberEnd() || it->value.IsNull()) return {};
  if (!it->value.IsArray()) {
    return util::Error(std::string(list_key) + ": expected a list");
  }
  const auto& list = it->value;
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    const std::string path =
        std::string(list_key) + "[" + std::to_string(i) + "]";
    const rapidjson::Value& item = list[i];
    if (!item.IsObject()) return util::Error(path + ": expected an object");
    std::string name;
    if (auto ok = Reader(item, path).String("name", &name); !ok) return ok;
    static const rapidjson::Value kEmpty(rapidjson::kObjectType);
    auto body = item.FindMember(body_key);
    const rapidjson::Value* value = &kEmpty;
    if (body != item.MemberEnd() && !body->value.IsNull()) {
      if (!body->value.IsObject()) {
        return util::Error(path + "." + body_key + ": expected an object");
      }
      value = &body->value;
    }
    if (auto ok = fn(name, *value, path + "." + body_key); !ok) return ok;
  }
  return {};
}

// Adds what one file says to `merged`, keeping what earlier files set.
util::Result<void> MergeFile(const std::string& text, const std::string& dir,
                             Kubeconfig* merged) {
  auto docs = api::YamlToJson(text);
  if (!docs.ok()) return docs.error();
  if (docs->empty()) return {};  // an empty file configures nothing
  const rapidjson::Document& root = docs->front();
  if (!root.IsObject()) return util::Error("expected a mapping");
  std::string current;
  if (auto ok = Reader(root, "").String("current-context", &current); !ok) {
    return util::Error(ok.error().message().substr(1));
  }
  if (merged->current_context.empty()) merged->current_context = current;

  auto clusters = ForEachNamed(
      root, "clusters", "cluster",
      [&](const std::string& name, const rapidjson::Value& v,
          const std::string& path) -> util::Result<void> {
        Reader r(v, path);
        Cluster c;
        for (auto ok : {r.String("server", &c.server),
                        r.String("certificate-authority", &c.ca_file),
                        r.String("certificate-authority-data", &c.ca_data),
                        r.String("tls-server-name", &c.tls_server_name),
                        r.Bool("insecure-skip-tls-verify", &c.insecure)}) {
          if (!ok) return ok;
        }
        c.ca_file = Resolve(c.ca_file, dir);
        merged->clusters.emplace(name, std::move(c));
        return {};
      });
  if (!clusters) return clusters;

  auto users = ForEachNamed(
      root, "users", "user",
      [&](const std::string& name, const rapidjson::Value& v,
          const std::string& path) -> util::Result<void> {
        Reader r(v, path);
        User u;
        for (auto ok :
             {r.String("token", &u.token), r.String("tokenFile", &u.token_file),
              r.String("client-certificate", &u.cert_file),
              r.String("client-certificate-data", &u.cert_data),
              r.String("client-key", &u.key_file),
              r.String("client-key-data", &u.key_data),
              r.String("username", &u.username),
              r.String("password", &u.password)}) {
          if (!ok) return ok;
        }
        u.exec = r.Has("exec");
        u.auth_provider = r.Has("auth-provider");
        u.token_file = Resolve(u.token_file, dir);
        u.cert_file = Resolve(u.cert_file, dir);
        u.key_file = Resolve(u.key_file, dir);
        merged->users.emplace(name, std::move(u));
        return {};
      });
  if (!users) return users;

  return ForEachNamed(root, "contexts", "context",
                      [&](const std::string& name, const rapidjson::Value& v,
                          const std::string& path) -> util::Result<void> {
                        Reader r(v, path);
                        Context c;
                        for (auto ok : {r.String("cluster", &c.cluster),
                                        r.String("user", &c.user),
                                        r.String("namespace", &c.ns)}) {
                          if (!ok) return ok;
                        }
                        merged->contexts.emplace(name, std::move(c));
                        return {};
                      });
}

// The *-data value decoded, or the file read; kube refuses both at once.
util::Result<std::string> Credential(const std::string& file,
                                     const std::string& data,
                                     const std::string& what,
                                     const std::string& owner) {
  if (!file.empty() && !data.empty()) {
    return util::Error(what + "-data and " + what + " are both specified for " +
                       owner + ". " + what + "-data will override.");
  }
  if (!data.empty()) {
    auto decoded = DecodeBase64(data);
    if (!decoded.ok()) return decoded.error().Wrap(what + "-data of " + owner);
    return decoded;
  }
  if (!file.empty()) return ReadFile(file);
  return std::string();
}

// A server without a scheme is HTTPS when anything about TLS is configured,
// else plain HTTP (rest.defaultServerUrlFor).
void DefaultScheme(RestConfig* config) {
  if (config->server.find("://") != std::string::npos) return;
  const bool tls = !config->ca_pem.empty() ||
                   !config->client_cert_pem.empty() ||
                   config->insecure_skip_tls_verify;
  config->server = (tls ? "https://" : "http://") + config->server;
}

util::Result<RestConfig> Build(const Kubeconfig& kc,
                               const std::string& context_override) {
  const std::string context_name =
      context_override.empty() ? kc.current_context : context_override;
  if (context_name.empty()) {
    return util::Error(
        "invalid configuration: no configuration has been provided");
  }
  auto ctx = kc.contexts.find(context_name);
  if (ctx == kc.contexts.end()) {
    return util::Error("context was not found for specified context: " +
                       context_name);
  }
  auto cluster_it = kc.clusters.find(ctx->second.cluster);
  if (cluster_it == kc.clusters.end() || cluster_it->second.server.empty()) {
    return util::Error("invalid configuration: cluster \"" +
                       ctx->second.cluster + "\" (context " + context_name +
                       "): cluster has no server defined");
  }
  const Cluster& cluster = cluster_it->second;

  RestConfig config;
  config.server = cluster.server;
  while (!config.server.empty() && config.server.back() == '/') {
    config.server.pop_back();
  }
  if (cluster.insecure &&
      (!cluster.ca_file.empty() || !cluster.ca_data.empty())) {
    return util::Error(
        "specifying a root certificates file with the insecure flag is not "
        "allowed (cluster " +
        ctx->second.cluster + ")");
  }
  config.insecure_skip_tls_verify = cluster.insecure;
  config.tls_server_name = cluster.tls_server_name;
  auto ca = Credential(cluster.ca_file, cluster.ca_data,
                       "certificate-authority", ctx->second.cluster);
  if (!ca.ok()) return ca.error();
  config.ca_pem = std::move(*ca);
  if (!ctx->second.ns.empty()) config.ns = ctx->second.ns;

  if (ctx->second.user.empty()) {  // anonymous
    DefaultScheme(&config);
    return config;
  }
  auto user_it = kc.users.find(ctx->second.user);
  if (user_it == kc.users.end()) {
    return util::Error("invalid configuration: user \"" + ctx->second.user +
                       "\" of context " + context_name + " was not found");
  }
  const std::string& user_name = user_it->first;
  const User& user = user_it->second;
  if (user.exec || user.auth_provider) {
    return util::Error("user \"" + user_name +
                       "\": " + (user.exec ? "exec" : "auth-provider") +
                       " credentials are not supported; give the user a "
                       "token, tokenFile or client certificate");
  }
  auto cert = Credential(user.cert_file, user.cert_data, "client-certificate",
                         user_name);
  if (!cert.ok()) return cert.error();
  auto key = Credential(user.key_file, user.key_data, "client-key", user_name);
  if (!key.ok()) return key.error();
  if (cert->empty() != key->empty()) {
    return util::Error("user \"" + user_name +
                       "\": client-certificate and client-key go together");
  }
  config.client_cert_pem = std::move(*cert);
  config.client_key_pem = std::move(*key);
  config.bearer_token = user.token;
  config.token_file = user.token_file;
  // As clientcmd: without a token the file is read now, so a missing file
  // fails at start rather than on the first request.
  if (config.bearer_token.empty() && !config.token_file.empty()) {
    auto token = ReadFile(config.token_file);
    if (!token.ok()) return token.error().Wrap("tokenFile of " + user_name);
    config.bearer_token = std::move(*token);
  }
  config.username = user.username;
  config.password = user.password;
  DefaultScheme(&config);
  return config;
}

std::vector<std::string> SplitPaths(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ':')) {
    if (item.empty()) continue;
    if (std::find(out.begin(), out.end(), item) == out.end()) {
      out.push_back(item);
    }
  }
  return out;
}

}  // namespace

util::Result<RestConfig> ParseKubeconfig(const std::string& text,
                                         const std::string& dir,
                                         const std::string& context) {
  Kubeconfig kc;
  if (auto ok = MergeFile(text, dir, &kc); !ok) return ok.error();
  return Build(kc, context);
}

util::Result<RestConfig> LoadKubeconfig(const KubeconfigSources& sources) {
  std::vector<std::string> files;
  bool must_exist = false;
  if (!sources.explicit_path.empty()) {
    files = {sources.explicit_path};
    must_exist = true;
  } else if (!sources.kubeconfig_env.empty()) {
    files = SplitPaths(sources.kubeconfig_env);
  } else if (!sources.home.empty()) {
    files = {(fs::path(sources.home) / ".kube" / "config").string()};
  }
  Kubeconfig kc;
  for (const std::string& file : files) {
    std::error_code ec;
    if (!must_exist && !fs::exists(file, ec)) continue;
    auto text = ReadFile(file);
    if (!text.ok()) return text.error().Wrap("kubeconfig");
    const std::string dir = fs::absolute(file, ec).parent_path().string();
    if (auto ok = MergeFile(*text, dir, &kc); !ok) {
      return ok.error().Wrap("kubeconfig " + file);
    }
  }
  return Build(kc, sources.context);
}

util::Result<RestConfig> InClusterConfig(const InClusterSources& sources) {
  if (sources.service_host.empty() || sources.service_port.empty()) {
    return util::Error(
        "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST "
        "and KUBERNETES_SERVICE_PORT must be defined");
  }
  RestConfig config;
  // An IPv6 service address needs brackets (net.JoinHostPort).
  const bool ipv6 = sources.service_host.find(':') != std::string::npos;
  config.server =
      "https://" +
      (ipv6 ? "[" + sources.service_host + "]" : sources.service_host) + ":" +
      sources.service_port;
  const fs::path dir(sources.account_dir);
  config.token_file = (dir / "token").string();
  auto token = ReadFile(config.token_file);
  if (!token.ok()) return token.error().Wrap("in-cluster token");
  config.bearer_token = std::move(*token);
  auto ca = ReadFile((dir / "ca.crt").string());
  if (!ca.ok()) return ca.error().Wrap("in-cluster CA");
  config.ca_pem = std::move(*ca);
  if (auto ns = ReadFile((dir / "namespace").string()); ns.ok()) {
    std::string value = *ns;
    while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) {
      value.pop_back();
    }
    if (!value.empty()) config.ns = value;
  }
  return config;
}

}  // namespace ksched::client

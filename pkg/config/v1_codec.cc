#include "pkg/config/v1_codec.h"

#include <string>

#include "pkg/api/codec_internal.h"
#include "pkg/api/fields.h"
#include "pkg/config/duration.h"

// Field lists (JSON names from staging/src/k8s.io/kube-scheduler/config/v1
// and component-base/config/v1alpha1) and the Read overloads for the values
// that are not plain JSON objects. They live in the types' own namespaces so
// that the generic decoder finds them by argument-dependent lookup.

namespace ksched::config {

template <typename V>
void Fields(V& v, Plugin& p) {
  v("name", p.name);
  v("weight", p.weight);
}

template <typename V>
void Fields(V& v, PluginSet& s) {
  v("enabled", s.enabled);
  v("disabled", s.disabled);
}

template <typename V>
void Fields(V& v, Plugins& p) {
  v("preEnqueue", p.pre_enqueue);
  v("queueSort", p.queue_sort);
  v("preFilter", p.pre_filter);
  v("filter", p.filter);
  v("postFilter", p.post_filter);
  v("preScore", p.pre_score);
  v("score", p.score);
  v("reserve", p.reserve);
  v("permit", p.permit);
  v("preBind", p.pre_bind);
  v("bind", p.bind);
  v("postBind", p.post_bind);
  v("multiPoint", p.multi_point);
  v("placementGenerate", p.placement_generate);
  v("placementScore", p.placement_score);
}

template <typename V>
void Fields(V& v, ResourceSpec& r) {
  v("name", r.name);
  v("weight", r.weight);
}

template <typename V>
void Fields(V& v, UtilizationShapePoint& p) {
  v("utilization", p.utilization);
  v("score", p.score);
}

template <typename V>
void Fields(V& v, ExtenderManagedResource& r) {
  v("name", r.name);
  v("ignoredByScheduler", r.ignored_by_scheduler);
}

}  // namespace ksched::config

namespace ksched::config::v1 {

using api::codec::Decoder;
using api::codec::JsonValue;

void Read(Decoder& d, const JsonValue& v, Duration* out);
void Read(Decoder& d, const JsonValue& v, Bytes* out);
void Read(Decoder& d, const JsonValue& v, PluginConfig* out);

template <typename V>
void TypeMetaFields(V& v, TypeMeta& t) {
  v("apiVersion", t.api_version);
  v("kind", t.kind);
}

template <typename V>
void Fields(V& v, DefaultPreemptionArgs& a) {
  TypeMetaFields(v, a);
  v("minCandidateNodesPercentage", a.min_candidate_nodes_percentage);
  v("minCandidateNodesAbsolute", a.min_candidate_nodes_absolute);
}

template <typename V>
void Fields(V& v, CoschedulingArgs& a) {
  TypeMetaFields(v, a);
  v("permitWaitingTimeSeconds", a.permit_waiting_time_seconds);
  v("podGroupBackoffSeconds", a.pod_group_backoff_seconds);
  v("podGroupRejectPercentage", a.pod_group_reject_percentage);
}

template <typename V>
void Fields(V& v, DynamicResourcesArgs& a) {
  TypeMetaFields(v, a);
  v("filterTimeout", a.filter_timeout);
  v("bindingTimeout", a.binding_timeout);
}

template <typename V>
void Fields(V& v, InterPodAffinityArgs& a) {
  TypeMetaFields(v, a);
  v("hardPodAffinityWeight", a.hard_pod_affinity_weight);
  v("ignorePreferredTermsOfExistingPods",
    a.ignore_preferred_terms_of_existing_pods);
}

template <typename V>
void Fields(V& v, RequestedToCapacityRatioParam& p) {
  v("shape", p.shape);
}

template <typename V>
void Fields(V& v, ScoringStrategy& s) {
  v("type", s.type);
  v("resources", s.resources);
  v("requestedToCapacityRatio", s.requested_to_capacity_ratio);
}

template <typename V>
void Fields(V& v, NodeResourcesFitArgs& a) {
  TypeMetaFields(v, a);
  v("ignoredResources", a.ignored_resources);
  v("ignoredResourceGroups", a.ignored_resource_groups);
  v("scoringStrategy", a.scoring_strategy);
}

template <typename V>
void Fields(V& v, PodTopologySpreadArgs& a) {
  TypeMetaFields(v, a);
  v("defaultConstraints", a.default_constraints);
  v("defaultingType", a.defaulting_type);
}

template <typename V>
void Fields(V& v, NodeResourcesBalancedAllocationArgs& a) {
  TypeMetaFields(v, a);
  v("resources", a.resources);
}

template <typename V>
void Fields(V& v, VolumeBindingArgs& a) {
  TypeMetaFields(v, a);
  v("bindTimeoutSeconds", a.bind_timeout_seconds);
  v("shape", a.shape);
}

template <typename V>
void Fields(V& v, NodeAffinityArgs& a) {
  TypeMetaFields(v, a);
  v("addedAffinity", a.added_affinity);
}

template <typename V>
void Fields(V& v, LeaderElectionConfiguration& l) {
  v("leaderElect", l.leader_elect);
  v("leaseDuration", l.lease_duration);
  v("renewDeadline", l.renew_deadline);
  v("retryPeriod", l.retry_period);
  v("resourceLock", l.resource_lock);
  v("resourceName", l.resource_name);
  v("resourceNamespace", l.resource_namespace);
}

template <typename V>
void Fields(V& v, ClientConnectionConfiguration& c) {
  v("kubeconfig", c.kubeconfig);
  v("acceptContentTypes", c.accept_content_types);
  v("contentType", c.content_type);
  v("qps", c.qps);
  v("burst", c.burst);
}

template <typename V>
void Fields(V& v, ExtenderTlsConfig& t) {
  v("insecure", t.insecure);
  v("serverName", t.server_name);
  v("certFile", t.cert_file);
  v("keyFile", t.key_file);
  v("caFile", t.ca_file);
  v("certData", t.cert_data);
  v("keyData", t.key_data);
  v("caData", t.ca_data);
}

template <typename V>
void Fields(V& v, Extender& e) {
  v("urlPrefix", e.url_prefix);
  v("filterVerb", e.filter_verb);
  v("preemptVerb", e.preempt_verb);
  v("prioritizeVerb", e.prioritize_verb);
  v("weight", e.weight);
  v("bindVerb", e.bind_verb);
  v("enableHTTPS", e.enable_https);
  v("tlsConfig", e.tls_config);
  v("httpTimeout", e.http_timeout);
  v("nodeCacheCapable", e.node_cache_capable);
  v("managedResources", e.managed_resources);
  v("ignorable", e.ignorable);
}

template <typename V>
void Fields(V& v, KubeSchedulerProfile& p) {
  v("schedulerName", p.scheduler_name);
  v("percentageOfNodesToScore", p.percentage_of_nodes_to_score);
  v("plugins", p.plugins);
  v("pluginConfig", p.plugin_config);
}

template <typename V>
void Fields(V& v, KubeSchedulerConfiguration& c) {
  TypeMetaFields(v, c);
  v("parallelism", c.parallelism);
  v("leaderElection", c.leader_election);
  v("clientConnection", c.client_connection);
  // DebuggingConfiguration is inlined.
  v("enableProfiling", c.enable_profiling);
  v("enableContentionProfiling", c.enable_contention_profiling);
  v("percentageOfNodesToScore", c.percentage_of_nodes_to_score);
  v("podInitialBackoffSeconds", c.pod_initial_backoff_seconds);
  v("podMaxBackoffSeconds", c.pod_max_backoff_seconds);
  v("profiles", c.profiles);
  v("extenders", c.extenders);
  v("delayCacheUntilActive", c.delay_cache_until_active);
}

namespace {

std::string TypeNameOf(const JsonValue& v) {
  return std::string(api::codec::TypeName(v));
}

std::string ToJsonText(const JsonValue& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// encoding/base64.StdEncoding as encoding/json applies it to []byte:
// padded, with '\r' and '\n' skipped.
bool DecodeBase64(std::string_view in, std::string* out, size_t* bad_offset) {
  auto value_of = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  out->clear();
  uint32_t quantum = 0;
  int filled = 0;
  int padding = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '\r' || c == '\n') continue;
    if (c == '=') {
      if (filled < 2) {
        *bad_offset = i;
        return false;
      }
      ++padding;
      ++filled;
    } else {
      int value = value_of(c);
      if (value < 0 || padding > 0) {
        *bad_offset = i;
        return false;
      }
      quantum = (quantum << 6) | static_cast<uint32_t>(value);
      ++filled;
    }
    if (filled == 4) {
      quantum <<= 6 * padding;
      out->push_back(static_cast<char>((quantum >> 16) & 0xFF));
      if (padding < 2) out->push_back(static_cast<char>((quantum >> 8) & 0xFF));
      if (padding < 1) out->push_back(static_cast<char>(quantum & 0xFF));
      quantum = 0;
      filled = 0;
      if (padding > 0) {
        // Padding ends the data; anything after it is an error.
        for (size_t j = i + 1; j < in.size(); ++j) {
          if (in[j] != '\r' && in[j] != '\n') {
            *bad_offset = j;
            return false;
          }
        }
        return true;
      }
    }
  }
  if (filled != 0) {
    *bad_offset = in.size();
    return false;
  }
  return true;
}

// Reads the args of a plugin whose name has a registered args type. The
// args may name their own apiVersion and kind; they must be this group's
// version and the plugin's kind, as kube-scheduler's scheme requires.
template <typename T>
void ReadTypedArgs(Decoder& d, const JsonValue& v, std::string_view plugin,
                   TypedArgs* out) {
  if (!v.IsObject()) {
    d.Fail("expected object, got " + TypeNameOf(v));
    return;
  }
  const std::string want_kind(ArgsKindFor(plugin));
  std::string api_version(kGroupVersion);
  std::string kind = want_kind;
  auto string_member = [&](const char* key, std::string* into) {
    auto it = v.FindMember(key);
    if (it == v.MemberEnd() || it->value.IsNull()) return;
    Decoder::KeyScope scope(d, key);
    api::codec::Read(d, it->value, into);
  };
  std::string given_version, given_kind;
  string_member("apiVersion", &given_version);
  string_member("kind", &given_kind);
  if (!d.ok()) return;
  if (!given_version.empty()) api_version = given_version;
  if (!given_kind.empty()) kind = given_kind;

  if (api_version != kGroupVersion || !IsRegisteredKind(kind)) {
    d.Fail("decoding args for plugin " + std::string(plugin) + ": no kind \"" +
           kind + "\" is registered for version \"" + api_version + "\"");
    return;
  }
  if (kind != want_kind) {
    d.Fail("args for plugin " + std::string(plugin) + " were not of type " +
           want_kind + "." + std::string(kGroup) + ", got " + kind + "." +
           std::string(kGroup));
    return;
  }
  T args;
  api::codec::Read(d, v, &args);
  if (d.ok()) *out = std::move(args);
}

void ReadArgsFor(Decoder& d, const JsonValue& v, std::string_view plugin,
                 TypedArgs* out) {
  TypedArgs empty = EmptyArgsFor(plugin);
  std::visit(
      [&](const auto& shape) {
        using T = std::decay_t<decltype(shape)>;
        if constexpr (!std::is_same_v<T, std::monostate>) {
          ReadTypedArgs<T>(d, v, plugin, out);
        }
      },
      empty);
}

}  // namespace

void Read(Decoder& d, const JsonValue& v, Duration* out) {
  if (!v.IsString()) {
    d.Fail("expected duration string such as \"15s\", got " + TypeNameOf(v));
    return;
  }
  auto parsed =
      ParseGoDuration(std::string_view(v.GetString(), v.GetStringLength()));
  if (!parsed.ok()) {
    d.Fail(parsed.error().message());
    return;
  }
  out->value = *parsed;
}

void Read(Decoder& d, const JsonValue& v, Bytes* out) {
  if (!v.IsString()) {
    d.Fail("expected base64 string, got " + TypeNameOf(v));
    return;
  }
  size_t bad_offset = 0;
  std::string decoded;
  if (!DecodeBase64(std::string_view(v.GetString(), v.GetStringLength()),
                    &decoded, &bad_offset)) {
    d.Fail("illegal base64 data at input byte " + std::to_string(bad_offset));
    return;
  }
  out->data = std::move(decoded);
}

void Read(Decoder& d, const JsonValue& v, PluginConfig* out) {
  if (!v.IsObject()) {
    d.Fail("expected object, got " + TypeNameOf(v));
    return;
  }
  PluginConfig config;
  // The name decides how args decode, wherever it appears in the object.
  if (auto it = v.FindMember("name");
      it != v.MemberEnd() && !it->value.IsNull()) {
    Decoder::KeyScope scope(d, "name");
    api::codec::Read(d, it->value, &config.name);
    if (!d.ok()) return;
  }
  if (d.options().reject_unknown_fields) {
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
      std::string_view key(it->name.GetString(), it->name.GetStringLength());
      if (key != "name" && key != "args") {
        Decoder::KeyScope scope(d, key);
        d.Fail("unknown field");
        return;
      }
    }
  }
  config.args = EmptyArgsFor(config.name);
  if (auto it = v.FindMember("args");
      it != v.MemberEnd() && !it->value.IsNull()) {
    config.raw_args = ToJsonText(it->value);
    Decoder::KeyScope scope(d, "args");
    ReadArgsFor(d, it->value, config.name, &config.args);
    if (!d.ok()) return;
  }
  *out = std::move(config);
}

util::Result<KubeSchedulerConfiguration> Decode(
    const rapidjson::Value& document) {
  return api::codec::DecodeValue<KubeSchedulerConfiguration>(
      document, api::codec::DecodeOptions{.reject_unknown_fields = true});
}

}  // namespace ksched::config::v1

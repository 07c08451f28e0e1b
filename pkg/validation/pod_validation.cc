// Pod specs (ValidatePodSpec and ValidatePodCreate in core validation),
// limited to what decides where, and whether, a pod can run.
#include <algorithm>
#include <set>
#include <utility>

#include "pkg/config/name_validation.h"
#include "pkg/validation/internal.h"
#include "pkg/validation/validation.h"

namespace ksched::validation {
namespace internal {
namespace {

using config::GoQuote;
using config::GoValue;

// One container as validation sees it.
struct Container {
  const Json* obj;
  size_t index;  // in its list
  std::string name;
  ResourceList limits;
  // For a Pod, defaulted from the limits where only a limit is set
  // (SetDefaults_Pod); templates are not defaulted so.
  ResourceList requests;
  bool restartable;  // an init container with restartPolicy Always
};

std::vector<Container> ReadContainers(const Json* list, bool is_pod) {
  std::vector<Container> out;
  if (list == nullptr) return out;
  for (size_t i = 0; i < list->Size(); ++i) {
    const Json& c = (*list)[static_cast<rapidjson::SizeType>(i)];
    if (!c.IsObject()) continue;
    Container ctr{&c, i, StringField(c, "name"), {}, {}, false};
    if (const Json* resources = ObjectField(c, "resources")) {
      ctr.limits = ReadResourceList(ObjectField(*resources, "limits"));
      ctr.requests = ReadResourceList(ObjectField(*resources, "requests"));
    }
    if (is_pod) {
      for (const Resource& limit : ctr.limits) {
        if (FindResource(ctr.requests, limit.name) == nullptr) {
          ctr.requests.push_back(limit);
        }
      }
    }
    ctr.restartable = StringField(c, "restartPolicy") == "Always";
    out.push_back(std::move(ctr));
  }
  return out;
}

// A port as the API server holds it: protocol defaults to TCP, and a
// host-network pod's host port to its container port (SetDefaults_Pod).
struct Port {
  std::optional<int64_t> container_port;
  bool container_port_present;
  int64_t host_port;
  std::string protocol;
  std::string host_ip;
};

Port ReadPort(const Json& port, bool default_host_port) {
  Port p;
  p.container_port = IntField(port, "containerPort", &p.container_port_present);
  p.host_port = IntField(port, "hostPort").value_or(0);
  if (default_host_port && p.host_port == 0 && p.container_port) {
    p.host_port = *p.container_port;
  }
  p.protocol = StringField(port, "protocol");
  if (p.protocol.empty()) p.protocol = "TCP";
  p.host_ip = StringField(port, "hostIP");
  return p;
}

// validation.IsValidPortName.
std::vector<std::string> PortNameErrors(std::string_view name) {
  std::vector<std::string> errs;
  if (name.size() > 15) errs.push_back("must be no more than 15 characters");
  bool charset = true;
  bool letter = false;
  for (char c : name) {
    bool lower = c >= 'a' && c <= 'z';
    letter = letter || lower;
    if (!lower && !(c >= '0' && c <= '9') && c != '-') charset = false;
  }
  if (!charset || name.empty()) {
    errs.push_back(
        "must contain only alpha-numeric characters (a-z, 0-9), and hyphens "
        "(-)");
  }
  if (!letter) errs.push_back("must contain at least one letter (a-z)");
  if (name.find("--") != std::string_view::npos) {
    errs.push_back("must not contain consecutive hyphens");
  }
  if (!name.empty() && (name.front() == '-' || name.back() == '-')) {
    errs.push_back("must not begin or end with a hyphen");
  }
  return errs;
}

constexpr std::string_view kPortRangeError =
    "must be between 1 and 65535, inclusive";

void ValidateContainerPorts(const Json& ctr, const FieldPath& path,
                            bool default_host_port, FieldErrors* errs) {
  const Json* ports = ArrayField(ctr, "ports");
  if (ports == nullptr) return;
  std::set<std::string> names;
  for (size_t i = 0; i < ports->Size(); ++i) {
    const Json& port = (*ports)[static_cast<rapidjson::SizeType>(i)];
    if (!port.IsObject()) continue;
    FieldPath p = path.Index(i);
    std::string name = StringField(port, "name");
    if (!name.empty()) {
      std::vector<std::string> msgs = PortNameErrors(name);
      for (const std::string& msg : msgs) {
        errs->push_back(config::Invalid(p.Child("name"), GoQuote(name), msg));
      }
      if (msgs.empty() && !names.insert(name).second) {
        errs->push_back(config::Duplicate(p.Child("name"), GoQuote(name)));
      }
    }
    Port port_value = ReadPort(port, default_host_port);
    if (!port_value.container_port_present || port_value.container_port == 0) {
      errs->push_back(config::Required(p.Child("containerPort"), ""));
    } else if (port_value.container_port &&
               (*port_value.container_port < 1 ||
                *port_value.container_port > 65535)) {
      errs->push_back(config::Invalid(p.Child("containerPort"),
                                      GoValue(*port_value.container_port),
                                      kPortRangeError));
    }
    if (port_value.host_port != 0 &&
        (port_value.host_port < 1 || port_value.host_port > 65535)) {
      errs->push_back(config::Invalid(
          p.Child("hostPort"), GoValue(port_value.host_port), kPortRangeError));
    }
    const std::string& protocol = port_value.protocol;
    if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
      errs->push_back(config::NotSupported(
          p.Child("protocol"), JsonQuote(protocol), {"SCTP", "TCP", "UDP"}));
    }
  }
}

// AccumulateUniqueHostPorts over `containers`, each with the index kube
// gives it under `path` (init containers are checked one at a time, each
// as index 0).
void CheckHostPortConflicts(
    const std::vector<std::pair<size_t, const Container*>>& containers,
    const FieldPath& path, bool default_host_port, FieldErrors* errs) {
  std::set<std::string> seen;
  for (const auto& [index, container] : containers) {
    const Json* ports = ArrayField(*container->obj, "ports");
    if (ports == nullptr) continue;
    FieldPath ports_path = path.Index(index).Child("ports");
    for (size_t pi = 0; pi < ports->Size(); ++pi) {
      const Json& port = (*ports)[static_cast<rapidjson::SizeType>(pi)];
      if (!port.IsObject()) continue;
      Port p = ReadPort(port, default_host_port);
      if (p.host_port == 0) continue;
      std::string key =
          p.protocol + "/" + p.host_ip + "/" + std::to_string(p.host_port);
      if (!seen.insert(key).second) {
        errs->push_back(config::Duplicate(
            ports_path.Index(pi).Child("hostPort"), GoQuote(key)));
      }
    }
  }
}

void ValidateContainerRestartPolicy(const Json& ctr, const FieldPath& path,
                                    FieldErrors* errs) {
  if (Field(ctr, "restartPolicy") == nullptr) return;
  std::string policy = StringField(ctr, "restartPolicy");
  if (policy != "Always" && policy != "Never" && policy != "OnFailure") {
    errs->push_back(config::NotSupported(path.Child("restartPolicy"),
                                         JsonQuote(policy),
                                         {"Always", "Never", "OnFailure"}));
  }
}

// validateResourceClaimNames: each entry of a container's (or the pod's)
// resources.claims names one of the pod's resourceClaims, and no claim,
// nor a request of it, is named twice.
void ValidateClaimReferences(const Json* claims,
                             const std::set<std::string>& pod_claim_names,
                             const FieldPath& path, FieldErrors* errs) {
  if (claims == nullptr) return;
  std::set<std::string> seen;  // "<claim>" or "<claim>/<request>"
  for (size_t i = 0; i < claims->Size(); ++i) {
    const Json& claim = (*claims)[static_cast<rapidjson::SizeType>(i)];
    FieldPath p = path.Index(i);
    std::string name = StringField(claim, "name");
    if (name.empty()) {
      errs->push_back(config::Required(p, ""));
      continue;
    }
    if (seen.count(name) > 0) {
      // Every request of that claim is already referenced.
      errs->push_back(config::Duplicate(p, GoQuote(name)));
    } else {
      std::string request = StringField(claim, "request");
      std::string key = name;
      if (!request.empty()) {
        for (const std::string& msg : config::Dns1123LabelErrors(request)) {
          errs->push_back(
              config::Invalid(p.Child("request"), GoQuote(request), msg));
        }
        key += "/" + request;
      }
      if (seen.count(key) > 0) {
        errs->push_back(config::Duplicate(p, GoQuote(key)));
      } else if (request.empty()) {
        // The whole claim after one of its requests: kube reports each
        // request referenced before (in its set's random order; here in
        // sorted order).
        for (const std::string& earlier : seen) {
          size_t slash = earlier.find('/');
          if (slash != std::string::npos &&
              std::string_view(earlier).substr(0, slash) == name) {
            errs->push_back(config::Duplicate(p, GoQuote(name)));
          }
        }
      }
      seen.insert(key);
    }
    if (pod_claim_names.count(name) == 0) {
      // field.NotFound with the explanation kube adds to it.
      config::FieldError e = config::NotFound(p, GoQuote(name));
      e.detail = "must be one of the names in pod.spec.resourceClaims";
      if (pod_claim_names.empty()) {
        e.detail += " which is empty";
      } else {
        std::string names;
        for (const std::string& n : pod_claim_names) {
          if (!names.empty()) names += ", ";
          names += n;
        }
        e.detail += ": " + names;
      }
      errs->push_back(std::move(e));
    }
  }
}

// encoding/json's rendering of the internal PodResourceClaim (no JSON
// tags: Go's field names; unset names null).
std::string PodResourceClaimJson(const Json& claim) {
  auto pointer = [&](std::string_view member) {
    const Json* v = Field(claim, member);
    return v == nullptr ? std::string("null")
                        : JsonQuote(ScalarText(*v).value_or(""));
  };
  return "{\"Name\":" + JsonQuote(StringField(claim, "name")) +
         ",\"ResourceClaimName\":" + pointer("resourceClaimName") +
         ",\"ResourceClaimTemplateName\":" +
         pointer("resourceClaimTemplateName") + "}";
}

// validatePodResourceClaims: named uniquely, each from exactly one of a
// claim and a template.
void ValidatePodResourceClaims(const Json& spec, const FieldPath& path,
                               const PodSpecContext& ctx, FieldErrors* errs) {
  const Json* claims = ArrayField(spec, "resourceClaims");
  if (claims == nullptr) return;
  constexpr std::string_view kMirrorPodAnnotation =
      "kubernetes.io/config.mirror";
  const bool static_pod =
      ctx.pod_annotations != nullptr &&
      Field(*ctx.pod_annotations, kMirrorPodAnnotation) != nullptr;
  std::set<std::string> names;
  for (size_t i = 0; i < claims->Size(); ++i) {
    const Json& claim = (*claims)[static_cast<rapidjson::SizeType>(i)];
    if (static_pod) {
      // Kube's path is the empty one.
      errs->push_back(config::Forbidden(
          FieldPath(""), "static pods do not support resource claims"));
      continue;
    }
    FieldPath p = path.Index(i);
    std::string name = StringField(claim, "name");
    if (name.empty()) {
      errs->push_back(config::Required(p.Child("name"), ""));
    } else if (names.count(name) > 0) {
      errs->push_back(config::Duplicate(p.Child("name"), GoQuote(name)));
    } else {
      for (const std::string& msg : config::Dns1123LabelErrors(name)) {
        errs->push_back(config::Invalid(p.Child("name"), GoQuote(name), msg));
      }
      names.insert(name);
    }
    const Json* claim_name = Field(claim, "resourceClaimName");
    const Json* template_name = Field(claim, "resourceClaimTemplateName");
    if (claim_name != nullptr && template_name != nullptr) {
      errs->push_back(config::Invalid(p, PodResourceClaimJson(claim),
                                      "at most one of `resourceClaimName` or "
                                      "`resourceClaimTemplateName` may be "
                                      "specified"));
    }
    if (claim_name == nullptr && template_name == nullptr) {
      errs->push_back(config::Invalid(p, PodResourceClaimJson(claim),
                                      "must specify one of: "
                                      "`resourceClaimName`, "
                                      "`resourceClaimTemplateName`"));
    }
    for (const auto& [member, value] :
         {std::pair{"resourceClaimName", claim_name},
          std::pair{"resourceClaimTemplateName", template_name}}) {
      if (value == nullptr) continue;
      std::string text = ScalarText(*value).value_or("");
      for (const std::string& msg : config::Dns1123SubdomainErrors(text)) {
        errs->push_back(config::Invalid(p.Child(member), GoQuote(text), msg));
      }
    }
  }
}

// gatherPodResourceClaimNames: every name given, valid or not.
std::set<std::string> PodClaimNames(const Json& spec) {
  std::set<std::string> names;
  if (const Json* claims = ArrayField(spec, "resourceClaims")) {
    for (const Json& claim : claims->GetArray()) {
      if (std::string name = StringField(claim, "name"); !name.empty()) {
        names.insert(std::move(name));
      }
    }
  }
  return names;
}

// validateContainerCommon. The image is deliberately not required: files
// written to simulate scheduling often leave it out, and nothing the
// scheduler decides depends on it.
void ValidateContainerCommon(const Container& c, const FieldPath& path,
                             bool default_host_port,
                             const std::set<std::string>& pod_claim_names,
                             FieldErrors* errs) {
  FieldPath name_path = path.Child("name");
  if (c.name.empty()) {
    errs->push_back(config::Required(name_path, ""));
  } else {
    for (const std::string& msg : config::Dns1123LabelErrors(c.name)) {
      errs->push_back(config::Invalid(name_path, GoQuote(c.name), msg));
    }
  }
  ValidateContainerPorts(*c.obj, path.Child("ports"), default_host_port, errs);
  ValidateResourceRequirements(c.limits, c.requests,
                               ResourceNameRule::kContainer,
                               path.Child("resources"), errs);
  if (const Json* resources = ObjectField(*c.obj, "resources")) {
    ValidateClaimReferences(ArrayField(*resources, "claims"), pod_claim_names,
                            path.Child("resources").Child("claims"), errs);
  }
}

void ValidateVolumes(const Json& spec, const FieldPath& path,
                     const PodSpecContext& ctx, FieldErrors* errs) {
  const Json* volumes = ArrayField(spec, "volumes");
  if (volumes == nullptr) return;
  std::set<std::string> names;
  for (size_t i = 0; i < volumes->Size(); ++i) {
    const Json& vol = (*volumes)[static_cast<rapidjson::SizeType>(i)];
    if (!vol.IsObject()) continue;
    FieldPath p = path.Index(i);
    std::string name = StringField(vol, "name");
    if (std::find(ctx.replaced_volumes.begin(), ctx.replaced_volumes.end(),
                  name) != ctx.replaced_volumes.end()) {
      continue;
    }
    FieldErrors el;
    if (const Json* pvc = ObjectField(vol, "persistentVolumeClaim")) {
      if (StringField(*pvc, "claimName").empty()) {
        el.push_back(config::Required(
            p.Child("persistentVolumeClaim").Child("claimName"), ""));
      }
    }
    if (name.empty()) {
      el.push_back(config::Required(p.Child("name"), ""));
    } else {
      for (const std::string& msg : config::Dns1123LabelErrors(name)) {
        el.push_back(config::Invalid(p.Child("name"), GoQuote(name), msg));
      }
    }
    if (names.count(name) > 0) {
      el.push_back(config::Duplicate(p.Child("name"), GoQuote(name)));
    }
    // Only a volume without errors claims its name.
    if (el.empty()) names.insert(name);
    errs->insert(errs->end(), el.begin(), el.end());
  }
}

// resourcehelper.AggregateContainerRequests/Limits: regular containers and
// sidecars add up; each init container needs its own plus the sidecars
// started before it; the pod needs the larger of the two.
ResourceList Aggregate(const std::vector<Container>& containers,
                       const std::vector<Container>& init_containers,
                       bool limits) {
  auto add = [](ResourceList* list, const ResourceList& more) {
    for (const Resource& r : more) {
      auto it =
          std::find_if(list->begin(), list->end(),
                       [&](const Resource& x) { return x.name == r.name; });
      if (it == list->end()) {
        list->push_back(r);
      } else {
        it->quantity += r.quantity;
      }
    }
  };
  auto max_into = [](ResourceList* list, const ResourceList& more) {
    for (const Resource& r : more) {
      auto it =
          std::find_if(list->begin(), list->end(),
                       [&](const Resource& x) { return x.name == r.name; });
      if (it == list->end()) {
        list->push_back(r);
      } else if (r.quantity > it->quantity) {
        it->quantity = r.quantity;
      }
    }
  };
  ResourceList sum;
  for (const Container& c : containers)
    add(&sum, limits ? c.limits : c.requests);
  ResourceList sidecars;
  ResourceList init_max;
  for (const Container& c : init_containers) {
    const ResourceList& own = limits ? c.limits : c.requests;
    if (c.restartable) {
      add(&sum, own);
      add(&sidecars, own);
      max_into(&init_max, sidecars);
    } else {
      ResourceList during = own;
      add(&during, sidecars);
      max_into(&init_max, during);
    }
  }
  max_into(&sum, init_max);
  return sum;
}

bool IsSupportedPodLevel(std::string_view name) {
  return name == "cpu" || name == "memory" || IsHugePageResourceName(name);
}

// validatePodResources, after SetDefaults_Pod's pod-level defaulting for
// a Pod: hugepage limits from the containers' when no request is set, then
// (with limits set) cpu and memory requests from the containers' and any
// other request from its limit.
void ValidatePodLevelResources(const Json& spec, const FieldPath& path,
                               const std::vector<Container>& containers,
                               const std::vector<Container>& init_containers,
                               bool is_pod,
                               const std::set<std::string>& pod_claim_names,
                               FieldErrors* errs) {
  const Json* resources = ObjectField(spec, "resources");
  if (resources == nullptr) return;
  FieldPath rpath = path.Child("resources");
  if (const Json* os = ObjectField(spec, "os");
      os != nullptr && StringField(*os, "name") == "windows") {
    errs->push_back(
        config::Forbidden(rpath, "may not be set for a windows pod"));
    return;
  }
  if (Field(*resources, "claims") != nullptr) {
    errs->push_back(
        config::Forbidden(rpath.Child("claims"),
                          "claims may not be set for Resources at pod-level"));
  }
  ResourceList limits = ReadResourceList(ObjectField(*resources, "limits"));
  ResourceList requests = ReadResourceList(ObjectField(*resources, "requests"));
  if (is_pod && (!limits.empty() || !requests.empty())) {
    for (const Resource& r : Aggregate(containers, init_containers, true)) {
      if (IsHugePageResourceName(r.name) &&
          FindResource(requests, r.name) == nullptr &&
          FindResource(limits, r.name) == nullptr) {
        limits.push_back(r);
      }
    }
  }
  if (is_pod && !limits.empty()) {
    for (const Resource& r : Aggregate(containers, init_containers, false)) {
      if ((r.name == "cpu" || r.name == "memory") &&
          FindResource(requests, r.name) == nullptr) {
        requests.push_back(r);
      }
    }
    for (const Resource& r : limits) {
      if (IsSupportedPodLevel(r.name) &&
          FindResource(requests, r.name) == nullptr) {
        requests.push_back(r);
      }
    }
  }
  ValidateResourceRequirements(limits, requests, ResourceNameRule::kPodLevel,
                               rpath, errs);
  // Refused above already, yet kube checks the names too.
  ValidateClaimReferences(ArrayField(*resources, "claims"), pod_claim_names,
                          rpath.Child("claims"), errs);

  // validatePodResourceConsistency.
  for (const Resource& agg : Aggregate(containers, init_containers, false)) {
    const Resource* pod = FindResource(requests, agg.name);
    if (pod != nullptr && agg.quantity > pod->quantity) {
      errs->push_back(config::Invalid(
          rpath.Child("requests").Key(agg.name),
          GoQuote(pod->quantity.ToString()),
          "must be greater than or equal to aggregate container requests of " +
              agg.quantity.ToString()));
    }
  }
  for (const Resource& agg : Aggregate(containers, init_containers, true)) {
    if (!IsHugePageResourceName(agg.name)) continue;
    const Resource* pod = FindResource(limits, agg.name);
    if (pod != nullptr && agg.quantity > pod->quantity) {
      errs->push_back(config::Invalid(
          rpath.Child("limits").Key(agg.name),
          GoQuote(pod->quantity.ToString()),
          "must be greater than or equal to aggregate container limits of " +
              agg.quantity.ToString()));
    }
  }
  for (const Container& c : containers) {
    for (const Resource& limit : c.limits) {
      const Resource* pod = FindResource(limits, limit.name);
      if (pod != nullptr && limit.quantity > pod->quantity) {
        // Kube's path, odd as it is.
        errs->push_back(
            config::Invalid(rpath.Child("containers")
                                .Index(c.index)
                                .Key(limit.name)
                                .Child("limits"),
                            GoQuote(limit.quantity.ToString()),
                            "must be less than or equal to pod limits of " +
                                pod->quantity.ToString()));
      }
    }
  }
}

// ValidateTolerations.
void ValidateTolerations(const Json& list, const FieldPath& path,
                         FieldErrors* errs) {
  for (size_t i = 0; i < list.Size(); ++i) {
    const Json& t = list[static_cast<rapidjson::SizeType>(i)];
    if (!t.IsObject()) continue;
    FieldPath p = path.Index(i);
    std::string key = StringField(t, "key");
    std::string op = StringField(t, "operator");
    std::string value = StringField(t, "value");
    std::string effect = StringField(t, "effect");
    if (!key.empty()) ValidateLabelName(key, p.Child("key"), errs);
    if (key.empty() && op != "Exists") {
      errs->push_back(config::Invalid(
          p.Child("operator"), JsonQuote(op),
          "operator must be Exists when `key` is empty, which means \"match "
          "all values and all keys\""));
    }
    if (Field(t, "tolerationSeconds") != nullptr && effect != "NoExecute") {
      errs->push_back(config::Invalid(
          p.Child("effect"), JsonQuote(effect),
          "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (op == "Equal" || op.empty()) {
      ValidateJoinedLabelValue(value, p.Child("operator"), errs);
    } else if (op == "Exists") {
      if (!value.empty()) {
        errs->push_back(
            config::Invalid(p.Child("operator"), GoQuote(value),
                            "value must be empty when `operator` is 'Exists'"));
      }
    } else if (op == "Lt" || op == "Gt") {
      // TaintTolerationComparisonOperators is alpha (off) in v1.35.
      errs->push_back(config::NotSupported(p.Child("operator"), JsonQuote(op),
                                           {"Equal", "Exists", "Lt", "Gt"}));
    } else {
      errs->push_back(config::NotSupported(p.Child("operator"), JsonQuote(op),
                                           {"Equal", "Exists"}));
    }
    if (!effect.empty()) ValidateTaintEffect(effect, p.Child("effect"), errs);
  }
}

void ValidateSchedulingGates(const Json& gates, const FieldPath& path,
                             FieldErrors* errs) {
  std::set<std::string> seen;
  for (size_t i = 0; i < gates.Size(); ++i) {
    const Json& gate = gates[static_cast<rapidjson::SizeType>(i)];
    if (!gate.IsObject()) continue;
    std::string name = StringField(gate, "name");
    for (const std::string& msg :
         config::QualifiedNameErrors(name, config::Wording::kV1_35)) {
      errs->push_back(config::Invalid(path.Index(i), GoQuote(name), msg));
    }
    if (!seen.insert(name).second) {
      errs->push_back(config::Duplicate(path.Index(i), GoQuote(name)));
    }
  }
}

// validateTopologySpreadConstraints, with MatchLabelKeysInPodTopologySpread
// and its selector merge on (beta, default on in v1.35).
void ValidateTopologySpreadConstraints(const Json& list, const FieldPath& path,
                                       const PodSpecContext& ctx,
                                       FieldErrors* errs) {
  auto key_and_action = [](const Json& c) {
    return std::make_pair(StringField(c, "topologyKey"),
                          StringField(c, "whenUnsatisfiable"));
  };
  for (size_t i = 0; i < list.Size(); ++i) {
    const Json& c = list[static_cast<rapidjson::SizeType>(i)];
    if (!c.IsObject()) continue;
    FieldPath p = path.Index(i);
    bool present = false;
    std::optional<int64_t> max_skew = IntField(c, "maxSkew", &present);
    if (!present || (max_skew && *max_skew <= 0)) {
      errs->push_back(config::Invalid(p.Child("maxSkew"),
                                      GoValue(max_skew.value_or(0)),
                                      "must be greater than zero"));
    }
    auto [key, action] = key_and_action(c);
    if (key.empty()) {
      errs->push_back(
          config::Required(p.Child("topologyKey"), "can not be empty"));
    }
    if (action != "DoNotSchedule" && action != "ScheduleAnyway") {
      errs->push_back(
          config::NotSupported(p.Child("whenUnsatisfiable"), JsonQuote(action),
                               {"DoNotSchedule", "ScheduleAnyway"}));
    }
    for (size_t j = i + 1; j < list.Size(); ++j) {
      const Json& other = list[static_cast<rapidjson::SizeType>(j)];
      if (other.IsObject() &&
          key_and_action(other) == std::make_pair(key, action)) {
        errs->push_back(
            config::Duplicate(p.Child("{topologyKey, whenUnsatisfiable}"),
                              GoQuote("{" + key + ", " + action + "}")));
        break;
      }
    }
    if (std::optional<int64_t> min_domains = IntField(c, "minDomains")) {
      if (*min_domains <= 0) {
        errs->push_back(config::Invalid(p.Child("minDomains"),
                                        GoValue(*min_domains),
                                        "must be greater than zero"));
      }
      if (action != "DoNotSchedule") {
        errs->push_back(config::Invalid(
            p.Child("minDomains"), GoValue(*min_domains),
            "can only use minDomains if whenUnsatisfiable=DoNotSchedule, "
            "not " +
                action));
      }
    }
    for (std::string_view policy_field :
         {"nodeAffinityPolicy", "nodeTaintsPolicy"}) {
      if (Field(c, policy_field) == nullptr) continue;
      std::string policy = StringField(c, policy_field);
      if (policy != "Honor" && policy != "Ignore") {
        errs->push_back(config::NotSupported(
            p.Child(policy_field), JsonQuote(policy), {"Honor", "Ignore"}));
      }
    }
    std::optional<LabelSelector> selector =
        ReadLabelSelector(ObjectField(c, "labelSelector"));
    if (ctx.is_pod && selector) {
      MergeLabelKeys(c, "matchLabelKeys", "In", ctx.pod_labels, &*selector);
    }
    ValidateMatchLabelKeys(p, c, false, selector, errs);
    if (selector) {
      ValidateLabelSelector(*selector, p.Child("labelSelector"), false, errs);
    }
  }
}

}  // namespace

void ValidateTaintEffect(std::string_view effect, const FieldPath& path,
                         FieldErrors* errs) {
  if (effect != "NoSchedule" && effect != "PreferNoSchedule" &&
      effect != "NoExecute") {
    errs->push_back(
        config::NotSupported(path, JsonQuote(effect),
                             {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
  }
}

void MergeLabelKeys(const Json& term, std::string_view keys_field,
                    std::string_view op, const Json* pod_labels,
                    LabelSelector* selector) {
  if (pod_labels == nullptr) return;
  for (const std::string& key : ScalarList(term, keys_field)) {
    const Json* value = Field(*pod_labels, key);
    if (value == nullptr) continue;
    if (std::optional<std::string> text = ScalarText(*value)) {
      selector->match_expressions.push_back(
          {key, std::string(op), {std::move(*text)}});
    }
  }
}

void ValidateMatchLabelKeys(const FieldPath& path, const Json& term,
                            bool with_mismatch,
                            const std::optional<LabelSelector>& selector,
                            FieldErrors* errs) {
  std::vector<std::string> match = ScalarList(term, "matchLabelKeys");
  std::vector<std::string> mismatch;
  if (with_mismatch) mismatch = ScalarList(term, "mismatchLabelKeys");
  auto validate_keys = [&](const FieldPath& p,
                           const std::vector<std::string>& keys) {
    if (keys.empty()) return;
    if (!selector) {
      errs->push_back(config::Forbidden(
          p, "must not be specified when labelSelector is not set"));
      return;
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      ValidateLabelName(keys[i], p.Index(i), errs);
    }
  };
  validate_keys(path.Child("matchLabelKeys"), match);
  validate_keys(path.Child("mismatchLabelKeys"), mismatch);
  if (selector) {
    // A key of matchLabelKeys the selector already names (after the merge,
    // which appended the key's own expression).
    std::set<std::string> seen;
    for (const auto& [key, value] : selector->match_labels) seen.insert(key);
    for (const SelectorRequirement& r : selector->match_expressions) {
      auto last = std::find(match.rbegin(), match.rend(), r.key);
      if (last != match.rend() && seen.count(r.key) > 0) {
        size_t index = static_cast<size_t>(match.rend() - last) - 1;
        errs->push_back(config::Invalid(path.Index(index), GoQuote(r.key),
                                        "exists in both matchLabelKeys and "
                                        "labelSelector"));
      }
      seen.insert(r.key);
    }
  }
  for (size_t i = 0; i < match.size(); ++i) {
    if (std::find(mismatch.begin(), mismatch.end(), match[i]) !=
        mismatch.end()) {
      errs->push_back(config::Invalid(
          path.Child("matchLabelKeys").Index(i), GoQuote(match[i]),
          "exists in both matchLabelKeys and mismatchLabelKeys"));
    }
  }
}

void ValidatePodSpec(const Json& spec, const FieldPath& path,
                     const PodSpecContext& ctx, FieldErrors* errs) {
  bool host_network = BoolField(spec, "hostNetwork");
  bool default_host_port = ctx.is_pod && host_network;
  ValidateVolumes(spec, path.Child("volumes"), ctx, errs);
  const std::set<std::string> pod_claim_names = PodClaimNames(spec);
  ValidatePodResourceClaims(spec, path.Child("resourceClaims"), ctx, errs);

  const Json* container_list = ArrayField(spec, "containers");
  std::vector<Container> containers =
      ReadContainers(container_list, ctx.is_pod);
  std::vector<Container> init_containers =
      ReadContainers(ArrayField(spec, "initContainers"), ctx.is_pod);

  // validateContainers.
  FieldPath containers_path = path.Child("containers");
  std::set<std::string> names;
  if (container_list == nullptr || container_list->Empty()) {
    errs->push_back(config::Required(containers_path, ""));
  } else {
    std::vector<std::pair<size_t, const Container*>> all;
    for (const Container& c : containers) {
      FieldPath p = containers_path.Index(c.index);
      ValidateContainerCommon(c, p, default_host_port, pod_claim_names, errs);
      if (!names.insert(c.name).second) {
        errs->push_back(config::Duplicate(p.Child("name"), GoQuote(c.name)));
      }
      ValidateContainerRestartPolicy(*c.obj, p, errs);
      all.emplace_back(c.index, &c);
    }
    CheckHostPortConflicts(all, containers_path, default_host_port, errs);
  }

  // validateInitContainers: names unique across both lists; each init
  // container's host ports checked alone, as they run one at a time.
  FieldPath init_path = path.Child("initContainers");
  for (const Container& c : init_containers) {
    FieldPath p = init_path.Index(c.index);
    ValidateContainerCommon(c, p, default_host_port, pod_claim_names, errs);
    ValidateContainerRestartPolicy(*c.obj, p, errs);
    if (names.count(c.name) > 0) {
      errs->push_back(config::Duplicate(p.Child("name"), GoQuote(c.name)));
    } else if (!c.name.empty()) {
      names.insert(c.name);
    }
    CheckHostPortConflicts({{0, &c}}, init_path, default_host_port, errs);
  }

  ValidatePodLevelResources(spec, path, containers, init_containers, ctx.is_pod,
                            pod_claim_names, errs);

  // validatePodHostNetworkDeps. A template may leave the host port unset
  // (the pod's defaulting fills it in).
  if (host_network) {
    for (const Container& c : containers) {
      const Json* ports = ArrayField(*c.obj, "ports");
      if (ports == nullptr) continue;
      for (size_t i = 0; i < ports->Size(); ++i) {
        const Json& port = (*ports)[static_cast<rapidjson::SizeType>(i)];
        if (!port.IsObject()) continue;
        Port p = ReadPort(port, default_host_port);
        int64_t cp = p.container_port.value_or(0);
        if ((ctx.is_pod || p.host_port != 0) && p.host_port != cp) {
          errs->push_back(config::Invalid(
              containers_path.Index(c.index).Child("ports").Index(i).Child(
                  "hostPort"),
              GoValue(p.host_port),
              "must match `containerPort` when `hostNetwork` is true"));
        }
      }
    }
  }

  // restartPolicy defaults to Always.
  if (std::string policy = StringField(spec, "restartPolicy");
      !policy.empty() && policy != "Always" && policy != "OnFailure" &&
      policy != "Never") {
    errs->push_back(config::NotSupported(path.Child("restartPolicy"),
                                         JsonQuote(policy),
                                         {"Always", "OnFailure", "Never"}));
  }

  ValidateLabels(ObjectField(spec, "nodeSelector"), path.Child("nodeSelector"),
                 errs);
  if (const Json* affinity = ObjectField(spec, "affinity")) {
    ValidateAffinity(*affinity, path.Child("affinity"), ctx, errs);
  }
  if (const Json* gates = ArrayField(spec, "schedulingGates")) {
    ValidateSchedulingGates(*gates, path.Child("schedulingGates"), errs);
  }
  if (const Json* tsc = ArrayField(spec, "topologySpreadConstraints")) {
    ValidateTopologySpreadConstraints(
        *tsc, path.Child("topologySpreadConstraints"), ctx, errs);
  }
  if (std::string node_name = StringField(spec, "nodeName");
      !node_name.empty()) {
    for (const std::string& msg : config::Dns1123SubdomainErrors(node_name)) {
      errs->push_back(
          config::Invalid(path.Child("nodeName"), GoQuote(node_name), msg));
    }
  }
  if (const Json* tolerations = ArrayField(spec, "tolerations")) {
    ValidateTolerations(*tolerations, path.Child("tolerations"), errs);
  }
  if (std::string pc = StringField(spec, "priorityClassName"); !pc.empty()) {
    for (const std::string& msg : config::Dns1123SubdomainErrors(pc)) {
      errs->push_back(
          config::Invalid(path.Child("priorityClassName"), GoQuote(pc), msg));
    }
  }
  if (Field(spec, "preemptionPolicy") != nullptr) {
    std::string policy = StringField(spec, "preemptionPolicy");
    if (policy.empty()) {
      errs->push_back(config::Required(path.Child("preemptionPolicy"), ""));
    } else if (policy != "PreemptLowerPriority" && policy != "Never") {
      errs->push_back(config::NotSupported(path.Child("preemptionPolicy"),
                                           JsonQuote(policy),
                                           {"PreemptLowerPriority", "Never"}));
    }
  }
  if (const Json* overhead = ObjectField(spec, "overhead")) {
    // validateOverhead reuses the container rules with the overhead as
    // limits, hence "spec.overhead.limits[cpu]".
    ValidateResourceRequirements(ReadResourceList(overhead), {},
                                 ResourceNameRule::kContainer,
                                 path.Child("overhead"), errs);
  }
}

void ValidatePodTemplateSpec(const Json& tmpl, const FieldPath& path,
                             const PodSpecContext& ctx, FieldErrors* errs) {
  static const Json kEmpty(rapidjson::kObjectType);
  const Json* meta = ObjectField(tmpl, "metadata");
  if (meta == nullptr) meta = &kEmpty;
  ValidateLabels(ObjectField(*meta, "labels"), path.Child("labels"), errs);
  ValidateAnnotations(ObjectField(*meta, "annotations"),
                      path.Child("annotations"), errs);
  const Json* spec = ObjectField(tmpl, "spec");
  if (spec == nullptr) spec = &kEmpty;
  ValidatePodSpec(*spec, path.Child("spec"), ctx, errs);
  if (ArrayField(*spec, "ephemeralContainers") != nullptr &&
      !ArrayField(*spec, "ephemeralContainers")->Empty()) {
    errs->push_back(
        config::Forbidden(path.Child("spec").Child("ephemeralContainers"),
                          "ephemeral containers not allowed in pod template"));
  }
}

}  // namespace internal

FieldErrors ValidatePod(const rapidjson::Value& pod) {
  using namespace internal;
  FieldErrors errs;
  if (!pod.IsObject()) return errs;
  ValidateObjectMeta(pod, NameRule::kDnsSubdomain, true, &errs);
  static const Json kEmpty(rapidjson::kObjectType);
  const Json* spec = ObjectField(pod, "spec");
  if (spec == nullptr) spec = &kEmpty;
  PodSpecContext ctx;
  ctx.is_pod = true;
  if (const Json* meta = ObjectField(pod, "metadata")) {
    ctx.pod_labels = ObjectField(*meta, "labels");
    ctx.pod_annotations = ObjectField(*meta, "annotations");
  }
  FieldPath spec_path("spec");
  ValidatePodSpec(*spec, spec_path, ctx, &errs);
  // ValidatePodCreate.
  if (const Json* ephemeral = ArrayField(*spec, "ephemeralContainers");
      ephemeral != nullptr && !ephemeral->Empty()) {
    errs.push_back(config::Forbidden(spec_path.Child("ephemeralContainers"),
                                     "cannot be set on create"));
  }
  const Json* gates = ArrayField(*spec, "schedulingGates");
  if (!StringField(*spec, "nodeName").empty() && gates != nullptr &&
      !gates->Empty()) {
    errs.push_back(config::Forbidden(
        spec_path.Child("nodeName"),
        "cannot be set until all schedulingGates have been cleared"));
  }
  return errs;
}

}  // namespace ksched::validation

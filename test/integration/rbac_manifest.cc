#include "test/integration/rbac_manifest.h"

#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <utility>

namespace ksched::testing {

namespace {

constexpr char kRbacGroup[] = "rbac.authorization.k8s.io";

using util::Error;
using util::Result;

// What the manifest says about one object, for error messages.
std::string Describe(const std::string& kind, const std::string& ns,
                     const std::string& name) {
  return kind + " \"" + (ns.empty() ? name : ns + "/" + name) + "\"";
}

// A string field; "" when absent or null.
Result<std::string> StringField(const YAML::Node& map, const char* key,
                                const std::string& where) {
  const YAML::Node node = map[key];
  if (!node.IsDefined() || node.IsNull()) return std::string();
  if (!node.IsScalar()) {
    return Error(where + ": " + key + " is not a string");
  }
  return node.Scalar();
}

// A list of strings; empty when absent or null.
Result<std::vector<std::string>> StringList(const YAML::Node& map,
                                            const char* key,
                                            const std::string& where) {
  std::vector<std::string> out;
  const YAML::Node node = map[key];
  if (!node.IsDefined() || node.IsNull()) return out;
  if (!node.IsSequence()) {
    return Error(where + ": " + key + " is not a list");
  }
  for (const YAML::Node& item : node) {
    if (item.IsNull()) {
      out.emplace_back();  // as JSON decoding reads a null string
    } else if (item.IsScalar()) {
      out.push_back(item.Scalar());
    } else {
      return Error(where + ": " + key + " holds something not a string");
    }
  }
  return out;
}

Result<std::vector<RbacRule>> Rules(const YAML::Node& role,
                                    const std::string& where) {
  std::vector<RbacRule> out;
  const YAML::Node rules = role["rules"];
  if (!rules.IsDefined() || rules.IsNull()) return out;
  if (!rules.IsSequence()) return Error(where + ": rules is not a list");
  for (const YAML::Node& r : rules) {
    if (!r.IsMap()) return Error(where + ": a rule is not a map");
    RbacRule rule;
    for (auto [key, field] :
         {std::pair{"apiGroups", &rule.api_groups},
          std::pair{"resources", &rule.resources},
          std::pair{"verbs", &rule.verbs},
          std::pair{"resourceNames", &rule.resource_names},
          std::pair{"nonResourceURLs", &rule.non_resource_urls}}) {
      Result<std::vector<std::string>> list = StringList(r, key, where);
      if (!list.ok()) return list.error();
      *field = std::move(*list);
    }
    // A rule grants resources or non-resource URLs (answered in
    // SubjectAccessReviews); one with neither grants nothing.
    if (rule.resources.empty() && rule.non_resource_urls.empty()) continue;
    out.push_back(std::move(rule));
  }
  return out;
}

struct Subject {
  std::string kind, name, ns;
};

struct Binding {
  std::string kind;  // "ClusterRoleBinding" or "RoleBinding"
  std::string name, ns;
  std::string role_kind, role_name;
  std::vector<Subject> subjects;
};

// Whether `subject` of a binding in `binding_ns` ("" for a
// ClusterRoleBinding) names the service account, as the RBAC authorizer's
// appliesToUser decides for a service account's user and groups.
bool NamesAccount(const Subject& subject, const std::string& binding_ns,
                  const std::string& sa_namespace, const std::string& sa_name) {
  if (subject.kind == "ServiceAccount") {
    const std::string& ns = subject.ns.empty() ? binding_ns : subject.ns;
    return !ns.empty() && ns == sa_namespace && subject.name == sa_name;
  }
  if (subject.kind == "User") {
    return subject.name ==
           "system:serviceaccount:" + sa_namespace + ":" + sa_name;
  }
  if (subject.kind == "Group") {
    return subject.name == "system:serviceaccounts" ||
           subject.name == "system:serviceaccounts:" + sa_namespace ||
           subject.name == "system:authenticated";
  }
  return false;
}

// Everything RBAC in the manifest, by kind.
struct Manifest {
  std::map<std::string, std::vector<RbacRule>> cluster_roles;
  std::map<std::pair<std::string, std::string>, std::vector<RbacRule>> roles;
  std::vector<Binding> bindings;

  Result<void> Add(const YAML::Node& doc);

 private:
  Result<void> AddBinding(const YAML::Node& doc, const std::string& kind,
                          const std::string& ns, const std::string& name);
};

Result<void> Manifest::Add(const YAML::Node& doc) {
  // `helm template` separates templates with documents that hold only a
  // comment; those load as null.
  if (!doc.IsDefined() || doc.IsNull()) return {};
  if (!doc.IsMap()) return Error("a document is not a map");
  Result<std::string> kind = StringField(doc, "kind", "a document");
  if (!kind.ok()) return kind.error();
  Result<std::string> api_version =
      StringField(doc, "apiVersion", "a document");
  if (!api_version.ok()) return api_version.error();
  if (*kind == "List" && *api_version == "v1") {
    const YAML::Node items = doc["items"];
    if (!items.IsDefined() || items.IsNull()) return {};
    if (!items.IsSequence()) return Error("a List's items is not a list");
    for (const YAML::Node& item : items) {
      if (Result<void> r = Add(item); !r.ok()) return r;
    }
    return {};
  }
  // Any version of the RBAC group: the rules and bindings read the same.
  if (!api_version->starts_with(std::string(kRbacGroup) + "/")) return {};
  const YAML::Node metadata = doc["metadata"];
  if (!metadata.IsMap()) return Error(*kind + " without metadata");
  Result<std::string> name = StringField(metadata, "name", *kind);
  if (!name.ok()) return name.error();
  Result<std::string> ns = StringField(metadata, "namespace", *kind);
  if (!ns.ok()) return ns.error();
  const std::string where = Describe(*kind, *ns, *name);
  const bool namespaced = *kind == "Role" || *kind == "RoleBinding";
  // Which namespace it lands in would depend on how it is applied (helm's
  // release namespace, kubectl's context).
  if (namespaced && ns->empty()) {
    return Error(where + " has no metadata.namespace");
  }
  if (*kind == "ClusterRole") {
    // Its rules are what the aggregation controller copies in from other
    // ClusterRoles, possibly ones the cluster already has.
    if (doc["aggregationRule"].IsDefined() &&
        !doc["aggregationRule"].IsNull()) {
      return Error(where +
                   " is aggregated (aggregationRule), which is not "
                   "supported");
    }
    Result<std::vector<RbacRule>> rules = Rules(doc, where);
    if (!rules.ok()) return rules.error();
    if (!cluster_roles.emplace(*name, std::move(*rules)).second) {
      return Error(where + " is defined twice");
    }
  } else if (*kind == "Role") {
    Result<std::vector<RbacRule>> rules = Rules(doc, where);
    if (!rules.ok()) return rules.error();
    if (!roles.emplace(std::pair{*ns, *name}, std::move(*rules)).second) {
      return Error(where + " is defined twice");
    }
  } else if (*kind == "ClusterRoleBinding" || *kind == "RoleBinding") {
    return AddBinding(doc, *kind, *kind == "RoleBinding" ? *ns : "", *name);
  }
  return {};
}

Result<void> Manifest::AddBinding(const YAML::Node& doc,
                                  const std::string& kind,
                                  const std::string& ns,
                                  const std::string& name) {
  const std::string where = Describe(kind, ns, name);
  Binding b{.kind = kind, .name = name, .ns = ns};
  const YAML::Node role_ref = doc["roleRef"];
  if (!role_ref.IsMap()) return Error(where + " has no roleRef");
  Result<std::string> role_group = StringField(role_ref, "apiGroup", where);
  Result<std::string> role_kind = StringField(role_ref, "kind", where);
  Result<std::string> role_name = StringField(role_ref, "name", where);
  for (const Result<std::string>* r : {&role_group, &role_kind, &role_name}) {
    if (!r->ok()) return r->error();
  }
  const bool kind_ok = *role_kind == "ClusterRole" ||
                       (kind == "RoleBinding" && *role_kind == "Role");
  if (*role_group != kRbacGroup || !kind_ok || role_name->empty()) {
    return Error(where + ": roleRef must name a ClusterRole" +
                 (kind == "RoleBinding" ? " or Role" : "") + " of " +
                 kRbacGroup);
  }
  b.role_kind = *role_kind;
  b.role_name = *role_name;
  const YAML::Node subjects = doc["subjects"];
  if (subjects.IsDefined() && !subjects.IsNull()) {
    if (!subjects.IsSequence()) return Error(where + ": subjects not a list");
    for (const YAML::Node& s : subjects) {
      if (!s.IsMap()) return Error(where + ": a subject is not a map");
      Subject subject;
      for (auto [key, field] :
           {std::pair{"kind", &subject.kind}, std::pair{"name", &subject.name},
            std::pair{"namespace", &subject.ns}}) {
        Result<std::string> value = StringField(s, key, where);
        if (!value.ok()) return value.error();
        *field = std::move(*value);
      }
      b.subjects.push_back(std::move(subject));
    }
  }
  bindings.push_back(std::move(b));
  return {};
}

}  // namespace

Result<RbacPolicy> RbacPolicyFor(const std::string& manifest_path,
                                 const std::string& sa_namespace,
                                 const std::string& sa_name) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAllFromFile(manifest_path);
  } catch (const YAML::Exception& e) {
    // BadFile (unreadable) as well as parse errors.
    return Error(manifest_path + ": " + e.what());
  }
  Manifest manifest;
  for (const YAML::Node& doc : docs) {
    if (Result<void> r = manifest.Add(doc); !r.ok()) {
      return r.error().Wrap(manifest_path);
    }
  }
  RbacPolicy policy;
  for (const Binding& b : manifest.bindings) {
    bool applies = false;
    for (const Subject& s : b.subjects) {
      applies = applies || NamesAccount(s, b.ns, sa_namespace, sa_name);
    }
    if (!applies) continue;
    const std::vector<RbacRule>* rules = nullptr;
    if (b.role_kind == "ClusterRole") {
      auto it = manifest.cluster_roles.find(b.role_name);
      if (it != manifest.cluster_roles.end()) rules = &it->second;
    } else {
      auto it = manifest.roles.find({b.ns, b.role_name});
      if (it != manifest.roles.end()) rules = &it->second;
    }
    if (rules == nullptr) {
      return Error(manifest_path + ": " + Describe(b.kind, b.ns, b.name) +
                   " binds " + Describe(b.role_kind, b.ns, b.role_name) +
                   ", which is not in the manifest");
    }
    std::vector<RbacRule>& into =
        b.ns.empty() ? policy.cluster : policy.by_namespace[b.ns];
    into.insert(into.end(), rules->begin(), rules->end());
  }
  return policy;
}

std::set<RbacGrant> GrantedTriples(const RbacPolicy& policy) {
  std::set<RbacGrant> out;
  auto add = [&out](const std::vector<RbacRule>& rules) {
    for (const RbacRule& rule : rules) {
      for (const std::string& group : rule.api_groups) {
        for (const std::string& resource : rule.resources) {
          for (const std::string& verb : rule.verbs) {
            out.insert(RbacGrant{group, resource, verb});
          }
        }
      }
    }
  };
  add(policy.cluster);
  for (const auto& [ns, rules] : policy.by_namespace) add(rules);
  return out;
}

std::set<RbacGrant> AccessedTriples(
    const std::vector<TestApiServer::Access>& accesses) {
  std::set<RbacGrant> out;
  for (const TestApiServer::Access& a : accesses) {
    out.insert(RbacGrant{a.group, a.resource, a.verb});
  }
  return out;
}

const std::set<RbacGrant>& GrantedAheadOfUse() {
  static const auto* const kAhead = new std::set<RbacGrant>{
      {"resource.k8s.io", "resourceclaims", "create"},
      {"resource.k8s.io", "resourceclaims", "delete"},
  };
  return *kAhead;
}

}  // namespace ksched::testing

// RbacPolicyFor against manifests shaped like `helm template` output, and
// the policy it reads enforced by the test API server.
#include "test/integration/rbac_manifest.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <string>

#include "test/apiserver/https_test_client.h"

namespace ksched::testing {

// For readable failures; found by argument-dependent lookup.
void PrintTo(const RbacRule& r, std::ostream* os) {
  auto list = [os](const std::vector<std::string>& v) {
    *os << "[";
    for (size_t i = 0; i < v.size(); ++i) *os << (i ? "," : "") << v[i];
    *os << "]";
  };
  *os << "{groups=";
  list(r.api_groups);
  *os << " resources=";
  list(r.resources);
  *os << " verbs=";
  list(r.verbs);
  *os << " names=";
  list(r.resource_names);
  *os << "}";
}
void PrintTo(const RbacPolicy& p, std::ostream* os) {
  *os << "cluster:";
  for (const RbacRule& r : p.cluster) PrintTo(r, os);
  for (const auto& [ns, rules] : p.by_namespace) {
    *os << " " << ns << ":";
    for (const RbacRule& r : rules) PrintTo(r, os);
  }
}
void PrintTo(const RbacGrant& g, std::ostream* os) {
  *os << "{" << g.group << " " << g.resource << " " << g.verb << "}";
}

namespace {

// As `helm template` renders the chart: comment-only documents between
// templates, objects that are not RBAC, and bindings for other accounts.
constexpr char kChart[] = R"(---
# Source: ksched/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ksched
  namespace: kube-system
---
# Source: ksched/templates/rbac.yaml
# What ksched's API calls need.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ksched
  labels:
    app.kubernetes.io/name: ksched
rules:
  - apiGroups: [""]
    resources: ["pods"]
    verbs: ["list", "watch", "delete"]
  - apiGroups: [""]
    resources: ["pods/binding"]
    verbs: ["create"]
  - apiGroups: [""]
    resources: ["nodes", "namespaces"]
    verbs: ["list", "watch"]
  - nonResourceURLs: ["/metrics"]
    verbs: ["get"]
---
# Source: ksched/templates/rbac.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ksched
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ksched
subjects:
  - kind: ServiceAccount
    name: ksched
    namespace: kube-system
---
# Source: ksched/templates/rbac.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ksched-leader-election
  namespace: kube-system
rules:
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["create"]
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    resourceNames: ["ksched"]
    verbs: ["get", "update"]
---
# Source: ksched/templates/rbac.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ksched-leader-election
  namespace: kube-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ksched-leader-election
subjects:
  - kind: ServiceAccount
    name: ksched
    namespace: kube-system
---
# Source: ksched/templates/other.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: someone-else
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
  - kind: ServiceAccount
    name: ksched
    namespace: default
---
# Source: ksched/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ksched
  namespace: kube-system
spec:
  replicas: 1
---
)";

class RbacManifestTest : public ::testing::Test {
 protected:
  // Writes `yaml` to a file of its own and returns its path.
  std::string Write(const std::string& yaml) {
    const std::string path =
        (std::filesystem::temp_directory_path() /
         ("rbac_manifest_test_" + std::to_string(::getpid()) + "_" +
          std::to_string(files_.size()) + ".yaml"))
            .string();
    std::ofstream(path) << yaml;
    files_.push_back(path);
    return path;
  }
  void TearDown() override {
    for (const std::string& f : files_) std::filesystem::remove(f);
  }
  RbacPolicy PolicyOrDie(const std::string& yaml, const std::string& ns,
                         const std::string& name) {
    util::Result<RbacPolicy> policy = RbacPolicyFor(Write(yaml), ns, name);
    EXPECT_TRUE(policy.ok()) << policy.error().message();
    return policy.ok() ? *policy : RbacPolicy{};
  }
  // The error RbacPolicyFor gives (fails the test if there is none).
  std::string ErrorFor(const std::string& yaml, const std::string& ns = "ns",
                       const std::string& name = "sa") {
    util::Result<RbacPolicy> policy = RbacPolicyFor(Write(yaml), ns, name);
    EXPECT_FALSE(policy.ok());
    return policy.ok() ? "" : policy.error().message();
  }

  std::vector<std::string> files_;
};

// A ClusterRole "reader" and a Role "ns/writer", then `bindings`.
std::string RolesAnd(const std::string& bindings) {
  return R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules:
  - {apiGroups: [""], resources: [nodes], verbs: [list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: writer, namespace: ns}
rules:
  - {apiGroups: [""], resources: [configmaps], verbs: [create]}
---
)" + bindings;
}

std::string Binding(const std::string& kind, const std::string& ns,
                    const std::string& role_kind, const std::string& role,
                    const std::string& subject) {
  return "apiVersion: rbac.authorization.k8s.io/v1\nkind: " + kind +
         "\nmetadata: {name: b" +
         (ns.empty() ? std::string() : ", namespace: " + ns) +
         "}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: " +
         role_kind + ", name: " + role + "}\nsubjects:\n  - " + subject + "\n";
}

const RbacRule kReader{
    .api_groups = {""}, .resources = {"nodes"}, .verbs = {"list"}};
const RbacRule kWriter{
    .api_groups = {""}, .resources = {"configmaps"}, .verbs = {"create"}};

TEST_F(RbacManifestTest, ReadsWhatTheChartGrantsTheAccount) {
  const RbacPolicy policy = PolicyOrDie(kChart, "kube-system", "ksched");
  const std::vector<RbacRule> cluster = {
      {.api_groups = {""},
       .resources = {"pods"},
       .verbs = {"list", "watch", "delete"}},
      {.api_groups = {""}, .resources = {"pods/binding"}, .verbs = {"create"}},
      {.api_groups = {""},
       .resources = {"nodes", "namespaces"},
       .verbs = {"list", "watch"}},
      {.verbs = {"get"}, .non_resource_urls = {"/metrics"}},
  };
  EXPECT_EQ(policy.cluster, cluster);
  const std::vector<RbacRule> leader_election = {
      {.api_groups = {"coordination.k8s.io"},
       .resources = {"leases"},
       .verbs = {"create"}},
      {.api_groups = {"coordination.k8s.io"},
       .resources = {"leases"},
       .verbs = {"get", "update"},
       .resource_names = {"ksched"}},
  };
  ASSERT_EQ(policy.by_namespace.size(), 1u);
  EXPECT_EQ(policy.by_namespace.at("kube-system"), leader_election);
  // The account of the same name elsewhere has only the cluster-admin
  // binding, to a role the manifest does not hold.
  EXPECT_NE(ErrorFor(kChart, "default", "ksched")
                .find("ClusterRoleBinding \"someone-else\" binds ClusterRole "
                      "\"cluster-admin\", which is not in the manifest"),
            std::string::npos);
  // And another account gets nothing.
  EXPECT_EQ(PolicyOrDie(kChart, "kube-system", "other"), RbacPolicy{});
}

TEST_F(RbacManifestTest, BindingsApplyToTheSubjectsRbacMatches) {
  struct Case {
    std::string subject;
    bool applies;
  };
  // RoleBinding subjects, for account ns/sa.
  for (const Case& c : std::vector<Case>{
           {"{kind: ServiceAccount, name: sa, namespace: ns}", true},
           {"{kind: ServiceAccount, name: sa}", true},  // the binding's ns
           {"{kind: ServiceAccount, name: sa, namespace: other}", false},
           {"{kind: ServiceAccount, name: sa2, namespace: ns}", false},
           {"{kind: User, name: \"system:serviceaccount:ns:sa\"}", true},
           {"{kind: User, name: sa}", false},
           {"{kind: Group, name: \"system:serviceaccounts\"}", true},
           {"{kind: Group, name: \"system:serviceaccounts:ns\"}", true},
           {"{kind: Group, name: \"system:serviceaccounts:other\"}", false},
           {"{kind: Group, name: \"system:authenticated\"}", true},
       }) {
    SCOPED_TRACE(c.subject);
    const RbacPolicy policy = PolicyOrDie(
        RolesAnd(Binding("RoleBinding", "ns", "Role", "writer", c.subject)),
        "ns", "sa");
    const RbacPolicy want =
        c.applies ? RbacPolicy{.by_namespace = {{"ns", {kWriter}}}}
                  : RbacPolicy{};
    EXPECT_EQ(policy, want);
  }
  // A ClusterRoleBinding has no namespace to lend its subjects.
  EXPECT_EQ(PolicyOrDie(
                RolesAnd(Binding("ClusterRoleBinding", "", "ClusterRole",
                                 "reader", "{kind: ServiceAccount, name: sa}")),
                "ns", "sa"),
            RbacPolicy{});
  EXPECT_EQ(PolicyOrDie(RolesAnd(Binding(
                            "ClusterRoleBinding", "", "ClusterRole", "reader",
                            "{kind: ServiceAccount, name: sa, namespace: ns}")),
                        "ns", "sa"),
            (RbacPolicy{.cluster = {kReader}}));
}

TEST_F(RbacManifestTest, ARoleBindingGrantsAClusterRoleInItsNamespaceOnly) {
  const RbacPolicy policy = PolicyOrDie(
      RolesAnd(Binding("RoleBinding", "elsewhere", "ClusterRole", "reader",
                       "{kind: ServiceAccount, name: sa, namespace: ns}")),
      "ns", "sa");
  EXPECT_EQ(policy, (RbacPolicy{.by_namespace = {{"elsewhere", {kReader}}}}));
}

TEST_F(RbacManifestTest, Errors) {
  EXPECT_NE(RbacPolicyFor("/nonexistent/manifest.yaml", "ns", "sa")
                .error()
                .message()
                .find("/nonexistent/manifest.yaml"),
            std::string::npos);
  EXPECT_FALSE(ErrorFor("kind: [unclosed\n").empty());
  const std::string sa = "{kind: ServiceAccount, name: sa, namespace: ns}";
  EXPECT_NE(
      ErrorFor(RolesAnd(Binding("RoleBinding", "ns", "Role", "missing", sa)))
          .find("RoleBinding \"ns/b\" binds Role \"ns/missing\", which "
                "is not in the manifest"),
      std::string::npos);
  // A Role of the same name in another namespace is not it.
  EXPECT_NE(
      ErrorFor(RolesAnd(Binding("RoleBinding", "other", "Role", "writer", sa)))
          .find("binds Role \"other/writer\""),
      std::string::npos);
  // Bindings of other accounts to roles elsewhere are none of its business.
  PolicyOrDie(RolesAnd(Binding("RoleBinding", "ns", "Role", "missing",
                               "{kind: ServiceAccount, name: x}")),
              "ns", "sa");
  EXPECT_NE(ErrorFor(RolesAnd(Binding("RoleBinding", "", "Role", "writer", sa)))
                .find("RoleBinding \"b\" has no metadata.namespace"),
            std::string::npos);
  EXPECT_NE(ErrorFor(RolesAnd(Binding("ClusterRoleBinding", "", "Role",
                                      "writer", sa)))
                .find("roleRef must name a ClusterRole of"),
            std::string::npos);
  EXPECT_NE(ErrorFor(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: agg}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {x: y}}]
rules: []
)")
                .find("aggregated"),
            std::string::npos);
  EXPECT_NE(ErrorFor(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r}
rules:
  - {apiGroups: "", resources: [pods], verbs: [get]}
)")
                .find("apiGroups is not a list"),
            std::string::npos);
}

TEST_F(RbacManifestTest, GrantedAndAccessedTriples) {
  const RbacPolicy policy = PolicyOrDie(kChart, "kube-system", "ksched");
  const std::set<RbacGrant> want = {
      {"", "namespaces", "list"},
      {"", "namespaces", "watch"},
      {"", "nodes", "list"},
      {"", "nodes", "watch"},
      {"", "pods", "delete"},
      {"", "pods", "list"},
      {"", "pods", "watch"},
      {"", "pods/binding", "create"},
      {"coordination.k8s.io", "leases", "create"},
      {"coordination.k8s.io", "leases", "get"},
      {"coordination.k8s.io", "leases", "update"},
  };
  EXPECT_EQ(GrantedTriples(policy), want);
  EXPECT_EQ(
      AccessedTriples({{"get", "coordination.k8s.io", "leases", "kube-system",
                        "ksched", true},
                       {"get", "coordination.k8s.io", "leases", "kube-system",
                        "other", false},
                       {"create", "", "pods/binding", "default", "p", true}}),
      (std::set<RbacGrant>{{"", "pods/binding", "create"},
                           {"coordination.k8s.io", "leases", "get"}}));
}

// The policy read from the chart, enforced: the leader-election lease by
// its name only, and nothing the chart does not grant.
TEST_F(RbacManifestTest, TheServerEnforcesTheChartsPolicy) {
  std::unique_ptr<TestApiServer> server = TestApiServer::Start();
  ASSERT_NE(server, nullptr);
  const std::string leases =
      "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
  for (const char* name : {"ksched", "other"}) {
    ASSERT_EQ(server
                  ->Create(leases, std::string(R"({"metadata":{"name":")") +
                                       name + R"("},"spec":{}})")
                  .code,
              201);
  }
  server->SetRbac(PolicyOrDie(kChart, "kube-system", "ksched"));
  auto code = [&](const std::string& method, const std::string& target) {
    RequestOptions request;
    request.method = method;
    request.target = target;
    request.token = server->token();
    return Fetch(server->port(), server->ca_pem(), request).code;
  };
  EXPECT_EQ(code("GET", leases + "/ksched"), 200);
  EXPECT_EQ(code("GET", leases + "/other"), 403);
  EXPECT_EQ(code("GET", "/api/v1/nodes?watch=false"), 200);
  EXPECT_EQ(code("GET", "/api/v1/namespaces/default/pods/p"), 403);
  const std::set<RbacGrant> granted =
      GrantedTriples(PolicyOrDie(kChart, "kube-system", "ksched"));
  std::set<RbacGrant> used;
  for (const TestApiServer::Access& a : server->Accesses()) {
    if (a.allowed) used.insert({a.group, a.resource, a.verb});
  }
  EXPECT_EQ(used,
            (std::set<RbacGrant>{{"", "nodes", "list"},
                                 {"coordination.k8s.io", "leases", "get"}}));
  for (const RbacGrant& g : used) EXPECT_EQ(granted.count(g), 1u);
  EXPECT_EQ(AccessedTriples(server->Accesses()),
            (std::set<RbacGrant>{{"", "nodes", "list"},
                                 {"", "pods", "get"},
                                 {"coordination.k8s.io", "leases", "get"}}));
}

}  // namespace
}  // namespace ksched::testing

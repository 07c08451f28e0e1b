// The RBAC permissions a manifest (such as `helm template` output) gives a
// service account, as the test API server enforces them, so that
// integration tests run ksched with exactly what its chart grants.
#pragma once

#include <compare>
#include <set>
#include <string>
#include <vector>

#include "pkg/util/result.h"
#include "test/apiserver/test_api_server.h"

namespace ksched::testing {

// The permissions `manifest_path` (a multi-document YAML file) grants
// service account `sa_namespace`/`sa_name`: the rules of every ClusterRole
// bound to it by a ClusterRoleBinding (cluster-wide), and of every Role or
// ClusterRole bound to it by a RoleBinding (in the RoleBinding's
// namespace). A binding applies to the account when a subject names it as
// the RBAC authorizer matches subjects: kind ServiceAccount (its namespace
// defaulting to a RoleBinding's own), or the User
// "system:serviceaccount:<ns>:<name>", or one of the Groups every service
// account is in. Errors: an unreadable file or invalid YAML, a binding to
// a role the file does not hold, a namespaced object without a namespace,
// an aggregated ClusterRole (its rules are filled in by a controller).
// Non-resource rules are kept: the test server answers
// SubjectAccessReviews for them.
util::Result<RbacPolicy> RbacPolicyFor(const std::string& manifest_path,
                                       const std::string& sa_namespace,
                                       const std::string& sa_name);

// One permission, without namespace or object names: {"coordination.k8s.io",
// "leases", "get"}; wildcards ("*", "*/status") stay as they are.
struct RbacGrant {
  std::string group, resource, verb;
  friend auto operator<=>(const RbacGrant&, const RbacGrant&) = default;
};

// Every (group, resource, verb) a policy's rules name, the product of
// each rule's lists, whatever its resourceNames and namespace.
std::set<RbacGrant> GrantedTriples(const RbacPolicy& policy);

// The same triples for what was asked (allowed or not), for comparison
// with GrantedTriples: TestApiServer::Accesses() after a run.
std::set<RbacGrant> AccessedTriples(
    const std::vector<TestApiServer::Access>& accesses);

// What the chart grants for a feature ksched does not build yet, so that
// no run of ksched uses it: create and delete of ResourceClaims, the
// special claims of extended resources backed by DRA (DRAExtendedResource),
// which kube-scheduler v1.36 creates in PreBind and deletes in Unreserve,
// granted as its system:kube-scheduler role grants them. The tests that
// hold "granted == used" allow these and nothing else to go unused; once
// ksched makes the calls they leave this set.
const std::set<RbacGrant>& GrantedAheadOfUse();

}  // namespace ksched::testing

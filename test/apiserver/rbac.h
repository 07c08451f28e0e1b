// Authorization as kube-apiserver does it with RBAC: the attributes it
// derives from a request (k8s.io/apiserver's RequestInfoFactory), the RBAC
// authorizer's rule matching (pkg/apis/rbac/v1/evaluation_helpers.go,
// plugin/pkg/auth/authorizer/rbac), and a record of what was asked.
//
// Attributes come from the path alone, as in the real server, where the
// authorization filter runs before routing: a request for a resource this
// server does not serve is still authorized (and denied) first.
#pragma once

#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "test/apiserver/query.h"
#include "test/apiserver/test_api_server.h"

namespace ksched::testing::apiserver {

// What the authorizers see of a request (RequestInfo).
struct RequestAttributes {
  bool resource_request = false;
  // get, list, watch, create, update, patch, delete, deletecollection
  // (proxy); for a non-resource request the lower-case HTTP method.
  std::string verb;
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string ns;       // "" at the cluster scope
  std::string resource;
  std::string subresource;
  std::string name;
  std::string path;

  // "pods/binding": how RBAC rules name a subresource.
  std::string CombinedResource() const {
    return subresource.empty() ? resource : resource + "/" + subresource;
  }
};

// The attributes of `method` on `path` (decoded, without the query).
RequestAttributes AttributesOf(std::string_view method, std::string_view path,
                               const QueryParams& query);

// Whether a GET of a collection watches: apimachinery decodes a bool query
// parameter as true unless its first value is "0" or "false" (any case),
// so "?watch=yes" and a bare "?watch" watch too.
bool WantsWatch(const QueryParams& query);

// The name a field selector pins exactly (metadata.name=x or ==x), as
// fields.Selector.RequiresExactMatch reads it; nullopt when there is none
// or the selector does not parse.
std::optional<std::string> ExactMetadataName(std::string_view field_selector);

// Why the authorization filter denies `request` of `user` (the RBAC
// authorizer gives no reason of its own): "User \"<user>\" cannot <verb>
// resource \"<resource>[/<subresource>]\" in API group \"<group>\" in the
// namespace \"<ns>\"" (or "at the cluster scope").
std::string DenialReason(const std::string& user,
                         const RequestAttributes& request);

// One rule, or any rule of a policy that applies to the request's
// namespace, allows the request (a non-resource request: a rule of the
// cluster-wide rules whose nonResourceURLs match its path).
bool RuleAllows(const RbacRule& rule, const RequestAttributes& request);
bool PolicyAllows(const RbacPolicy& policy, const RequestAttributes& request);

// The policy a test set and what was asked under it. Thread-safe.
class Rbac {
 public:
  void SetPolicy(RbacPolicy policy);  // and forgets earlier accesses
  void Clear();
  // Whether the (resource) request may go on: always while no policy is
  // set; otherwise the policy decides, and the request is recorded.
  bool Allows(const RequestAttributes& request);
  // What the policy answers, without recording it (a SubjectAccessReview
  // about the token's user): true while no policy is set.
  bool Evaluate(const RequestAttributes& request) const;
  std::vector<TestApiServer::Access> Accesses() const;

 private:
  mutable std::mutex mu_;
  std::optional<RbacPolicy> policy_;
  // A set: ksched repeats the same few requests for the whole test.
  std::set<TestApiServer::Access> accesses_;
};

}  // namespace ksched::testing::apiserver

// Reviewer seam: the API server's TokenReview and SubjectAccessReview, the
// two questions delegated authentication and authorization ask it (as
// kube-scheduler's secure port does through k8s.io/apiserver's delegating
// authenticator and authorizer).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pkg/util/result.h"

namespace ksched::auth {

// authentication.k8s.io/v1 UserInfo.
struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
  friend bool operator==(const UserInfo&, const UserInfo&) = default;
};

// What a request asks to do, as an authorizer sees it: a non-resource
// URL and the lower-case HTTP verb ("get" /metrics), or a resource
// request ("create" pods/binding in a namespace).
struct Attributes {
  std::string verb;
  // Non-resource requests.
  std::string path;
  // Resource requests.
  bool resource_request = false;
  std::string ns;
  std::string group;  // "" for the core group
  std::string resource;
  std::string subresource;
  std::string name;
  friend bool operator==(const Attributes&, const Attributes&) = default;
};

// TokenReview's status.
struct TokenReview {
  bool authenticated = false;
  UserInfo user;
  std::string error;  // why not, when the server says
};

// SubjectAccessReview's status.
struct AccessReview {
  bool allowed = false;
  bool denied = false;
  std::string reason;
  std::string evaluation_error;
};

class Reviewer {
 public:
  virtual ~Reviewer() = default;
  // An error when the API server could not be asked or did not answer.
  virtual util::Result<TokenReview> ReviewToken(const std::string& token) = 0;
  virtual util::Result<AccessReview> ReviewAccess(
      const UserInfo& user, const Attributes& attributes) = 0;
};

}  // namespace ksched::auth

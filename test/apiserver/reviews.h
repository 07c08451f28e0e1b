// TokenReview and SubjectAccessReview as kube-apiserver answers them
// (authentication.k8s.io/v1, authorization.k8s.io/v1): a token is
// authenticated when it is the server's own (the scheduler's service
// account) or one a test registered for another identity; a user's access
// is decided by the RBAC policy the server enforces for its own user, or
// the policy registered with the identity. Both are create-only: the
// answer (201) is the request with its status filled in.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "test/apiserver/rbac.h"
#include "test/apiserver/request.h"
#include "test/apiserver/test_api_server.h"

namespace ksched::testing::apiserver {

constexpr const char* kTokenReviewPath =
    "/apis/authentication.k8s.io/v1/tokenreviews";
constexpr const char* kSubjectAccessReviewPath =
    "/apis/authorization.k8s.io/v1/subjectaccessreviews";

class Reviews {
 public:
  // `own_token` says whether a token is the server's own valid token,
  // which authenticates as `own_user`, authorized by `rbac`.
  Reviews(std::function<bool(const std::string& token)> own_token,
          std::string own_user, const Rbac& rbac)
      : own_token_(std::move(own_token)),
        own_user_(std::move(own_user)),
        rbac_(rbac) {}

  void AddUser(const std::string& token, TestApiServer::ReviewUser user);

  // Whether the request is one of the two reviews (by method and path).
  static bool Handles(const Request& request);
  Response Answer(const Request& request) const;

 private:
  Response TokenReview(const Request& request) const;
  Response SubjectAccessReview(const Request& request) const;

  std::function<bool(const std::string&)> own_token_;
  const std::string own_user_;
  const Rbac& rbac_;
  mutable std::mutex mu_;
  std::map<std::string, TestApiServer::ReviewUser> by_token_;
};

}  // namespace ksched::testing::apiserver

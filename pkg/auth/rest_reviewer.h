// RestReviewer: TokenReview and SubjectAccessReview POSTed to the API
// server (authentication.k8s.io/v1, authorization.k8s.io/v1), as
// k8s.io/apiserver's delegating authenticator and authorizer send them.
#pragma once

#include <string>

#include "pkg/auth/reviewer.h"
#include "pkg/client/rest_client.h"

namespace ksched::auth {

class RestReviewer final : public Reviewer {
 public:
  explicit RestReviewer(client::RestClient& client) : client_(client) {}

  util::Result<TokenReview> ReviewToken(const std::string& token) override;
  util::Result<AccessReview> ReviewAccess(
      const UserInfo& user, const Attributes& attributes) override;

 private:
  client::RestClient& client_;
};

// The request bodies and the answers' status, for tests and the server
// that answers them in tests.
std::string EncodeTokenReview(const std::string& token);
std::string EncodeSubjectAccessReview(const UserInfo& user,
                                      const Attributes& attributes);
util::Result<TokenReview> DecodeTokenReviewStatus(const std::string& body);
util::Result<AccessReview> DecodeSubjectAccessReviewStatus(
    const std::string& body);

}  // namespace ksched::auth

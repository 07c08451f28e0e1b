// DelegatingAuthorizer: who sent a request and whether they may, decided by
// the API server, as kube-scheduler's secure port decides it
// (k8s.io/apiserver's delegating authenticator and authorizer):
//
//   1. the bearer token is checked with a TokenReview; no token, or one the
//      review does not authenticate, is 401 Unauthorized (there is no
//      anonymous user);
//   2. the user is checked with a SubjectAccessReview for what the request
//      does (get /metrics, post /filter, create pods/binding); not allowed
//      is 403 Forbidden with kube's message;
//   3. the API server not answering is 401 for a token (nobody is
//      authenticated without it) and 500 for an access review.
//
// Answers are cached as kube caches them: a token's review for 10 s, an
// access review for 10 s allowed or denied, so a scrape every few seconds
// costs the API server nothing after the first. Errors are not cached.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "pkg/auth/reviewer.h"
#include "pkg/util/clock.h"

namespace ksched::auth {

struct DelegatingOptions {
  util::Clock::Duration token_ttl = std::chrono::seconds(10);
  util::Clock::Duration allowed_ttl = std::chrono::seconds(10);
  util::Clock::Duration denied_ttl = std::chrono::seconds(10);
  // Entries per cache; when full, expired ones are dropped, and if that is
  // not enough the cache starts over.
  size_t max_entries = 4096;
};

// The outcome for one request.
struct Decision {
  int code = 200;       // 200 allowed, 401, 403, 500
  std::string user;     // who, once authenticated
  std::string message;  // kube's Status message when not allowed
  // A forbidden resource request's Status details.
  std::string details_kind;
  std::string details_name;
  bool allowed() const { return code == 200; }
};

// The metav1.Status body kube answers a refusal with.
std::string StatusBody(const Decision& decision);

// kube's 403 message for `user` asking for `a`, with the authorizer's
// reason: `forbidden: User "u" cannot get path "/metrics"`.
std::string ForbiddenMessage(const std::string& user, const Attributes& a,
                             const std::string& reason);

class DelegatingAuthorizer {
 public:
  DelegatingAuthorizer(Reviewer& reviewer, const util::Clock& clock,
                       DelegatingOptions options = {});

  // `authorization` is the request's Authorization header ("" if none).
  Decision Check(std::string_view authorization, const Attributes& a);

  // Reviews sent to the API server so far (cache misses).
  struct Counts {
    int token_reviews = 0;
    int access_reviews = 0;
  };
  Counts counts() const;

 private:
  template <typename T>
  struct Entry {
    T value;
    util::Clock::TimePoint expires;
  };
  template <typename T>
  void Put(std::map<std::string, Entry<T>>& cache, std::string key, T value,
           util::Clock::Duration ttl);

  Reviewer& reviewer_;
  const util::Clock& clock_;
  const DelegatingOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, Entry<TokenReview>> tokens_;   // by token digest
  std::map<std::string, Entry<AccessReview>> access_;  // by user + attributes
  Counts counts_;
};

}  // namespace ksched::auth

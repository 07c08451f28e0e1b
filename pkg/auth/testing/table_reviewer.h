// TableReviewer: a Reviewer answering from tables, for the tests of what
// sits on delegated authentication: the tokens it knows and who they are,
// and what each user may do ("jane get /metrics", "jane create
// pods/binding"). `down` fails every review as an unreachable API server.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "pkg/auth/reviewer.h"

namespace ksched::auth::testing {

class TableReviewer final : public Reviewer {
 public:
  void AddUser(const std::string& token, UserInfo user) {
    std::lock_guard lock(mu_);
    users_[token] = std::move(user);
  }
  // `what` is "<verb> <path>" or "<verb> <resource>[/<subresource>]".
  void Allow(const std::string& user, const std::string& what) {
    std::lock_guard lock(mu_);
    allowed_.insert(user + " " + what);
  }
  void SetReason(const std::string& reason) {
    std::lock_guard lock(mu_);
    reason_ = reason;
  }
  void SetDown(bool down) { down_ = down; }

  util::Result<TokenReview> ReviewToken(const std::string& token) override {
    ++token_reviews;
    if (down_) return util::Error("TokenReview: connection refused");
    std::lock_guard lock(mu_);
    auto it = users_.find(token);
    if (it == users_.end()) return TokenReview{.error = "invalid bearer token"};
    return TokenReview{.authenticated = true, .user = it->second};
  }
  util::Result<AccessReview> ReviewAccess(const UserInfo& user,
                                          const Attributes& a) override {
    ++access_reviews;
    if (down_) return util::Error("SubjectAccessReview: connection refused");
    std::string what = a.path;
    if (a.resource_request) {
      what =
          a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
    }
    std::lock_guard lock(mu_);
    const bool allowed =
        allowed_.contains(user.name + " " + a.verb + " " + what);
    return AccessReview{.allowed = allowed, .reason = allowed ? "" : reason_};
  }

  std::atomic<int> token_reviews{0};
  std::atomic<int> access_reviews{0};

 private:
  std::mutex mu_;
  std::map<std::string, UserInfo> users_;
  std::set<std::string> allowed_;
  std::string reason_;
  std::atomic<bool> down_{false};
};

}  // namespace ksched::auth::testing

// GuardedBinder: binds only while this replica may act as leader, so no
// Binding goes out once the lease's renew deadline has passed without a
// renewal (another replica may be scheduling by then).
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "pkg/framework/binder.h"

namespace ksched::leader {

class GuardedBinder final : public framework::Binder {
 public:
  // `may_bind` is asked before every binding (LeaderElector::IsLeader).
  GuardedBinder(framework::Binder& inner, std::function<bool()> may_bind)
      : inner_(inner), may_bind_(std::move(may_bind)) {}

  framework::Status Bind(const api::Pod& pod,
                         const std::string& node) override {
    if (may_bind_ && !may_bind_()) {
      return framework::Status::Error(
          "not binding: this replica no longer holds the leader lease");
    }
    return inner_.Bind(pod, node);
  }

 private:
  framework::Binder& inner_;
  std::function<bool()> may_bind_;
};

}  // namespace ksched::leader

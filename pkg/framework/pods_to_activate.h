// PodsToActivate: pods a plugin wants tried again now, written into the
// cycle state (framework.PodsToActivate). After a scheduling cycle that
// assumed its pod, and after a binding cycle that bound it, the scheduler
// moves them from backoff or the unschedulable pool to the active queue.
// Coscheduling uses it to bring a gang's siblings in behind its first
// waiting member.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "pkg/api/pod.h"
#include "pkg/framework/cycle_state.h"

namespace ksched::framework {

inline constexpr StateKey kPodsToActivateKey{"kubernetes.io/pods-to-activate"};

class PodsToActivate final
    : public StateData,
      public std::enable_shared_from_this<PodsToActivate> {
 public:
  void Add(std::shared_ptr<const api::Pod> pod) {
    std::lock_guard<std::mutex> lock(mu_);
    std::string key = pod->metadata.ns + "/" + pod->metadata.name;
    pods_[std::move(key)] = std::move(pod);
  }
  // Takes the pods out, leaving none.
  std::map<std::string, std::shared_ptr<const api::Pod>> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::move(pods_);
  }
  // Shared, not copied: preemption's what-if cycles must not lose what
  // the real cycle asked for (kube shares the map the same way).
  std::shared_ptr<StateData> Clone() const override {
    return std::const_pointer_cast<PodsToActivate>(shared_from_this());
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const api::Pod>> pods_;
};

}  // namespace ksched::framework

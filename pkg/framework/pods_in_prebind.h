// Pods whose binding cycle is running PreBind (framework/runtime/
// pods_in_prebind_map.go, v1.36). Preemption may cancel such a victim in
// memory instead of deleting it through the API: the binding cycle then
// fails rather than binding a pod whose room was given away: its PreBind
// plugins stop before their next API write, and if they were done the cycle
// fails when PreBind ends. Once PreBind is over (MarkPrebound) the pod can no
// longer be cancelled, and preemption deletes it as any running pod.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "pkg/framework/cancel_cause.h"

namespace ksched::framework {

class PodInPreBind {
 public:
  // Cancels the binding cycle with `cause`, unless PreBind is already over.
  // True when the pod is (or already was) cancelled.
  bool CancelPod(const std::string& cause);
  // PreBind is over: from now on CancelPod fails. False if the pod was
  // cancelled first.
  bool MarkPrebound();
  bool canceled() const { return cancellation_.cancelled(); }
  // Why it was cancelled ("preempted by DefaultPreemption"), or "".
  std::string cause() const { return cancellation_.cause(); }
  // What the binding cycle hands its PreBind plugins (CycleState).
  const CancelCause& cancellation() const { return cancellation_; }

 private:
  mutable std::mutex mu_;  // orders CancelPod against MarkPrebound
  bool finished_ = false;
  CancelCause cancellation_;
};

// The pods in PreBind of one scheduler, by UID.
class PodsInPreBind {
 public:
  // Registers `uid` (replacing an earlier entry) and returns its entry.
  std::shared_ptr<PodInPreBind> Add(const std::string& uid);
  void Remove(const std::string& uid);
  std::shared_ptr<PodInPreBind> Get(const std::string& uid) const;
  // Cancels every pod still in PreBind (shutdown: a PreBind that waits for
  // devices' binding conditions would otherwise hold it up for minutes).
  void CancelAll(const std::string& cause);

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<PodInPreBind>> pods_;
};

}  // namespace ksched::framework

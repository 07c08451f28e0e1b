// CancelCause: a cancellation that remembers why, as Go's
// context.WithCancelCause. The binding cycle hands one to PreBind plugins
// through the CycleState: preemption cancels a pod in PreBind with one, and
// a parallel PreBind group cancels its other plugins with one when a plugin
// fails. Plugins check it between their API writes.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

namespace ksched::framework {

class CancelCause {
 public:
  // A child is cancelled whenever its parent is (the parent must outlive
  // it), with the parent's cause unless it was cancelled itself first.
  explicit CancelCause(const CancelCause* parent = nullptr) : parent_(parent) {}
  CancelCause(const CancelCause&) = delete;
  CancelCause& operator=(const CancelCause&) = delete;

  // The first cause stands; later calls change nothing.
  void Cancel(const std::string& cause);
  bool cancelled() const;
  // Why it was cancelled, or "" if it was not.
  std::string cause() const;

 private:
  const CancelCause* parent_;
  mutable std::mutex mu_;
  std::atomic<bool> cancelled_{false};
  std::string cause_;
};

}  // namespace ksched::framework

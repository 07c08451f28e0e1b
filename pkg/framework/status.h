// Status: the outcome of running a plugin, as kube-scheduler's
// framework.Status. A success costs nothing (no allocation); failures carry
// reasons and the name of the plugin that produced them. A failure that a
// plugin returns for many nodes of one cycle (a spread constraint missed on
// 4,000 nodes) is a Status::Constant: its reasons are built once and every
// Status made from it points at them, so rejecting a node allocates nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::framework {

enum class Code : uint8_t {
  kSuccess,
  // An internal error: the pod is retried, the nodes are not blamed.
  kError,
  // The pod does not fit now; preemption may help.
  kUnschedulable,
  // The pod does not fit and preemption on this node cannot help.
  kUnschedulableAndUnresolvable,
  // A Permit plugin wants the pod to wait.
  kWait,
  // The plugin does not apply to this pod (PreFilter, PreScore, Bind).
  kSkip,
  // The pod waits for something other than cluster changes (e.g. a gate).
  kPending,
};

std::string_view CodeName(Code code);

class Status {
 public:
  Status() = default;
  explicit Status(Code code) : code_(code) {}
  Status(Code code, std::string reason);
  Status(Code code, std::vector<std::string> reasons);

  static Status Success() { return Status(); }
  static Status Error(std::string message) {
    return Status(Code::kError, std::move(message));
  }
  static Status Unschedulable(std::string reason) {
    return Status(Code::kUnschedulable, std::move(reason));
  }
  static Status Unresolvable(std::string reason) {
    return Status(Code::kUnschedulableAndUnresolvable, std::move(reason));
  }
  static Status Skip() { return Status(Code::kSkip); }

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  Code code() const { return code_; }
  bool IsSuccess() const { return code_ == Code::kSuccess; }
  bool IsSkip() const { return code_ == Code::kSkip; }
  bool IsWait() const { return code_ == Code::kWait; }
  // Unschedulable, UnschedulableAndUnresolvable or Pending: the pod was
  // refused, as opposed to an internal error.
  bool IsRejected() const {
    return code_ == Code::kUnschedulable ||
           code_ == Code::kUnschedulableAndUnresolvable ||
           code_ == Code::kPending;
  }

  const std::vector<std::string>& reasons() const;
  // Reasons joined with ", ".
  std::string Message() const;
  const std::string& plugin() const;
  Status& WithPlugin(std::string_view plugin);
  void AppendReason(std::string reason);

  friend bool operator==(const Status& a, const Status& b);

 private:
  struct Details {
    std::vector<std::string> reasons;
    std::string plugin;
  };

 public:
  // A failure with fixed reasons and plugin, kept where it outlives every
  // Status made from it (a function-local static const): statuses share
  // its reasons without allocating or counting references, and copy them
  // only if changed (another plugin name, an appended reason).
  class Constant {
   public:
    Constant(Code code, std::string reason, std::string plugin)
        : code_(code), details_{{std::move(reason)}, std::move(plugin)} {}
    Constant(const Constant&) = delete;
    Constant& operator=(const Constant&) = delete;
    Status status() const;

   private:
    Code code_;
    Details details_;
  };

 private:
  const Details* details() const { return owned_ ? owned_.get() : shared_; }
  Details& MutableDetails();

  Code code_ = Code::kSuccess;
  std::unique_ptr<Details> owned_;
  const Details* shared_ = nullptr;  // a Constant's; set only without owned_
};

}  // namespace ksched::framework

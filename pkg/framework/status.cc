#include "pkg/framework/status.h"

namespace ksched::framework {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kSuccess:
      return "Success";
    case Code::kError:
      return "Error";
    case Code::kUnschedulable:
      return "Unschedulable";
    case Code::kUnschedulableAndUnresolvable:
      return "UnschedulableAndUnresolvable";
    case Code::kWait:
      return "Wait";
    case Code::kSkip:
      return "Skip";
    case Code::kPending:
      return "Pending";
  }
  return "Unknown";
}

Status::Status(Code code, std::string reason) : code_(code) {
  if (!reason.empty()) MutableDetails().reasons.push_back(std::move(reason));
}

Status::Status(Code code, std::vector<std::string> reasons) : code_(code) {
  if (!reasons.empty()) MutableDetails().reasons = std::move(reasons);
}

Status::Status(const Status& other)
    : code_(other.code_), shared_(other.shared_) {
  if (other.owned_) owned_ = std::make_unique<Details>(*other.owned_);
}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    code_ = other.code_;
    shared_ = other.shared_;
    owned_ = other.owned_ ? std::make_unique<Details>(*other.owned_) : nullptr;
  }
  return *this;
}

Status Status::Constant::status() const {
  Status s(code_);
  s.shared_ = &details_;
  return s;
}

Status::Details& Status::MutableDetails() {
  if (!owned_) {
    owned_ = shared_ != nullptr ? std::make_unique<Details>(*shared_)
                                : std::make_unique<Details>();
    shared_ = nullptr;
  }
  return *owned_;
}

const std::vector<std::string>& Status::reasons() const {
  static const std::vector<std::string> kNone;
  const Details* d = details();
  return d != nullptr ? d->reasons : kNone;
}

std::string Status::Message() const {
  std::string out;
  for (const std::string& r : reasons()) {
    if (!out.empty()) out += ", ";
    out += r;
  }
  return out;
}

const std::string& Status::plugin() const {
  static const std::string kNone;
  const Details* d = details();
  return d != nullptr ? d->plugin : kNone;
}

Status& Status::WithPlugin(std::string_view plugin) {
  // Most often the plugin name a Constant already carries.
  if (plugin == this->plugin() && details() != nullptr) return *this;
  MutableDetails().plugin = std::string(plugin);
  return *this;
}

void Status::AppendReason(std::string reason) {
  MutableDetails().reasons.push_back(std::move(reason));
}

bool operator==(const Status& a, const Status& b) {
  return a.code_ == b.code_ && a.reasons() == b.reasons() &&
         a.plugin() == b.plugin();
}

}  // namespace ksched::framework

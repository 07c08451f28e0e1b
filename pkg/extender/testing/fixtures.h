// For the extender's tests: the request bodies of testdata/ (as
// kube-scheduler sends them), and a Binder that records what it is asked.
#pragma once

#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/framework/binder.h"

namespace ksched::extender::testing {

// testdata/<name> (KSCHED_SOURCE_DIR is set for every test target); empty
// if missing, which the caller's assertions then show.
inline std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(KSCHED_SOURCE_DIR) + "/pkg/extender/testdata/" +
                   name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Records "ns/name/uid->node" per Bind and answers `answer`.
class RecordingBinder final : public framework::Binder {
 public:
  framework::Status Bind(const api::Pod& pod,
                         const std::string& node) override {
    std::lock_guard lock(mu_);
    bound_.push_back(pod.metadata.ns + "/" + pod.metadata.name + "/" +
                     pod.metadata.uid + "->" + node);
    return answer_;
  }
  std::vector<std::string> bound() const {
    std::lock_guard lock(mu_);
    return bound_;
  }
  void set_answer(framework::Status answer) {
    std::lock_guard lock(mu_);
    answer_ = std::move(answer);
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> bound_;
  framework::Status answer_;
};

}  // namespace ksched::extender::testing

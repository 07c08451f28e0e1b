// The responses recorded from a real kube-apiserver (shared/apiserver/).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace ksched::client::testing {

// The file's bytes; empty when it is missing (the test's checks then fail).
inline std::string Recorded(const std::string& name) {
  std::ifstream in(std::string(KSCHED_SHARED_DIR) + "/apiserver/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ksched::client::testing

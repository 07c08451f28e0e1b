// Binder seam: how a Bind plugin makes a placement real. The API client
// POSTs a v1.Binding; the simulator and tests record the placement in memory.
#pragma once

#include <string>

#include "pkg/api/pod.h"
#include "pkg/framework/status.h"

namespace ksched::framework {

class Binder {
 public:
  virtual ~Binder() = default;
  // Binds `pod` to `node`. Success, or a status whose message says why not.
  virtual Status Bind(const api::Pod& pod, const std::string& node) = 0;
};

}  // namespace ksched::framework

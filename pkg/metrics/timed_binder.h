// TimedBinder: times every Binding and reports its outcome (for
// ksched_binding_duration_seconds / ksched_bindings_total).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "pkg/framework/binder.h"

namespace ksched::metrics {

class TimedBinder final : public framework::Binder {
 public:
  using Observer = std::function<void(std::string_view result, double seconds)>;
  TimedBinder(framework::Binder& inner, Observer observe)
      : inner_(inner), observe_(std::move(observe)) {}

  framework::Status Bind(const api::Pod& pod,
                         const std::string& node) override {
    const auto start = std::chrono::steady_clock::now();
    framework::Status s = inner_.Bind(pod, node);
    observe_(
        s.IsSuccess() ? "bound" : "error",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
    return s;
  }

 private:
  framework::Binder& inner_;
  Observer observe_;
};

}  // namespace ksched::metrics

// For the tests of this folder: a declared feature whose inference and
// bound the test chooses (kube's MockFeature), and versions from text.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "pkg/plugins/nodedeclaredfeatures/features.h"
#include "pkg/plugins/nodedeclaredfeatures/version.h"

namespace ksched::plugins::nodedeclaredfeatures::testing {

class FakeFeature final : public DeclaredFeature {
 public:
  FakeFeature(std::string name, std::function<bool(const api::PodSpec&)> infer,
              std::optional<SemanticVersion> max = std::nullopt)
      : name_(std::move(name)), infer_(std::move(infer)), max_(max) {}
  std::string_view Name() const override { return name_; }
  bool InferForScheduling(const api::PodSpec& spec) const override {
    return infer_(spec);
  }
  std::optional<SemanticVersion> MaxVersion() const override { return max_; }

 private:
  std::string name_;
  std::function<bool(const api::PodSpec&)> infer_;
  std::optional<SemanticVersion> max_;
};

// A version literal of the test; a malformed one aborts the test binary.
inline SemanticVersion Version(std::string_view text) {
  return SemanticVersion::Parse(text).value();
}

}  // namespace ksched::plugins::nodedeclaredfeatures::testing

// The Kubernetes version a declared feature's relevance is bounded by: a
// feature stops being a scheduling factor once every node that may join a
// cluster of that version has it (kube's Feature.MaxVersion).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ksched::plugins::nodedeclaredfeatures {

struct SemanticVersion {
  uint64_t major = 0;
  uint64_t minor = 0;
  uint64_t patch = 0;
  // "alpha.2.39" of "1.39.0-alpha.2.39+049eafd"; empty for a release.
  // Build metadata is dropped: it never takes part in comparisons.
  std::string pre_release;

  // "1.36.0" or "v1.36.0", with an optional "-pre.release" and "+build";
  // nullopt for anything else.
  static std::optional<SemanticVersion> Parse(std::string_view text);

  // Ordered as apimachinery's version.Compare orders semantic versions: a
  // release after its pre-releases, pre-release identifiers compared
  // numerically when both are numbers and as text otherwise.
  int Compare(const SemanticVersion& other) const;
  bool GreaterThan(const SemanticVersion& other) const {
    return Compare(other) > 0;
  }
  friend bool operator==(const SemanticVersion&,
                         const SemanticVersion&) = default;
};

}  // namespace ksched::plugins::nodedeclaredfeatures

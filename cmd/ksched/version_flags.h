// --emulated-version and --feature-gates, as every ksched command takes
// them (kube-scheduler's syntax and words), and what start-up says about
// them: which version ksched decides as, kube's warnings, and the gates
// that are on but change nothing in ksched.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pkg/config/feature_gates.h"
#include "pkg/util/flags.h"
#include "pkg/util/result.h"

namespace ksched::cmd {

class VersionFlags {
 public:
  // Adds both flags; their help lists the versions and, as kube's does,
  // every alpha and beta gate with its default at v1.36.
  void Register(util::FlagSet& flags);

  // After parsing: the gates, or the error naming the flag
  // ("--emulated-version: emulation version 1.31 is not between [1.32,
  // 1.36.0]"). kube's warnings ("unrecognized feature gate: Foo") go to
  // `warnings`, also when an error follows.
  util::Result<config::FeatureGates> Gates(
      std::vector<std::string>* warnings) const;

 private:
  // Each flag given: kube's can be repeated too, and reads as one list.
  std::vector<std::string> emulated_version_;
  std::vector<std::string> feature_gates_;
};

// "ksched decides as kube-scheduler v1.36", or "... v1.36 emulating v1.33
// (feature gates at their v1.33 defaults)", with the gates set by flag.
std::string DecidesAs(const config::FeatureGates& gates);

// The gates kube-scheduler would have on that ksched keeps off because it
// has not built them (config::FeatureGates::not_in_effect), as one line;
// nothing when there are none.
std::optional<std::string> NotInEffectNote(const config::FeatureGates& gates);

}  // namespace ksched::cmd

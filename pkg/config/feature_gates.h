// Feature gates ksched honours, as kube-scheduler's --feature-gates flag
// takes them ("Name=true,Other=false").
#pragma once

#include <string_view>

#include "pkg/util/result.h"

namespace ksched::config {

struct FeatureGates {
  // KEP-5598 (beta and on in kube-scheduler 1.35). Off by default: ksched
  // decides as kube-scheduler 1.32 does, which has no batching.
  bool opportunistic_batching = false;
};

// Parses a --feature-gates value. An unknown name or a value that is not a
// boolean is an error, worded as kube's.
util::Result<FeatureGates> ParseFeatureGates(std::string_view value);

}  // namespace ksched::config

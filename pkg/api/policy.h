// policy/v1 PodDisruptionBudget, which preemption tries not to violate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pkg/api/meta.h"
#include "pkg/api/selector.h"
#include "pkg/api/string_map.h"
#include "pkg/api/time.h"

namespace ksched::api {

// intstr.IntOrString: 3 or "30%".
struct IntOrString {
  bool is_string = false;
  int32_t int_value = 0;
  std::string string_value;
  friend bool operator==(const IntOrString&, const IntOrString&) = default;
};

struct PodDisruptionBudgetSpec {
  std::optional<IntOrString> min_available;
  std::optional<LabelSelector> selector;
  std::optional<IntOrString> max_unavailable;
  friend bool operator==(const PodDisruptionBudgetSpec&,
                         const PodDisruptionBudgetSpec&) = default;
};

struct PodDisruptionBudgetStatus {
  int64_t observed_generation = 0;
  FlatMap<Time> disrupted_pods;
  int32_t disruptions_allowed = 0;
  int32_t current_healthy = 0;
  int32_t desired_healthy = 0;
  int32_t expected_pods = 0;
  friend bool operator==(const PodDisruptionBudgetStatus&,
                         const PodDisruptionBudgetStatus&) = default;
};

struct PodDisruptionBudget {
  ObjectMeta metadata;
  PodDisruptionBudgetSpec spec;
  PodDisruptionBudgetStatus status;
  friend bool operator==(const PodDisruptionBudget&,
                         const PodDisruptionBudget&) = default;
};

}  // namespace ksched::api

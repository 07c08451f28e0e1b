// scheduling.x-k8s.io/v1alpha1 PodGroup: the gang of scheduler-plugins'
// Coscheduling. A pod joins one with the label kPodGroupLabel, in its own
// namespace; the group is placed whole (minMember pods) or not at all.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/api/meta.h"
#include "pkg/api/pod.h"
#include "pkg/api/time.h"

namespace ksched::api {

inline constexpr std::string_view kPodGroupLabel =
    "scheduling.x-k8s.io/pod-group";

// status.phase values. Pending, Scheduling, Running, Finished, Failed and
// Unknown are those of the current API; PreScheduling and Scheduled are the
// older controller's, still in clusters that run it, and read as written.
inline constexpr std::string_view kPodGroupPending = "Pending";
inline constexpr std::string_view kPodGroupPreScheduling = "PreScheduling";
inline constexpr std::string_view kPodGroupScheduling = "Scheduling";
inline constexpr std::string_view kPodGroupScheduled = "Scheduled";
inline constexpr std::string_view kPodGroupRunning = "Running";
inline constexpr std::string_view kPodGroupFinished = "Finished";
inline constexpr std::string_view kPodGroupFailed = "Failed";
inline constexpr std::string_view kPodGroupUnknown = "Unknown";

struct PodGroupSpec {
  int32_t min_member = 0;
  ResourceList min_resources;
  std::optional<int32_t> schedule_timeout_seconds;
  friend bool operator==(const PodGroupSpec&, const PodGroupSpec&) = default;
};

struct PodGroupStatus {
  std::string phase;
  std::string occupied_by;
  int32_t scheduled = 0;
  int32_t running = 0;
  int32_t succeeded = 0;
  int32_t failed = 0;
  std::optional<Time> schedule_start_time;
  friend bool operator==(const PodGroupStatus&,
                         const PodGroupStatus&) = default;
};

struct PodGroup {
  ObjectMeta metadata;
  PodGroupSpec spec;
  PodGroupStatus status;
  friend bool operator==(const PodGroup&, const PodGroup&) = default;
};

}  // namespace ksched::api

// Builders shared by the Coscheduling tests.
#pragma once

#include <optional>
#include <string>

#include "pkg/api/podgroup.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins::coscheduling::testing {

inline api::PodGroup MakePodGroup(
    std::string ns, std::string name, int32_t min_member,
    int64_t created_seconds = 0,
    const ksched::testing::ResourcePairs& min_resources = {},
    std::optional<int32_t> timeout_seconds = std::nullopt) {
  api::PodGroup g;
  g.metadata.ns = std::move(ns);
  g.metadata.name = std::move(name);
  g.metadata.creation_timestamp.value =
      api::Timestamp(std::chrono::seconds(created_seconds));
  g.spec.min_member = min_member;
  if (!min_resources.empty()) {
    g.spec.min_resources = ksched::testing::MakeResourceList(min_resources);
  }
  g.spec.schedule_timeout_seconds = timeout_seconds;
  return g;
}

// A pod named `name` in `ns`, member of `group` ("" for none), UID = name.
inline ksched::testing::PodBuilder Member(std::string ns, std::string name,
                                          std::string group) {
  ksched::testing::PodBuilder b(name);
  b.Namespace(ns).Uid(ns + "-" + name);
  if (!group.empty()) b.Label(std::string(api::kPodGroupLabel), group);
  return b;
}

}  // namespace ksched::plugins::coscheduling::testing

// Gang: a set of pods that is placed whole or not at all, and GangSource,
// where gangs come from. The gang logic (quorum, waiting at Permit,
// release) reads gangs only through GangSource, so another definition of a
// group (the scheduling.k8s.io Workload API of KEP-4671, whose pods name
// their group in spec.workloadRef) can be added beside scheduler-plugins'
// PodGroups without touching it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/api/time.h"

namespace ksched::plugins::coscheduling {

struct Gang {
  // "namespace/name": how caches, events and messages name the gang.
  std::string key;
  std::string ns;
  std::string name;
  // The quorum: pods that must be placeable together.
  int32_t min_member = 0;
  // The resources the whole gang asks of the cluster; empty: not checked.
  api::ResourceList min_resources;
  // How long members wait at Permit for the quorum; unset: the plugin's.
  std::optional<std::chrono::seconds> schedule_timeout;
  // Orders gangs in the queue: older first.
  api::Timestamp created{};
};

class GangSource {
 public:
  virtual ~GangSource() = default;
  // The key of the gang `pod` names, "" when it names none (whether the
  // gang exists or not).
  virtual std::string KeyOf(const api::Pod& pod) const = 0;
  // The gang `pod` names; nullopt when it names none or it does not exist.
  virtual std::optional<Gang> Find(const api::Pod& pod) const = 0;
  // Just the creation time, for the queue's comparisons (which run often).
  virtual std::optional<api::Timestamp> Created(const api::Pod& pod) const = 0;
  // Every unfinished pod that names the same gang as `pod`, bound or not,
  // `pod` itself included when known.
  virtual std::vector<std::shared_ptr<const api::Pod>> Members(
      const api::Pod& pod) const = 0;
};

}  // namespace ksched::plugins::coscheduling

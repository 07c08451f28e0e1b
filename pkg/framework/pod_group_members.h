// PodGroupMembers: the pods of each scheduler-plugins PodGroup, as the
// scheduler's informers know them: every unfinished pod carrying the
// pod-group label, bound or not, whichever scheduler it names.
// Coscheduling counts a group's quorum here, where scheduler-plugins lists
// its pod informer by label; the scheduler's pod event handlers keep it
// current, so a count costs the group's size, not the cluster's.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/pod.h"

namespace ksched::framework {

class PodGroupMembers {
 public:
  // The pod's latest version; a pod whose label changed moves, one without
  // the label leaves.
  void Upsert(std::shared_ptr<const api::Pod> pod);
  void Remove(const api::Pod& pod);
  // The members of group `name` in namespace `ns`, by UID.
  std::vector<std::shared_ptr<const api::Pod>> List(
      std::string_view ns, std::string_view name) const;

 private:
  static std::string Key(std::string_view ns, std::string_view name);

  mutable std::mutex mu_;
  // "ns/group" -> UID -> pod.
  std::map<std::string, std::map<std::string, std::shared_ptr<const api::Pod>>,
           std::less<>>
      groups_;
  std::unordered_map<std::string, std::string> group_of_;  // UID -> key
};

// The PodGroup a pod names (its pod-group label), or "" for none.
std::string_view PodGroupName(const api::Pod& pod);

}  // namespace ksched::framework

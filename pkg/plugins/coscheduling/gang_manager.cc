#include "pkg/plugins/coscheduling/gang_manager.h"

#include <algorithm>
#include <map>
#include <utility>

#include "pkg/api/podgroup.h"
#include "pkg/api/quantity.h"
#include "pkg/api/resource_names.h"
#include "pkg/framework/pod_group_members.h"

namespace ksched::plugins::coscheduling {
namespace {

bool Gated(const api::Pod& pod) { return !pod.spec.scheduling_gates.empty(); }

api::Timestamp WallNow(const util::Clock& clock) {
  return std::chrono::time_point_cast<std::chrono::microseconds>(
      clock.WallNow());
}

// One resource as the resource check counts it: cpu in milli-units, the
// rest in units (the unit NodeInfo's Resource keeps them in).
int64_t Amount(std::string_view name, const api::Quantity& q) {
  return name == api::kResourceCpu ? q.MilliValue() : q.Value();
}

std::string FormatAmount(std::string_view name, int64_t amount) {
  return name == api::kResourceCpu
             ? api::Quantity::FromMilli(amount).ToString()
             : api::Quantity::FromValue(amount).ToString();
}

// What `node` has left of `name` once the pods of `key` are taken off it:
// a gang's placed members count as room for the gang. Resources the node
// does not list have none left.
int64_t LeftOver(const framework::NodeInfo& node, std::string_view name,
                 const framework::Resource& gang_requests, int64_t gang_pods) {
  const framework::Resource& alloc = node.allocatable();
  const framework::Resource& used = node.requested();
  if (name == api::kResourcePods) {
    return alloc.allowed_pod_number -
           (static_cast<int64_t>(node.pods().size()) - gang_pods);
  }
  if (name == api::kResourceCpu) {
    return alloc.milli_cpu - (used.milli_cpu - gang_requests.milli_cpu);
  }
  if (name == api::kResourceMemory) {
    return alloc.memory - (used.memory - gang_requests.memory);
  }
  if (name == api::kResourceEphemeralStorage) {
    return alloc.ephemeral_storage -
           (used.ephemeral_storage - gang_requests.ephemeral_storage);
  }
  for (const auto& [scalar, value] : alloc.scalar_resources) {
    if (scalar == name) {
      return value - (used.Scalar(name) - gang_requests.Scalar(name));
    }
  }
  return 0;
}

}  // namespace

GangManager::GangManager(const GangSource& source, Options options)
    : source_(source), options_(options) {}

std::string GangManager::PreFilter(
    const api::Pod& pod, const std::vector<framework::NodeInfoPtr>& nodes) {
  std::optional<Gang> gang = source_.Find(pod);
  // A pod of no gang goes on; one whose gang is missing is refused at
  // Permit, where scheduler-plugins refuses it.
  if (!gang.has_value()) return {};
  if (BackingOff(gang->key)) {
    std::lock_guard<std::mutex> lock(mu_);
    refused_for_backoff_.insert(gang->key);
    return "podGroup " + gang->key + " failed recently";
  }
  std::vector<std::shared_ptr<const api::Pod>> members = source_.Members(pod);
  const size_t total = members.size();
  if (total < static_cast<size_t>(gang->min_member)) {
    return "pre-filter pod " + pod.metadata.name +
           " cannot find enough sibling pods, current pods number: " +
           std::to_string(total) +
           ", minMember of group: " + std::to_string(gang->min_member);
  }
  // Gated members cannot be placed: counting them would have the others
  // wait at Permit for pods that never come (scheduler-plugins #952).
  size_t ungated = 0;
  for (const auto& member : members) ungated += Gated(*member) ? 0 : 1;
  if (ungated < static_cast<size_t>(gang->min_member)) {
    return "pre-filter pod " + pod.metadata.name +
           " cannot find enough sibling pods without scheduling gates, "
           "current pods number: " +
           std::to_string(ungated) + " (" + std::to_string(total - ungated) +
           " gated), minMember of group: " + std::to_string(gang->min_member);
  }
  if (gang->min_resources.empty()) return {};
  const util::Clock::TimePoint now = options_.clock->Now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resources_checked_.find(gang->key);
    if (it != resources_checked_.end() && it->second > now) return {};
  }
  std::string gap = CheckClusterResources(*gang, nodes);
  if (!gap.empty()) return gap;
  // Remembered for the Permit wait, so the members that follow skip the
  // check (their own placed siblings would not count as free otherwise).
  // scheduler-plugins' cache falls back to 3 s for a zero wait.
  std::chrono::seconds ttl = options_.permit_wait;
  if (ttl.count() <= 0) ttl = std::chrono::seconds(3);
  std::lock_guard<std::mutex> lock(mu_);
  resources_checked_[gang->key] = now + ttl;
  return {};
}

std::string GangManager::CheckClusterResources(
    const Gang& gang, const std::vector<framework::NodeInfoPtr>& nodes) const {
  // What is still missing, by resource; "pods" is always the quorum.
  std::map<std::string, int64_t, std::less<>> missing;
  for (const auto& [name, quantity] : gang.min_resources) {
    missing[std::string(name)] = Amount(name, quantity);
  }
  missing[std::string(api::kResourcePods)] = gang.min_member;
  std::erase_if(missing, [](const auto& e) { return e.second <= 0; });
  const std::map<std::string, int64_t, std::less<>> asked = missing;
  for (const framework::NodeInfoPtr& node : nodes) {
    if (missing.empty()) break;
    if (node == nullptr || node->node() == nullptr) continue;
    framework::Resource gang_requests;
    int64_t gang_pods = 0;
    for (const framework::PodInfoPtr& p : node->pods()) {
      const std::string* label = p->labels().Find(api::kPodGroupLabel);
      if (label == nullptr || *label != gang.name || p->ns() != gang.ns) {
        continue;
      }
      gang_requests.AddResource(p->resource().requests);
      ++gang_pods;
    }
    for (auto it = missing.begin(); it != missing.end();) {
      it->second -= LeftOver(*node, it->first, gang_requests, gang_pods);
      it = it->second <= 0 ? missing.erase(it) : std::next(it);
    }
  }
  if (missing.empty()) return {};
  // scheduler-plugins' words first (users grep for them), then what the
  // group asks for and what the nodes have, which a user can act on.
  std::string gap = "resource gap: ";
  std::string why;
  bool first = true;
  for (const auto& [name, amount] : missing) {
    const int64_t ask = asked.find(name)->second;
    const int64_t free = std::max<int64_t>(0, ask - amount);
    gap += (first ? "" : ", ") + name + " " + FormatAmount(name, amount);
    why += first ? "" : "; ";
    if (name == api::kResourcePods) {
      why += "the group's minMember asks for " + std::to_string(ask) +
             " pods; the cluster has room for " + std::to_string(free);
    } else {
      why += "the group's minResources ask for " + FormatAmount(name, ask) +
             " " + name + "; the cluster has " + FormatAmount(name, free) +
             " free";
    }
    first = false;
  }
  return gap + " (" + why + ")";
}

GangManager::PermitResult GangManager::Permit(const api::Pod& pod,
                                              bool* first) {
  *first = false;
  if (source_.KeyOf(pod).empty()) return PermitResult::kNoGang;
  std::optional<Gang> gang = source_.Find(pod);
  if (!gang.has_value()) return PermitResult::kGangNotFound;
  {
    std::lock_guard<std::mutex> lock(mu_);
    permitted_pods_[gang->key].insert(pod.metadata.uid);
  }
  const int placed = Placed(*gang, pod);
  if (placed >= gang->min_member) return PermitResult::kQuorum;
  *first = placed == 1;
  return PermitResult::kWait;
}

int GangManager::Placed(const Gang& gang, const api::Pod& pod) {
  std::vector<std::shared_ptr<const api::Pod>> members = source_.Members(pod);
  std::set<std::string> placed;
  std::set<std::string> known;
  for (const auto& m : members) {
    known.insert(m->metadata.uid);
    if (!m->spec.node_name.empty()) placed.insert(m->metadata.uid);
  }
  // The pod at hand may not have reached the informers' view yet.
  known.insert(pod.metadata.uid);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = permitted_pods_.find(gang.key);
  if (it == permitted_pods_.end()) return static_cast<int>(placed.size());
  // Members deleted since their Permit no longer count.
  std::erase_if(it->second,
                [&](const std::string& uid) { return !known.contains(uid); });
  placed.insert(it->second.begin(), it->second.end());
  if (it->second.empty()) permitted_pods_.erase(it);
  return static_cast<int>(placed.size());
}

void GangManager::Unreserve(const api::Pod& pod) {
  std::string key = source_.KeyOf(pod);
  if (key.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = permitted_pods_.find(key);
  if (it == permitted_pods_.end()) return;
  it->second.erase(pod.metadata.uid);
  if (it->second.empty()) permitted_pods_.erase(it);
}

void GangManager::BackOff(const std::string& key) {
  if (options_.backoff.count() <= 0) return;
  const util::Clock::TimePoint now = options_.clock->Now();
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, added] = backed_off_.try_emplace(key, now + options_.backoff);
  if (!added && it->second <= now) it->second = now + options_.backoff;
}

bool GangManager::BackingOff(const std::string& key) const {
  const util::Clock::TimePoint now = options_.clock->Now();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = backed_off_.find(key);
  return it != backed_off_.end() && it->second > now;
}

bool GangManager::BackoffOver(const std::string& key) const {
  const util::Clock::TimePoint now = options_.clock->Now();
  std::lock_guard<std::mutex> lock(mu_);
  if (!refused_for_backoff_.contains(key)) return false;
  auto it = backed_off_.find(key);
  return it == backed_off_.end() || it->second <= now;
}

void GangManager::ForgetPermitted(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  resources_checked_.erase(key);
}

void GangManager::MarkFailure(const std::string& key) {
  api::Timestamp now = WallNow(*options_.clock);
  std::lock_guard<std::mutex> lock(mu_);
  last_failure_[key] = now;
}

void GangManager::ClearFailure(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  last_failure_.erase(key);
  refused_for_backoff_.erase(key);
}

std::optional<api::Timestamp> GangManager::SortTime(const api::Pod& pod) const {
  std::optional<api::Timestamp> created = source_.Created(pod);
  if (!created.has_value()) return std::nullopt;
  std::string key = source_.KeyOf(pod);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = last_failure_.find(key);
  return it == last_failure_.end() ? created : it->second;
}

std::chrono::seconds GangManager::WaitTime(
    const std::optional<Gang>& gang) const {
  if (gang.has_value() && gang->schedule_timeout.has_value()) {
    return *gang->schedule_timeout;
  }
  if (options_.permit_wait.count() != 0) return options_.permit_wait;
  return std::chrono::seconds(60);
}

}  // namespace ksched::plugins::coscheduling

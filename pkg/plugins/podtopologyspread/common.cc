#include "pkg/plugins/podtopologyspread/common.h"

#include <algorithm>

#include "pkg/api/key_encoding.h"
#include "pkg/api/taints.h"

namespace ksched::plugins::podtopologyspread {
namespace {

// helper.DoNotScheduleTaintsFilterFunc: the taints that keep pods off.
bool IsDoNotSchedule(const api::Taint& t) {
  return t.effect == api::TaintEffect::kNoSchedule ||
         t.effect == api::TaintEffect::kNoExecute;
}

bool SameRequirement(const api::Selector::Requirement& a,
                     const api::Selector::Requirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values &&
         a.number == b.number;
}

// mergeLabelSetWithSelector: the pod's values of matchLabelKeys as equality
// requirements, then the selector's own requirements. A nothing selector
// contributes none (its Requirements() reports not selectable), so the
// result selects by the keys alone, as in kube.
util::Result<api::Selector> MergeMatchLabelKeys(
    const std::vector<std::string>& keys, const api::StringMap& pod_labels,
    api::Selector selector) {
  api::Selector merged;
  std::vector<std::string_view> added;  // labels.Set holds each key once
  for (const std::string& key : keys) {
    const std::string* value = pod_labels.Find(key);
    if (value == nullptr) continue;
    if (std::find(added.begin(), added.end(), key) != added.end()) continue;
    added.push_back(key);
    if (auto r = merged.Add(key, api::Selector::Op::kIn, {*value}); !r.ok()) {
      return r.error();
    }
  }
  if (added.empty()) return selector;
  if (!selector.IsNothing()) {
    for (const api::Selector::Requirement& r : selector.requirements()) {
      if (auto a = merged.Add(r.key, r.op, r.values); !a.ok()) {
        return a.error();
      }
    }
  }
  return merged;
}

}  // namespace

util::Result<Constraints> FilterConstraints(
    const std::vector<api::TopologySpreadConstraint>& constraints,
    const api::StringMap& pod_labels,
    api::UnsatisfiableConstraintAction action) {
  Constraints result;
  for (const api::TopologySpreadConstraint& c : constraints) {
    if (c.when_unsatisfiable != action) continue;
    auto selector = api::Selector::FromLabelSelector(
        c.label_selector ? &*c.label_selector : nullptr);
    if (!selector.ok()) return selector.error();
    if (!c.match_label_keys.empty()) {
      selector = MergeMatchLabelKeys(c.match_label_keys, pod_labels, *selector);
      if (!selector.ok()) return selector.error();
    }
    Constraint tsc;
    tsc.max_skew = c.max_skew;
    tsc.topology_key = c.topology_key;
    tsc.selector = std::move(*selector);
    // Unset optional fields take their API defaults: minDomains 1,
    // nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore.
    tsc.min_domains = c.min_domains.value_or(1);
    if (c.node_affinity_policy) {
      tsc.node_affinity_policy = *c.node_affinity_policy;
    }
    if (c.node_taints_policy) tsc.node_taints_policy = *c.node_taints_policy;
    result.push_back(std::move(tsc));
  }
  return result;
}

bool NodeLabelsMatchConstraints(const api::StringMap& node_labels,
                                const Constraints& constraints) {
  for (const Constraint& c : constraints) {
    if (!node_labels.Contains(c.topology_key)) return false;
  }
  return true;
}

bool PodLabelsMatchConstraints(const Constraints& constraints,
                               const api::StringMap& labels) {
  for (const Constraint& c : constraints) {
    if (c.selector.Matches(labels)) return true;
  }
  return false;
}

bool SameSelector(const api::Selector& a, const api::Selector& b) {
  if (a.IsNothing() != b.IsNothing()) return false;
  const auto& ra = a.requirements();
  const auto& rb = b.requirements();
  return std::equal(ra.begin(), ra.end(), rb.begin(), rb.end(),
                    SameRequirement);
}

InclusionContext::InclusionContext(const api::Pod& pod) : pod_(pod) {
  const api::Affinity* a = pod.spec.affinity.get();
  bool has_required = a != nullptr && a->node_affinity &&
                      a->node_affinity->required.has_value();
  if (has_required || !pod.spec.node_selector.empty()) affinity_.emplace(pod);
}

bool InclusionContext::NodeView::Includes(const Constraint& c) {
  if (c.node_affinity_policy == api::NodeInclusionPolicy::kHonor &&
      ctx_.affinity_) {
    // Terms that do not parse match no node: kube ignores the parse error
    // here for backwards compatibility.
    if (affinity_ < 0) affinity_ = ctx_.affinity_->Matches(node_) ? 1 : 0;
    if (affinity_ == 0) return false;
  }
  if (c.node_taints_policy == api::NodeInclusionPolicy::kHonor) {
    if (taints_ < 0) {
      taints_ = api::FindMatchingUntoleratedTaint(node_.spec.taints,
                                                  ctx_.pod_.spec.tolerations,
                                                  IsDoNotSchedule) == nullptr
                    ? 1
                    : 0;
    }
    if (taints_ == 0) return false;
  }
  return true;
}

bool InclusionContext::IncludesEveryNode(const Constraints& constraints) const {
  for (const Constraint& c : constraints) {
    if (c.node_affinity_policy == api::NodeInclusionPolicy::kHonor &&
        affinity_) {
      return false;
    }
    if (c.node_taints_policy == api::NodeInclusionPolicy::kHonor) return false;
  }
  return true;
}

uint32_t CountKey(framework::PodCountKeys* keys, const api::Selector& selector,
                  std::string_view ns) {
  if (keys == nullptr) return 0;
  std::string key = "PodTopologySpread|";
  api::AppendKeyField(&key, ns);
  selector.AppendKey(&key);
  return keys->Intern(key);
}

SelectorGroups::SelectorGroups(const Constraints& constraints,
                               std::string_view ns,
                               framework::PodCountKeys* keys)
    : ns_(ns) {
  group_of_.reserve(constraints.size());
  for (const Constraint& c : constraints) {
    int group = -1;
    for (size_t g = 0; g < selectors_.size(); ++g) {
      if (SameSelector(*selectors_[g], c.selector)) {
        group = static_cast<int>(g);
        break;
      }
    }
    if (group < 0) {
      group = static_cast<int>(selectors_.size());
      selectors_.push_back(&c.selector);
      keys_.push_back(CountKey(keys, c.selector, ns));
    }
    group_of_.push_back(group);
  }
}

void SelectorGroups::Count(const framework::NodeInfo& node,
                           const uint8_t* wanted, int32_t* counts) const {
  const int groups = size();
  // Answers the memo has are taken from it; the pods are matched only for
  // the rest, and those answers are kept.
  uint8_t missing_small[kMaxGroups] = {};
  int32_t fresh_small[kMaxGroups] = {};
  std::vector<uint8_t> missing_big;
  std::vector<int32_t> fresh_big;
  uint8_t* missing = missing_small;
  int32_t* fresh = fresh_small;
  if (groups > kMaxGroups) {
    missing_big.assign(groups, 0);
    fresh_big.assign(groups, 0);
    missing = missing_big.data();
    fresh = fresh_big.data();
  }
  bool any_missing = false;
  for (int g = 0; g < groups; ++g) {
    if (!wanted[g]) continue;
    if (std::optional<int32_t> n = node.pod_counts().Find(keys_[g])) {
      counts[g] += *n;
    } else {
      missing[g] = 1;
      any_missing = true;
    }
  }
  if (!any_missing) return;
  for (const framework::PodInfoPtr& p : node.pods()) {
    const framework::PodInfo& pod = *p;
    if (pod.terminating() || pod.ns() != ns_) continue;
    for (int g = 0; g < groups; ++g) {
      if (missing[g] && selectors_[g]->Matches(pod.labels())) {
        ++fresh[g];
      }
    }
  }
  for (int g = 0; g < groups; ++g) {
    if (!missing[g]) continue;
    node.pod_counts().Store(keys_[g], fresh[g]);
    counts[g] += fresh[g];
  }
}

int32_t CountPodsMatchSelector(const std::vector<framework::PodInfoPtr>& pods,
                               const api::Selector& selector,
                               std::string_view ns) {
  int32_t count = 0;
  for (const framework::PodInfoPtr& p : pods) {
    const framework::PodInfo& pod = *p;
    if (pod.terminating() || pod.ns() != ns) continue;
    if (selector.Matches(pod.labels())) ++count;
  }
  return count;
}

void DomainTable::Reserve(size_t n) {
  entries_.reserve(n);
  size_t slots = 16;
  while (slots < n * 2) slots <<= 1;
  if (slots > slots_.size()) Rehash(slots);
}

int32_t DomainTable::Find(std::string_view value, uint64_t hash) const {
  if (slots_.empty()) return -1;
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    int32_t id = slots_[i];
    if (id < 0) return -1;
    if (entries_[id].hash == hash && this->value(id) == value) return id;
  }
}

int32_t DomainTable::Intern(std::string_view value, uint64_t hash) {
  // Keep the load at most one half so probes stay short.
  if ((entries_.size() + 1) * 2 > slots_.size()) {
    Rehash(std::max<size_t>(16, slots_.size() * 2));
  }
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    int32_t id = slots_[i];
    if (id < 0) {
      id = static_cast<int32_t>(entries_.size());
      entries_.push_back({hash, static_cast<uint32_t>(arena_.size()),
                          static_cast<uint32_t>(value.size())});
      arena_.append(value);
      slots_[i] = id;
      return id;
    }
    if (entries_[id].hash == hash && this->value(id) == value) return id;
  }
}

void DomainTable::Rehash(size_t slots) {
  slots_.assign(slots, -1);
  const size_t mask = slots - 1;
  for (size_t id = 0; id < entries_.size(); ++id) {
    size_t i = entries_[id].hash & mask;
    while (slots_[i] >= 0) i = (i + 1) & mask;
    slots_[i] = static_cast<int32_t>(id);
  }
}

}  // namespace ksched::plugins::podtopologyspread

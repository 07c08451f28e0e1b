#include "pkg/plugins/interpodaffinity/state.h"

#include <algorithm>
#include <functional>

#include "pkg/api/key_encoding.h"

namespace ksched::plugins::interpodaffinity {
namespace {

constexpr framework::StateKey kPreFilterKey{"PreFilterInterPodAffinity"};
constexpr framework::StateKey kPreScoreKey{"PreScoreInterPodAffinity"};

}  // namespace

uint32_t KeyTable::Intern(std::string_view key) {
  for (uint32_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return i;
  }
  keys_.emplace_back(key);
  return static_cast<uint32_t>(keys_.size() - 1);
}

size_t TopologyCounts::Hash::Mix(uint32_t key, uint32_t value_hash) {
  // The key index is tiny: spread it before mixing it into the value hash.
  return (static_cast<size_t>(value_hash) * 0xff51afd7ed558ccdULL) ^
         (static_cast<size_t>(key + 1) * 0x9e3779b97f4a7c15ULL);
}

void TopologyCounts::Add(uint32_t key, std::string_view value, int64_t delta) {
  auto it = counts_.find(PairView{key, value});
  if (it == counts_.end()) {
    if (delta != 0) counts_.emplace(Pair{key, std::string(value)}, delta);
    return;
  }
  it->second += delta;
  if (it->second == 0) counts_.erase(it);
}

int64_t TopologyCounts::Get(uint32_t key, std::string_view value) const {
  if (counts_.empty()) return 0;
  auto it = counts_.find(PairView{key, value});
  return it == counts_.end() ? 0 : it->second;
}

int64_t TopologyCounts::Get(uint32_t key,
                            const framework::LabelValue& value) const {
  if (counts_.empty() || value.value == nullptr) return 0;
  auto it = counts_.find(PairHashed{key, value.hash, value.value});
  return it == counts_.end() ? 0 : it->second;
}

std::map<std::pair<std::string, std::string>, int64_t> TopologyCounts::ToMap(
    const KeyTable& keys) const {
  std::map<std::pair<std::string, std::string>, int64_t> out;
  for (const auto& [pair, count] : counts_) {
    out[{keys[pair.key], pair.value}] = count;
  }
  return out;
}

bool NamespaceMatcher::SelectorMatches(const api::Selector& selector,
                                       std::string_view ns) const {
  const std::optional<api::StringMap>* labels;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = labels_.find(ns);
    if (it == labels_.end()) {
      const api::StringMap* found =
          handle_ != nullptr ? handle_->NamespaceLabels(ns) : nullptr;
      std::optional<api::StringMap> copy;
      if (found != nullptr) copy = *found;
      it = labels_.emplace(std::string(ns), std::move(copy)).first;
    }
    labels = &it->second;
  }
  // An unknown namespace is in no listing, so no selector picks it.
  return labels->has_value() && selector.Matches(**labels);
}

uint32_t IncomingPodKey(framework::PodCountKeys* keys,
                        std::string_view question,
                        const framework::PodInfo& pod,
                        const api::StringMap& namespace_labels,
                        std::string_view extra) {
  if (keys == nullptr) return 0;
  std::string key;
  auto append = [&key](std::string_view s) { api::AppendKeyField(&key, s); };
  append(question);
  append(extra);
  append(pod.ns());
  for (const api::StringMap* map : {&pod.labels(), &namespace_labels}) {
    key.append(std::to_string(map->size()));
    for (const auto& [k, v] : *map) {
      append(k);
      append(v);
    }
  }
  return keys->Intern(key);
}

bool IncomingTermMatches(const framework::AffinityTerm& term,
                         const framework::PodInfo& pod,
                         const NamespaceMatcher& ns) {
  if (!term.selector.Matches(pod.labels())) return false;
  const std::string& pod_ns = pod.ns();
  if (std::find(term.namespaces.begin(), term.namespaces.end(), pod_ns) !=
      term.namespaces.end()) {
    return true;
  }
  const api::Selector& selector = term.namespace_selector;
  // No selector: the namespace list alone. An empty one selects every
  // namespace, known or not (kube keeps it as Everything, unmerged).
  if (selector.IsNothing()) return false;
  if (selector.IsEverything()) return true;
  return ns.SelectorMatches(selector, pod_ns);
}

bool IncomingMatchesAll(const std::vector<framework::AffinityTerm>& terms,
                        const framework::PodInfo& pod,
                        const NamespaceMatcher& ns) {
  if (terms.empty()) return false;
  for (const framework::AffinityTerm& term : terms) {
    if (!IncomingTermMatches(term, pod, ns)) return false;
  }
  return true;
}

void WritePreFilterState(framework::CycleState& cycle,
                         std::shared_ptr<PreFilterState> state) {
  cycle.Write(kPreFilterKey, std::move(state));
}

PreFilterState* ReadPreFilterState(const framework::CycleState& cycle) {
  return cycle.Read<PreFilterState>(kPreFilterKey);
}

void WritePreScoreState(framework::CycleState& cycle,
                        std::shared_ptr<PreScoreState> state) {
  cycle.Write(kPreScoreKey, std::move(state));
}

const PreScoreState* ReadPreScoreState(const framework::CycleState& cycle) {
  return cycle.Read<PreScoreState>(kPreScoreKey);
}

}  // namespace ksched::plugins::interpodaffinity

// The per-cycle data of InterPodAffinity: topology counts keyed by a compact
// (key index, value) pair, the namespace lookups namespaceSelector needs, and
// the CycleState entries PreFilter and PreScore write.
//
// Internal to the plugin (and its tests).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/api/label_selector.h"
#include "pkg/api/pod.h"
#include "pkg/api/string_map.h"
#include "pkg/framework/cycle_state.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/node_info.h"
#include "pkg/framework/pod_count_memo.h"
#include "pkg/framework/pod_info.h"

namespace ksched::plugins::interpodaffinity {

// The topology keys a cycle's counts use, interned to small indices: a cycle
// sees a handful of keys (hostname, zone, region), so a linear scan beats
// hashing, and a count then costs one integer instead of a second string.
class KeyTable {
 public:
  uint32_t Intern(std::string_view key);
  const std::string& operator[](uint32_t index) const { return keys_[index]; }
  uint32_t size() const { return static_cast<uint32_t>(keys_.size()); }

 private:
  std::vector<std::string> keys_;
};

// (topology key index, topology value) -> count (topologyToMatchedTermCount
// and scoreMap in kube). Lookups take a string_view, so Filter and Score find
// a node's count without building a string.
class TopologyCounts {
 public:
  // Adds `delta`; an entry back at zero is dropped (AddPod then RemovePod
  // must restore the original state, emptiness included).
  void Add(uint32_t key, std::string_view value, int64_t delta);
  int64_t Get(uint32_t key, std::string_view value) const;
  // As Get, reading the value only when its hash matches an entry's
  // (framework::LabelValue); 0 without a value.
  int64_t Get(uint32_t key, const framework::LabelValue& value) const;
  bool empty() const { return counts_.empty(); }
  size_t size() const { return counts_.size(); }

  // "key/value" -> count, for tests and debugging.
  std::map<std::pair<std::string, std::string>, int64_t> ToMap(
      const KeyTable& keys) const;

 private:
  struct Pair {
    uint32_t key;
    std::string value;
  };
  struct PairView {
    uint32_t key;
    std::string_view value;
  };
  struct PairHashed {
    uint32_t key;
    uint32_t value_hash;
    const std::string* value;
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(const Pair& p) const { return Of(p.key, p.value); }
    size_t operator()(const PairView& p) const { return Of(p.key, p.value); }
    size_t operator()(const PairHashed& p) const {
      return Mix(p.key, p.value_hash);
    }
    static size_t Of(uint32_t key, std::string_view value) {
      return Mix(key, framework::LabelValueHash(value));
    }
    static size_t Mix(uint32_t key, uint32_t value_hash);
  };
  struct Eq {
    using is_transparent = void;
    static std::string_view View(const Pair& p) { return p.value; }
    static std::string_view View(const PairView& p) { return p.value; }
    static std::string_view View(const PairHashed& p) { return *p.value; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return a.key == b.key && View(a) == View(b);
    }
  };
  std::unordered_map<Pair, int64_t, Hash, Eq> counts_;
};

// Which namespaces an incoming pod's namespaceSelector selects. kube merges
// the selector into the term's namespace list at PreFilter by listing every
// namespace; the Handle can only look namespaces up by name, so this asks
// for each namespace an existing pod lives in, once, and caches the answer.
// Thread-safe: PreFilter's and PreScore's workers share one.
class NamespaceMatcher {
 public:
  explicit NamespaceMatcher(const framework::Handle* handle)
      : handle_(handle) {}

  // Whether the namespace `ns` exists and its labels match `selector`.
  bool SelectorMatches(const api::Selector& selector,
                       std::string_view ns) const;

 private:
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  const framework::Handle* handle_;
  mutable std::mutex mu_;
  // Values keep their address across inserts (unordered_map guarantees it),
  // so a lookup may read them after the lock is released.
  mutable std::unordered_map<std::string, std::optional<api::StringMap>,
                             StringHash, std::equal_to<>>
      labels_;
};

// Whether a term of the incoming pod selects `pod`, with the term's
// namespaceSelector resolved as kube's merged namespace list would.
// A memo key (see pod_count_memo.h) for a per-node answer that depends
// only on the node's pods and on the incoming pod as existing pods' terms
// see it: its namespace, its labels and its namespace's labels. `question`
// names the answer; `extra` is anything else it depends on. 0 without
// `keys`.
uint32_t IncomingPodKey(framework::PodCountKeys* keys,
                        std::string_view question,
                        const framework::PodInfo& pod,
                        const api::StringMap& namespace_labels,
                        std::string_view extra = {});

bool IncomingTermMatches(const framework::AffinityTerm& term,
                         const framework::PodInfo& pod,
                         const NamespaceMatcher& ns);
// podMatchesAllAffinityTerms: false for no terms.
bool IncomingMatchesAll(const std::vector<framework::AffinityTerm>& terms,
                        const framework::PodInfo& pod,
                        const NamespaceMatcher& ns);

// PreFilter's result, read by Filter and updated by AddPod/RemovePod.
class PreFilterState final : public framework::StateData {
 public:
  // Deep: preemption's what-if runs AddPod/RemovePod on the copy. The
  // namespace cache is shared, as it only ever learns more answers.
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreFilterState>(*this);
  }

  KeyTable keys;
  // The key index of each required (anti-)affinity term of the incoming
  // pod, in the order of PodInfo's term lists.
  std::vector<uint32_t> affinity_keys;
  std::vector<uint32_t> anti_affinity_keys;
  // Existing pods whose required anti-affinity selects the incoming pod.
  TopologyCounts existing_anti_affinity;
  // The distinct keys ever added to existing_anti_affinity.
  std::vector<uint32_t> existing_anti_affinity_keys;
  // Existing pods that match all the incoming pod's required affinity terms
  // (counted once per term), and each of its required anti-affinity terms.
  TopologyCounts affinity;
  TopologyCounts anti_affinity;
  // The incoming pod matches all its own affinity terms (the first pod of a
  // group may then go where no pod matches yet).
  bool pod_matches_own_affinity = false;
  // The incoming pod's namespace labels, for existing pods'
  // namespaceSelectors (empty when the namespace is unknown, as kube).
  api::StringMap namespace_labels;
  std::shared_ptr<const NamespaceMatcher> namespaces;
};

// PreScore's result, read by Score and NormalizeScore. Immutable once
// written, so clones share it.
class PreScoreState final : public framework::StateData,
                            public std::enable_shared_from_this<PreScoreState> {
 public:
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<PreScoreState>(shared_from_this());
  }

  KeyTable keys;
  TopologyCounts scores;
};

void WritePreFilterState(framework::CycleState& cycle,
                         std::shared_ptr<PreFilterState> state);
// nullptr when PreFilter did not write one.
PreFilterState* ReadPreFilterState(const framework::CycleState& cycle);
void WritePreScoreState(framework::CycleState& cycle,
                        std::shared_ptr<PreScoreState> state);
const PreScoreState* ReadPreScoreState(const framework::CycleState& cycle);

// kube's messages for a missing state (framework.ErrNotFound).
inline constexpr std::string_view kPreFilterStateMissing =
    "error reading \"PreFilterInterPodAffinity\" from cycleState: not found";
inline constexpr std::string_view kPreScoreStateMissing =
    "failed to read \"PreScoreInterPodAffinity\" from cycleState: not found";

}  // namespace ksched::plugins::interpodaffinity

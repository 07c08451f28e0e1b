// PreFilter, its AddPod/RemovePod extensions, and Filter
// (interpodaffinity/filtering.go).
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "pkg/api/key_encoding.h"
#include "pkg/framework/snapshot.h"
#include "pkg/plugins/interpodaffinity/plugin.h"
#include "pkg/plugins/interpodaffinity/state.h"

namespace ksched::plugins {
namespace {

using framework::AffinityTerm;
using framework::NodeInfoPtr;
using framework::Status;
using interpodaffinity::PreFilterState;

// One node's contribution to a count: its topology value for a key.
struct Hit {
  std::string_view key;
  std::string_view value;
  int64_t count;
};

void AddExistingAntiAffinity(PreFilterState& state, std::string_view key,
                             std::string_view value, int64_t delta) {
  uint32_t k = state.keys.Intern(key);
  state.existing_anti_affinity.Add(k, value, delta);
  auto& keys = state.existing_anti_affinity_keys;
  if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
}

// How many required anti-affinity terms of the node's pods select the
// incoming pod; with `hits`, also those terms' domains, aggregated by key
// (one node has one value per key).
int32_t CountExistingTerms(const framework::NodeInfo& info,
                           const framework::PodInfo& pod,
                           const api::StringMap& namespace_labels,
                           std::vector<Hit>* hits) {
  const api::Node* node = info.node();
  if (node == nullptr) return 0;
  int32_t matching = 0;
  for (const framework::PodInfoPtr& existing :
       info.pods_with_required_anti_affinity()) {
    for (const AffinityTerm& term :
         existing->affinity().required_anti_affinity) {
      if (!term.Matches(pod, namespace_labels)) continue;
      ++matching;
      if (hits == nullptr) continue;
      const std::string* value = node->metadata.labels.Find(term.topology_key);
      if (value == nullptr) continue;
      auto it = std::find_if(hits->begin(), hits->end(), [&](const Hit& h) {
        return h.key == term.topology_key;
      });
      if (it != hits->end()) {
        ++it->count;
      } else {
        hits->push_back({term.topology_key, *value, 1});
      }
    }
  }
  return matching;
}

// Existing pods whose required anti-affinity selects the incoming pod, over
// the nodes that hold such pods (usually few).
void CountExistingAntiAffinity(framework::Handle& handle,
                               const framework::PodInfo& pod,
                               PreFilterState& state) {
  const framework::Snapshot& snapshot = handle.snapshot();
  const std::vector<NodeInfoPtr>& nodes =
      snapshot.nodes_with_required_anti_affinity_pods();
  if (nodes.empty()) return;
  // Per node, how many existing terms select the incoming pod. Usually
  // none, and then the memo lets the next pod of the same workload pass
  // the node without matching its terms again.
  const uint32_t memo_key = interpodaffinity::IncomingPodKey(
      snapshot.pod_count_keys(), "ExistingRequiredAntiAffinity", pod,
      state.namespace_labels);
  auto count = [&](const framework::NodeInfo& info) -> int32_t {
    if (info.pods_with_required_anti_affinity().empty()) return 0;
    if (std::optional<int32_t> n = info.pod_counts().Find(memo_key)) return *n;
    const int32_t matching =
        CountExistingTerms(info, pod, state.namespace_labels, nullptr);
    info.pod_counts().Store(memo_key, matching);
    return matching;
  };
  auto add_hits = [&](const framework::NodeInfo& info) {
    std::vector<Hit> hits;
    CountExistingTerms(info, pod, state.namespace_labels, &hits);
    for (const Hit& hit : hits) {
      AddExistingAntiAffinity(state, hit.key, hit.value, hit.count);
    }
  };
  // With such pods on a fair share of the nodes, the nodes that answered
  // before are known, and only those replaced since are asked again. With
  // few, a pass over those few costs less than the index's first pass
  // over every node for each new question.
  if (memo_key != 0 && nodes.size() >= snapshot.size() / 8) {
    for (const framework::NodeCount& n : snapshot.node_counts().Count(
             snapshot, memo_key, count, handle.parallelizer())) {
      add_hits(*snapshot.nodes()[n.position]);
    }
    return;
  }
  // Counted in parallel; the few nodes with hits are walked again for
  // their domains.
  std::vector<uint8_t> hit(nodes.size(), 0);
  handle.parallelizer().Until(static_cast<int>(nodes.size()), [&](int i) {
    hit[i] = count(*nodes[i]) != 0;
    return true;
  });
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (hit[i]) add_hits(*nodes[i]);
  }
}

// Appends `term` to a memo key, or returns false when whether a pod
// matches it depends on more than the pod: a namespace selector that is
// neither empty nor absent reads namespace labels, which change without
// the node's pods changing.
bool AppendTermKey(const AffinityTerm& term, std::string* key) {
  const api::Selector& ns_selector = term.namespace_selector;
  if (!ns_selector.IsNothing() && !ns_selector.IsEverything()) return false;
  key->append(ns_selector.IsEverything() ? "E" : "N");
  key->append(std::to_string(term.namespaces.size()));
  for (const std::string& n : term.namespaces) {
    key->push_back('/');
    api::AppendKeyField(key, n);
  }
  term.selector.AppendKey(key);
  return true;
}

// Memo keys (see pod_count_memo.h) for a node's count of pods matching all
// of `terms` (when `all`) or the one term; 0 when not memoisable.
uint32_t TermsKey(framework::PodCountKeys* keys,
                  std::span<const AffinityTerm> terms, bool all) {
  if (keys == nullptr || terms.empty()) return 0;
  std::string key = all ? "InterPodAffinity|all" : "InterPodAffinity|one";
  for (const AffinityTerm& term : terms) {
    key.push_back('|');
    if (!AppendTermKey(term, &key)) return 0;
  }
  return keys->Intern(key);
}

// Adds to the state a node's count of pods matching all the incoming pod's
// affinity terms (counted once per term)...
void AddAffinityCount(const framework::NodeInfo& info,
                      const framework::PodInfo& pod_info, int32_t count,
                      PreFilterState& state) {
  const auto& affinity = pod_info.affinity().required_affinity;
  const framework::NodeLabels labels = info.labels();
  for (size_t t = 0; t < affinity.size(); ++t) {
    const std::string* value = labels.Find(affinity[t].topology_key);
    if (value != nullptr) {
      state.affinity.Add(state.affinity_keys[t], *value, count);
    }
  }
}

// ...and its count of pods matching anti-affinity term j.
void AddAntiAffinityCount(const framework::NodeInfo& info,
                          const framework::PodInfo& pod_info, size_t j,
                          int32_t count, PreFilterState& state) {
  const std::string* value = info.labels().Find(
      pod_info.affinity().required_anti_affinity[j].topology_key);
  if (value != nullptr) {
    state.anti_affinity.Add(state.anti_affinity_keys[j], *value, count);
  }
}

// Existing pods matching the incoming pod's required terms, over all nodes,
// when every count has a memo key and `nodes` is the snapshot's list: each
// count (all affinity terms; each anti-affinity term) is one question of
// the snapshot's NodeCountIndex, so only the nodes replaced since the
// question was last asked are matched again. False when it cannot.
bool CountIncomingAffinityIndexed(framework::Handle& handle,
                                  const framework::PodInfo& pod_info,
                                  const std::vector<NodeInfoPtr>& nodes,
                                  std::span<const uint32_t> keys,
                                  PreFilterState& state) {
  const framework::Snapshot& snapshot = handle.snapshot();
  const auto& affinity = pod_info.affinity().required_affinity;
  const auto& anti = pod_info.affinity().required_anti_affinity;
  if (&nodes != &snapshot.nodes()) return false;
  if (!affinity.empty() && keys[0] == 0) return false;
  for (size_t j = 0; j < anti.size(); ++j) {
    if (keys[1 + j] == 0) return false;
  }
  const interpodaffinity::NamespaceMatcher& ns = *state.namespaces;
  // One column's question: how many of a node's pods `matches`.
  auto ask = [&](uint32_t key, const auto& matches) {
    return snapshot.node_counts().Count(
        snapshot, key,
        [&](const framework::NodeInfo& node) -> int32_t {
          if (node.node() == nullptr || node.pods().empty()) return 0;
          if (std::optional<int32_t> n = node.pod_counts().Find(key)) {
            return *n;
          }
          int32_t count = 0;
          for (const framework::PodInfoPtr& p : node.pods()) {
            count += matches(*p) ? 1 : 0;
          }
          node.pod_counts().Store(key, count);
          return count;
        },
        handle.parallelizer());
  };
  if (!affinity.empty()) {
    for (const framework::NodeCount& n :
         ask(keys[0], [&](const framework::PodInfo& p) {
           return interpodaffinity::IncomingMatchesAll(affinity, p, ns);
         })) {
      AddAffinityCount(*nodes[n.position], pod_info, n.count, state);
    }
  }
  for (size_t j = 0; j < anti.size(); ++j) {
    for (const framework::NodeCount& n :
         ask(keys[1 + j], [&](const framework::PodInfo& p) {
           return interpodaffinity::IncomingTermMatches(anti[j], p, ns);
         })) {
      AddAntiAffinityCount(*nodes[n.position], pod_info, j, n.count, state);
    }
  }
  return true;
}

// Existing pods matching the incoming pod's required terms, over all nodes.
// Each node counts into a row of a flat table (no allocation per node): how
// many of its pods match all affinity terms, and each anti-affinity term.
// Counts are memoised per node, so nodes unchanged since an earlier pod of
// the same workload are not matched again.
void CountIncomingAffinity(framework::Handle& handle,
                           const framework::PodInfo& pod_info,
                           const std::vector<NodeInfoPtr>& nodes,
                           PreFilterState& state) {
  const auto& affinity = pod_info.affinity().required_affinity;
  const auto& anti = pod_info.affinity().required_anti_affinity;
  if ((affinity.empty() && anti.empty()) || nodes.empty()) return;
  const interpodaffinity::NamespaceMatcher& ns = *state.namespaces;
  const size_t stride = 1 + anti.size();
  framework::PodCountKeys* memo_keys = handle.snapshot().pod_count_keys();
  // keys[0]: all affinity terms; keys[1 + j]: anti-affinity term j.
  std::vector<uint32_t> keys(stride, 0);
  keys[0] = TermsKey(memo_keys, affinity, /*all=*/true);
  for (size_t j = 0; j < anti.size(); ++j) {
    keys[1 + j] = TermsKey(memo_keys, std::span(&anti[j], 1), /*all=*/false);
  }
  if (CountIncomingAffinityIndexed(handle, pod_info, nodes, keys, state)) {
    return;
  }
  std::vector<int32_t> rows(nodes.size() * stride, 0);
  handle.parallelizer().Until(static_cast<int>(nodes.size()), [&](int i) {
    const framework::NodeInfo& node = *nodes[i];
    // A node without pods counts 0 for every term: no memo to consult.
    if (node.node() == nullptr || node.pods().empty()) return true;
    int32_t* row = &rows[i * stride];
    // A column is known when its terms are empty (count 0) or memoised.
    bool need_all = !affinity.empty();
    if (need_all) {
      if (auto n = node.pod_counts().Find(keys[0])) {
        row[0] = *n;
        need_all = false;
      }
    }
    bool need_any = need_all;
    uint64_t need_anti = 0;  // bit j: count term j (the first 64 memoised)
    for (size_t j = 0; j < anti.size(); ++j) {
      std::optional<int32_t> n =
          j < 64 ? node.pod_counts().Find(keys[1 + j]) : std::nullopt;
      if (n) {
        row[1 + j] = *n;
      } else {
        if (j < 64) need_anti |= uint64_t{1} << j;
        need_any = true;
      }
    }
    if (!need_any) return true;
    for (const framework::PodInfoPtr& existing : node.pods()) {
      const framework::PodInfo& p = *existing;
      if (need_all && interpodaffinity::IncomingMatchesAll(affinity, p, ns)) {
        ++row[0];
      }
      for (size_t j = 0; j < anti.size(); ++j) {
        const bool needed = j >= 64 || (need_anti >> j & 1);
        if (needed && interpodaffinity::IncomingTermMatches(anti[j], p, ns)) {
          ++row[1 + j];
        }
      }
    }
    if (need_all) node.pod_counts().Store(keys[0], row[0]);
    for (size_t j = 0; j < anti.size() && j < 64; ++j) {
      if (need_anti >> j & 1) node.pod_counts().Store(keys[1 + j], row[1 + j]);
    }
    return true;
  });
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int32_t* row = &rows[i * stride];
    if (std::all_of(row, row + stride, [](int32_t c) { return c == 0; })) {
      continue;
    }
    if (row[0] > 0) AddAffinityCount(*nodes[i], pod_info, row[0], state);
    for (size_t j = 0; j < anti.size(); ++j) {
      if (row[1 + j] > 0) {
        AddAntiAffinityCount(*nodes[i], pod_info, j, row[1 + j], state);
      }
    }
  }
}

// The node has no domain of a required affinity term, or no matching pod
// in it: the same status for every such node of a cycle.
Status NoAffinityDomain() {
  static const Status::Constant kNoDomain(
      framework::Code::kUnschedulableAndUnresolvable,
      std::string(kInterPodAffinityErrReasonAffinity),
      std::string(names::kInterPodAffinity));
  return kNoDomain.status();
}

}  // namespace

Status InterPodAffinity::PreFilter(framework::CycleState& cycle,
                                   const framework::PodInfo& pod_info,
                                   const std::vector<NodeInfoPtr>& nodes,
                                   framework::PreFilterResult* /*result*/) {
  // kube parses the pod here (framework.NewPodInfo) and refuses it.
  if (!pod_info.parse_error().empty()) {
    return Status::Unresolvable("parsing pod: " + pod_info.parse_error());
  }
  const auto& terms = pod_info.affinity();
  const bool has_required =
      !terms.required_affinity.empty() || !terms.required_anti_affinity.empty();
  // The common case, decided without building anything: kube would find
  // every count empty and skip too.
  if (!has_required &&
      handle_.snapshot().nodes_with_required_anti_affinity_pods().empty()) {
    return Status::Skip();
  }

  const framework::PodInfo& pod = pod_info;
  auto state = std::make_shared<PreFilterState>();
  if (const api::StringMap* labels = handle_.NamespaceLabels(pod.ns())) {
    state->namespace_labels = *labels;
  }
  state->namespaces =
      std::make_shared<interpodaffinity::NamespaceMatcher>(&handle_);
  for (const AffinityTerm& t : terms.required_affinity) {
    state->affinity_keys.push_back(state->keys.Intern(t.topology_key));
  }
  for (const AffinityTerm& t : terms.required_anti_affinity) {
    state->anti_affinity_keys.push_back(state->keys.Intern(t.topology_key));
  }

  CountExistingAntiAffinity(handle_, pod, *state);
  CountIncomingAffinity(handle_, pod_info, nodes, *state);

  if (state->existing_anti_affinity.empty() && !has_required) {
    return Status::Skip();
  }
  state->pod_matches_own_affinity = interpodaffinity::IncomingMatchesAll(
      terms.required_affinity, pod, *state->namespaces);
  interpodaffinity::WritePreFilterState(cycle, std::move(state));
  return Status();
}

Status InterPodAffinity::UpdateWithPod(framework::CycleState& cycle,
                                       const framework::PodInfo& pod,
                                       const framework::PodInfo& other,
                                       const framework::NodeInfo& node_info,
                                       int64_t multiplier) const {
  PreFilterState* state = interpodaffinity::ReadPreFilterState(cycle);
  if (state == nullptr) {
    return Status::Error(std::string(interpodaffinity::kPreFilterStateMissing));
  }
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status();
  const framework::NodeLabels labels = node_info.labels();

  for (const AffinityTerm& term : other.affinity().required_anti_affinity) {
    if (!term.Matches(pod, state->namespace_labels)) continue;
    if (const std::string* value = labels.Find(term.topology_key)) {
      AddExistingAntiAffinity(*state, term.topology_key, *value, multiplier);
    }
  }

  const auto& affinity = pod.affinity().required_affinity;
  const auto& anti = pod.affinity().required_anti_affinity;
  const interpodaffinity::NamespaceMatcher& ns = *state->namespaces;
  if (interpodaffinity::IncomingMatchesAll(affinity, other, ns)) {
    for (size_t t = 0; t < affinity.size(); ++t) {
      if (const std::string* value = labels.Find(affinity[t].topology_key)) {
        state->affinity.Add(state->affinity_keys[t], *value, multiplier);
      }
    }
  }
  for (size_t j = 0; j < anti.size(); ++j) {
    if (!interpodaffinity::IncomingTermMatches(anti[j], other, ns)) {
      continue;
    }
    if (const std::string* value = labels.Find(anti[j].topology_key)) {
      state->anti_affinity.Add(state->anti_affinity_keys[j], *value,
                               multiplier);
    }
  }
  return Status();
}

Status InterPodAffinity::AddPod(framework::CycleState& cycle,
                                const framework::PodInfo& pod,
                                const framework::PodInfoPtr& to_add,
                                const framework::NodeInfo& node) const {
  return UpdateWithPod(cycle, pod, *to_add, node, 1);
}

Status InterPodAffinity::RemovePod(framework::CycleState& cycle,
                                   const framework::PodInfo& pod,
                                   const framework::PodInfoPtr& to_remove,
                                   const framework::NodeInfo& node) const {
  return UpdateWithPod(cycle, pod, *to_remove, node, -1);
}

Status InterPodAffinity::Filter(const framework::CycleState& cycle,
                                const framework::PodInfo& pod,
                                const framework::NodeInfo& info) const {
  const api::Node* node = info.node();
  if (node == nullptr) return Status::Error("node not found");
  const PreFilterState* state = interpodaffinity::ReadPreFilterState(cycle);
  if (state == nullptr) {
    return Status::Error(std::string(interpodaffinity::kPreFilterStateMissing));
  }
  const framework::NodeLabels labels = info.labels();
  const auto& affinity = pod.affinity().required_affinity;
  const auto& anti = pod.affinity().required_anti_affinity;
  if (affinity.size() != state->affinity_keys.size() ||
      anti.size() != state->anti_affinity_keys.size()) {
    return Status::Error("PreFilter state was computed for another pod");
  }

  // Affinity: the node must carry every term's topology key, and each of
  // its domains must hold a matching pod...
  bool pods_exist = true;
  for (size_t t = 0; t < affinity.size(); ++t) {
    const framework::LabelValue value = labels.Lookup(affinity[t].topology_key);
    if (value.value == nullptr) {
      return NoAffinityDomain();
    }
    if (state->affinity.Get(state->affinity_keys[t], value) <= 0) {
      pods_exist = false;
    }
  }
  // ...unless no pod matches anywhere and the pod matches its own terms:
  // the first pod of a group that wants to be together must go somewhere.
  if (!pods_exist &&
      !(state->affinity.empty() && state->pod_matches_own_affinity)) {
    return NoAffinityDomain();
  }

  // Anti-affinity: no domain of the node may hold a matching pod. Evicting
  // those pods would help, hence Unschedulable.
  if (!state->anti_affinity.empty()) {
    for (size_t j = 0; j < anti.size(); ++j) {
      if (state->anti_affinity.Get(state->anti_affinity_keys[j],
                                   labels.Lookup(anti[j].topology_key)) > 0) {
        static const Status::Constant kAntiAffinity(
            framework::Code::kUnschedulable,
            std::string(kInterPodAffinityErrReasonAntiAffinity),
            std::string(names::kInterPodAffinity));
        return kAntiAffinity.status();
      }
    }
  }

  // Existing pods' anti-affinity: kube checks every node label against the
  // counts; only the keys the counts hold can hit, so look those up.
  if (!state->existing_anti_affinity.empty()) {
    for (uint32_t k : state->existing_anti_affinity_keys) {
      if (state->existing_anti_affinity.Get(k, labels.Lookup(state->keys[k])) >
          0) {
        static const Status::Constant kExisting(
            framework::Code::kUnschedulable,
            std::string(kInterPodAffinityErrReasonExisting),
            std::string(names::kInterPodAffinity));
        return kExisting.status();
      }
    }
  }
  return Status();
}

}  // namespace ksched::plugins

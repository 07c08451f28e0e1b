// Test helpers for PodTopologySpread: pods with spread constraints written
// as kube's st.MakePod().SpreadConstraint(...) writes them, clusters of
// nodes and pods, and plugin construction.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/config/types.h"
#include "pkg/framework/node_info.h"
#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/podtopologyspread/plugin.h"
#include "pkg/plugins/podtopologyspread/state.h"

namespace ksched::plugins::podtopologyspread::testutil {

using Action = api::UnsatisfiableConstraintAction;
inline constexpr Action kDoNotSchedule = Action::kDoNotSchedule;
inline constexpr Action kScheduleAnyway = Action::kScheduleAnyway;
inline constexpr api::NodeInclusionPolicy kHonor =
    api::NodeInclusionPolicy::kHonor;
inline constexpr api::NodeInclusionPolicy kIgnore =
    api::NodeInclusionPolicy::kIgnore;
inline constexpr const char* kHostname = "kubernetes.io/hostname";
inline constexpr const char* kZone = "topology.kubernetes.io/zone";
// The taint kube's tests put on nodes (v1.TaintNodeUnschedulable).
inline constexpr const char* kUnschedulableTaint =
    "node.kubernetes.io/unschedulable";

inline api::LabelSelector Exists(std::string key) {
  api::LabelSelector s;
  s.match_expressions.push_back(
      {std::move(key), api::LabelSelectorOperator::kExists, {}});
  return s;
}

inline api::LabelSelector MatchLabels(
    std::vector<std::pair<std::string, std::string>> labels) {
  api::LabelSelector s;
  for (auto& [k, v] : labels) s.match_labels.Set(k, v);
  return s;
}

inline const api::LabelSelector kFooSelector = Exists("foo");
inline const api::LabelSelector kBarSelector = Exists("bar");
inline const api::LabelSelector& kFoo = kFooSelector;
inline const api::LabelSelector& kBar = kBarSelector;

struct SpreadOptions {
  std::optional<int32_t> min_domains;
  std::optional<api::NodeInclusionPolicy> node_affinity_policy;
  std::optional<api::NodeInclusionPolicy> node_taints_policy;
  std::vector<std::string> match_label_keys;
};

// PodBuilder plus spread constraints with any selector.
class TestPod {
 public:
  explicit TestPod(std::string name) : b_(std::move(name)) {}

  TestPod& Label(std::string k, std::string v) {
    b_.Label(std::move(k), std::move(v));
    return *this;
  }
  TestPod& Namespace(std::string ns) {
    b_.Namespace(std::move(ns));
    return *this;
  }
  TestPod& Uid(std::string uid) {
    b_.Uid(std::move(uid));
    return *this;
  }
  TestPod& Node(std::string node) {
    b_.Node(std::move(node));
    return *this;
  }
  TestPod& NodeSelector(std::string k, std::string v) {
    b_.NodeSelector(std::move(k), std::move(v));
    return *this;
  }
  TestPod& NodeAffinityIn(std::string key, std::vector<std::string> values) {
    b_.NodeAffinityTerm(std::move(key), api::NodeSelectorOperator::kIn,
                        std::move(values));
    return *this;
  }
  TestPod& NodeAffinityNotIn(std::string key, std::vector<std::string> values) {
    b_.NodeAffinityTerm(std::move(key), api::NodeSelectorOperator::kNotIn,
                        std::move(values));
    return *this;
  }
  // st.MakePod().Toleration(key): Exists, any effect.
  TestPod& Toleration(std::string key) {
    b_.Toleration(std::move(key), "", api::TaintEffect::kNone,
                  api::TolerationOperator::kExists);
    return *this;
  }
  TestPod& Terminating() {
    b_.Terminating();
    return *this;
  }
  TestPod& Spread(int32_t max_skew, std::string key, Action action,
                  std::optional<api::LabelSelector> selector,
                  SpreadOptions opts = {}) {
    api::TopologySpreadConstraint c;
    c.max_skew = max_skew;
    c.topology_key = std::move(key);
    c.when_unsatisfiable = action;
    c.label_selector = std::move(selector);
    c.min_domains = opts.min_domains;
    c.node_affinity_policy = opts.node_affinity_policy;
    c.node_taints_policy = opts.node_taints_policy;
    c.match_label_keys = std::move(opts.match_label_keys);
    constraints_.push_back(std::move(c));
    return *this;
  }

  api::Pod Obj() const {
    api::Pod pod = b_.Obj();
    pod.spec.topology_spread_constraints = constraints_;
    return pod;
  }
  framework::PodInfoPtr Info() const {
    return framework::PodInfo::Create(std::make_shared<const api::Pod>(Obj()));
  }

 private:
  testing::PodBuilder b_;
  std::vector<api::TopologySpreadConstraint> constraints_;
};

// NodeBuilder with labels given as a list.
// An existing pod bound to `node` with the given labels.
inline api::Pod On(const std::string& name, const std::string& node,
                   std::vector<std::pair<std::string, std::string>> labels = {
                       {"foo", ""}}) {
  TestPod p(name);
  p.Node(node);
  for (auto& [k, v] : labels) p.Label(k, v);
  return p.Obj();
}

inline api::Node MakeNode(
    std::string name,
    std::vector<std::pair<std::string, std::string>> labels = {}) {
  testing::NodeBuilder b(std::move(name));
  for (auto& [k, v] : labels) b.Label(k, v);
  return b.Obj();
}

inline api::Node Tainted(api::Node node) {
  node.spec.taints.push_back(
      {kUnschedulableTaint, "", api::TaintEffect::kNoSchedule, std::nullopt});
  return node;
}

// NodeInfos for `nodes` (in order) holding the pods bound to them.
inline std::vector<framework::NodeInfoPtr> MakeCluster(
    const std::vector<api::Node>& nodes, const std::vector<api::Pod>& pods) {
  std::vector<framework::NodeInfoPtr> infos;
  for (const api::Node& node : nodes) {
    std::vector<api::Pod> on_node;
    for (const api::Pod& p : pods) {
      if (p.spec.node_name == node.metadata.name) on_node.push_back(p);
    }
    infos.push_back(testing::MakeNodeInfo(node, on_node));
  }
  return infos;
}

// A stand-in for kube's helper.DefaultSelector over fake Services (their
// selectors, merged when they match the pod) and ReplicaSets (by name,
// for the pod's controller owner).
struct FakeWorkloads {
  std::vector<std::map<std::string, std::string>> services;
  std::map<std::string, api::LabelSelector> replica_sets;

  PodTopologySpread::DefaultSelectorFn Fn() const {
    return [w = *this](const api::Pod& pod) {
      std::map<std::string, std::string> set;
      for (const auto& svc : w.services) {
        bool matches = true;
        for (const auto& [k, v] : svc) {
          const std::string* got = pod.metadata.labels.Find(k);
          if (got == nullptr || *got != v) matches = false;
        }
        if (matches) set.insert(svc.begin(), svc.end());
      }
      api::Selector selector;
      for (const auto& [k, v] : set) {
        (void)selector.Add(k, api::Selector::Op::kIn, {v});
      }
      for (const api::OwnerReference& owner : pod.metadata.owner_references) {
        if (owner.kind != "ReplicaSet") continue;
        auto it = w.replica_sets.find(owner.name);
        if (it == w.replica_sets.end()) continue;
        auto rs = api::Selector::FromLabelSelector(&it->second);
        for (const auto& r : rs->requirements()) {
          (void)selector.Add(r.key, r.op, r.values);
        }
      }
      return selector;
    };
  }
};

inline api::Pod OwnedByReplicaSet(api::Pod pod, std::string rs) {
  api::OwnerReference ref;
  ref.api_version = "apps/v1";
  ref.kind = "ReplicaSet";
  ref.name = std::move(rs);
  ref.controller = true;
  pod.metadata.owner_references.push_back(std::move(ref));
  return pod;
}

inline config::PodTopologySpreadArgs ListArgs(
    std::vector<api::TopologySpreadConstraint> defaults = {}) {
  config::PodTopologySpreadArgs args;
  args.defaulting_type = config::PodTopologySpreadDefaulting::kList;
  args.default_constraints = std::move(defaults);
  return args;
}

inline api::TopologySpreadConstraint DefaultConstraint(int32_t max_skew,
                                                       std::string key,
                                                       Action action) {
  api::TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = std::move(key);
  c.when_unsatisfiable = action;
  return c;
}

// The plugin as the factory builds it, with a workload selector function
// standing in for the listers ksched does not have.
inline std::unique_ptr<PodTopologySpread> MakePlugin(
    framework::Handle& handle,
    const config::PodTopologySpreadArgs& args = ListArgs(),
    PodTopologySpread::DefaultSelectorFn selector = nullptr) {
  auto plugin =
      NewPodTopologySpreadWithSelector(&args, handle, std::move(selector));
  if (!plugin.ok()) return nullptr;
  return std::unique_ptr<PodTopologySpread>(
      dynamic_cast<PodTopologySpread*>(plugin->release()));
}

// ---- canonical descriptions, so a failed comparison shows a readable diff

inline std::string DescribeSelector(const api::Selector& s) {
  if (s.IsNothing()) return "<nothing>";
  std::vector<std::string> parts;
  for (const auto& r : s.requirements()) {
    static constexpr const char* kOps[] = {"in",      "notin", "exists",
                                           "!exists", "gt",    "lt"};
    std::string part = r.key + " " + kOps[static_cast<int>(r.op)];
    if (!r.values.empty()) {
      part += " (";
      for (size_t i = 0; i < r.values.size(); ++i) {
        part += (i ? "," : "") + r.values[i];
      }
      part += ")";
    }
    parts.push_back(std::move(part));
  }
  std::sort(parts.begin(), parts.end());  // order does not change meaning
  std::string out = "{";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + "}";
}

inline std::string DescribeSelector(
    const std::optional<api::LabelSelector>& selector) {
  auto s = api::Selector::FromLabelSelector(selector ? &*selector : nullptr);
  return s.ok() ? DescribeSelector(*s) : "<error " + s.error().message() + ">";
}

inline const char* PolicyName(api::NodeInclusionPolicy p) {
  switch (p) {
    case api::NodeInclusionPolicy::kHonor:
      return "Honor";
    case api::NodeInclusionPolicy::kIgnore:
      return "Ignore";
    case api::NodeInclusionPolicy::kOther:
      break;
  }
  return "Other";
}

inline std::string DescribeConstraint(int32_t max_skew, const std::string& key,
                                      const std::string& selector,
                                      int32_t min_domains,
                                      api::NodeInclusionPolicy affinity,
                                      api::NodeInclusionPolicy taints) {
  return "maxSkew=" + std::to_string(max_skew) + " key=" + key +
         " selector=" + selector +
         " minDomains=" + std::to_string(min_domains) +
         " affinity=" + PolicyName(affinity) + " taints=" + PolicyName(taints);
}

inline std::string DescribeConstraint(const Constraint& c) {
  return DescribeConstraint(c.max_skew, c.topology_key,
                            DescribeSelector(c.selector), c.min_domains,
                            c.node_affinity_policy, c.node_taints_policy);
}

inline std::string DescribeCounts(const std::map<std::string, int64_t>& m) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : m) {
    out += (first ? "" : " ") + k + ":" + std::to_string(v);
    first = false;
  }
  return out + "}";
}

using Path = std::pair<std::string, int64_t>;
inline constexpr int64_t kUnset = CriticalPaths::kUnset;

// Paths with equal counts are ordered by value, as kube's test does.
inline std::string DescribePaths(Path p0, Path p1) {
  if (p0.second == p1.second && p0.first > p1.first) std::swap(p0, p1);
  return "[" + p0.first + ":" + std::to_string(p0.second) + " " + p1.first +
         ":" + std::to_string(p1.second) + "]";
}

// One DoNotSchedule constraint as PreFilter should leave it.
struct WantDomains {
  int32_t max_skew = 1;
  std::string key;
  std::optional<api::LabelSelector> selector;  // nullopt: nothing
  std::map<std::string, int64_t> match_num;
  Path path0{"", kUnset};
  Path path1{"", kUnset};
  int32_t min_domains = 1;
  api::NodeInclusionPolicy affinity = kHonor;
  api::NodeInclusionPolicy taints = kIgnore;
};

inline std::string Describe(const WantDomains& w) {
  return DescribeConstraint(w.max_skew, w.key, DescribeSelector(w.selector),
                            w.min_domains, w.affinity, w.taints) +
         " matchNum=" + DescribeCounts(w.match_num) +
         " paths=" + DescribePaths(w.path0, w.path1);
}

inline std::string Describe(const std::vector<WantDomains>& want) {
  std::string out;
  for (const WantDomains& w : want) out += Describe(w) + "\n";
  return out;
}

inline std::string Describe(const PreFilterState& s) {
  std::string out;
  for (size_t i = 0; i < s.constraints->size(); ++i) {
    const DomainCounts& dc = s.counts[i];
    std::map<std::string, int64_t> m;
    for (int32_t id = 0; id < dc.domains->size(); ++id) {
      m[std::string(dc.domains->value(id))] = dc.match_num[id];
    }
    auto path = [&](const CriticalPaths::Path& p) {
      return Path{p.domain < 0 ? "" : std::string(dc.domains->value(p.domain)),
                  p.match_num};
    };
    out += DescribeConstraint((*s.constraints)[i]) +
           " matchNum=" + DescribeCounts(m) + " paths=" +
           DescribePaths(path(dc.critical_paths.paths[0]),
                         path(dc.critical_paths.paths[1])) +
           "\n";
  }
  return out;
}

// A gtest-safe test name from a kube case name.
inline std::string CaseName(size_t index, const std::string& name) {
  std::string out = std::to_string(index) + "_";
  for (char c : name) {
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return out;
}

}  // namespace ksched::plugins::podtopologyspread::testutil

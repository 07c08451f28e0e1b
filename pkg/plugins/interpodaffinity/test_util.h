// Builders for the InterPodAffinity tests, shaped after the Go tests'
// st.MakePod().PodAffinityIn(...) helpers and literal v1.Pod objects.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/pod.h"
#include "pkg/framework/node_info.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/testing/fake_handle.h"

namespace ksched::plugins::interpodaffinity::test {

using Labels = std::vector<std::pair<std::string, std::string>>;
using Op = api::LabelSelectorOperator;
using Exprs = std::vector<api::LabelSelectorRequirement>;

// A parameterized case's test name: its index and the first 80 characters
// of its name, as GoogleTest allows them.
template <typename Case>
std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string out = std::to_string(info.index) + "_";
  for (char ch : info.param.name.substr(0, 80)) {
    out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return out;
}

// The namespaces of the Go tests' `namespaces` fixture.
inline void AddNamespaces(testing::FakeHandle& handle) {
  handle.namespace_labels["subteam1.team1"].Set("team", "team1");
  handle.namespace_labels["subteam2.team1"].Set("team", "team1");
  handle.namespace_labels["subteam1.team2"].Set("team", "team2");
  handle.namespace_labels["subteam2.team2"].Set("team", "team2");
}

// The Go tests' defaultNamespace ("") is "default" here, as PodBuilder's.
inline constexpr const char* kDefaultNs = "default";

inline api::LabelSelectorRequirement Req(std::string key, Op op,
                                         std::vector<std::string> values = {}) {
  return {std::move(key), op, std::move(values)};
}

// A term selecting pods by matchExpressions within `topology_key`.
inline api::PodAffinityTerm Term(std::string topology_key, Exprs exprs) {
  api::PodAffinityTerm t;
  t.topology_key = std::move(topology_key);
  t.label_selector.emplace().match_expressions = std::move(exprs);
  return t;
}
inline api::PodAffinityTerm In(std::string key, std::string topology_key,
                               std::vector<std::string> values) {
  return Term(std::move(topology_key),
              {Req(std::move(key), Op::kIn, std::move(values))});
}
inline api::PodAffinityTerm NotIn(std::string key, std::string topology_key,
                                  std::vector<std::string> values) {
  return Term(std::move(topology_key),
              {Req(std::move(key), Op::kNotIn, std::move(values))});
}
inline api::PodAffinityTerm Exists(std::string key, std::string topology_key) {
  return Term(std::move(topology_key), {Req(std::move(key), Op::kExists)});
}
inline api::PodAffinityTerm Namespaces(api::PodAffinityTerm t,
                                       std::vector<std::string> ns) {
  t.namespaces = std::move(ns);
  return t;
}
// An empty `exprs` gives the empty selector (every namespace).
inline api::PodAffinityTerm NamespaceSelector(api::PodAffinityTerm t,
                                              Exprs exprs) {
  t.namespace_selector.emplace().match_expressions = std::move(exprs);
  return t;
}

class P {
 public:
  explicit P(std::string name = "pod") {
    static int next_uid = 0;
    pod_.metadata.name = std::move(name);
    pod_.metadata.ns = kDefaultNs;
    pod_.metadata.uid =
        pod_.metadata.name + "-uid-" + std::to_string(next_uid++);
  }
  P& Ns(std::string ns) {
    pod_.metadata.ns = std::move(ns);
    return *this;
  }
  P& Label(std::string key, std::string value) {
    pod_.metadata.labels.Set(key, std::move(value));
    return *this;
  }
  P& Labels(const test::Labels& labels) {
    for (const auto& [k, v] : labels) pod_.metadata.labels.Set(k, v);
    return *this;
  }
  P& Node(std::string node) {
    pod_.spec.node_name = std::move(node);
    return *this;
  }
  P& Affinity(api::PodAffinityTerm t) {
    Mutable(false).required.push_back(std::move(t));
    return *this;
  }
  P& AntiAffinity(api::PodAffinityTerm t) {
    Mutable(true).required.push_back(std::move(t));
    return *this;
  }
  P& Preferred(int32_t weight, api::PodAffinityTerm t) {
    Mutable(false).preferred.push_back({weight, std::move(t)});
    return *this;
  }
  P& PreferredAnti(int32_t weight, api::PodAffinityTerm t) {
    Mutable(true).preferred.push_back({weight, std::move(t)});
    return *this;
  }
  // Sets the whole affinity (the Go tests share v1.Affinity values).
  P& WithAffinity(const api::Affinity& a) {
    pod_.spec.affinity = a;
    return *this;
  }
  api::Pod Obj() const { return pod_; }
  framework::PodInfoPtr Info() const {
    return framework::PodInfo::Create(std::make_shared<const api::Pod>(pod_));
  }

 private:
  api::PodAffinity& Mutable(bool anti) {
    if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
    auto& target = anti ? pod_.spec.affinity->pod_anti_affinity
                        : pod_.spec.affinity->pod_affinity;
    if (!target) target.emplace();
    return *target;
  }
  api::Pod pod_;
};

inline api::Node N(std::string name, const Labels& labels = {}) {
  api::Node node;
  node.metadata.name = std::move(name);
  for (const auto& [k, v] : labels) node.metadata.labels.Set(k, v);
  return node;
}

// cache.NewSnapshot(pods, nodes): a NodeInfo per node, in order, holding the
// pods bound to it; pods bound to an unlisted node land on a NodeInfo
// without a node, appended after the listed ones.
inline std::vector<framework::NodeInfoPtr> MakeSnapshot(
    const std::vector<api::Pod>& pods, const std::vector<api::Node>& nodes) {
  std::vector<framework::NodeInfoPtr> infos;
  std::vector<std::string> names;
  for (const api::Node& n : nodes) {
    auto info = std::make_shared<framework::NodeInfo>();
    info->SetNode(std::make_shared<const api::Node>(n));
    infos.push_back(info);
    names.push_back(n.metadata.name);
  }
  for (const api::Pod& p : pods) {
    size_t i = 0;
    while (i < names.size() && names[i] != p.spec.node_name) ++i;
    if (i == names.size()) {
      infos.push_back(std::make_shared<framework::NodeInfo>());
      names.push_back(p.spec.node_name);
    }
    // As the cache keeps running pods.
    infos[i]->AddPod(framework::PodInfo::CreateBound(p));
  }
  return infos;
}

}  // namespace ksched::plugins::interpodaffinity::test

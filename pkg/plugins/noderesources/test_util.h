// Test-only builders shared by this folder's tests, after kube-scheduler's
// noderesources test helpers (newResourcePod, makeNode, the st.MakePod /
// st.MakeNode wrappers) so the ported tables read like the Go ones.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/pod.h"
#include "pkg/config/types.h"
#include "pkg/framework/cycle_state.h"
#include "pkg/framework/interface.h"
#include "pkg/framework/node_info.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins::noderesources_test {

// One container's requests, as framework.Resource in kube's tests.
struct Usage {
  Usage() = default;
  Usage(int64_t cpu, int64_t mem, int64_t storage = 0,
        std::vector<std::pair<std::string, int64_t>> scalar = {})
      : milli_cpu(cpu),
        memory(mem),
        ephemeral_storage(storage),
        scalars(std::move(scalar)) {}

  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  std::vector<std::pair<std::string, int64_t>> scalars;
};

inline api::Container UsageContainer(const Usage& u, const std::string& name) {
  api::Container c;
  c.name = name;
  // Like newResourcePod, every field is requested, zeros included.
  c.resources.requests.Set("cpu", api::Quantity::FromMilli(u.milli_cpu));
  c.resources.requests.Set(
      "memory",
      api::Quantity::FromValue(u.memory, api::Quantity::Format::kBinarySI));
  c.resources.requests.Set("pods", api::Quantity::FromValue(0));
  c.resources.requests.Set(
      "ephemeral-storage",
      api::Quantity::FromValue(u.ephemeral_storage,
                               api::Quantity::Format::kBinarySI));
  for (const auto& [n, v] : u.scalars) {
    c.resources.requests.Set(n, api::Quantity::FromValue(v));
  }
  return c;
}

// newResourcePod: one app container per usage.
inline api::Pod ResourcePod(const std::vector<Usage>& usage) {
  api::Pod pod;
  pod.metadata.name = "pod";
  pod.metadata.ns = "default";
  pod.metadata.uid = "pod-uid";
  for (size_t i = 0; i < usage.size(); ++i) {
    pod.spec.containers.push_back(
        UsageContainer(usage[i], "c" + std::to_string(i)));
  }
  return pod;
}

// newResourceInitPod: one init container per usage.
inline api::Pod WithInit(api::Pod pod, const std::vector<Usage>& usage) {
  pod.spec.init_containers.clear();
  for (size_t i = 0; i < usage.size(); ++i) {
    pod.spec.init_containers.push_back(
        UsageContainer(usage[i], "init" + std::to_string(i)));
  }
  return pod;
}

// makeNode / makeNodeWithExtendedResource of test_util.go.
inline api::Node MakeNode(const std::string& name, int64_t milli_cpu,
                          int64_t memory,
                          const std::map<std::string, int64_t>& extended = {}) {
  api::Node node;
  node.metadata.name = name;
  api::ResourceList list;
  list.Set("cpu", api::Quantity::FromMilli(milli_cpu));
  list.Set("memory",
           api::Quantity::FromValue(memory, api::Quantity::Format::kBinarySI));
  for (const auto& [n, v] : extended) {
    list.Set(n, api::Quantity::FromValue(v));
  }
  node.status.capacity = list;
  node.status.allocatable = list;
  return node;
}

// st.MakeNode().Name(n).Capacity(c): kube's wrapper adds 32 pods.
inline api::Node CapacityNode(const std::string& name,
                              testing::ResourcePairs capacity) {
  capacity.emplace_back("pods", "32");
  return testing::NodeBuilder(name).Capacity(capacity).Obj();
}

// st.MakePod().Req(r1).Req(r2)...: one container per request list, with an
// optional node assignment.
inline api::Pod ReqPod(const std::vector<testing::ResourcePairs>& requests,
                       const std::string& node = "") {
  testing::PodBuilder b("pod");
  for (const auto& r : requests) b.Req(r);
  if (!node.empty()) b.Node(node);
  return b.Obj();
}

// cache.NewSnapshot(pods, nodes): each node with the pods naming it.
inline std::vector<framework::NodeInfoPtr> BuildNodeInfos(
    const std::vector<api::Node>& nodes, const std::vector<api::Pod>& pods) {
  std::vector<framework::NodeInfoPtr> out;
  int uid = 0;
  for (const api::Node& n : nodes) {
    std::vector<api::Pod> on_node;
    for (api::Pod p : pods) {
      if (p.spec.node_name != n.metadata.name) continue;
      p.metadata.name = "existing-" + std::to_string(uid);
      p.metadata.uid = "existing-uid-" + std::to_string(uid++);
      on_node.push_back(std::move(p));
    }
    out.push_back(testing::MakeNodeInfo(n, on_node));
  }
  return out;
}

// PreScore (when asked) then Score on every node, as kube's score tests do.
// Returns the scores; every status is expected to have `want_code`.
inline std::vector<int64_t> ScoreAll(
    framework::Plugin& plugin, const api::Pod& pod,
    const std::vector<framework::NodeInfoPtr>& nodes, bool run_pre_score,
    framework::Code want_code = framework::Code::kSuccess) {
  auto* pre_score = dynamic_cast<framework::PreScorePlugin*>(&plugin);
  auto* scorer = dynamic_cast<framework::ScorePlugin*>(&plugin);
  EXPECT_NE(pre_score, nullptr);
  EXPECT_NE(scorer, nullptr);
  std::vector<int64_t> scores;
  if (pre_score == nullptr || scorer == nullptr) return scores;
  auto info = framework::PodInfo::Create(std::make_shared<const api::Pod>(pod));
  framework::CycleState state;
  if (run_pre_score) {
    framework::Status s = pre_score->PreScore(state, *info, nodes);
    EXPECT_EQ(framework::CodeName(s.code()), "Success") << s.Message();
  }
  for (const framework::NodeInfoPtr& n : nodes) {
    int64_t score = -1;
    framework::Status s = scorer->Score(state, *info, *n, &score);
    EXPECT_EQ(framework::CodeName(s.code()), framework::CodeName(want_code))
        << n->name() << ": " << s.Message();
    scores.push_back(score);
  }
  return scores;
}

inline const std::vector<config::ResourceSpec>& DefaultResources() {
  static const std::vector<config::ResourceSpec> kSpec = {{"cpu", 1},
                                                          {"memory", 1}};
  return kSpec;
}

inline constexpr const char* kExtendedRes = "abc.com/xyz";

inline const std::vector<config::ResourceSpec>& ExtendedResourceSet() {
  static const std::vector<config::ResourceSpec> kSpec = {
      {"cpu", 1}, {"memory", 1}, {kExtendedRes, 1}};
  return kSpec;
}

}  // namespace ksched::plugins::noderesources_test

// Helpers shared by the cache tests: kube's makeBasePod and a NodeInfo
// expectation that reads like the tables of kube's cache_test.go.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "pkg/framework/node_info.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::cache::test {

struct Port {
  int32_t host_port = 0;
  std::string ip = "127.0.0.1";
  std::string protocol = "TCP";
};

// A pod on `node` with one container requesting cpu/mem (and `extended`
// "name:value") and exposing `ports`; its UID is its name.
inline framework::PodInfoPtr MakeBasePod(const std::string& node,
                                         const std::string& name,
                                         const std::string& cpu,
                                         const std::string& mem,
                                         const std::string& extended = "",
                                         const std::vector<Port>& ports = {}) {
  ksched::testing::ResourcePairs req;
  if (!cpu.empty()) {
    req.push_back({"cpu", cpu});
    req.push_back({"memory", mem});
    if (!extended.empty()) {
      auto colon = extended.find(':');
      req.push_back({extended.substr(0, colon), extended.substr(colon + 1)});
    }
  }
  ksched::testing::PodBuilder b(name);
  b.Namespace("node_info_cache_test").Uid(name).Node(node).Req(req);
  for (const Port& p : ports) {
    if (p.host_port > 0) b.ContainerPort(p.host_port, p.protocol, p.ip);
  }
  return b.Info();
}

inline std::vector<std::string> PodNames(const framework::NodeInfo& info) {
  std::vector<std::string> names;
  for (const auto& p : info.pods()) names.push_back(p->name());
  std::sort(names.begin(), names.end());
  return names;
}

struct WantNodeInfo {
  int64_t cpu = 0;
  int64_t mem = 0;
  int64_t non_zero_cpu = 0;
  int64_t non_zero_mem = 0;
  std::vector<std::string> pods;  // sorted names
  std::vector<Port> ports;        // every used port (count checked too)
};

inline void ExpectNodeInfo(const framework::NodeInfo* got,
                           const WantNodeInfo& want) {
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->requested().milli_cpu, want.cpu);
  EXPECT_EQ(got->requested().memory, want.mem);
  EXPECT_EQ(got->non_zero_requested().milli_cpu, want.non_zero_cpu);
  EXPECT_EQ(got->non_zero_requested().memory, want.non_zero_mem);
  EXPECT_EQ(PodNames(*got), want.pods);
  EXPECT_EQ(got->used_ports().size(), want.ports.size());
  for (const Port& p : want.ports) {
    EXPECT_TRUE(got->used_ports().CheckConflict(p.ip, p.protocol, p.host_port))
        << p.ip << ":" << p.host_port;
  }
}

}  // namespace ksched::cache::test

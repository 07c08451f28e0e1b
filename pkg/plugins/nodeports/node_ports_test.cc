#include "pkg/plugins/nodeports/node_ports.h"

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins {
namespace {

using framework::Code;

// kube's newPod helper: each port as "PROTOCOL/hostIP/hostPort".
api::Pod NewPod(const std::vector<std::string>& ports) {
  testing::PodBuilder b("p");
  for (const std::string& spec : ports) {
    std::istringstream in(spec);
    std::string protocol, ip, port;
    std::getline(in, protocol, '/');
    std::getline(in, ip, '/');
    std::getline(in, port, '/');
    b.ContainerPort(std::stoi(port), protocol, ip);
  }
  return b.Obj();
}

// A pod whose only host port is on an init container: a sidecar
// (restartPolicy Always) when `sidecar`, else a plain init container.
api::Pod InitContainerPortPod(bool sidecar, int32_t host_port) {
  api::Pod pod = testing::PodBuilder("p").Obj();
  api::Container init;
  init.name = "init";
  if (sidecar) init.restart_policy = "Always";
  api::ContainerPort port;
  port.container_port = host_port;
  port.host_port = host_port;
  port.protocol = "TCP";
  init.ports.push_back(port);
  pod.spec.init_containers.push_back(init);
  return pod;
}

const char* const kReason =
    "node(s) didn't have free ports for the requested pod ports";

// "<index>_<case name>" with what gtest does not allow in names as '_'.
template <typename Case>
std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string out = std::to_string(info.index) + "_";
  for (char ch : info.param.name) {
    out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return out;
}

struct FilterCase {
  std::string name{};
  api::Pod pod{};
  std::vector<api::Pod> existing{};
  Code pre_filter_code = Code::kSuccess;
  Code filter_code = Code::kSuccess;
  std::string filter_reason{};
  friend void PrintTo(const FilterCase& c, std::ostream* os) { *os << c.name; }
};

// Cases from kube-scheduler's TestNodePorts, plus the protocol and address
// defaults and container ports without a host port.
std::vector<FilterCase> FilterCases() {
  const Code kReject = Code::kUnschedulable;
  return {
      {.name = "skip filter",
       .pod = testing::PodBuilder("p").Obj(),
       .pre_filter_code = Code::kSkip},
      {.name = "container ports without host ports skip the filter too",
       .pod = testing::PodBuilder("p").ContainerPort(0, "TCP", "", 8080).Obj(),
       .existing = {NewPod({"TCP/0.0.0.0/8080"})},
       .pre_filter_code = Code::kSkip},
      {.name = "other port",
       .pod = NewPod({"UDP/127.0.0.1/8080"}),
       .existing = {NewPod({"UDP/127.0.0.1/9090"})}},
      {.name = "same udp port",
       .pod = NewPod({"UDP/127.0.0.1/8080"}),
       .existing = {NewPod({"UDP/127.0.0.1/8080"})},
       .filter_code = kReject,
       .filter_reason = kReason},
      {.name = "same tcp port",
       .pod = NewPod({"TCP/127.0.0.1/8080"}),
       .existing = {NewPod({"TCP/127.0.0.1/8080"})},
       .filter_code = kReject,
       .filter_reason = kReason},
      {.name = "different host ip",
       .pod = NewPod({"TCP/127.0.0.1/8080"}),
       .existing = {NewPod({"TCP/127.0.0.2/8080"})}},
      {.name = "different protocol",
       .pod = NewPod({"UDP/127.0.0.1/8080"}),
       .existing = {NewPod({"TCP/127.0.0.1/8080"})}},
      {.name = "second udp port conflict",
       .pod = NewPod({"UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"}),
       .existing = {NewPod({"UDP/127.0.0.1/8080"})},
       .filter_code = kReject,
       .filter_reason = kReason},
      {.name = "first tcp port conflict",
       .pod = NewPod({"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"}),
       .existing = {NewPod({"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"})},
       .filter_code = kReject,
       .filter_reason = kReason},
      {.name = "first tcp port conflict due to 0.0.0.0 hostIP",
       .pod = NewPod({"TCP/0.0.0.0/8001"}),
       .existing = {NewPod({"TCP/127.0.0.1/8001"})},
       .filter_code = kReject,
       .filter_reason = kReason},
      {.name = "TCP hostPort conflict due to 0.0.0.0 hostIP",
       .pod = NewPod({"TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"}),
       .existing = {NewPod({"TCP/127.0.0.1/8001"})},
       .filter_code = kReject,
       .filter_reason = kReason},
      {.name = "second tcp port conflict to 0.0.0.0 hostIP",
       .pod = NewPod({"TCP/127.0.0.1/8001"}),
       .existing = {NewPod({"TCP/0.0.0.0/8001"})},
       .filter_code = kReject,
       .filter_reason = kReason},
      {.name = "second different protocol",
       .pod = NewPod({"UDP/127.0.0.1/8001"}),
       .existing = {NewPod({"TCP/0.0.0.0/8001"})}},
      {.name = "UDP hostPort conflict due to 0.0.0.0 hostIP",
       .pod = NewPod({"UDP/127.0.0.1/8001"}),
       .existing = {NewPod({"TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"})},
       .filter_code = kReject,
       .filter_reason = kReason},
      {.name = "an empty protocol means TCP",
       .pod = NewPod({"/127.0.0.1/8001"}),
       .existing = {NewPod({"TCP/127.0.0.1/8001"})},
       .filter_code = kReject,
       .filter_reason = kReason},
      {.name = "an empty host IP means 0.0.0.0",
       .pod = NewPod({"TCP//8001"}),
       .existing = {NewPod({"TCP/10.1.2.3/8001"})},
       .filter_code = kReject,
       .filter_reason = kReason},
      // v1.34 on: a sidecar's host ports count, a plain init container's
      // do not (it has ended before the pod runs).
      {.name = "non-sidecar initContainer using hostPort",
       .pod = InitContainerPortPod(false, 8001),
       .existing = {NewPod({"TCP/0.0.0.0/8001"})},
       .pre_filter_code = Code::kSkip},
      {.name = "TCP hostPort conflict from sidecar initContainer",
       .pod = InitContainerPortPod(true, 8001),
       .existing = {NewPod({"TCP/0.0.0.0/8001"})},
       .filter_code = kReject,
       .filter_reason = kReason},
      {.name = "a sidecar already on the node holds its host port",
       .pod = NewPod({"TCP/0.0.0.0/8001"}),
       .existing = {InitContainerPortPod(true, 8001)},
       .filter_code = kReject,
       .filter_reason = kReason},
      {.name = "a plain init container on the node holds no port",
       .pod = NewPod({"TCP/0.0.0.0/8001"}),
       .existing = {InitContainerPortPod(false, 8001)}},
  };
}

class NodePortsFilterTest : public ::testing::TestWithParam<FilterCase> {};

TEST_P(NodePortsFilterTest, PreFilterAndFilter) {
  const FilterCase& c = GetParam();
  testing::FakeHandle handle;
  auto plugin = NewNodePorts(nullptr, handle);
  ASSERT_TRUE(plugin.ok());
  auto* pre_filter = dynamic_cast<framework::PreFilterPlugin*>(plugin->get());
  auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin->get());
  ASSERT_NE(pre_filter, nullptr);
  ASSERT_NE(filter, nullptr);
  auto node =
      testing::MakeNodeInfo(testing::NodeBuilder("m1").Obj(), c.existing);
  auto pod =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(c.pod));
  framework::CycleState state;
  framework::PreFilterResult result;
  framework::Status s = pre_filter->PreFilter(state, *pod, {node}, &result);
  EXPECT_EQ(framework::CodeName(s.code()),
            framework::CodeName(c.pre_filter_code));
  EXPECT_TRUE(result.AllNodes());
  if (s.IsSkip()) return;
  s = filter->Filter(state, *pod, *node);
  EXPECT_EQ(framework::CodeName(s.code()), framework::CodeName(c.filter_code));
  EXPECT_EQ(s.Message(), c.filter_reason);
  // nodeports.Fits agrees with Filter.
  EXPECT_EQ(NodePortsFit(c.pod, *node), c.filter_code == Code::kSuccess);
}

INSTANTIATE_TEST_SUITE_P(TestNodePorts, NodePortsFilterTest,
                         ::testing::ValuesIn(FilterCases()),
                         CaseName<FilterCase>);

// kube-scheduler's TestPreFilterDisabled.
TEST(NodePortsTest, FilterWithoutPreFilterIsAnError) {
  NodePorts plugin;
  framework::CycleState state;
  auto node = testing::MakeNodeInfo(testing::NodeBuilder("n").Obj());
  framework::Status s =
      plugin.Filter(state, *testing::PodBuilder("p").Info(), *node);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "reading \"PreFilterNodePorts\" from cycleState: not found");
}

TEST(NodePortsTest, EventsToRegister) {
  NodePorts plugin;
  auto events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.Label(), "Pod/Delete");
  EXPECT_EQ(events[1].event.Label(), "Node/Add");
}

}  // namespace
}  // namespace ksched::plugins

#include "pkg/extender/wire.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "pkg/api/codec.h"
#include "pkg/extender/testing/fixtures.h"

namespace ksched::extender {
namespace {

using testing::Fixture;

TEST(WireTest, FilterArgsWithNodeNames) {
  auto args = DecodeExtenderArgs(Fixture("filter_args_node_names.json"));
  ASSERT_TRUE(args.ok()) << args.error().message();
  EXPECT_EQ(args->pod.metadata.name, "bind-me");
  EXPECT_EQ(args->pod.metadata.uid, "fbf635fb-06f5-4b27-b748-d867f09ee829");
  ASSERT_EQ(args->pod.spec.containers.size(), 1u);
  EXPECT_EQ(
      args->pod.spec.containers[0].resources.requests.Find("cpu")->MilliValue(),
      500);
  EXPECT_FALSE(args->nodes.has_value());
  ASSERT_TRUE(args->node_names.has_value());
  EXPECT_EQ(*args->node_names,
            (std::vector<std::string>{"node-1", "node-2", "node-3"}));
}

TEST(WireTest, FilterArgsWithFullNodesKeepTheirJson) {
  const std::string body = Fixture("filter_args_nodes.json");
  auto args = DecodeExtenderArgs(body);
  ASSERT_TRUE(args.ok()) << args.error().message();
  EXPECT_FALSE(args->node_names.has_value());
  ASSERT_TRUE(args->nodes.has_value());
  ASSERT_EQ(args->nodes->size(), 3u);
  const SentNode& third = (*args->nodes)[2];
  EXPECT_EQ(third.node.metadata.name, "node-3");
  ASSERT_EQ(third.node.spec.taints.size(), 1u);
  EXPECT_EQ(third.node.spec.taints[0].key, "dedicated");
  // The JSON as sent, fields ksched does not model included.
  EXPECT_NE(third.json.find("\"daemonEndpoints\""), std::string::npos);
  EXPECT_NE(body.find(third.json), std::string::npos);
}

TEST(WireTest, KeysMatchCaseInsensitivelyAsGoDoes) {
  auto args = DecodeExtenderArgs(
      R"({"pod":{"metadata":{"name":"p"}},"nodenames":["a"]})");
  ASSERT_TRUE(args.ok()) << args.error().message();
  EXPECT_EQ(args->pod.metadata.name, "p");
  EXPECT_EQ(*args->node_names, std::vector<std::string>{"a"});
  // The exact name wins over a folded one.
  args = DecodeExtenderArgs(
      R"({"Pod":{"metadata":{"name":"p"}},"nodeNames":["x"],"NodeNames":["a"]})");
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(*args->node_names, std::vector<std::string>{"a"});
}

TEST(WireTest, NullNodeNamesFallsBackToNodes) {
  auto args = DecodeExtenderArgs(
      R"({"Pod":{"metadata":{"name":"p"}},"Nodes":{"items":[]},"NodeNames":null})");
  ASSERT_TRUE(args.ok()) << args.error().message();
  ASSERT_TRUE(args->nodes.has_value());
  EXPECT_TRUE(args->nodes->empty());
}

TEST(WireTest, BadArgsNameWhatIsWrong) {
  struct Case {
    std::string body;
    std::string error;
  };
  for (
      const Case& c : std::vector<Case>{
          {"{", "malformed JSON at offset 1"},
          {"[]", "body: expected a JSON object"},
          {R"({"NodeNames":["a"]})", "Pod: missing"},
          {R"({"Pod":null,"NodeNames":["a"]})", "Pod: missing"},
          {R"({"Pod":"p","NodeNames":["a"]})", "Pod: expected object"},
          {R"({"Pod":{"metadata":{"name":7}},"NodeNames":[]})",
           "Pod.metadata.name"},
          {R"({"Pod":{}})", "neither Nodes nor NodeNames is set"},
          {R"({"Pod":{},"NodeNames":"a"})", "NodeNames: expected array"},
          {R"({"Pod":{},"NodeNames":["a",1]})",
           "NodeNames[1]: expected string"},
          {R"({"Pod":{},"Nodes":{"items":[{"metadata":{}}]}})",
           "Nodes.items[0].metadata.name: missing"},
          {R"({"Pod":{},"Nodes":{"items":[{"metadata":{"name":"a"},"spec":{"taints":5}}]}})",
           "Nodes.items[0].spec.taints"},
      }) {
    auto args = DecodeExtenderArgs(c.body);
    ASSERT_FALSE(args.ok()) << c.body;
    EXPECT_NE(args.error().message().find(c.error), std::string::npos)
        << c.body << " -> " << args.error().message();
  }
}

TEST(WireTest, BindingArgs) {
  auto args = DecodeBindingArgs(Fixture("bind_args.json"));
  ASSERT_TRUE(args.ok()) << args.error().message();
  EXPECT_EQ(args->pod_name, "bind-me");
  EXPECT_EQ(args->pod_namespace, "default");
  EXPECT_EQ(args->pod_uid, "fbf635fb-06f5-4b27-b748-d867f09ee829");
  EXPECT_EQ(args->node, "node-1");
  EXPECT_FALSE(DecodeBindingArgs(R"({"PodName":"p"})").ok());
  auto wrong = DecodeBindingArgs(R"({"PodName":"p","Node":3})");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message(), "Node: expected string");
}

TEST(WireTest, PreemptionArgsWithMetaVictims) {
  auto args = DecodePreemptionArgs(Fixture("preempt_args_meta.json"));
  ASSERT_TRUE(args.ok()) << args.error().message();
  EXPECT_FALSE(args->node_to_victims.has_value());
  ASSERT_TRUE(args->node_to_meta_victims.has_value());
  const auto& meta = *args->node_to_meta_victims;
  ASSERT_EQ(meta.size(), 2u);
  EXPECT_EQ(meta.at("node-1").pod_uids,
            std::vector<std::string>{"7e1c5b0e-7d43-4c56-a3a1-0c7d1d6e0001"});
  EXPECT_EQ(meta.at("node-2").num_pdb_violations, 1);
}

TEST(WireTest, PreemptionArgsWithFullVictims) {
  auto args = DecodePreemptionArgs(Fixture("preempt_args_full.json"));
  ASSERT_TRUE(args.ok()) << args.error().message();
  ASSERT_TRUE(args->node_to_victims.has_value());
  const Victims& victims = args->node_to_victims->at("node-1");
  ASSERT_EQ(victims.pods.size(), 1u);
  EXPECT_EQ(victims.pods[0].metadata.name, "victim");
  EXPECT_EQ(victims.pods[0].spec.node_name, "node-1");

  auto bad = DecodePreemptionArgs(
      R"({"Pod":{},"NodeNameToMetaVictims":{"n":{"Pods":[{"UID":1}]}}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "NodeNameToMetaVictims.n.Pods[0].UID: expected string");
}

TEST(WireTest, FilterResultInTheRequestsMode) {
  ExtenderFilterResult by_name;
  by_name.node_names = std::vector<std::string>{"node-1"};
  by_name.failed_nodes["node-2"] = "Insufficient cpu";
  by_name.failed_and_unresolvable_nodes["node-3"] =
      "node(s) had untolerated taint {dedicated: gpu}";
  EXPECT_EQ(
      EncodeFilterResult(by_name),
      R"({"Nodes":null,"NodeNames":["node-1"],)"
      R"("FailedNodes":{"node-2":"Insufficient cpu"},)"
      R"("FailedAndUnresolvableNodes":{"node-3":"node(s) had untolerated taint {dedicated: gpu}"},)"
      R"("Error":""})");

  ExtenderFilterResult full;
  full.nodes_json = std::vector<std::string>{R"({"metadata":{"name":"a"}})"};
  EXPECT_EQ(EncodeFilterResult(full),
            R"({"Nodes":{"metadata":{},"items":[{"metadata":{"name":"a"}}]},)"
            R"("NodeNames":null,"FailedNodes":{},)"
            R"("FailedAndUnresolvableNodes":{},"Error":""})");

  // No node fits: an empty list, which kube-scheduler reads as such.
  ExtenderFilterResult none;
  none.node_names.emplace();
  EXPECT_NE(EncodeFilterResult(none).find(R"("NodeNames":[])"),
            std::string::npos);
}

TEST(WireTest, OtherResults) {
  EXPECT_EQ(EncodeHostPriorityList({{"a", 10}, {"b", 0}}),
            R"([{"Host":"a","Score":10},{"Host":"b","Score":0}])");
  EXPECT_EQ(EncodeHostPriorityList({}), "[]");
  EXPECT_EQ(EncodeBindingResult({}), R"({"Error":""})");
  EXPECT_EQ(EncodeBindingResult({"pod p is being deleted"}),
            R"({"Error":"pod p is being deleted"})");
  ExtenderPreemptionResult preemption;
  preemption.node_to_meta_victims["n1"] = {{"u1", "u2"}, 1};
  EXPECT_EQ(
      EncodePreemptionResult(preemption),
      R"({"NodeNameToMetaVictims":{"n1":{"Pods":[{"UID":"u1"},{"UID":"u2"}],"NumPDBViolations":1}}})");
}

}  // namespace
}  // namespace ksched::extender

// What the reports derive from a simulation on their own: the reason each
// unschedulable pod is counted under, and the model the HTML page draws.
#include "pkg/simulator/report.h"

#include <gtest/gtest.h>

#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "pkg/simulator/report_html.h"
#include "pkg/util/json.h"

namespace ksched::simulator {
namespace {

TEST(PrimaryReasonTest, TheReasonThatRejectedMostNodes) {
  EXPECT_EQ(PrimaryReason(
                "0/7 nodes are available: 1 node(s) were unschedulable, 2 "
                "node(s) had untolerated taint(s), 4 Insufficient cpu, 4 "
                "Insufficient memory. no new claims to deallocate, preemption: "
                "0/7 nodes are available: 7 Preemption is not helpful for "
                "scheduling."),
            "Insufficient cpu");  // the first of the two with 4
  EXPECT_EQ(PrimaryReason("0/3 nodes are available: 3 Insufficient "
                          "nvidia.com/gpu."),
            "Insufficient nvidia.com/gpu");
  EXPECT_EQ(PrimaryReason("0/12 nodes are available: 2 node(s) didn't match "
                          "Pod's node affinity/selector, 10 node(s) had "
                          "volume node affinity conflict. preemption: ..."),
            "node(s) had volume node affinity conflict");
}

TEST(PrimaryReasonTest, APodNamedWithItsNamespaceIsLeftOutToo) {
  // DRA's PreFilter names the pod as "namespace/name": pods that differ
  // only by it share one reason.
  EXPECT_EQ(PrimaryReason("pod \"ml/tpl-0\": ResourceClaim not created yet",
                          "tpl-0", "ml"),
            "ResourceClaim not created yet");
  EXPECT_EQ(PrimaryReasonKey("pod \"ml/tpl-0\": ResourceClaim not created yet",
                             "tpl-0", "ml"),
            PrimaryReasonKey("pod \"ml/tpl-1\": ResourceClaim not created yet",
                             "tpl-1", "ml"));
}

TEST(PrimaryReasonTest, FitErrorReasonsCountsTheItems) {
  EXPECT_EQ(FitErrorReasons("0/5 nodes are available: 1 cannot allocate all "
                            "claims, 4 Insufficient cpu. preemption: 0/5 "
                            "nodes are available: 5 No preemption victims "
                            "found for incoming pod, 3 x."),
            2);
  EXPECT_EQ(FitErrorReasons("0/3 nodes are available: 3 Insufficient cpu."), 1);
  // A reason holding a comma not followed by a count is one item.
  EXPECT_EQ(FitErrorReasons("0/5 nodes are available: pre-filter pod cannot "
                            "find enough sibling pods, current pods number: "
                            "3."),
            1);
  EXPECT_EQ(FitErrorReasons("waiting for scheduling gates: [a]"), 0);
}

TEST(PendingReasonsTest, APrimaryReasonTheRunFoundComesFirst) {
  SimulationResult r;
  PodOutcome gpu{"ml", "train-0", "ksched", std::nullopt,
                 "0/5000 nodes are available: 1000 cannot allocate all "
                 "claims, 4000 Insufficient cpu."};
  gpu.primary_reason = "cannot allocate all claims";
  PodOutcome web{"ml", "web-0", "ksched", std::nullopt,
                 "0/5000 nodes are available: 5000 Insufficient cpu."};
  r.pods = {gpu, web, gpu};
  const std::vector<PendingReason> reasons = PendingReasons(r);
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(reasons[0].reason, "cannot allocate all claims");
  EXPECT_EQ(reasons[0].pods, 2);
  EXPECT_EQ(reasons[1].reason, "Insufficient cpu");
}

TEST(PrimaryReasonTest, PreFilterRejectionsAndOtherMessages) {
  // A PreFilter's message rejects every node, commas and all.
  EXPECT_EQ(PrimaryReason("0/7 nodes are available: pod has unbound "
                          "immediate PersistentVolumeClaims. not found"),
            "pod has unbound immediate PersistentVolumeClaims");
  EXPECT_EQ(PrimaryReason("0/5 nodes are available: pre-filter pod bert-0 "
                          "cannot find enough sibling pods, current pods "
                          "number: 3, minMember of group: 4.",
                          "bert-0"),
            "pre-filter pod cannot find enough sibling pods, current pods "
            "number: 3, minMember of group: 4");
  // The pod's name is left out only where it stands as a word.
  EXPECT_EQ(
      PrimaryReason("0/5 nodes are available: pod web-01 is odd.", "web-0"),
      "pod web-01 is odd");
  EXPECT_EQ(PrimaryReason("waiting for scheduling gates: [example.com/q]"),
            "waiting for scheduling gates");
  EXPECT_EQ(PrimaryReason(""), "");
  EXPECT_EQ(PrimaryReason("0/1 nodes are available: 99999999999999999999999 "
                          "too many."),
            "99999999999999999999999 too many");
}

TEST(PendingReasonsTest, EachUnschedulablePodOnceMostPodsFirst) {
  SimulationResult r;
  auto pod = [&](const std::string& name, std::optional<std::string> node,
                 const std::string& message) {
    PodOutcome p;
    p.ns = "default";
    p.name = name;
    p.node = std::move(node);
    p.message = message;
    r.pods.push_back(std::move(p));
  };
  pod("a", "n1", "");
  pod("b", std::nullopt, "0/2 nodes are available: 2 Insufficient cpu.");
  pod("c", std::nullopt, "waiting for scheduling gates: [x]");
  pod("d", std::nullopt,
      "0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.");
  const std::vector<PendingReason> reasons = PendingReasons(r);
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(reasons[0].reason, "Insufficient cpu");
  EXPECT_EQ(reasons[0].pods, 2);
  EXPECT_EQ(reasons[1].reason, "waiting for scheduling gates");
  EXPECT_EQ(reasons[1].pods, 1);

  // The JSON output carries them.
  rapidjson::Document doc;
  const std::string json = RenderJson(r);
  doc.Parse(json.data(), json.size());
  ASSERT_TRUE(doc.HasMember("pendingReasons"));
  EXPECT_EQ(doc["pendingReasons"].Size(), 2u);
  EXPECT_STREQ(doc["pendingReasons"][0]["reason"].GetString(),
               "Insufficient cpu");
  EXPECT_EQ(doc["pendingReasons"][0]["pods"].GetInt(), 2);
}

NodeSummary Node(const std::string& name, const std::string& zone) {
  NodeSummary n;
  n.name = name;
  n.labels.Set("kubernetes.io/hostname", name);
  n.labels.Set("topology.kubernetes.io/zone", zone);
  n.labels.Set("team", "ml");
  n.allocatable.Set("cpu", *api::Quantity::Parse("3920m"));
  n.allocatable.Set("memory", *api::Quantity::Parse("15Gi"));
  n.allocatable.Set("pods", *api::Quantity::Parse("110"));
  n.allocatable.Set("nvidia.com/gpu", *api::Quantity::Parse("4"));
  n.requested.Set("cpu", *api::Quantity::Parse("1500m"));
  n.requested.Set("memory", *api::Quantity::Parse("2Gi"));
  n.requested_before.Set("cpu", *api::Quantity::Parse("500m"));
  n.pods = 3;
  n.pods_before = 1;
  n.allowed_pods = 110;
  return n;
}

TEST(HtmlReportModelTest, NodesInNumbersLabelsToGroupByAndInternedMessages) {
  SimulationResult r;
  r.nodes = {Node("n1", "zone-a"), Node("n2", "zone-b"), Node("n3", "zone-a")};
  r.nodes[1].unschedulable = true;
  r.nodes[1].taints = {"dedicated=gpu:NoSchedule"};
  const std::string message = "0/3 nodes are available: 3 Insufficient cpu.";
  for (const char* name : {"p1", "p2"}) {
    PodOutcome p;
    p.ns = "default";
    p.name = name;
    p.profile = "ksched";
    p.message = message;
    r.pods.push_back(p);
  }
  rapidjson::Document doc;
  const std::string model = HtmlReportModel(r, {.source = "c.yaml"});
  doc.Parse(model.data(), model.size());
  ASSERT_FALSE(doc.HasParseError());

  const auto& resources = doc["resources"];
  ASSERT_EQ(resources.Size(), 4u);
  EXPECT_STREQ(resources[0]["name"].GetString(), "cpu");
  EXPECT_STREQ(resources[0]["unit"].GetString(), "milli");
  EXPECT_STREQ(resources[1]["unit"].GetString(), "bytes");
  EXPECT_STREQ(resources[2]["name"].GetString(), "pods");
  EXPECT_STREQ(resources[3]["name"].GetString(), "nvidia.com/gpu");
  const auto& n1 = doc["nodes"][0];
  EXPECT_EQ(n1["a"][0].GetInt64(), 3920);
  EXPECT_EQ(n1["a"][1].GetInt64(), int64_t{15} << 30);
  EXPECT_EQ(n1["a"][2].GetInt64(), 110);
  EXPECT_EQ(n1["a"][3].GetInt64(), 4);
  EXPECT_EQ(n1["r"][0].GetInt64(), 1500);
  EXPECT_EQ(n1["r"][2].GetInt64(), 3);  // pods on the node
  EXPECT_EQ(n1["b"][0].GetInt64(), 500);
  EXPECT_EQ(n1["b"][2].GetInt64(), 1);
  EXPECT_FALSE(n1.HasMember("c"));
  EXPECT_EQ(doc["nodes"][1]["c"].GetInt(), 1);
  EXPECT_STREQ(doc["nodes"][1]["t"][0].GetString(), "dedicated=gpu:NoSchedule");

  // The zone first; hostnames (one per node) group nothing.
  const auto& keys = doc["labelKeys"];
  ASSERT_EQ(keys.Size(), 2u);
  EXPECT_STREQ(keys[0].GetString(), "topology.kubernetes.io/zone");
  EXPECT_STREQ(keys[1].GetString(), "team");
  EXPECT_STREQ(doc["labelValues"][0][n1["l"][0].GetInt()].GetString(),
               "zone-a");
  EXPECT_STREQ(
      doc["labelValues"][0][doc["nodes"][1]["l"][0].GetInt()].GetString(),
      "zone-b");

  ASSERT_EQ(doc["messages"].Size(), 1u);
  EXPECT_EQ(doc["pods"][0]["m"].GetInt(), 0);
  EXPECT_EQ(doc["pods"][1]["m"].GetInt(), 0);
  EXPECT_EQ(doc["pods"][1]["why"].GetInt(), 0);
  EXPECT_STREQ(doc["pendingReasons"][0]["reason"].GetString(),
               "Insufficient cpu");
  EXPECT_EQ(doc["pendingReasons"][0]["pods"].GetInt(), 2);
}

TEST(RenderHtmlTest, TextFromTheInputCannotEndTheScriptOrTheTitle) {
  SimulationResult r;
  const std::string page = RenderHtml(
      r, {.title = "ksched <b>simulate</b>", .source = "x</script><i>y"});
  // The model's script and the page's own: nothing else closes a script.
  size_t closes = 0;
  for (size_t at = 0; (at = page.find("</script>", at)) != std::string::npos;
       ++at) {
    ++closes;
  }
  EXPECT_EQ(closes, 2u);
  EXPECT_NE(page.find(R"(x<\/script><i>y)"), std::string::npos);
  EXPECT_NE(page.find("<title>ksched &lt;b&gt;simulate&lt;/b&gt;</title>"),
            std::string::npos);
  EXPECT_EQ(page.find("src="), std::string::npos) << "loads nothing";
}

namespace streamed {

// Records each write the report makes to its stream.
class ChunkRecorder : public std::streambuf {
 public:
  std::string text;
  std::vector<size_t> chunks;

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    text.append(s, static_cast<size_t>(n));
    chunks.push_back(static_cast<size_t>(n));
    return n;
  }
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) xsputn(reinterpret_cast<const char*>(&c), 1);
    return c;
  }
};

TEST(WriteJsonTest, ALargeReportGoesOutInPiecesAndReadsAsRenderJsonWrites) {
  SimulationResult r;
  for (int i = 0; i < 3000; ++i) {
    PodOutcome p;
    p.ns = "default";
    p.name = "pod-" + std::to_string(i);
    p.node = "node-" + std::to_string(i % 1000);
    p.profile = "ksched";
    r.pods.push_back(std::move(p));
  }
  for (int i = 0; i < 3000; ++i) {
    NodeSummary n;
    n.name = "node-" + std::to_string(i);
    n.allocatable.Set("cpu", *api::Quantity::Parse("16"));
    n.requested.Set("cpu", *api::Quantity::Parse("3"));
    n.pods = 3;
    r.nodes.push_back(std::move(n));
  }
  ChunkRecorder recorder;
  std::ostream out(&recorder);
  WriteJson(r, out);

  EXPECT_EQ(recorder.text, RenderJson(r));
  // Well over a megabyte of report, never in one piece: each write is one
  // buffer's worth (64 KiB, plus the pod or node that crossed it).
  ASSERT_GT(recorder.text.size(), 300'000u);
  EXPECT_GT(recorder.chunks.size(), 4u);
  for (size_t chunk : recorder.chunks) EXPECT_LT(chunk, 70'000u);

  rapidjson::Document doc;
  doc.Parse(recorder.text.data(), recorder.text.size());
  ASSERT_FALSE(doc.HasParseError());
  ASSERT_EQ(doc["pods"].Size(), 3000u);
  ASSERT_EQ(doc["nodes"].Size(), 3000u);
  EXPECT_STREQ(doc["pods"][2999]["name"].GetString(), "pod-2999");
  EXPECT_STREQ(doc["nodes"][2999]["name"].GetString(), "node-2999");
  EXPECT_EQ(recorder.text.back(), '\n');
}

}  // namespace streamed
}  // namespace
}  // namespace ksched::simulator

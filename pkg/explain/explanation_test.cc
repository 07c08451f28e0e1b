#include "pkg/explain/explanation.h"

#include <gtest/gtest.h>

#include "pkg/explain/event_note.h"
#include "pkg/explain/render.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::explain {
namespace {

using framework::CycleRecorder;
using framework::NodeInfoPtr;
using framework::Status;
namespace kt = ksched::testing;

// Five nodes: a fits; b is short of cpu only; c is short of cpu and
// memory and tainted; d and e are tainted only.
class ExplanationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"a", "b", "c", "d", "e"}) {
      nodes_.push_back(kt::MakeNodeInfo(kt::NodeBuilder(name).Obj()));
    }
    record_.BeginFilter(nodes_);
    const Status fit = Status();
    const Status cpu = Status::Unschedulable("Insufficient cpu");
    const Status taint =
        Status::Unresolvable("node(s) had untolerated taint {dedicated: gpu}");
    Filter(0, fit, fit);
    Filter(1, cpu, fit);
    Filter(2,
           Status(framework::Code::kUnschedulable,
                  std::vector<std::string>{"Insufficient cpu",
                                           "Insufficient memory"}),
           taint);
    Filter(3, fit, taint);
    Filter(4, fit, taint);
  }
  void Filter(int node, const Status& fit, const Status& taint) {
    record_.Filter(*nodes_[node], "NodeResourcesFit", fit);
    record_.Filter(*nodes_[node], "TaintToleration", taint);
  }

  std::vector<NodeInfoPtr> nodes_;
  CycleRecorder record_;
};

TEST_F(ExplanationTest, CountsEveryPluginsRejectionsAndFindsTheClosestNodes) {
  Subject subject{"ns", "p", "ksched", std::nullopt, "0/5 nodes are available",
                  "",   "b", 5};
  Explanation e = Explain(record_, subject, 5);
  EXPECT_EQ(e.filtered_nodes, 5);
  EXPECT_EQ(e.feasible_nodes, 1);
  ASSERT_EQ(e.rejections.size(), 2u);
  EXPECT_EQ(e.rejections[0].plugin, "TaintToleration");
  EXPECT_EQ(e.rejections[0].nodes, 3);
  EXPECT_EQ(e.rejections[1].plugin, "NodeResourcesFit");
  EXPECT_EQ(e.rejections[1].nodes, 2);
  EXPECT_EQ(e.rejections[1].reasons,
            (std::vector<std::pair<std::string, int>>{
                {"Insufficient cpu", 2}, {"Insufficient memory", 1}}));
  // b, d and e fail one plugin each; c fails two and is not close. One
  // toleration would open d and e: that group comes first.
  EXPECT_EQ(e.closest_total, 3);
  ASSERT_EQ(e.closest.size(), 2u);
  EXPECT_EQ(e.closest[0].plugin, "TaintToleration");
  EXPECT_EQ(e.closest[0].reason,
            "node(s) had untolerated taint {dedicated: gpu}");
  EXPECT_EQ(e.closest[0].nodes, 2);
  EXPECT_EQ(e.closest[0].examples, (std::vector<std::string>{"d", "e"}));
  EXPECT_EQ(e.closest[1].plugin, "NodeResourcesFit");
  EXPECT_EQ(e.closest[1].reason, "Insufficient cpu");
  EXPECT_EQ(e.closest[1].examples, (std::vector<std::string>{"b"}));
  EXPECT_EQ(e.fits_current_node, std::optional<bool>(false));

  // The cap applies to the names listed, not to the counts.
  Explanation capped = Explain(record_, subject, 1);
  EXPECT_EQ(capped.closest[0].examples, (std::vector<std::string>{"d"}));
  EXPECT_EQ(capped.closest[0].nodes, 2);
  EXPECT_EQ(capped.closest_total, 3);

  EXPECT_EQ(RenderText(capped),
            "Pod ns/p (profile ksched): unschedulable\n"
            "  0/5 nodes are available\n"
            "  Its node b would no longer take it\n"
            "  Filter: 5 of 5 nodes evaluated, 1 feasible\n"
            "  Rejected by plugin (every plugin runs on every node, so a node "
            "can count twice):\n"
            "    TaintToleration   3 nodes  (node(s) had untolerated taint "
            "{dedicated: gpu} 3)\n"
            "    NodeResourcesFit  2 nodes  (Insufficient cpu 2, Insufficient "
            "memory 1)\n"
            "  Closest nodes (rejected by one plugin only; 3 in all):\n"
            "    PLUGIN            NODES  REASON                               "
            "           NODE NAMES\n"
            "    TaintToleration   2      node(s) had untolerated taint "
            "{dedicated: gpu}  d, ...\n"
            "    NodeResourcesFit  1      Insufficient cpu                     "
            "           b\n");
}

TEST_F(ExplanationTest, RanksNodesByTheirWeightedTotalAndMarksTheSelected) {
  record_.Score("a", "ImageLocality", {10, 10, 10});
  record_.Score("a", "NodeResourcesFit", {40, 40, 40});
  record_.Score("b", "ImageLocality", {0, 0, 0});
  record_.Score("b", "NodeResourcesFit", {90, 90, 90});
  record_.Score("d", "ImageLocality", {0, 0, 0});
  record_.Score("d", "NodeResourcesFit", {50, 50, 50});
  record_.SelectNode("d");
  Subject subject{"ns", "p", "ksched", "d", "", "", "", 5};
  Explanation e = Explain(record_, subject, 2);
  EXPECT_EQ(e.score_plugins,
            (std::vector<std::string>{"ImageLocality", "NodeResourcesFit"}));
  ASSERT_EQ(e.top.size(), 2u);
  EXPECT_EQ(e.top[0].name, "b");
  EXPECT_EQ(e.top[0].total, 90);
  EXPECT_FALSE(e.top[0].selected);
  // a and d tie at 50: the selected one comes first.
  EXPECT_EQ(e.top[1].name, "d");
  EXPECT_TRUE(e.top[1].selected);

  EXPECT_EQ(RenderText(e),
            "Pod ns/p (profile ksched): scheduled on d\n"
            "  Filter: 5 of 5 nodes evaluated, 1 feasible\n"
            "  Rejected by plugin (every plugin runs on every node, so a node "
            "can count twice):\n"
            "    TaintToleration   3 nodes  (node(s) had untolerated taint "
            "{dedicated: gpu} 3)\n"
            "    NodeResourcesFit  2 nodes  (Insufficient cpu 2, Insufficient "
            "memory 1)\n"
            "  Top 2 of 3 scored nodes (weighted; * = selected):\n"
            "       NODE  ImageLocality  NodeResourcesFit  TOTAL\n"
            "       b     0              90                90\n"
            "    *  d     0              50                50\n");
}

TEST_F(ExplanationTest, JsonKeepsTheSimulatorKeysAndAddsTheSummary) {
  Subject subject{"ns", "p", "ksched", std::nullopt, "0/5", "", "", 5};
  Explanation e = Explain(record_, subject, 5);
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  WriteJson(w, e, record_);
  rapidjson::Document doc;
  doc.Parse(buffer.GetString());
  ASSERT_FALSE(doc.HasParseError());
  for (const char* key :
       {"prefilter-result-status", "prefilter-result", "filter-result",
        "postfilter-result", "prescore-result", "score-result",
        "finalscore-result", "reserve-result", "permit-result",
        "prebind-result", "bind-result", "selected-node", "summary"}) {
    EXPECT_TRUE(doc.HasMember(key)) << key;
  }
  EXPECT_STREQ(doc["filter-result"]["c"]["NodeResourcesFit"].GetString(),
               "Insufficient cpu, Insufficient memory");
  EXPECT_STREQ(doc["filter-result"]["a"]["TaintToleration"].GetString(),
               "passed");
  EXPECT_EQ(doc["summary"]["closestTotal"].GetInt(), 3);
  EXPECT_EQ(doc["summary"]["closest"][0]["nodes"].GetInt(), 2);
  EXPECT_STREQ(doc["summary"]["closest"][0]["examples"][1].GetString(), "e");
  EXPECT_EQ(
      doc["summary"]["rejections"][1]["reasons"]["Insufficient cpu"].GetInt(),
      2);
}

TEST_F(ExplanationTest, EventNoteNamesTwoPluginsAndTheClosestNode) {
  Subject subject{"ns", "p", "ksched", std::nullopt, "", "", "", 5};
  Explanation e = Explain(record_, subject, 5);
  EXPECT_EQ(ExplainedEventNote("0/5 nodes are available: ...", e),
            "0/5 nodes are available: ... Explain: TaintToleration rejected 3 "
            "nodes (node(s) had untolerated taint {dedicated: gpu}), "
            "NodeResourcesFit 2 nodes (Insufficient cpu); closest d, rejected "
            "by TaintToleration only (node(s) had untolerated taint "
            "{dedicated: gpu}).");
  // A message as long as the limit is cut; the explanation stays whole.
  const std::string long_message(2000, 'x');
  const std::string note = ExplainedEventNote(long_message, e);
  EXPECT_EQ(note.size(), kEventNoteLimit);
  EXPECT_NE(note.find("xxx ... Explain: TaintToleration rejected 3 nodes"),
            std::string::npos);
  EXPECT_TRUE(note.ends_with("{dedicated: gpu})."));
  // Nothing to add: the message alone, within the limit.
  EXPECT_EQ(ExplainedEventNote("short", Explanation{}), "short");
  EXPECT_EQ(ExplainedEventNote(long_message, Explanation{}).size(),
            kEventNoteLimit);
}

}  // namespace
}  // namespace ksched::explain

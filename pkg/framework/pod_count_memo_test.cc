#include "pkg/framework/pod_count_memo.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "pkg/framework/node_info.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::framework {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

TEST(PodCountKeysTest, EqualQuestionsShareAnIdAndDifferentOnesDoNot) {
  PodCountKeys keys;
  const uint32_t a = keys.Intern("pods in default matching app=web");
  const uint32_t b = keys.Intern("pods in default matching app=db");
  EXPECT_NE(a, 0u);
  EXPECT_NE(b, 0u);
  EXPECT_NE(a, b);
  EXPECT_EQ(keys.Intern(std::string("pods in default matching app=web")), a);
}

TEST(PodCountKeysTest, AFullTableStartsAfreshWithoutReusingIds) {
  PodCountKeys keys;
  const uint32_t first = keys.Intern("q0");
  uint32_t last = first;
  for (size_t i = 1; i < PodCountKeys::kMaxKeys; ++i) {
    last = keys.Intern("q" + std::to_string(i));
    ASSERT_NE(last, 0u) << i;
  }
  EXPECT_EQ(keys.Intern("q1"), first + 1);  // still known
  const uint32_t next = keys.Intern("one too many");
  EXPECT_GT(next, last);
  // "q0" was forgotten with the rest: it gets a new id, not its old one.
  const uint32_t again = keys.Intern("q0");
  EXPECT_NE(again, first);
  EXPECT_GT(again, next);
  EXPECT_EQ(keys.Intern("one too many"), next);
}

TEST(PodCountMemoTest, RemembersAnswersByKey) {
  PodCountMemo memo;
  EXPECT_EQ(memo.Find(1), std::nullopt);
  memo.Store(1, 7);
  memo.Store(2, 0);
  EXPECT_EQ(memo.Find(1), 7);
  EXPECT_EQ(memo.Find(2), 0);
  EXPECT_EQ(memo.Find(3), std::nullopt);
}

TEST(PodCountMemoTest, KeyZeroAndNegativeCountsAreNeverKept) {
  PodCountMemo memo;
  memo.Store(0, 5);
  EXPECT_EQ(memo.Find(0), std::nullopt);
  memo.Store(4, -1);
  EXPECT_EQ(memo.Find(4), std::nullopt);
}

TEST(PodCountMemoTest, AKeyInAnOccupiedSlotReplacesTheOldAnswer) {
  PodCountMemo memo;
  memo.Store(1, 10);
  memo.Store(5, 50);  // same slot as 1 with four slots
  EXPECT_EQ(memo.Find(5), 50);
  EXPECT_EQ(memo.Find(1), std::nullopt);
}

TEST(PodCountMemoTest, CopiesStartEmpty) {
  PodCountMemo memo;
  memo.Store(1, 3);
  PodCountMemo copy(memo);
  EXPECT_EQ(copy.Find(1), std::nullopt);
  PodCountMemo assigned;
  assigned.Store(2, 4);
  assigned = memo;
  EXPECT_EQ(assigned.Find(1), std::nullopt);
  EXPECT_EQ(assigned.Find(2), std::nullopt);
  EXPECT_EQ(memo.Find(1), 3);
}

// The rules the memo's soundness rests on: any change to the pods or the
// node empties it, and a copied NodeInfo (what the cache puts in a
// snapshot) starts without answers.
class NodeInfoMemoTest : public ::testing::Test {
 protected:
  NodeInfoMemoTest()
      : info_(testing::MakeNodeInfo(NodeBuilder("n").Obj(), {})) {
    info_->AddPod(PodBuilder("a").Uid("a").Node("n").Info());
    info_->pod_counts().Store(kKey, 1);
  }
  static constexpr uint32_t kKey = 9;
  NodeInfoPtr info_;
};

TEST_F(NodeInfoMemoTest, AddingAPodEmptiesIt) {
  info_->AddPod(PodBuilder("b").Uid("b").Node("n").Info());
  EXPECT_EQ(info_->pod_counts().Find(kKey), std::nullopt);
}

TEST_F(NodeInfoMemoTest, RemovingAPodEmptiesIt) {
  ASSERT_TRUE(info_->RemovePod("a"));
  EXPECT_EQ(info_->pod_counts().Find(kKey), std::nullopt);
}

TEST_F(NodeInfoMemoTest, ChangingTheNodeEmptiesIt) {
  info_->SetNode(std::make_shared<const api::Node>(
      NodeBuilder("n").Label("zone", "a").Obj()));
  EXPECT_EQ(info_->pod_counts().Find(kKey), std::nullopt);
}

TEST_F(NodeInfoMemoTest, RemovingTheNodeEmptiesIt) {
  info_->RemoveNode();
  EXPECT_EQ(info_->pod_counts().Find(kKey), std::nullopt);
}

TEST_F(NodeInfoMemoTest, ACopyStartsEmptyAndTheOriginalKeepsItsAnswers) {
  NodeInfo copy(*info_);
  EXPECT_EQ(copy.pod_counts().Find(kKey), std::nullopt);
  EXPECT_EQ(copy.pods().size(), 1u);
  EXPECT_EQ(info_->pod_counts().Find(kKey), 1);
}

TEST(NodeInfoHotFieldsTest, MirrorTheNode) {
  NodeInfo info;
  EXPECT_EQ(info.name(), "");
  info.SetNode(std::make_shared<const api::Node>(
      NodeBuilder("n1")
          .Unschedulable(true)
          .Taint("k", "v", api::TaintEffect::kNoSchedule)
          .Obj()));
  EXPECT_EQ(info.name(), "n1");
  EXPECT_TRUE(info.node_unschedulable());
  EXPECT_TRUE(info.node_has_taints());
  info.SetNode(std::make_shared<const api::Node>(NodeBuilder("n1").Obj()));
  EXPECT_FALSE(info.node_unschedulable());
  EXPECT_FALSE(info.node_has_taints());
  info.RemoveNode();
  EXPECT_EQ(info.name(), "");
}

TEST(NodeLabelsTest, FindsEveryLabelAndFollowsTheNode) {
  NodeInfo info;
  EXPECT_EQ(info.labels().Find(kLabelHostname), nullptr);
  info.SetNode(std::make_shared<const api::Node>(
      NodeBuilder("n1")
          .Label("kubernetes.io/hostname", "host-1")
          .Label("topology.kubernetes.io/zone", "zone-a")
          .Label("pool", "gpu")
          .Obj()));
  ASSERT_NE(info.labels().Find("kubernetes.io/hostname"), nullptr);
  EXPECT_EQ(*info.labels().Find("kubernetes.io/hostname"), "host-1");
  EXPECT_EQ(*info.labels().Find("topology.kubernetes.io/zone"), "zone-a");
  EXPECT_EQ(*info.labels().Find("pool"), "gpu");
  EXPECT_EQ(info.labels().Find("absent"), nullptr);
  // A copy reads the same Node.
  NodeInfo copy(info);
  EXPECT_EQ(*copy.labels().Find("topology.kubernetes.io/zone"), "zone-a");
  // A new version of the node without the zone label.
  info.SetNode(std::make_shared<const api::Node>(
      NodeBuilder("n1").Label("kubernetes.io/hostname", "host-1").Obj()));
  EXPECT_EQ(info.labels().Find("topology.kubernetes.io/zone"), nullptr);
  EXPECT_EQ(*copy.labels().Find("topology.kubernetes.io/zone"), "zone-a");
  info.RemoveNode();
  EXPECT_EQ(info.labels().Find("kubernetes.io/hostname"), nullptr);
}

}  // namespace
}  // namespace ksched::framework

#include "pkg/framework/node_count_index.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "pkg/framework/parallelizer.h"
#include "pkg/framework/snapshot.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::framework {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

// A node holding `web` pods labelled app=web and one other pod, at
// `generation`.
NodeInfoPtr Node(const std::string& name, int web, int64_t generation) {
  std::vector<api::Pod> pods;
  for (int i = 0; i < web; ++i) {
    pods.push_back(PodBuilder(name + "-web-" + std::to_string(i))
                       .Uid(name + "-web-" + std::to_string(i))
                       .Label("app", "web")
                       .Obj());
  }
  pods.push_back(
      PodBuilder(name + "-db").Uid(name + "-db").Label("app", "db").Obj());
  NodeInfoPtr info = testing::MakeNodeInfo(NodeBuilder(name).Obj(), pods);
  info->set_generation(generation);
  return info;
}

class NodeCountIndexTest : public ::testing::Test {
 protected:
  NodeCountIndexTest() {
    std::vector<NodeInfoPtr> nodes;
    for (int i = 0; i < 8; ++i) {
      nodes.push_back(Node("n" + std::to_string(i), i % 3 == 0 ? 1 : 0, i));
    }
    snapshot_.Reset(std::move(nodes));
  }

  // Pods labelled app=web, noting which nodes were asked.
  std::vector<NodeCount> CountWeb(uint32_t question = 7) {
    asked_.clear();
    return snapshot_.node_counts().Count(
        snapshot_, question,
        [this](const NodeInfo& info) {
          {
            std::lock_guard lock(mu_);
            asked_.insert(info.name());
          }
          int32_t n = 0;
          for (const PodInfoPtr& p : info.pods()) {
            const std::string* app = p->labels().Find("app");
            n += app != nullptr && *app == "web";
          }
          return n;
        },
        parallelizer_);
  }

  Parallelizer parallelizer_{2};
  Snapshot snapshot_;
  std::mutex mu_;
  std::set<std::string> asked_;
};

TEST_F(NodeCountIndexTest, AsksEveryNodeOnceThenOnlyTheReplacedOnes) {
  const std::vector<NodeCount> want = {{0, 1}, {3, 1}, {6, 1}};
  EXPECT_EQ(CountWeb(), want);
  EXPECT_EQ(asked_.size(), 8u);

  EXPECT_EQ(CountWeb(), want);
  EXPECT_TRUE(asked_.empty());

  // n3 loses its web pod, n4 gains two: only they are asked.
  snapshot_.Upsert(Node("n3", 0, 20));
  snapshot_.Upsert(Node("n4", 2, 21));
  snapshot_.Upsert(Node("n4", 2, 22));
  EXPECT_EQ(CountWeb(), (std::vector<NodeCount>{{0, 1}, {4, 2}, {6, 1}}));
  EXPECT_EQ(asked_, (std::set<std::string>{"n3", "n4"}));
  EXPECT_EQ(snapshot_.node_counts().nodes_counted(), 10u);
}

TEST_F(NodeCountIndexTest, QuestionsAreKeptApart) {
  CountWeb(1);
  snapshot_.Upsert(Node("n1", 1, 20));
  // Question 2 was never asked: every node, and the new n1.
  EXPECT_EQ(CountWeb(2),
            (std::vector<NodeCount>{{0, 1}, {1, 1}, {3, 1}, {6, 1}}));
  EXPECT_EQ(asked_.size(), 8u);
  // Question 1 only needs n1 again.
  EXPECT_EQ(CountWeb(1),
            (std::vector<NodeCount>{{0, 1}, {1, 1}, {3, 1}, {6, 1}}));
  EXPECT_EQ(asked_, (std::set<std::string>{"n1"}));
  EXPECT_EQ(snapshot_.node_counts().questions(), 2u);
}

TEST_F(NodeCountIndexTest, ARelistedSnapshotIsAskedAgainInFull) {
  CountWeb();
  // Same names, another order: position 0 is now n7.
  snapshot_.RebuildLists({"n7", "n6", "n5", "n4", "n3", "n2", "n1", "n0"});
  EXPECT_EQ(CountWeb(), (std::vector<NodeCount>{{1, 1}, {4, 1}, {7, 1}}));
  EXPECT_EQ(asked_.size(), 8u);
}

TEST_F(NodeCountIndexTest, ManyChangesAreAskedAgainInFull) {
  CountWeb();
  // More than a quarter of the nodes replaced: a full pass is cheaper than
  // merging.
  for (int i = 0; i < 3; ++i) {
    snapshot_.Upsert(Node("n" + std::to_string(i), 2, 30 + i));
  }
  EXPECT_EQ(CountWeb(),
            (std::vector<NodeCount>{{0, 2}, {1, 2}, {2, 2}, {3, 1}, {6, 1}}));
  EXPECT_EQ(asked_.size(), 8u);
}

TEST_F(NodeCountIndexTest, ForgetsTheLeastRecentlyAskedQuestions) {
  for (uint32_t q = 1; q <= NodeCountIndex::kMaxQuestions + 10; ++q) {
    CountWeb(q);
  }
  EXPECT_EQ(snapshot_.node_counts().questions(), NodeCountIndex::kMaxQuestions);
  // The newest is kept, the first forgotten.
  CountWeb(NodeCountIndex::kMaxQuestions + 10);
  EXPECT_TRUE(asked_.empty());
  CountWeb(1);
  EXPECT_EQ(asked_.size(), 8u);
}

TEST_F(NodeCountIndexTest, ACopyStartsEmpty) {
  CountWeb();
  Snapshot copy = snapshot_;
  EXPECT_EQ(copy.node_counts().questions(), 0u);
  EXPECT_EQ(snapshot_.node_counts().questions(), 1u);
}

TEST(SnapshotChangeLogTest, ListsReplacedPositionsUntilRelisted) {
  Snapshot snapshot({Node("a", 0, 1), Node("b", 0, 2)});
  const uint64_t layout = snapshot.layout_version();
  const uint64_t seen = snapshot.change_count();
  snapshot.Upsert(Node("b", 1, 3));
  snapshot.Upsert(Node("a", 1, 4));
  std::vector<int32_t> changed;
  ASSERT_TRUE(snapshot.ChangedSince(layout, seen, &changed));
  EXPECT_EQ(changed, (std::vector<int32_t>{1, 0}));
  changed.clear();
  ASSERT_TRUE(snapshot.ChangedSince(layout, seen + 1, &changed));
  EXPECT_EQ(changed, (std::vector<int32_t>{0}));
  // Not yet known, and another layout.
  EXPECT_FALSE(snapshot.ChangedSince(layout, seen + 3, &changed));
  snapshot.RebuildLists({"b", "a"});
  EXPECT_FALSE(snapshot.ChangedSince(layout, seen, &changed));
  EXPECT_NE(snapshot.layout_version(), layout);
}

TEST(SnapshotChangeLogTest, OldChangesAreDroppedNotMisreported) {
  Snapshot snapshot({Node("a", 0, 1)});
  const uint64_t layout = snapshot.layout_version();
  const uint64_t seen = snapshot.change_count();
  for (int i = 0; i < 5000; ++i) snapshot.Upsert(Node("a", i % 2, 10 + i));
  std::vector<int32_t> changed;
  EXPECT_FALSE(snapshot.ChangedSince(layout, seen, &changed));
  EXPECT_TRUE(changed.empty());
  ASSERT_TRUE(
      snapshot.ChangedSince(layout, snapshot.change_count() - 2, &changed));
  EXPECT_EQ(changed, (std::vector<int32_t>{0, 0}));
}

}  // namespace
}  // namespace ksched::framework

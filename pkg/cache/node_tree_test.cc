#include "pkg/cache/node_tree.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "pkg/framework/testing/wrappers.h"

namespace ksched::cache {
namespace {

using Tree = std::map<std::string, std::vector<std::string>>;

constexpr char kRegion[] = "topology.kubernetes.io/region";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kBetaRegion[] = "failure-domain.beta.kubernetes.io/region";
constexpr char kBetaZone[] = "failure-domain.beta.kubernetes.io/zone";

// Zone keys as ZoneKey spells them (kube's "region:\x00:zone").
std::string Key(const std::string& region, const std::string& zone) {
  return region + std::string(":\0:", 3) + zone;
}

// kube's node_tree_test allNodes: 0 no labels, 1 region only, 2 zone only,
// 3-4 region-1/zone-2, 5 region-1/zone-3, 6-8 region-2/zone-2, 9 both label
// generations, 10 deprecated labels only.
std::vector<api::Node> AllNodes() {
  using ksched::testing::NodeBuilder;
  return {
      NodeBuilder("node-0").Obj(),
      NodeBuilder("node-1").Label(kRegion, "region-1").Obj(),
      NodeBuilder("node-2").Label(kZone, "zone-2").Obj(),
      NodeBuilder("node-3")
          .Label(kRegion, "region-1")
          .Label(kZone, "zone-2")
          .Obj(),
      NodeBuilder("node-4")
          .Label(kRegion, "region-1")
          .Label(kZone, "zone-2")
          .Obj(),
      NodeBuilder("node-5")
          .Label(kRegion, "region-1")
          .Label(kZone, "zone-3")
          .Obj(),
      NodeBuilder("node-6")
          .Label(kRegion, "region-2")
          .Label(kZone, "zone-2")
          .Obj(),
      NodeBuilder("node-7")
          .Label(kRegion, "region-2")
          .Label(kZone, "zone-2")
          .Obj(),
      NodeBuilder("node-8")
          .Label(kRegion, "region-2")
          .Label(kZone, "zone-2")
          .Obj(),
      NodeBuilder("node-9")
          .Label(kRegion, "region-2")
          .Label(kZone, "zone-2")
          .Label(kBetaRegion, "region-2")
          .Label(kBetaZone, "zone-2")
          .Obj(),
      NodeBuilder("node-10")
          .Label(kBetaRegion, "region-2")
          .Label(kBetaZone, "zone-3")
          .Obj(),
  };
}

std::vector<api::Node> Slice(size_t from, size_t to) {
  std::vector<api::Node> all = AllNodes();
  return {all.begin() + from, all.begin() + to};
}

NodeTree TreeOf(const std::vector<api::Node>& nodes) {
  NodeTree t;
  for (const api::Node& n : nodes) t.AddNode(n);
  return t;
}

void VerifyTree(const NodeTree& nt, const Tree& want) {
  size_t want_nodes = 0;
  for (const auto& [zone, names] : want) want_nodes += names.size();
  EXPECT_EQ(nt.num_nodes(), want_nodes);
  Tree got(nt.tree().begin(), nt.tree().end());
  EXPECT_EQ(got, want);
  std::set<std::string> zones(nt.zones().begin(), nt.zones().end());
  EXPECT_EQ(zones.size(), nt.zones().size()) << "duplicate zone";
  std::set<std::string> want_zones;
  for (const auto& [zone, names] : want) want_zones.insert(zone);
  EXPECT_EQ(zones, want_zones);
}

TEST(ZoneKeyTest, CombinesRegionAndZoneWithBetaFallback) {
  std::vector<api::Node> all = AllNodes();
  EXPECT_EQ(ZoneKey(all[0]), "");
  EXPECT_EQ(ZoneKey(all[1]), Key("region-1", ""));
  EXPECT_EQ(ZoneKey(all[2]), Key("", "zone-2"));
  EXPECT_EQ(ZoneKey(all[3]), Key("region-1", "zone-2"));
  EXPECT_EQ(ZoneKey(all[9]), Key("region-2", "zone-2"));
  EXPECT_EQ(ZoneKey(all[10]), Key("region-2", "zone-3"));
  // The GA label wins over the beta one.
  api::Node both = ksched::testing::NodeBuilder("n")
                       .Label(kZone, "ga")
                       .Label(kBetaZone, "beta")
                       .Obj();
  EXPECT_EQ(ZoneKey(both), Key("", "ga"));
}

TEST(NodeTreeTest, AddSingleNodeWithoutLabels) {
  VerifyTree(TreeOf(Slice(0, 1)), {{"", {"node-0"}}});
}

TEST(NodeTreeTest, AddSameNodeTwiceIsNoop) {
  std::vector<api::Node> all = AllNodes();
  VerifyTree(TreeOf({all[0], all[0]}), {{"", {"node-0"}}});
}

TEST(NodeTreeTest, AddMixOfLabelledAndUnlabelledNodes) {
  VerifyTree(TreeOf(Slice(0, 4)), {{"", {"node-0"}},
                                   {Key("region-1", ""), {"node-1"}},
                                   {Key("", "zone-2"), {"node-2"}},
                                   {Key("region-1", "zone-2"), {"node-3"}}});
}

TEST(NodeTreeTest, AddSeveralNodesPerZone) {
  VerifyTree(TreeOf(Slice(0, 7)),
             {{"", {"node-0"}},
              {Key("region-1", ""), {"node-1"}},
              {Key("", "zone-2"), {"node-2"}},
              {Key("region-1", "zone-2"), {"node-3", "node-4"}},
              {Key("region-1", "zone-3"), {"node-5"}},
              {Key("region-2", "zone-2"), {"node-6"}}});
}

TEST(NodeTreeTest, AddNodesWithDeprecatedLabels) {
  VerifyTree(TreeOf(Slice(9, 11)), {{Key("region-2", "zone-2"), {"node-9"}},
                                    {Key("region-2", "zone-3"), {"node-10"}}});
}

TEST(NodeTreeTest, RemoveSingleNodeWithoutLabels) {
  NodeTree nt = TreeOf(Slice(0, 7));
  EXPECT_TRUE(nt.RemoveNode(AllNodes()[0]).ok());
  VerifyTree(nt, {{Key("region-1", ""), {"node-1"}},
                  {Key("", "zone-2"), {"node-2"}},
                  {Key("region-1", "zone-2"), {"node-3", "node-4"}},
                  {Key("region-1", "zone-3"), {"node-5"}},
                  {Key("region-2", "zone-2"), {"node-6"}}});
}

TEST(NodeTreeTest, RemoveNodesIncludingOneOfASharedZone) {
  NodeTree nt = TreeOf(Slice(0, 7));
  for (const api::Node& n : Slice(1, 4)) EXPECT_TRUE(nt.RemoveNode(n).ok());
  VerifyTree(nt, {{"", {"node-0"}},
                  {Key("region-1", "zone-2"), {"node-4"}},
                  {Key("region-1", "zone-3"), {"node-5"}},
                  {Key("region-2", "zone-2"), {"node-6"}}});
}

TEST(NodeTreeTest, RemoveAllNodes) {
  NodeTree nt = TreeOf(Slice(0, 7));
  for (const api::Node& n : Slice(0, 7)) EXPECT_TRUE(nt.RemoveNode(n).ok());
  VerifyTree(nt, {});
  EXPECT_TRUE(nt.List().empty());
}

TEST(NodeTreeTest, RemoveMissingNodeErrors) {
  NodeTree nt;
  for (const api::Node& n : Slice(0, 5)) EXPECT_FALSE(nt.RemoveNode(n).ok());
  VerifyTree(nt, {});
}

TEST(NodeTreeTest, UpdateMovesNodeToItsNewZone) {
  NodeTree nt = TreeOf(Slice(0, 7));
  api::Node updated = ksched::testing::NodeBuilder("node-0")
                          .Label(kRegion, "region-1")
                          .Label(kZone, "zone-2")
                          .Obj();
  nt.UpdateNode(AllNodes()[0], updated);
  VerifyTree(nt, {{Key("region-1", ""), {"node-1"}},
                  {Key("", "zone-2"), {"node-2"}},
                  {Key("region-1", "zone-2"), {"node-3", "node-4", "node-0"}},
                  {Key("region-1", "zone-3"), {"node-5"}},
                  {Key("region-2", "zone-2"), {"node-6"}}});
}

TEST(NodeTreeTest, UpdateTheOnlyNode) {
  NodeTree nt = TreeOf(Slice(0, 1));
  api::Node updated = ksched::testing::NodeBuilder("node-0")
                          .Label(kRegion, "region-1")
                          .Label(kZone, "zone-2")
                          .Obj();
  nt.UpdateNode(AllNodes()[0], updated);
  VerifyTree(nt, {{Key("region-1", "zone-2"), {"node-0"}}});
}

TEST(NodeTreeTest, UpdateUnknownNodeAddsIt) {
  NodeTree nt = TreeOf(Slice(0, 1));
  api::Node updated = ksched::testing::NodeBuilder("node-new")
                          .Label(kRegion, "region-1")
                          .Label(kZone, "zone-2")
                          .Obj();
  nt.UpdateNode(ksched::testing::NodeBuilder("nonexisting-node").Obj(),
                updated);
  VerifyTree(nt, {{"", {"node-0"}}, {Key("region-1", "zone-2"), {"node-new"}}});
}

TEST(NodeTreeTest, ListEmptyTree) { EXPECT_TRUE(NodeTree().List().empty()); }

TEST(NodeTreeTest, ListOneNode) {
  EXPECT_EQ(TreeOf(Slice(0, 1)).List(), std::vector<std::string>{"node-0"});
}

TEST(NodeTreeTest, ListOneNodePerZone) {
  EXPECT_EQ(TreeOf(Slice(0, 4)).List(),
            (std::vector<std::string>{"node-0", "node-1", "node-2", "node-3"}));
}

TEST(NodeTreeTest, ListRoundRobinsOverZones) {
  // node-4 (second of region-1/zone-2) and node-7, node-8 (second and third
  // of region-2/zone-2) come after every zone gave its first node.
  EXPECT_EQ(TreeOf(Slice(0, 9)).List(),
            (std::vector<std::string>{"node-0", "node-1", "node-2", "node-3",
                                      "node-5", "node-6", "node-4", "node-7",
                                      "node-8"}));
}

// kube's TestNodeTreeMultiOperations: interleaved adds and removes.
struct MultiOpCase {
  const char* name;
  std::vector<api::Node> to_add;
  std::vector<api::Node> to_remove;
  std::string ops;  // 'a' add next, 'r' remove next
  std::vector<std::string> want;
};

TEST(NodeTreeTest, MultiOperations) {
  std::vector<api::Node> all = AllNodes();
  std::vector<MultiOpCase> cases = {
      {"add and remove all nodes", Slice(2, 9), Slice(2, 9), "aaarrr", {}},
      {"add and remove some nodes",
       Slice(2, 9),
       Slice(2, 9),
       "aaar",
       {"node-3", "node-4"}},
      {"remove three nodes", Slice(2, 9), Slice(2, 9), "aaarrra", {"node-5"}},
      {"add more nodes to an exhausted zone",
       {all[4], all[5], all[6], all[7], all[8], all[3]},
       {},
       "aaaaaa",
       {"node-4", "node-5", "node-6", "node-3", "node-7", "node-8"}},
      {"remove zone and add new",
       {all[3], all[4], all[6], all[7]},
       {all[3], all[4]},
       "aaraar",
       {"node-6", "node-7"}},
  };
  for (const MultiOpCase& c : cases) {
    SCOPED_TRACE(c.name);
    NodeTree nt;
    size_t add = 0, remove = 0;
    for (char op : c.ops) {
      if (op == 'a') {
        nt.AddNode(c.to_add.at(add++));
      } else {
        (void)nt.RemoveNode(c.to_remove.at(remove++));
      }
    }
    EXPECT_EQ(nt.List(), c.want);
  }
}

}  // namespace
}  // namespace ksched::cache

#include "pkg/queue/nominator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/framework/testing/wrappers.h"

namespace ksched::queue {
namespace {

using testing::PodBuilder;

std::vector<std::string> Names(const std::vector<framework::PodInfoPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->pod().metadata.name);
  return out;
}

TEST(NominatorTest, ExplicitNodeOrStatusNode) {
  Nominator n;
  n.Add(PodBuilder("explicit").Info(), "node1");
  n.Add(PodBuilder("status").NominatedNode("node2").Info(), "");
  // Neither: nothing to record.
  n.Add(PodBuilder("none").Info(), "");
  // The explicit node overrides the status.
  n.Add(PodBuilder("both").NominatedNode("node2").Info(), "node1");
  EXPECT_EQ(n.size(), 3u);
  EXPECT_EQ(Names(n.PodsForNode("node1")),
            (std::vector<std::string>{"explicit", "both"}));
  EXPECT_EQ(Names(n.PodsForNode("node2")),
            (std::vector<std::string>{"status"}));
  EXPECT_TRUE(n.PodsForNode("node3").empty());
  EXPECT_EQ(n.NodeOf("none-uid"), "");
}

TEST(NominatorTest, RenominationReplacesAndMovesToTheEnd) {
  Nominator n;
  n.Add(PodBuilder("a").Info(), "node1");
  n.Add(PodBuilder("b").Info(), "node1");
  n.Add(PodBuilder("c").Info(), "node1");
  n.Add(PodBuilder("a").Info(), "node1");
  EXPECT_EQ(Names(n.PodsForNode("node1")),
            (std::vector<std::string>{"b", "c", "a"}));
  n.Add(PodBuilder("b").Info(), "node2");
  EXPECT_EQ(n.size(), 3u);
  EXPECT_EQ(Names(n.PodsForNode("node1")),
            (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(Names(n.PodsForNode("node2")), (std::vector<std::string>{"b"}));
  EXPECT_EQ(n.NodeOf("b-uid"), "node2");
}

TEST(NominatorTest, DeleteByUid) {
  Nominator n;
  n.Add(PodBuilder("a").Info(), "node1");
  n.Add(PodBuilder("b").Info(), "node1");
  // Same name, another UID: a different pod, nothing deleted.
  n.Delete(PodBuilder("a").Uid("other").Obj());
  EXPECT_EQ(n.size(), 2u);
  n.Delete(PodBuilder("a").Obj());
  EXPECT_EQ(n.size(), 1u);
  EXPECT_EQ(Names(n.PodsForNode("node1")), (std::vector<std::string>{"b"}));
  n.Delete(PodBuilder("b").Obj());
  EXPECT_EQ(n.size(), 0u);
  EXPECT_TRUE(n.PodsForNode("node1").empty());
  n.Delete(PodBuilder("b").Obj());  // absent: no-op
  EXPECT_EQ(n.size(), 0u);
}

TEST(NominatorTest, UpdateKeepsInMemoryNominationUnlessStatusSaysOtherwise) {
  Nominator n;
  n.Add(PodBuilder("p").Info(), "node1");
  // An update racing with the nomination (no status on either side) keeps
  // the node and refreshes the stored pod.
  framework::PodInfoPtr labelled = PodBuilder("p").Label("x", "y").Info();
  n.Update(PodBuilder("p").Obj(), labelled);
  ASSERT_EQ(n.PodsForNode("node1").size(), 1u);
  EXPECT_EQ(n.PodsForNode("node1")[0], labelled);
  // The status now names another node: it wins.
  n.Update(PodBuilder("p").Obj(),
           PodBuilder("p").NominatedNode("node2").Info());
  EXPECT_TRUE(n.PodsForNode("node1").empty());
  EXPECT_EQ(n.NodeOf("p-uid"), "node2");
  // The status nomination removed: so is the nomination.
  n.Update(PodBuilder("p").NominatedNode("node2").Obj(),
           PodBuilder("p").Info());
  EXPECT_EQ(n.size(), 0u);
}

TEST(NominatorTest, PodNoLongerPendingIsNotNominated) {
  Nominator n([](const api::Pod& pod) { return pod.metadata.name != "bound"; });
  n.Add(PodBuilder("bound").Info(), "node1");
  n.Add(PodBuilder("pending").Info(), "node1");
  EXPECT_EQ(Names(n.PodsForNode("node1")),
            (std::vector<std::string>{"pending"}));
}

}  // namespace
}  // namespace ksched::queue

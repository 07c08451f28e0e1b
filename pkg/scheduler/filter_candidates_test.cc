// FilterCandidates: nodes a plugin's candidates leave out are rejected
// without being filtered, and nothing a user sees changes. Each case runs
// the same pods through two algorithms over one snapshot, one using the
// candidates and one filtering every node, and compares what they decide
// and say.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "pkg/framework/testing/wrappers.h"
#include "pkg/scheduler/algorithm.h"
#include "pkg/scheduler/candidate_positions.h"
#include "pkg/scheduler/default_profile_test_base.h"

namespace ksched::scheduler {
namespace filter_candidates_test_detail {
namespace {

using framework::NodeInfoPtr;
using framework::Status;
using testing::NodeBuilder;
using testing::PodBuilder;

// ------------------------------------------------------ CandidatePositions

NodeInfoPtr NodeAt(const std::string& name, int64_t generation) {
  NodeInfoPtr info = testing::MakeNodeInfo(
      NodeBuilder(name).Capacity({{"cpu", "4"}, {"pods", "110"}}).Obj());
  info->set_generation(generation);
  return info;
}

// The flags CandidatePositions must give: worked out from scratch.
std::vector<uint8_t> Expected(const framework::Snapshot& snapshot,
                              const framework::NodeNames& names) {
  std::vector<uint8_t> flags;
  for (const NodeInfoPtr& n : snapshot.nodes()) {
    flags.push_back(std::find(names.begin(), names.end(), n->name()) !=
                    names.end());
  }
  return flags;
}

TEST(CandidatePositionsTest, FollowsNodesAsTheSnapshotChanges) {
  framework::Snapshot snapshot;
  snapshot.Reset({NodeAt("a", 1), NodeAt("b", 2), NodeAt("c", 3),
                  NodeAt("d", 4), NodeAt("e", 5)});
  snapshot.set_generations_unique(true);
  // "x" and "z" have no node yet.
  auto names = std::make_shared<const framework::NodeNames>(
      framework::NodeNames{"b", "d", "x", "z"});
  CandidatePositions positions;
  auto check = [&](const char* step) {
    SCOPED_TRACE(step);
    const std::vector<uint8_t>* flags = positions.Update(names, snapshot);
    ASSERT_NE(flags, nullptr);
    EXPECT_EQ(*flags, Expected(snapshot, *names));
  };
  check("first");
  check("unchanged");
  // A candidate changes in place (a pod went there).
  snapshot.Upsert(NodeAt("d", 6));
  check("d changed");
  // A candidate joins ahead of others: every later node moves.
  snapshot.Upsert(NodeAt("x", 7));
  snapshot.RebuildLists({"a", "x", "b", "c", "d", "e"});
  check("x joined");
  // One leaves and one joins in its place: the list keeps its size.
  snapshot.EraseIf([](std::string_view n) { return n == "c"; });
  snapshot.Upsert(NodeAt("y", 8));
  snapshot.RebuildLists({"a", "x", "b", "y", "d", "e"});
  check("c left, y joined");
  // A candidate takes the very position a non-candidate left.
  snapshot.EraseIf([](std::string_view n) { return n == "a"; });
  snapshot.Upsert(NodeAt("z", 9));
  snapshot.RebuildLists({"z", "x", "b", "y", "d", "e"});
  check("a left, z joined in its place");
  // Two candidates swap places.
  snapshot.RebuildLists({"z", "d", "b", "y", "x", "e"});
  check("d and x swapped");
  // A candidate leaves.
  snapshot.EraseIf([](std::string_view n) { return n == "b"; });
  snapshot.RebuildLists({"z", "d", "y", "x", "e"});
  check("b left");
  // Another list: worked out anew.
  names = std::make_shared<const framework::NodeNames>(
      framework::NodeNames{"e", "y"});
  check("other names");
}

TEST(CandidatePositionsTest, NoneForSnapshotsWhoseGenerationsRepeat) {
  framework::Snapshot snapshot;
  snapshot.Reset({NodeAt("a", 0), NodeAt("b", 0)});
  auto names =
      std::make_shared<const framework::NodeNames>(framework::NodeNames{"a"});
  CandidatePositions positions;
  EXPECT_EQ(positions.Update(names, snapshot), nullptr);
  EXPECT_EQ(positions.Update(nullptr, snapshot), nullptr);
}

// ------------------------------------------------------ the algorithm

// What the "Listed" plugin passes and names.
struct Listing {
  std::vector<std::string> storage;
  std::shared_ptr<const framework::NodeNames> candidates;  // null: none
  std::set<std::string, std::less<>> passes;

  // Candidates and passes both `names`.
  void Set(std::vector<std::string> names) {
    storage = std::move(names);
    auto views = std::make_shared<framework::NodeNames>();
    passes.clear();
    for (const std::string& n : storage) {
      views->push_back(n);
      passes.insert(n);
    }
    candidates = std::move(views);
  }
};

// Passes the listed nodes and names them as its candidates.
class Listed final : public framework::FilterPlugin,
                     public framework::FilterCandidatesPlugin {
 public:
  explicit Listed(const Listing* listing) : listing_(listing) {}
  std::string_view Name() const override { return "Listed"; }
  Status Filter(const framework::CycleState&, const framework::PodInfo&,
                const framework::NodeInfo& node) const override {
    if (listing_->passes.contains(node.name())) return Status();
    return Status::Unresolvable("node(s) were not listed");
  }
  std::shared_ptr<const framework::NodeNames> FilterCandidates(
      const framework::CycleState&) const override {
    return listing_->candidates;
  }

 private:
  const Listing* listing_;
};

// Passes every node, and promises nothing about its errors.
class MayErr final : public framework::FilterPlugin {
 public:
  std::string_view Name() const override { return "MayErr"; }
  Status Filter(const framework::CycleState&, const framework::PodInfo&,
                const framework::NodeInfo&) const override {
    return Status();
  }
};

class FilterCandidatesTest : public test::DefaultProfileTest {
 protected:
  FilterCandidatesTest() {
    EXPECT_TRUE(
        registry_
            .Register("Listed",
                      [this](const config::PluginArgs*, framework::Handle&) {
                        return util::Result<std::unique_ptr<framework::Plugin>>(
                            std::make_unique<Listed>(&listing_));
                      })
            .ok());
    EXPECT_TRUE(
        registry_
            .Register("MayErr",
                      [](const config::PluginArgs*, framework::Handle&) {
                        return util::Result<std::unique_ptr<framework::Plugin>>(
                            std::make_unique<MayErr>());
                      })
            .ok());
  }

  config::KubeSchedulerConfiguration Config() const override {
    config::KubeSchedulerConfiguration cfg = config::DefaultConfig();
    auto& enabled = cfg.profiles.front().plugins.multi_point.enabled;
    if (may_err_first_) enabled.push_back({"MayErr", std::nullopt});
    enabled.push_back({"Listed", std::nullopt});
    return cfg;
  }

  // 300 nodes: every fifth has 16 CPUs, the others 2.
  void MakeNodes() {
    std::vector<NodeInfoPtr> nodes;
    for (int i = 0; i < 300; ++i) {
      NodeInfoPtr info =
          testing::MakeNodeInfo(NodeBuilder("n" + std::to_string(i))
                                    .Capacity({{"cpu", i % 5 == 0 ? "16" : "2"},
                                               {"memory", "8Gi"},
                                               {"pods", "110"}})
                                    .Obj());
      info->set_generation(i + 1);
      nodes.push_back(std::move(info));
    }
    snapshot_.Reset(std::move(nodes));
    snapshot_.set_generations_unique(true);
    fwk_->SetSnapshot(&snapshot_);
  }

  // Each pod through both algorithms; what they decide and say must agree.
  void ExpectSameOutcomes(const std::vector<const char*>& cpu_requests) {
    for (size_t p = 0; p < cpu_requests.size(); ++p) {
      SCOPED_TRACE("pod " + std::to_string(p) + " asking for " +
                   cpu_requests[p] + " CPU");
      auto pod = PodBuilder("p" + std::to_string(p))
                     .Req({{"cpu", cpu_requests[p]}})
                     .Info();
      framework::CycleState with_state;
      ScheduleResult with = with_.Schedule(*fwk_, with_state, *pod, snapshot_);
      framework::CycleState without_state;
      ScheduleResult without =
          without_.Schedule(*fwk_, without_state, *pod, snapshot_);
      ASSERT_EQ(with.kind, without.kind) << with.error_message;
      EXPECT_EQ(with.suggested_host, without.suggested_host);
      EXPECT_EQ(with.evaluated_nodes, without.evaluated_nodes);
      EXPECT_EQ(with.feasible_nodes, without.feasible_nodes);
      EXPECT_EQ(with_.next_start_node_index(),
                without_.next_start_node_index());
      EXPECT_EQ(without.diagnosis.unexplained_rejections, 0);
      if (with.kind == ScheduleResult::Kind::kScheduled) {
        scheduled_ += 1;
        left_out_while_scheduling_ += with.diagnosis.unexplained_rejections;
        continue;
      }
      ASSERT_EQ(with.kind, ScheduleResult::Kind::kNoFit);
      ++unschedulable_;
      EXPECT_EQ(with.diagnosis.unexplained_rejections, 0);
      EXPECT_EQ(with.FailureMessage(), without.FailureMessage());
      EXPECT_EQ(with.diagnosis.unschedulable_plugins,
                without.diagnosis.unschedulable_plugins);
      const auto& a = with.diagnosis.node_to_status.entries();
      const auto& b = without.diagnosis.node_to_status.entries();
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].node, b[i].node);
        EXPECT_EQ(a[i].status, b[i].status) << a[i].node;
      }
    }
  }

  Listing listing_;
  bool may_err_first_ = false;
  framework::Snapshot snapshot_;
  util::DefaultRandom random_with_{7};
  util::DefaultRandom random_without_{7};
  SchedulingAlgorithm with_{0, random_with_};
  SchedulingAlgorithm without_{0, random_without_};
  int scheduled_ = 0;
  int unschedulable_ = 0;
  int64_t left_out_while_scheduling_ = 0;
};

std::vector<std::string> NodesWhere(bool (*keep)(int)) {
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) {
    if (keep(i)) names.push_back("n" + std::to_string(i));
  }
  return names;
}

TEST_F(FilterCandidatesTest, ManyCandidatesSameDecisionsAndMessages) {
  // 200 candidates: more than the 142 nodes a cycle looks for, so cycles
  // stop early, at a start index that moves.
  listing_.Set(NodesWhere([](int i) { return i % 3 != 0; }));
  without_.set_use_filter_candidates(false);
  MakeNodes();
  ExpectSameOutcomes({"1", "4", "100", "1", "1", "4", "8", "100", "1", "4", "1",
                      "1", "1", "4", "1"});
  EXPECT_GE(scheduled_, 10);
  EXPECT_EQ(unschedulable_, 2);
  EXPECT_GT(with_.candidate_rejections(), 0);
  EXPECT_GT(left_out_while_scheduling_, 0);
  EXPECT_EQ(without_.candidate_rejections(), 0);
}

TEST_F(FilterCandidatesTest, FewCandidatesSameDecisionsAndMessages) {
  // 30 candidates, 6 of them with 16 CPUs: "4" fits 6 nodes, "100" none,
  // and with "8" twice... every cycle looks at every node.
  listing_.Set(NodesWhere([](int i) { return i % 10 == 0 || i % 10 == 7; }));
  without_.set_use_filter_candidates(false);
  MakeNodes();
  ExpectSameOutcomes({"4", "1", "100", "8", "2", "3", "100", "1"});
  EXPECT_GE(scheduled_, 5);
  EXPECT_EQ(unschedulable_, 2);
  EXPECT_GT(with_.candidate_rejections(), 0);
}

TEST_F(FilterCandidatesTest, NoCandidatesLeftOutYetUnschedulable) {
  // An empty list: every node is left out, then filtered for the message.
  listing_.Set({});
  without_.set_use_filter_candidates(false);
  MakeNodes();
  ExpectSameOutcomes({"1", "100"});
  EXPECT_EQ(unschedulable_, 2);
}

TEST_F(FilterCandidatesTest, ALeftOutNodeThatPassesIsAnError) {
  listing_.Set({});
  listing_.passes.insert("n5");  // passes, but is not a candidate
  MakeNodes();
  framework::CycleState state;
  ScheduleResult r = with_.Schedule(
      *fwk_, state, *PodBuilder("p").Req({{"cpu", "1"}}).Info(), snapshot_);
  EXPECT_EQ(r.kind, ScheduleResult::Kind::kError);
  EXPECT_EQ(r.error_message,
            "node n5 was left out of the filter candidates but passes every "
            "filter");
}

class FilterCandidatesAfterMayErrTest : public FilterCandidatesTest {
 protected:
  FilterCandidatesAfterMayErrTest() { may_err_first_ = true; }
};

TEST_F(FilterCandidatesAfterMayErrTest, APluginThatMayErrBeforeIsHonoured) {
  // MayErr runs first and might fail with an error on any node: every
  // node is filtered, the candidates unused.
  listing_.Set(NodesWhere([](int i) { return i % 3 != 0; }));
  MakeNodes();
  framework::CycleState state;
  ScheduleResult r = with_.Schedule(
      *fwk_, state, *PodBuilder("p").Req({{"cpu", "1"}}).Info(), snapshot_);
  EXPECT_EQ(r.kind, ScheduleResult::Kind::kScheduled);
  EXPECT_EQ(with_.candidate_rejections(), 0);
  EXPECT_EQ(r.diagnosis.unexplained_rejections, 0);
}

}  // namespace
}  // namespace filter_candidates_test_detail
}  // namespace ksched::scheduler

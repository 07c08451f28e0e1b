// A PodGroup's status from its members (the phases of scheduler-plugins'
// PodGroup controller, podgroup_controller_test.go's cases among them), and
// the controller that writes it: only changes, at most once a second.
#include "pkg/plugins/coscheduling/pod_group_status.h"

#include <gtest/gtest.h>

#include "pkg/framework/testing/recording_writer.h"
#include "pkg/plugins/coscheduling/pod_group_status_controller.h"
#include "pkg/plugins/coscheduling/testing_util.h"
#include "pkg/util/fake_clock.h"

namespace ksched::plugins::coscheduling {
namespace {

using testing::MakePodGroup;
using testing::Member;

const api::Timestamp kNow = api::Timestamp(std::chrono::seconds(5000));

std::shared_ptr<api::Pod> InPhase(const std::string& name,
                                  std::string_view phase, bool bound = true) {
  ksched::testing::PodBuilder b = Member("ns", name, "pg");
  if (bound) b.Node("n1");
  auto pod = std::make_shared<api::Pod>(b.Obj());
  pod->status.phase = std::string(phase);
  return pod;
}
using Pods = std::vector<std::shared_ptr<const api::Pod>>;

struct PhaseCase {
  const char* name;
  std::string previous;  // the group's phase before
  int members, bound, running, succeeded, failed, waiting;
  std::string_view want;
};

TEST(NextPodGroupStatusTest, PhasesFollowTheMembers) {
  const PhaseCase cases[] = {
      {"no pods", "", 0, 0, 0, 0, 0, 0, api::kPodGroupPending},
      {"too few pods", "", 2, 0, 0, 0, 0, 0, api::kPodGroupPending},
      {"enough pods, none placed", "Pending", 3, 0, 0, 0, 0, 0,
       api::kPodGroupPreScheduling},
      {"one held at Permit", "PreScheduling", 3, 0, 0, 0, 0, 1,
       api::kPodGroupScheduling},
      {"two bound of three", "Scheduling", 3, 2, 0, 0, 0, 0,
       api::kPodGroupScheduling},
      {"all bound", "Scheduling", 3, 3, 0, 0, 0, 0, api::kPodGroupScheduled},
      {"running", "Scheduled", 3, 3, 3, 0, 0, 0, api::kPodGroupRunning},
      {"running and done", "Running", 3, 3, 1, 2, 0, 0, api::kPodGroupRunning},
      {"all succeeded", "Running", 3, 3, 0, 3, 0, 0, api::kPodGroupFinished},
      {"one failed", "Running", 3, 3, 2, 0, 1, 0, api::kPodGroupFailed},
      {"pods deleted", "Scheduling", 0, 0, 0, 0, 0, 0, api::kPodGroupPending},
      {"finished stays", "Finished", 0, 0, 0, 0, 0, 0, api::kPodGroupFinished},
      {"failed stays", "Failed", 3, 3, 3, 0, 0, 0, api::kPodGroupFailed},
  };
  for (const PhaseCase& c : cases) {
    api::PodGroup g = MakePodGroup("ns", "pg", 3);
    g.status.phase = c.previous;
    MemberCounts seen{.members = c.members,
                      .bound = c.bound,
                      .running = c.running,
                      .succeeded = c.succeeded,
                      .failed = c.failed,
                      .waiting = c.waiting};
    const api::PodGroupStatus s = NextPodGroupStatus(g, seen, kNow);
    EXPECT_EQ(s.phase, c.want) << c.name;
    if (c.previous != "Finished" && c.previous != "Failed") {
      EXPECT_EQ(s.scheduled, c.bound) << c.name;
      EXPECT_EQ(s.running, c.running) << c.name;
      EXPECT_EQ(s.succeeded, c.succeeded) << c.name;
      EXPECT_EQ(s.failed, c.failed) << c.name;
    }
  }
}

TEST(NextPodGroupStatusTest, StartTimeAndOccupiedBySetOnceOutOfPending) {
  api::PodGroup g = MakePodGroup("ns", "pg", 2);
  auto b = InPhase("b", "Pending", false);
  auto a = InPhase("a", "Pending", false);
  b->metadata.owner_references = {{.kind = "Job", .name = "train"}};
  a->metadata.owner_references = {{.kind = "Job", .name = "zeta"},
                                  {.kind = "Job", .name = "alpha"}};
  const Pods pods = {b, a};
  const MemberCounts seen = CountMembers(pods, 0);
  EXPECT_EQ(seen.occupied_by, "ns/alpha,ns/zeta");  // pod "a", sorted
  api::PodGroupStatus s = NextPodGroupStatus(g, seen, kNow);
  EXPECT_EQ(s.phase, api::kPodGroupPreScheduling);
  ASSERT_TRUE(s.schedule_start_time.has_value());
  EXPECT_EQ(s.schedule_start_time->value, kNow);
  EXPECT_EQ(s.occupied_by, "ns/alpha,ns/zeta");
  // Later syncs keep both.
  g.status = s;
  s = NextPodGroupStatus(g, CountMembers(Pods{InPhase("c", "Running")}, 0),
                         kNow + std::chrono::seconds(9));
  EXPECT_EQ(s.schedule_start_time->value, kNow);
  EXPECT_EQ(s.occupied_by, "ns/alpha,ns/zeta");
  // Pending sets neither.
  api::PodGroup fresh = MakePodGroup("ns", "pg", 5);
  s = NextPodGroupStatus(fresh, seen, kNow);
  EXPECT_EQ(s.phase, api::kPodGroupPending);
  EXPECT_FALSE(s.schedule_start_time.has_value());
  EXPECT_EQ(s.occupied_by, "");
}

TEST(CountMembersTest, CountsBoundAndPhases) {
  const MemberCounts c =
      CountMembers({InPhase("a", "Running"), InPhase("b", "Succeeded"),
                    InPhase("c", "Failed"), InPhase("d", "Pending"),
                    InPhase("e", "Pending", false)},
                   2);
  EXPECT_EQ(c.members, 5);
  EXPECT_EQ(c.bound, 4);
  EXPECT_EQ(c.running, 1);
  EXPECT_EQ(c.succeeded, 1);
  EXPECT_EQ(c.failed, 1);
  EXPECT_EQ(c.waiting, 2);
}

class PodGroupStatusControllerTest : public ::testing::Test {
 protected:
  PodGroupStatusController Make() {
    return PodGroupStatusController(objects_, members_, writer_,
                                    [this] { return waiting_; },
                                    {.clock = &clock_});
  }
  void AddMember(const std::string& name, bool bound) {
    members_.Upsert(InPhase(name, "Pending", bound));
  }

  util::FakeClock clock_;
  framework::InMemoryClusterObjects objects_;
  framework::PodGroupMembers members_;
  ksched::testing::RecordingWriter writer_;
  std::map<std::string, int32_t> waiting_;
};

TEST_F(PodGroupStatusControllerTest, WritesChangesAtMostOnceASecondPerGroup) {
  objects_.Upsert(MakePodGroup("ns", "pg", 2));
  PodGroupStatusController c = Make();
  EXPECT_EQ(c.Sync(), 1);  // "" -> Pending
  ASSERT_EQ(writer_.pod_group_statuses.size(), 1u);
  EXPECT_EQ(writer_.pod_group_statuses[0].first, "ns/pg");
  EXPECT_EQ(writer_.pod_group_statuses[0].second.phase, "Pending");
  // Nothing changed (the informer has not even shown the write): nothing
  // written.
  clock_.Advance(std::chrono::seconds(5));
  EXPECT_EQ(c.Sync(), 0);

  AddMember("a", false);
  AddMember("b", false);
  EXPECT_EQ(c.Sync(), 1);  // PreScheduling
  waiting_["ns/pg"] = 1;
  clock_.Advance(std::chrono::milliseconds(999));
  EXPECT_EQ(c.Sync(), 0) << "within a second of the last write";
  clock_.Advance(std::chrono::milliseconds(1));
  EXPECT_EQ(c.Sync(), 1);
  EXPECT_EQ(writer_.pod_group_statuses.back().second.phase, "Scheduling");

  waiting_.clear();
  AddMember("a", true);
  AddMember("b", true);
  clock_.Advance(std::chrono::seconds(1));
  EXPECT_EQ(c.Sync(), 1);
  const api::PodGroupStatus& last = writer_.pod_group_statuses.back().second;
  EXPECT_EQ(last.phase, "Scheduled");
  EXPECT_EQ(last.scheduled, 2);
}

TEST_F(PodGroupStatusControllerTest, AFailedWriteIsTriedAgainNextSecond) {
  objects_.Upsert(MakePodGroup("ns", "pg", 2));
  writer_.result = framework::Status::Error("the server is down");
  PodGroupStatusController c = Make();
  EXPECT_EQ(c.Sync(), 0);
  EXPECT_EQ(writer_.pod_group_statuses.size(), 1u);  // tried
  writer_.result = framework::Status();
  EXPECT_EQ(c.Sync(), 0);  // not within the second
  clock_.Advance(std::chrono::seconds(1));
  EXPECT_EQ(c.Sync(), 1);
  EXPECT_EQ(writer_.pod_group_statuses.size(), 2u);
}

TEST_F(PodGroupStatusControllerTest, AGroupCreatedAgainStartsOver) {
  api::PodGroup g = MakePodGroup("ns", "pg", 2);
  g.metadata.uid = "first";
  objects_.Upsert(g);
  PodGroupStatusController c = Make();
  EXPECT_EQ(c.Sync(), 1);
  // Deleted and created again under the same name, within the second: its
  // empty status is written at once.
  objects_.DeletePodGroup("ns", "pg");
  EXPECT_EQ(c.Sync(), 0);
  g.metadata.uid = "second";
  objects_.Upsert(g);
  EXPECT_EQ(c.Sync(), 1);
}

}  // namespace
}  // namespace ksched::plugins::coscheduling

// Gangs against the test API server, as a user meets them: scheduler-
// plugins' PodGroups and pod labels, the real ksched binary with the
// Coscheduling profile. A gang binds whole or not at all; what it cannot
// use it gives back; two gangs that do not both fit never deadlock; the
// group's status follows; a restart in the middle of a gang loses nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/api/podgroup.h"
#include "test/apiserver/test_objects.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using std::chrono::seconds;

class GangTest : public ClusterTestBase {
 protected:
  void CreatePodGroup(const std::string& name, int min_member,
                      const std::string& extra_spec = "") {
    Create("/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups",
           R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",
               "metadata":{"name":")" +
               name + R"("},"spec":{"minMember":)" +
               std::to_string(min_member) + extra_spec + "}}");
  }
  void CreateMember(const std::string& name, const std::string& group,
                    const std::string& cpu,
                    const std::string& extra_spec = "") {
    Create("/api/v1/namespaces/default/pods",
           PodJson(
               {.name = name,
                .cpu = cpu,
                .scheduler = "ksched",
                .labels = R"("scheduling.x-k8s.io/pod-group":")" + group + "\"",
                .extra_spec = extra_spec}));
  }
  api::PodGroup GetPodGroup(const std::string& name) {
    auto r = server_->Get(
        "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups/" +
        name);
    EXPECT_EQ(r.code, 200) << r.body;
    auto group = api::DecodeJson<api::PodGroup>(r.body);
    EXPECT_TRUE(group.ok()) << r.body;
    return group.ok() ? *group : api::PodGroup{};
  }
  // The members of `group` (name prefix) bound so far.
  int Bound(const std::string& prefix) {
    int n = 0;
    for (const api::Pod& p : Pods()) {
      if (p.metadata.name.rfind(prefix, 0) == 0 && !p.spec.node_name.empty()) {
        ++n;
      }
    }
    return n;
  }
  // The notes of the FailedScheduling events about `pod`.
  std::vector<std::string> Failures(const std::string& pod) {
    std::vector<std::string> notes;
    for (const api::Event& e : Events()) {
      if (e.regarding.name == pod && e.reason == "FailedScheduling") {
        notes.push_back(e.note);
      }
    }
    return notes;
  }
  bool FailedWith(const std::string& pod, const std::string& text) {
    for (const std::string& note : Failures(pod)) {
      if (note.find(text) != std::string::npos) return true;
    }
    return false;
  }
  // Three 4-CPU nodes and gang "train" of four members of `cpu` each, the
  // fourth pinned to node-3, which does not exist: with a 30% reject
  // percentage its failure does not release the three others, which wait at
  // Permit, one on each node. Returns once they do.
  void HoldThreeMembersAtPermit(const std::string& cpu) {
    for (int i = 0; i < 3; ++i) CreateNode("node-" + std::to_string(i), "4");
    CreatePodGroup("train", 4);
    for (int i = 0; i < 3; ++i)
      CreateMember("w" + std::to_string(i), "train", cpu);
    CreateMember("w3", "train", cpu,
                 R"("nodeSelector":{"kubernetes.io/hostname":"node-3"})");
    StartGangScheduler(kHoldAtPermit);
    ASSERT_TRUE(WaitUntil([&] { return FailedWith("w3", "didn't match"); },
                          seconds(60)))
        << ksched_->Tail();
    ASSERT_TRUE(WaitUntil(
        [&] { return GetPodGroup("train").status.phase == "Scheduling"; },
        seconds(60)))
        << ksched_->Tail();
    EXPECT_EQ(Bound("w"), 0);
  }
  static constexpr char kHoldAtPermit[] =
      "permitWaitingTimeSeconds: 300\n      podGroupRejectPercentage: 30";
};

TEST_F(GangTest, IncompleteGangWaitsThenBindsWholeWithItsLastMember) {
  for (int i = 0; i < 4; ++i) CreateNode("node-" + std::to_string(i), "4");
  CreatePodGroup("train", 4);
  for (int i = 0; i < 3; ++i)
    CreateMember("w" + std::to_string(i), "train", "1");
  StartGangScheduler();
  // Refused before any node is tried, saying why.
  ASSERT_TRUE(WaitUntil(
      [&] {
        return FailedWith("w0",
                          "cannot find enough sibling pods, current pods "
                          "number: 3, minMember of group: 4");
      },
      seconds(30)))
      << ksched_->Tail();
  ASSERT_TRUE(
      WaitUntil([&] { return GetPodGroup("train").status.phase == "Pending"; },
                seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(Bound("w"), 0);

  CreateMember("w3", "train", "1");
  ASSERT_TRUE(WaitUntil([&] { return Bound("w") == 4; }, seconds(30)))
      << ksched_->Tail();
  // One Permit round: no member was ever held and let go.
  for (const char* pod : {"w0", "w1", "w2", "w3"}) {
    EXPECT_FALSE(FailedWith(pod, "rejection in")) << pod;
    EXPECT_FALSE(FailedWith(pod, "timeout")) << pod;
  }
  EXPECT_EQ(server_->RequestCount("POST", "/binding"), 4);
  ExpectBoundOnceAndFitting(
      {{"node-0", 4000}, {"node-1", 4000}, {"node-2", 4000}, {"node-3", 4000}});
  // The group's status, as scheduler-plugins' controller would show it
  // (nothing runs the pods here, so it stops at Scheduled).
  ASSERT_TRUE(WaitUntil(
      [&] { return GetPodGroup("train").status.phase == "Scheduled"; },
      seconds(30)))
      << ksched_->Tail();
  const api::PodGroup group = GetPodGroup("train");
  EXPECT_EQ(group.status.scheduled, 4);
  EXPECT_EQ(group.status.running, 0);
  EXPECT_TRUE(group.status.schedule_start_time.has_value());
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

TEST_F(GangTest, GangThatFitsPartlyReleasesItsRoomToOtherPods) {
  // Three nodes take three of the four 3-cpu members.
  for (int i = 0; i < 3; ++i) CreateNode("node-" + std::to_string(i), "4");
  CreatePodGroup("train", 4);
  for (int i = 0; i < 4; ++i)
    CreateMember("w" + std::to_string(i), "train", "3");
  StartGangScheduler();
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const char* pod : {"w0", "w1", "w2", "w3"}) {
          if (FailedWith(pod, "rejection in PostFilter")) return true;
        }
        return false;
      },
      seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(Bound("w"), 0);
  // The room the gang held is free: a pod of no gang takes it.
  CreatePod("small", "3");
  ASSERT_TRUE(WaitUntil([&] { return !GetPod("small").spec.node_name.empty(); },
                        seconds(30)))
      << ksched_->Tail();
  // Now the gang can never fit; it keeps trying and binds nothing.
  std::this_thread::sleep_for(seconds(3));
  EXPECT_EQ(Bound("w"), 0);
  EXPECT_EQ(server_->RequestCount("POST", "/binding"), 1);
  EXPECT_NE(GetPodGroup("train").status.phase, "Scheduled");
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

TEST_F(GangTest, CompetingGangsOneCompletesNoDeadlock) {
  // Room for four 3-cpu pods; two gangs of three.
  for (int i = 0; i < 4; ++i) CreateNode("node-" + std::to_string(i), "4");
  CreatePodGroup("a", 3);
  CreatePodGroup("b", 3);
  StartGangScheduler();
  for (int i = 0; i < 3; ++i) {
    CreateMember("a" + std::to_string(i), "a", "3");
    CreateMember("b" + std::to_string(i), "b", "3");
  }
  ASSERT_TRUE(WaitUntil([&] { return Bound("a") == 3 || Bound("b") == 3; },
                        seconds(60)))
      << "a: " << Bound("a") << ", b: " << Bound("b") << ksched_->Tail();
  const std::string done = Bound("a") == 3 ? "a" : "b";
  const std::string waiting = done == "a" ? "b" : "a";
  std::this_thread::sleep_for(seconds(3));
  EXPECT_EQ(Bound(done), 3);
  EXPECT_EQ(Bound(waiting), 0);
  EXPECT_EQ(server_->RequestCount("POST", "/binding"), 3);
  ExpectBoundOnceAndFitting(
      {{"node-0", 4000}, {"node-1", 4000}, {"node-2", 4000}, {"node-3", 4000}});
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

TEST_F(GangTest, RestartInTheMiddleOfAGangLosesNothing) {
  ASSERT_NO_FATAL_FAILURE(HoldThreeMembersAtPermit("1"));
  // Killed with three members held: nothing was bound, nothing is lost.
  ksched_->Kill();
  Create("/api/v1/nodes",
         NodeJson({.name = "node-3",
                   .labels = R"("kubernetes.io/hostname":"node-3")"}));
  StartGangScheduler(kHoldAtPermit);
  ASSERT_TRUE(WaitUntil([&] { return Bound("w") == 4; }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(GetPod("w3").spec.node_name, "node-3");
  EXPECT_EQ(server_->RequestCount("POST", "/binding"), 4);
  ExpectBoundOnceAndFitting(
      {{"node-0", 4000}, {"node-1", 4000}, {"node-2", 4000}, {"node-3", 4000}});
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// v1.36's preemption of a gang held at Permit: the member on the chosen
// node is preempted in memory (no API call, no deletion), goes back through
// backoff with "waiting on permit for pod: preempted", and the event about
// it says so; the higher-priority pod takes its room.
TEST_F(GangTest, MemberWaitingAtPermitIsPreemptedInMemory) {
  ASSERT_NO_FATAL_FAILURE(HoldThreeMembersAtPermit("3"));

  Create("/apis/scheduling.k8s.io/v1/priorityclasses",
         R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",
             "metadata":{"name":"high"},"value":1000})");
  Create("/api/v1/namespaces/default/pods",
         PodJson({.name = "urgent",
                  .cpu = "3",
                  .scheduler = "ksched",
                  .extra_spec = R"("priorityClassName":"high")"}));
  ASSERT_TRUE(WaitUntil(
      [&] { return !GetPod("urgent").spec.node_name.empty(); }, seconds(60)))
      << ksched_->Tail();
  // The member that was on that node: preempted in memory.
  std::string victim;
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const api::Event& e : Events()) {
          if (e.reason == "Preempted") victim = e.regarding.name;
        }
        return !victim.empty();
      },
      seconds(60)))
      << ksched_->Tail();
  for (const api::Event& e : Events()) {
    if (e.reason != "Preempted") continue;
    EXPECT_EQ(e.regarding.name, victim);
    // The victim's node; the preemptor may yet bind elsewhere, since the
    // gang's other members give their room back when one is preempted.
    EXPECT_TRUE(e.note.starts_with("Preempted by pod ")) << e.note;
    EXPECT_TRUE(e.note.ends_with(" (in kube-scheduler memory).")) << e.note;
  }
  ASSERT_TRUE(WaitUntil(
      [&] {
        return FailedWith(victim, "waiting on permit for pod: preempted");
      },
      seconds(60)))
      << ksched_->Tail();
  // Nothing was deleted or bound but the preemptor.
  EXPECT_EQ(server_->RequestCount("DELETE", "/pods/"), 0);
  EXPECT_EQ(server_->RequestCount("POST", "/binding"), 1);
  EXPECT_EQ(Bound("w"), 0);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing

// The real ksched binary against the test API server: pods are bound once
// and validly, pods of other schedulers are left alone, an unschedulable
// pod is told why and waits for a node, and dropped or expired watches
// lose nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "pkg/api/codec.h"
#include "pkg/client/rest_list_watch.h"
#include "test/apiserver/test_api_server.h"
#include "test/apiserver/test_objects.h"
#include "test/integration/ksched_process.h"

namespace ksched::testing {
namespace {

using std::chrono::seconds;

class SchedulingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = TestApiServer::Start({.bookmark_interval = seconds(1)});
    ASSERT_NE(server_, nullptr);
    dir_ = std::filesystem::temp_directory_path() /
           ("ksched-it-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    server_->WriteKubeconfig(dir_ / "kubeconfig");
  }
  void TearDown() override {
    ksched_.reset();
    std::filesystem::remove_all(dir_);
  }

  void StartKsched() {
    ksched_ = std::make_unique<KschedProcess>(
        std::vector<std::string>{"--kubeconfig", dir_ / "kubeconfig", "--v",
                                 "2"},
        dir_ / "ksched.log");
  }

  void Create(const std::string& collection, const std::string& json) {
    auto reply = server_->Create(collection, json);
    ASSERT_EQ(reply.code, 201) << reply.body;
  }
  void CreateNode(const std::string& name, const std::string& cpu) {
    Create("/api/v1/nodes",
           NodeJson({.name = name,
                     .cpu = cpu,
                     .labels = R"("kubernetes.io/hostname":")" + name + "\""}));
  }
  void CreatePod(const std::string& name, const std::string& cpu,
                 const std::string& scheduler = "ksched") {
    Create("/api/v1/namespaces/default/pods",
           PodJson({.name = name,
                    .cpu = cpu,
                    .memory = "64Mi",
                    .scheduler = scheduler}));
  }

  std::vector<api::Pod> Pods() {
    auto reply = server_->List("/api/v1/pods");
    EXPECT_EQ(reply.code, 200);
    auto page = client::DecodeListPage<api::Pod>(reply.body);
    EXPECT_TRUE(page.ok()) << page.error().message();
    return page.ok() ? page->items : std::vector<api::Pod>{};
  }
  api::Pod GetPod(const std::string& name) {
    auto reply = server_->Get("/api/v1/namespaces/default/pods/" + name);
    auto pod = api::DecodeJson<api::Pod>(reply.body);
    EXPECT_TRUE(pod.ok());
    return pod.ok() ? *pod : api::Pod{};
  }
  std::vector<api::Event> Events() {
    auto reply = server_->List("/apis/events.k8s.io/v1/events");
    auto page = client::DecodeListPage<api::Event>(reply.body);
    EXPECT_TRUE(page.ok()) << reply.body.substr(0, 200);
    return page.ok() ? page->items : std::vector<api::Event>{};
  }
  // Pods of ours not bound yet.
  int Unbound() {
    int n = 0;
    for (const api::Pod& p : Pods()) {
      if (p.spec.scheduler_name == "ksched" && p.spec.node_name.empty()) ++n;
    }
    return n;
  }

  // Every binding of a pod answered 201 exactly once, and no node holds
  // more CPU than it has (millicores by node).
  void ExpectBoundOnceAndFitting(const std::map<std::string, int>& node_cpu) {
    std::map<std::string, int> successes;
    for (const auto& b : server_->Bindings()) {
      if (b.code == 201) ++successes[b.ns + "/" + b.name];
    }
    std::map<std::string, int> used;
    for (const api::Pod& p : Pods()) {
      if (p.spec.node_name.empty()) continue;
      EXPECT_EQ(successes["default/" + p.metadata.name], 1) << p.metadata.name;
      for (const auto& c : p.spec.containers) {
        if (const api::Quantity* cpu = c.resources.requests.Find("cpu")) {
          used[p.spec.node_name] += static_cast<int>(cpu->MilliValue());
        }
      }
    }
    for (const auto& [node, millis] : used) {
      ASSERT_TRUE(node_cpu.contains(node)) << node;
      EXPECT_LE(millis, node_cpu.at(node)) << node;
    }
  }

  std::unique_ptr<TestApiServer> server_;
  std::filesystem::path dir_;
  std::unique_ptr<KschedProcess> ksched_;
};

TEST_F(SchedulingTest, BindsOurPodsOnceAndValidlyAndLeavesOthersAlone) {
  for (int i = 0; i < 3; ++i) CreateNode("node-" + std::to_string(i), "2");
  for (int i = 0; i < 10; ++i) CreatePod("p-" + std::to_string(i), "500m");
  CreatePod("theirs", "100m", "default-scheduler");
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Log();
  // Pods created after the start are scheduled from the watch.
  CreatePod("late", "500m");
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Log();

  ExpectBoundOnceAndFitting(
      {{"node-0", 2000}, {"node-1", 2000}, {"node-2", 2000}});
  EXPECT_EQ(server_->Bindings().size(), 11u);
  const api::Pod theirs = GetPod("theirs");
  EXPECT_TRUE(theirs.spec.node_name.empty());
  EXPECT_TRUE(theirs.status.conditions.empty());

  // The Scheduled event, as kube-scheduler words it.
  const api::Pod late = GetPod("late");
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const api::Event& e : Events()) {
          if (e.regarding.name == "late" && e.reason == "Scheduled")
            return true;
        }
        return false;
      },
      seconds(10)));
  for (const api::Event& e : Events()) {
    if (e.regarding.name != "late" || e.reason != "Scheduled") continue;
    EXPECT_EQ(e.note,
              "Successfully assigned default/late to " + late.spec.node_name);
    EXPECT_EQ(e.type, "Normal");
    EXPECT_EQ(e.action, "Binding");
    EXPECT_EQ(e.reporting_controller, "ksched");
  }
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Log();
}

TEST_F(SchedulingTest, UnschedulablePodIsToldWhyAndWaitsForANode) {
  for (int i = 0; i < 2; ++i) CreateNode("small-" + std::to_string(i), "1");
  CreatePod("big", "3");
  StartKsched();
  const std::string why = "0/2 nodes are available: 2 Insufficient cpu.";
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const auto& c : GetPod("big").status.conditions) {
          if (c.type == "PodScheduled" && c.status == "False" &&
              c.reason == "Unschedulable") {
            return true;
          }
        }
        return false;
      },
      seconds(30)))
      << ksched_->Log();
  for (const auto& c : GetPod("big").status.conditions) {
    if (c.type == "PodScheduled") {
      EXPECT_EQ(c.message.substr(0, why.size()), why);
    }
  }
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const api::Event& e : Events()) {
          if (e.regarding.name == "big" && e.reason == "FailedScheduling" &&
              e.type == "Warning" && e.note.starts_with(why)) {
            return true;
          }
        }
        return false;
      },
      seconds(10)));

  CreateNode("large", "4");
  ASSERT_TRUE(WaitUntil([&] { return !GetPod("big").spec.node_name.empty(); },
                        seconds(30)))
      << ksched_->Log();
  EXPECT_EQ(GetPod("big").spec.node_name, "large");
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Log();
}

TEST_F(SchedulingTest, DroppedAndExpiredWatchesLoseNothing) {
  for (int i = 0; i < 4; ++i) CreateNode("node-" + std::to_string(i), "8");
  StartKsched();
  int next = 0;
  auto create_batch = [&](int n) {
    for (int i = 0; i < n; ++i)
      CreatePod("w-" + std::to_string(next++), "100m");
  };
  create_batch(10);
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Log();
  server_->DropWatches();
  create_batch(10);
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Log();
  // History gone and watches cut: the informers relist.
  server_->CompactHistory();
  server_->DropWatches();
  create_batch(10);
  // A node added while relisting is seen too.
  CreateNode("node-late", "8");
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Log();

  ExpectBoundOnceAndFitting({{"node-0", 8000},
                             {"node-1", 8000},
                             {"node-2", 8000},
                             {"node-3", 8000},
                             {"node-late", 8000}});
  EXPECT_EQ(server_->Bindings().size(), 30u);
  EXPECT_TRUE(ksched_->Running());
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Log();
}

}  // namespace
}  // namespace ksched::testing

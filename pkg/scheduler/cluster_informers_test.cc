// ClusterInformers with what discovery found: a resource the API server
// does not serve is never asked for, the caches still sync, and the
// start-up notes name what is missing.
#include "pkg/scheduler/cluster_informers.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>

#include "pkg/config/config.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/fake_api_server.h"
#include "pkg/util/fake_clock.h"
#include "pkg/util/logger.h"

namespace ksched::scheduler {
namespace {

// An API server with nothing in it: every list is empty, every watch stays
// open and quiet until cancelled. Records the collections asked for.
class EmptyCluster final : public client::Transport {
 public:
  util::Result<client::HttpResponse> RoundTrip(
      const client::HttpRequest& request) override {
    Record(request.path);
    return client::HttpResponse{
        .code = 200,
        .body = R"({"metadata":{"resourceVersion":"7"},"items":[]})",
        .content_type = "application/json"};
  }
  util::Result<client::StreamedResponse> Stream(
      const client::HttpRequest& request, util::Cancellation& cancel) override {
    Record(request.path);
    return client::StreamedResponse{
        .code = 200,
        .content_type = "application/json",
        .body = std::make_unique<QuietBody>(cancel)};
  }
  std::set<std::string> collections() const {
    std::lock_guard<std::mutex> lock(mu_);
    return collections_;
  }

 private:
  class QuietBody final : public client::BodyReader {
   public:
    explicit QuietBody(util::Cancellation& cancel) : cancel_(cancel) {}
    util::Result<bool> ReadSome(std::string&) override {
      while (!cancel_.WaitFor(std::chrono::milliseconds(20))) {
      }
      return util::Error("cancelled");
    }

   private:
    util::Cancellation& cancel_;
  };

  void Record(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    collections_.insert(path.substr(0, path.find('?')));
  }
  mutable std::mutex mu_;
  std::set<std::string> collections_;
};

class ClusterInformersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Scheduler::Dependencies deps;
    deps.clock = &clock_;
    deps.random = &random_;
    deps.binder = &api_;
    deps.writer = &api_;
    deps.objects = &objects_;
    auto created =
        Scheduler::Create(config::DefaultConfig(), registry_, std::move(deps));
    ASSERT_TRUE(created.ok()) << created.error().message();
    scheduler_ = std::move(*created);
    auto transport = std::make_unique<EmptyCluster>();
    cluster_ = transport.get();
    client_ = std::make_unique<client::RestClient>(
        std::move(transport), clock_, random_, [](util::Clock::Duration) {},
        client::RestClientOptions{});
  }
  void TearDown() override {
    if (scheduler_ != nullptr) scheduler_->Stop();
  }

  // Starts informers with `served` and waits for them to sync.
  std::unique_ptr<ClusterInformers> Sync(const client::ServedResources* served,
                                         bool pod_groups) {
    auto informers = std::make_unique<ClusterInformers>(
        *client_, *scheduler_, objects_, log_, random_,
        informer::InformerOptions{}, pod_groups, served);
    informers->Start();
    util::Cancellation stop;
    std::thread timeout([&stop] {
      stop.WaitFor(std::chrono::seconds(20));
      stop.Cancel();
    });
    const bool synced = informers->WaitForSync(stop);
    stop.Cancel();
    timeout.join();
    EXPECT_TRUE(synced) << "unsynced: " << informers->Unsynced().size();
    return informers;
  }

  util::FakeClock clock_;
  util::DefaultRandom random_{1};
  framework::Registry registry_ = plugins::NewInTreeRegistry();
  test::FakeApiServer api_;
  framework::InMemoryClusterObjects objects_;
  util::StderrLogger log_{0};
  std::unique_ptr<Scheduler> scheduler_;
  EmptyCluster* cluster_ = nullptr;
  std::unique_ptr<client::RestClient> client_;
};

client::GroupVersionDiscovery Served(std::set<std::string> resources) {
  return {.state = client::GroupVersionDiscovery::State::kServed,
          .resources = std::move(resources)};
}
client::GroupVersionDiscovery NotServed() {
  return {.state = client::GroupVersionDiscovery::State::kNotServed};
}

TEST_F(ClusterInformersTest, WithoutDiscoveryEverythingIsWatched) {
  auto informers = Sync(nullptr, true);
  const std::set<std::string> asked = cluster_->collections();
  for (const char* path :
       {"/api/v1/pods", "/api/v1/nodes", "/apis/policy/v1/poddisruptionbudgets",
        "/apis/storage.k8s.io/v1/csinodes",
        "/apis/scheduling.x-k8s.io/v1alpha1/podgroups"}) {
    EXPECT_TRUE(asked.contains(path)) << path;
  }
}

// A v1.32-like server without the PodGroup CRD and with no policy/v1:
// neither is asked for, and the caches sync.
TEST_F(ClusterInformersTest, WhatIsNotServedIsNotWatched) {
  client::ServedResources served;
  served.Set("/api/v1",
             Served({"pods", "pods/status", "nodes", "namespaces",
                     "persistentvolumeclaims", "persistentvolumes"}));
  served.Set("/apis/policy/v1", NotServed());
  served.Set("/apis/storage.k8s.io/v1",
             Served({"storageclasses", "csinodes", "csidrivers"}));
  served.Set("/apis/scheduling.x-k8s.io/v1alpha1", NotServed());
  served.Set("/apis/resource.k8s.io/v1", NotServed());
  auto informers = Sync(&served, true);
  const std::set<std::string> asked = cluster_->collections();
  EXPECT_TRUE(asked.contains("/api/v1/pods"));
  EXPECT_TRUE(asked.contains("/apis/storage.k8s.io/v1/csinodes"));
  for (const char* path : {"/apis/policy/v1/poddisruptionbudgets",
                           "/apis/storage.k8s.io/v1/volumeattachments",
                           "/apis/scheduling.x-k8s.io/v1alpha1/podgroups"}) {
    EXPECT_FALSE(asked.contains(path)) << path;
  }

  const std::vector<std::string> notes =
      ClusterInformers::NotServedNotes(served, true);
  ASSERT_EQ(notes.size(), 4u);
  EXPECT_EQ(notes[0],
            "the API server does not serve policy/v1, so poddisruptionbudgets "
            "are not watched: preemption counts no PodDisruptionBudget and "
            "may evict pods one protects");
  EXPECT_EQ(notes[1].rfind("the API server's storage.k8s.io/v1 has no "
                           "volumeattachments, so they are not watched: ",
                           0),
            0u)
      << notes[1];
  EXPECT_NE(notes[2].find("scheduling.x-k8s.io/v1alpha1"), std::string::npos);
  EXPECT_NE(notes[2].find("PodGroup not found"), std::string::npos);
  EXPECT_EQ(notes[3].rfind("the API server does not serve resource.k8s.io/v1, "
                           "so deviceclasses, resourceclaims, resourceslices "
                           "are not watched",
                           0),
            0u)
      << notes[3];
  // Without gangs, the PodGroup CRD is neither asked about nor noted.
  EXPECT_EQ(ClusterInformers::NotServedNotes(served, false).size(), 3u);
}

// Discovery that failed (no answer, 5xx, 403) says nothing is missing.
TEST_F(ClusterInformersTest, UnknownIsWatched) {
  client::ServedResources served;
  served.Set("/apis/policy/v1", {.error = "the server is on fire"});
  auto informers = Sync(&served, false);
  EXPECT_TRUE(
      cluster_->collections().contains("/apis/policy/v1/poddisruptionbudgets"));
  EXPECT_TRUE(ClusterInformers::NotServedNotes(served, false).empty());
}

TEST_F(ClusterInformersTest, GroupVersionsAskedAbout) {
  EXPECT_EQ(ClusterInformers::GroupVersionsToDiscover(false),
            (std::vector<std::string>{"/api/v1", "/apis/policy/v1",
                                      "/apis/storage.k8s.io/v1",
                                      "/apis/resource.k8s.io/v1"}));
  EXPECT_EQ(ClusterInformers::GroupVersionsToDiscover(true).size(), 5u);
}

}  // namespace
}  // namespace ksched::scheduler

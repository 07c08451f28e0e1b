// ClusterInformers with what discovery found: a resource the API server
// does not serve is never asked for, the caches still sync, and the
// start-up notes name what is missing.
#include "pkg/scheduler/cluster_informers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "pkg/config/config.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/fake_api_server.h"
#include "pkg/util/fake_clock.h"
#include "pkg/util/logger.h"

namespace ksched::scheduler {
namespace {

// An API server with nothing in it: every list is empty, every watch stays
// open and quiet until cancelled. Records the collections asked for. A
// test may give a collection items to list and watch events to send
// first (each only to the first watch of the collection).
class EmptyCluster final : public client::Transport {
 public:
  util::Result<client::HttpResponse> RoundTrip(
      const client::HttpRequest& request) override {
    const std::string items = Record(request.path).items;
    return client::HttpResponse{
        .code = 200,
        .body =
            R"({"metadata":{"resourceVersion":"7"},"items":[)" + items + "]}",
        .content_type = "application/json"};
  }
  util::Result<client::StreamedResponse> Stream(
      const client::HttpRequest& request, util::Cancellation& cancel) override {
    const std::string collection = Record(request.path).path;
    std::string events;
    {
      std::lock_guard<std::mutex> lock(mu_);
      events = std::exchange(content_[collection].events, "");
    }
    return client::StreamedResponse{
        .code = 200,
        .content_type = "application/json",
        .body = std::make_unique<QuietBody>(cancel, std::move(events))};
  }
  void SetItems(const std::string& collection, std::string items_json) {
    std::lock_guard<std::mutex> lock(mu_);
    content_[collection].items = std::move(items_json);
  }
  void SetEvents(const std::string& collection, std::string events) {
    std::lock_guard<std::mutex> lock(mu_);
    content_[collection].events = std::move(events);
  }
  std::set<std::string> collections() const {
    std::lock_guard<std::mutex> lock(mu_);
    return collections_;
  }

 private:
  class QuietBody final : public client::BodyReader {
   public:
    QuietBody(util::Cancellation& cancel, std::string first)
        : cancel_(cancel), first_(std::move(first)) {}
    util::Result<bool> ReadSome(std::string& out) override {
      if (!first_.empty()) {
        out = std::exchange(first_, "");
        return true;
      }
      while (!cancel_.WaitFor(std::chrono::milliseconds(20))) {
      }
      return util::Error("cancelled");
    }

   private:
    util::Cancellation& cancel_;
    std::string first_;
  };
  struct Content {
    std::string path;
    std::string items;
    std::string events;
  };

  Content Record(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string collection = path.substr(0, path.find('?'));
    collections_.insert(collection);
    Content content = content_[collection];
    content.path = collection;
    return content;
  }
  mutable std::mutex mu_;
  std::set<std::string> collections_;
  std::map<std::string, Content> content_;
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
                                         bool pod_groups,
                                         dra::DraManager* dra = nullptr) {
    auto informers = std::make_unique<ClusterInformers>(
        *client_, *scheduler_, objects_, log_, random_,
        informer::InformerOptions{}, pod_groups, served, dra);
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

constexpr char kDeviceClasses[] = "/apis/resource.k8s.io/v1/deviceclasses";
constexpr char kResourceSlices[] = "/apis/resource.k8s.io/v1/resourceslices";
constexpr char kResourceClaims[] = "/apis/resource.k8s.io/v1/resourceclaims";

client::ServedResources ServedWithDra() {
  client::ServedResources served;
  served.Set("/apis/resource.k8s.io/v1",
             Served({"deviceclasses", "resourceclaims", "resourceclaims/status",
                     "resourceclaimtemplates", "resourceslices"}));
  return served;
}

// Given a DRA manager and a server that serves resource.k8s.io/v1, the
// three kinds are listed (claims in every namespace) and watched, count
// towards the sync, and reach the manager: listed, updated and deleted.
TEST_F(ClusterInformersTest, DynamicResourcesFeedTheManager) {
  cluster_->SetItems(
      kDeviceClasses,
      R"({"metadata":{"name":"gpu.example.com","resourceVersion":"3"},)"
      R"("spec":{"selectors":[{"cel":{"expression":"true"}}]}})");
  cluster_->SetItems(
      kResourceSlices,
      R"({"metadata":{"name":"node-1-gpu","resourceVersion":"4"},)"
      R"("spec":{"driver":"gpu.example.com","nodeName":"node-1",)"
      R"("pool":{"name":"node-1","generation":1,"resourceSliceCount":1},)"
      R"("devices":[{"name":"gpu-0"}]}})");
  cluster_->SetItems(
      kResourceClaims,
      R"({"metadata":{"name":"a","namespace":"default","resourceVersion":"5"},)"
      R"("spec":{"devices":{"requests":[{"name":"gpu","exactly":)"
      R"({"deviceClassName":"gpu.example.com"}}]}}},)"
      R"({"metadata":{"name":"b","namespace":"team","resourceVersion":"6"},)"
      R"("spec":{"devices":{"requests":[]}}})");
  // Then: claim a labelled, claim b deleted.
  cluster_->SetEvents(
      kResourceClaims,
      R"({"type":"MODIFIED","object":{"kind":"ResourceClaim",)"
      R"("apiVersion":"resource.k8s.io/v1","metadata":{"name":"a",)"
      R"("namespace":"default","resourceVersion":"8","labels":{"x":"y"}},)"
      R"("spec":{"devices":{"requests":[{"name":"gpu","exactly":)"
      R"({"deviceClassName":"gpu.example.com"}}]}}}})"
      "\n"
      R"({"type":"DELETED","object":{"kind":"ResourceClaim",)"
      R"("apiVersion":"resource.k8s.io/v1","metadata":{"name":"b",)"
      R"("namespace":"team","resourceVersion":"9"},)"
      R"("spec":{"devices":{"requests":[]}}}})"
      "\n");
  dra::DraManager dra;
  const client::ServedResources served = ServedWithDra();
  auto informers = Sync(&served, false, &dra);
  const std::set<std::string> asked = cluster_->collections();
  for (const char* path : {kDeviceClasses, kResourceSlices, kResourceClaims}) {
    EXPECT_TRUE(asked.contains(path)) << path;
  }
  EXPECT_NE(dra.GetDeviceClass("gpu.example.com"), nullptr);
  EXPECT_NE(dra.ResourceSlices(), nullptr);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  auto labelled = [&] {
    auto a = dra.GetResourceClaim("default", "a");
    return a != nullptr && a->metadata.labels.Contains("x");
  };
  while ((!labelled() || dra.GetResourceClaim("team", "b") != nullptr) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(labelled());
  EXPECT_EQ(dra.GetResourceClaim("team", "b"), nullptr);
  EXPECT_TRUE(informers->Unsynced().empty());
}

// Their informers hold up the sync like any other.
TEST_F(ClusterInformersTest, DynamicResourcesCountTowardsTheSync) {
  dra::DraManager dra;
  const client::ServedResources served = ServedWithDra();
  ClusterInformers informers(*client_, *scheduler_, objects_, log_, random_,
                             informer::InformerOptions{}, false, &served, &dra);
  const std::vector<std::string> unsynced = informers.Unsynced();
  for (const char* name :
       {"deviceclasses", "resourceslices", "resourceclaims"}) {
    EXPECT_NE(std::find(unsynced.begin(), unsynced.end(), name), unsynced.end())
        << name;
  }
}

// Without a manager, or on a server without resource.k8s.io/v1, none of
// them is asked for.
TEST_F(ClusterInformersTest, DynamicResourcesOnlyWithAManagerAndTheApi) {
  {
    const client::ServedResources served = ServedWithDra();
    auto informers = Sync(&served, false);
    EXPECT_FALSE(cluster_->collections().contains(kResourceClaims));
  }
  client::ServedResources served;
  served.Set("/apis/resource.k8s.io/v1", NotServed());
  dra::DraManager dra;
  auto informers = Sync(&served, false, &dra);
  for (const char* path : {kDeviceClasses, kResourceSlices, kResourceClaims}) {
    EXPECT_FALSE(cluster_->collections().contains(path)) << path;
  }
  const std::vector<std::string> notes =
      ClusterInformers::NotServedNotes(served, false);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "the API server does not serve resource.k8s.io/v1, so "
            "deviceclasses, resourceclaims, resourceslices are not watched: "
            "the cluster has no dynamic resource allocation at v1 (Kubernetes "
            "v1.34 and later serve it), so DynamicResources is inert: pods "
            "with resourceClaims cannot be scheduled");
}

}  // namespace
}  // namespace ksched::scheduler

#include "pkg/client/discovery.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "pkg/client/testing/recorded.h"
#include "pkg/util/fake_clock.h"

namespace ksched::client {
namespace {

using State = GroupVersionDiscovery::State;

// Answers by path, from any thread, after `delay`; records what was asked.
class PathAnswers final : public Transport {
 public:
  explicit PathAnswers(
      std::map<std::string, util::Result<HttpResponse>> by_path,
      std::chrono::milliseconds delay = {})
      : by_path_(std::move(by_path)), delay_(delay) {}
  util::Result<HttpResponse> RoundTrip(const HttpRequest& request) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      asked_.push_back(request.path);
    }
    std::this_thread::sleep_for(delay_);
    auto it = by_path_.find(request.path);
    if (it == by_path_.end()) {
      // Go's http.NotFound, where kube-apiserver's handler chain ends.
      return HttpResponse{.code = 404,
                          .body = "404 page not found\n",
                          .content_type = "text/plain; charset=utf-8"};
    }
    return it->second;
  }
  util::Result<StreamedResponse> Stream(const HttpRequest&,
                                        util::Cancellation&) override {
    return util::Error("no streams here");
  }
  std::vector<std::string> asked() const {
    std::lock_guard<std::mutex> lock(mu_);
    return asked_;
  }

 private:
  std::map<std::string, util::Result<HttpResponse>> by_path_;
  std::chrono::milliseconds delay_;
  mutable std::mutex mu_;
  std::vector<std::string> asked_;
};

HttpResponse Ok(std::string body) {
  return {
      .code = 200, .body = std::move(body), .content_type = "application/json"};
}

const std::vector<std::string> kPaths = {
    "/api/v1", "/apis/policy/v1", "/apis/storage.k8s.io/v1",
    "/apis/resource.k8s.io/v1", "/apis/scheduling.x-k8s.io/v1alpha1"};

class DiscoveryTest : public ::testing::Test {
 protected:
  DiscoveryResult Run(std::map<std::string, util::Result<HttpResponse>> answers,
                      std::chrono::milliseconds delay = {}) {
    auto transport = std::make_unique<PathAnswers>(std::move(answers), delay);
    transport_ = transport.get();
    client_ = std::make_unique<RestClient>(
        std::move(transport), clock_, random_, [](util::Clock::Duration) {},
        RestClientOptions{});
    return Discover(*client_, kPaths);
  }

  util::FakeClock clock_;
  util::DefaultRandom random_{1};
  PathAnswers* transport_ = nullptr;
  std::unique_ptr<RestClient> client_;
};

constexpr char kCoreV1[] =
    R"({"kind":"APIResourceList","groupVersion":"v1","resources":[)"
    R"({"name":"nodes","singularName":"node","namespaced":false,"kind":"Node",)"
    R"("verbs":["get","list","watch"]},{"name":"pods","singularName":"pod",)"
    R"("namespaced":true,"kind":"Pod","verbs":["get","list","watch"]},)"
    R"({"name":"pods/status","singularName":"","namespaced":true,)"
    R"("kind":"Pod","verbs":["get","patch","update"]}]})";

// A v1.35 server as recorded: resource.k8s.io/v1 served, no PodGroup CRD.
TEST_F(DiscoveryTest, ReadsWhatARealV135ServerAnswers) {
  DiscoveryResult r = Run(
      {{"/version", Ok(testing::Recorded("v1.35/get-version.json"))},
       {"/api/v1", Ok(kCoreV1)},
       {"/apis/resource.k8s.io/v1",
        Ok(testing::Recorded("v1.35/get-discovery-resource.k8s.io-v1.json"))}});
  ASSERT_TRUE(r.version.has_value()) << r.version_error;
  EXPECT_EQ(r.version->major, 1);
  EXPECT_EQ(r.version->minor, 35);
  EXPECT_EQ(r.version->emulation_minor, 35);
  EXPECT_EQ(r.version->String(), "v1.35.6");

  const GroupVersionDiscovery* dra = r.served.Find("/apis/resource.k8s.io/v1");
  ASSERT_NE(dra, nullptr);
  EXPECT_EQ(dra->state, State::kServed);
  EXPECT_EQ(dra->resources,
            (std::set<std::string>{
                "deviceclasses", "resourceclaims", "resourceclaims/status",
                "resourceclaimtemplates", "resourceslices"}));
  EXPECT_TRUE(r.served.Serves("/apis/resource.k8s.io/v1", "resourceslices"));
  EXPECT_FALSE(r.served.Serves("/apis/resource.k8s.io/v1", "widgets"));
  EXPECT_TRUE(r.served.Serves("/api/v1", "pods"));
  // 404: not served at all.
  EXPECT_EQ(r.served.Find("/apis/scheduling.x-k8s.io/v1alpha1")->state,
            State::kNotServed);
  EXPECT_FALSE(
      r.served.Serves("/apis/scheduling.x-k8s.io/v1alpha1", "podgroups"));
  // Not asked about: assumed there.
  EXPECT_TRUE(r.served.Serves("/apis/coordination.k8s.io/v1", "leases"));
}

TEST_F(DiscoveryTest, ReadsARealV132ServersVersion) {
  DiscoveryResult r =
      Run({{"/version", Ok(testing::Recorded("version.json"))}});
  ASSERT_TRUE(r.version.has_value()) << r.version_error;
  EXPECT_EQ(r.version->minor, 32);
  EXPECT_EQ(r.version->emulation_minor, 0);
  EXPECT_EQ(r.version->String(), "v1.32.0-beta.0.ste-cd13ec4a");
}

TEST_F(DiscoveryTest, AnOlderServerGetsTheVersionToEmulate) {
  ServerVersion v133{.major = 1, .minor = 33, .git_version = "v1.33.2"};
  EXPECT_EQ(VersionSkewNote(v133, 35, 35, 32),
            "the API server is v1.33.2, older than the version ksched "
            "emulates (1.35): kube-scheduler is not meant to be newer than "
            "its API server, and ksched may count on fields and behaviour "
            "that server lacks; consider --emulated-version=1.33");
  // Emulating it (or older) is fine, and so is a server one minor newer.
  EXPECT_EQ(VersionSkewNote(v133, 33, 35, 32), std::nullopt);
  EXPECT_EQ(VersionSkewNote(v133, 32, 35, 32), std::nullopt);
  ServerVersion v136{.major = 1, .minor = 36};
  EXPECT_EQ(VersionSkewNote(v136, 35, 35, 32), std::nullopt);
  // Older than ksched can emulate.
  ServerVersion v131{.major = 1, .minor = 31, .git_version = "v1.31.4"};
  const auto old = VersionSkewNote(v131, 35, 35, 32);
  ASSERT_TRUE(old.has_value());
  EXPECT_NE(old->find("ksched emulates v1.32 at the oldest "
                      "(--emulated-version=1.32), so upgrade the API server"),
            std::string::npos)
      << *old;
  // A newer server emulating an older one counts as the older one.
  ServerVersion emulating{.major = 1,
                          .minor = 35,
                          .git_version = "v1.35.6",
                          .emulation_major = 1,
                          .emulation_minor = 33};
  EXPECT_EQ(emulating.String(), "v1.35.6 emulating v1.33");
  const auto note = VersionSkewNote(emulating, 35, 35, 32);
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find("the API server is v1.35.6 emulating v1.33, older "),
            std::string::npos)
      << *note;
  EXPECT_NE(note->find("consider --emulated-version=1.33"), std::string::npos);
  ServerVersion v137{.major = 1, .minor = 37};
  const auto newer = VersionSkewNote(v137, 35, 35, 32);
  ASSERT_TRUE(newer.has_value());
  EXPECT_EQ(newer->rfind("the API server is v1.37, more than one minor newer "
                         "than kube-scheduler v1.35",
                         0),
            0u);
}

TEST_F(DiscoveryTest, ProvidersMinorSuffixesAreRead) {
  auto v = ParseServerVersion(R"({"major":"1","minor":"33+"})");
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->minor, 33);
  EXPECT_EQ(v->String(), "v1.33");
  EXPECT_FALSE(ParseServerVersion(R"({"major":"","minor":"x"})").ok());
  EXPECT_FALSE(ParseServerVersion("404 page not found").ok());
}

// Only a 404 says a group-version is not there; an error, a refusal or a
// body that is not its list leaves it unknown, and unknown is watched.
TEST_F(DiscoveryTest, ErrorsOtherThanNotFoundLeaveItUnknown) {
  DiscoveryResult r = Run(
      {{"/version", util::Error("connection refused")},
       {"/api/v1", Ok(kCoreV1)},
       {"/apis/policy/v1", HttpResponse{.code = 503, .body = ""}},
       {"/apis/storage.k8s.io/v1", Ok("<html>proxy</html>")},
       {"/apis/resource.k8s.io/v1",
        HttpResponse{.code = 403,
                     .body = R"({"kind":"Status","apiVersion":"v1","status":)"
                             R"("Failure","message":"forbidden","reason":)"
                             R"("Forbidden","code":403})"}}});
  EXPECT_FALSE(r.version.has_value());
  EXPECT_NE(r.version_error.find("connection refused"), std::string::npos)
      << r.version_error;
  EXPECT_TRUE(r.version_no_answer);
  EXPECT_FALSE(r.served.Find("/apis/policy/v1")->no_answer);
  for (const char* path : {"/apis/policy/v1", "/apis/storage.k8s.io/v1",
                           "/apis/resource.k8s.io/v1"}) {
    const GroupVersionDiscovery* found = r.served.Find(path);
    ASSERT_NE(found, nullptr) << path;
    EXPECT_EQ(found->state, State::kUnknown) << path;
    EXPECT_FALSE(found->error.empty()) << path;
    EXPECT_TRUE(r.served.Serves(path, "anything")) << path;
  }
  EXPECT_EQ(r.served.Find("/apis/scheduling.x-k8s.io/v1alpha1")->state,
            State::kNotServed);
  // One attempt each: discovery is not retried.
  EXPECT_EQ(transport_->asked().size(), kPaths.size() + 1);
}

TEST_F(DiscoveryTest, AListOfAnotherGroupVersionIsNotTaken) {
  auto wrong = ParseResourceList(kCoreV1, "policy/v1");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message().find("policy/v1"), std::string::npos);
  EXPECT_EQ(GroupVersionOfPath("/api/v1"), "v1");
  EXPECT_EQ(GroupVersionOfPath("/apis/storage.k8s.io/v1"), "storage.k8s.io/v1");
}

// Slow answers are waited for together, not one after another.
TEST_F(DiscoveryTest, AsksEverythingAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  DiscoveryResult r = Run({}, std::chrono::milliseconds(300));
  const auto took = std::chrono::steady_clock::now() - start;
  // Six requests one after another would take 1.8 s.
  EXPECT_LT(took, std::chrono::milliseconds(1200));
  EXPECT_EQ(transport_->asked().size(), kPaths.size() + 1);
  EXPECT_FALSE(r.served.Serves("/api/v1", "pods"));
}

}  // namespace
}  // namespace ksched::client

// The real ksched binary serving the extender API, as a stock
// kube-scheduler calls it: request bodies in the form kube-scheduler sends
// (pkg/extender/testdata, built from recorded API objects) POSTed over
// HTTP, answered from ksched's cache of the test API server's cluster, and
// bind writing a real Binding.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "pkg/api/codec.h"
#include "pkg/client/cpprest_transport.h"
#include "pkg/client/testing/loopback.h"
#include "pkg/extender/testing/fixtures.h"
#include "pkg/util/clock.h"
#include "test/apiserver/test_objects.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using extender::testing::Fixture;
using std::chrono::seconds;

class ExtenderTest : public ClusterTestBase {
 protected:
  void StartWithExtender() {
    port_ = client::testing::FreePort();
    StartKsched({"--extender-bind-address=127.0.0.1:" + std::to_string(port_)});
    ASSERT_TRUE(WaitUntil(
        [&] {
          return ksched_->Log().find("extender API on") != std::string::npos;
        },
        seconds(30)))
        << ksched_->Log();
  }

  client::HttpResponse Post(const std::string& path, const std::string& body) {
    client::RestConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(port_);
    auto transport = client::CpprestTransport::Create(config, clock_, {});
    EXPECT_TRUE(transport.ok());
    auto answer = (*transport)
                      ->RoundTrip({.method = "POST",
                                   .path = path,
                                   .body = body,
                                   .content_type = "application/json"});
    if (!answer.ok()) return {.code = -1, .body = answer.error().message()};
    return *answer;
  }

  util::RealClock clock_;
  int port_ = 0;
};

TEST_F(ExtenderTest, AnswersKubeSchedulersRequests) {
  CreateExtenderFixtureCluster();
  StartWithExtender();

  // nodeCacheCapable: names in, names out.
  client::HttpResponse r =
      Post("/filter", Fixture("filter_args_node_names.json"));
  ASSERT_EQ(r.code, 200) << r.body << ksched_->Log();
  auto doc = api::ParseJson(r.body);
  ASSERT_TRUE(doc.ok());
  ASSERT_TRUE((*doc)["Nodes"].IsNull());
  ASSERT_TRUE((*doc)["NodeNames"].IsArray());
  ASSERT_EQ((*doc)["NodeNames"].Size(), 1u);
  EXPECT_STREQ((*doc)["NodeNames"][0].GetString(), "node-1");
  EXPECT_STREQ((*doc)["FailedNodes"]["node-2"].GetString(), "Insufficient cpu");
  EXPECT_STREQ((*doc)["FailedAndUnresolvableNodes"]["node-3"].GetString(),
               "node(s) had untolerated taint {dedicated: gpu}");
  EXPECT_STREQ((*doc)["Error"].GetString(), "");

  // Not nodeCacheCapable: the NodeList in, the fitting nodes out as sent.
  const std::string full = Fixture("filter_args_nodes.json");
  r = Post("/filter", full);
  ASSERT_EQ(r.code, 200) << r.body;
  doc = api::ParseJson(r.body);
  ASSERT_TRUE(doc.ok());
  ASSERT_TRUE((*doc)["NodeNames"].IsNull());
  const auto& items = (*doc)["Nodes"]["items"];
  ASSERT_EQ(items.Size(), 1u);
  EXPECT_STREQ(items[0]["metadata"]["name"].GetString(), "node-1");
  // Exactly as sent, fields ksched does not model (nodeInfo,
  // daemonEndpoints) included.
  auto sent = api::ParseJson(full);
  ASSERT_TRUE(sent.ok());
  EXPECT_TRUE(items[0] == (*sent)["Nodes"]["items"][0]);

  r = Post("/prioritize", Fixture("filter_args_node_names.json"));
  ASSERT_EQ(r.code, 200) << r.body;
  doc = api::ParseJson(r.body);
  ASSERT_TRUE(doc.ok() && doc->IsArray());
  ASSERT_EQ(doc->Size(), 3u);
  for (const auto& p : doc->GetArray()) {
    EXPECT_GE(p["Score"].GetInt64(), 0);
    EXPECT_LE(p["Score"].GetInt64(), 10);
  }

  // A bad body is refused, and ksched goes on.
  r = Post("/filter", R"({"Pod": 5, "NodeNames": []})");
  EXPECT_EQ(r.code, 400);
  EXPECT_EQ(r.body, R"({"Error":"Pod: expected object"})");
  EXPECT_TRUE(ksched_->Running());
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Log();
}

// bind POSTs a Binding for a pod of another scheduler, as kube-scheduler
// asks when ksched is its binder.
TEST_F(ExtenderTest, BindWritesTheBinding) {
  CreateExtenderFixtureCluster();
  CreatePod("bind-me", "500m", "default-scheduler");
  StartWithExtender();
  const std::string uid = GetPod("bind-me").metadata.uid;
  client::HttpResponse r =
      Post("/bind", R"({"PodName":"bind-me","PodNamespace":"default",)"
                    R"("PodUID":")" +
                        uid + R"(","Node":"node-1"})");
  ASSERT_EQ(r.code, 200) << r.body;
  EXPECT_EQ(r.body, R"({"Error":""})");
  EXPECT_EQ(GetPod("bind-me").spec.node_name, "node-1");

  // Again: the API server's 409, passed on in Error.
  r = Post("/bind", R"({"PodName":"bind-me","PodNamespace":"default",)"
                    R"("PodUID":")" +
                        uid + R"(","Node":"node-2"})");
  ASSERT_EQ(r.code, 200);
  EXPECT_NE(r.body.find("already assigned to node"), std::string::npos)
      << r.body;
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Log();
}

// The worked example of the README: kube-scheduler spreads pods by
// default; with ksched's packing profile as its extender, the node ksched
// ranks first for a pod is the fuller one that still fits.
TEST_F(ExtenderTest, PackingProfileRanksTheFullerNodeFirst) {
  CreateNode("node-a", "4");
  CreateNode("node-b", "4");
  CreatePod("busy", "3", "default-scheduler");
  ASSERT_EQ(BindElsewhere("busy", "node-a"), 201);
  port_ = client::testing::FreePort();
  StartKsched({"--config",
               std::string(KSCHED_SOURCE_DIR) +
                   "/manifests/extender/ksched-config.yaml",
               "--extender-bind-address=127.0.0.1:" + std::to_string(port_)});
  ASSERT_TRUE(WaitUntil(
      [&] {
        return ksched_->Log().find("extender API on") != std::string::npos;
      },
      seconds(30)))
      << ksched_->Log();
  const std::string args =
      R"({"Pod":)" + PodJson({.name = "web", .cpu = "500m", .memory = "64Mi"}) +
      R"(,"Nodes":null,"NodeNames":["node-a","node-b"]})";
  client::HttpResponse r = Post("/ksched-packing/prioritize", args);
  ASSERT_EQ(r.code, 200) << r.body << ksched_->Log();
  EXPECT_EQ(r.body,
            R"([{"Host":"node-a","Score":10},{"Host":"node-b","Score":0}])");
  r = Post("/ksched-packing/filter", args);
  ASSERT_EQ(r.code, 200);
  EXPECT_NE(r.body.find(R"("NodeNames":["node-a","node-b"])"),
            std::string::npos)
      << r.body;
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Log();

  // ksched's default profile, like kube-scheduler's, ranks the other way.
  port_ = client::testing::FreePort();
  StartWithExtender();
  r = Post("/prioritize", args);
  ASSERT_EQ(r.code, 200) << r.body;
  EXPECT_EQ(r.body,
            R"([{"Host":"node-a","Score":0},{"Host":"node-b","Score":10}])");
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Log();
}

}  // namespace
}  // namespace ksched::testing

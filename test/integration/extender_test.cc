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
#include <vector>

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
  void StartWithExtender(std::vector<std::string> args = {}) {
    port_ = client::testing::FreePort();
    args.push_back("--extender-bind-address=127.0.0.1:" +
                   std::to_string(port_));
    StartKsched(args);
    ASSERT_TRUE(WaitUntil(
        [&] {
          return ksched_->Log().find("extender API on") != std::string::npos;
        },
        seconds(30)))
        << ksched_->Tail();
  }

  client::HttpResponse Post(const std::string& path, const std::string& body,
                            const std::string& token = "") {
    client::RestConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(port_);
    config.bearer_token = token;
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
  ASSERT_EQ(r.code, 200) << r.body << ksched_->Tail();
  auto doc = api::ParseJson(r.body);
  ASSERT_TRUE(doc.ok());
  ASSERT_TRUE((*doc)["Nodes"].IsNull());
  ASSERT_TRUE((*doc)["NodeNames"].IsArray());
  ASSERT_EQ((*doc)["NodeNames"].Size(), 1u);
  EXPECT_STREQ((*doc)["NodeNames"][0].GetString(), "node-1");
  // node-2 is smaller than the pod's request: unresolvable, as in v1.35.
  EXPECT_STREQ((*doc)["FailedAndUnresolvableNodes"]["node-2"].GetString(),
               "Insufficient cpu");
  EXPECT_STREQ((*doc)["FailedAndUnresolvableNodes"]["node-3"].GetString(),
               "node(s) had untolerated taint(s)");
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
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

std::string BindBody(const std::string& pod, const std::string& uid,
                     const std::string& node) {
  return R"({"PodName":")" + pod + R"(","PodNamespace":"default","PodUID":")" +
         uid + R"(","Node":")" + node + R"("})";
}

// With the chart's defaults bind is not served: a Binding for a pod
// kube-scheduler never sent, without any credential, gets the 404 of an
// unknown path and binds nothing.
TEST_F(ExtenderTest, BindIsNotServedByDefault) {
  CreateExtenderFixtureCluster();
  CreatePod("bind-me", "500m", "default-scheduler");
  StartWithExtender();
  const std::string uid = GetPod("bind-me").metadata.uid;
  for (const char* path : {"/bind", "/ksched/bind"}) {
    const client::HttpResponse r =
        Post(path, BindBody("bind-me", uid, "node-1"));
    EXPECT_EQ(r.code, 404) << path << " " << r.body;
    EXPECT_EQ(r.body, std::string(R"({"Error":"no extender verb at )") + path +
                          R"("})");
  }
  EXPECT_EQ(GetPod("bind-me").spec.node_name, "");
  EXPECT_EQ(server_->RequestCount("POST", "/binding"), 0);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// bind on, for bearer tokens: the API server says who the caller is and
// whether they may create pods/binding; ksched then binds only a pod of its
// cache that passes the profile's filters on the node, logs it as an
// outcome and counts it apart from its own bindings.
TEST_F(ExtenderTest, BindWithTokensBindsOnlyWhatFitsForWhoMay) {
  CreateExtenderFixtureCluster();
  CreatePod("bind-me", "500m", "default-scheduler");
  CreatePod("too-big", "8", "default-scheduler");
  // kube-scheduler's own grants as system:kube-scheduler has them; a
  // reader who may only filter.
  server_->AddReviewUser(
      "scheduler-token",
      {.name = "system:kube-scheduler",
       .policy = {.cluster = {{.api_groups = {""},
                               .resources = {"pods/binding"},
                               .verbs = {"create"}},
                              {.verbs = {"post"},
                               .non_resource_urls = {"/filter", "/bind"}}}}});
  server_->AddReviewUser(
      "reader-token",
      {.name = "reader",
       .policy = {.cluster = {
                      {.verbs = {"post"}, .non_resource_urls = {"/filter"}}}}});
  const int metrics_port = client::testing::FreePort();
  StartWithExtender(
      {"--extender-bind-enabled", "--extender-auth=token",
       "--metrics-bind-address=127.0.0.1:" + std::to_string(metrics_port)});
  const std::string uid = GetPod("bind-me").metadata.uid;
  const std::string bind = BindBody("bind-me", uid, "node-1");

  client::HttpResponse r = Post("/bind", bind);
  EXPECT_EQ(r.code, 401) << r.body;
  EXPECT_NE(r.body.find(R"("reason":"Unauthorized")"), std::string::npos);
  r = Post("/bind", bind, "reader-token");
  EXPECT_EQ(r.code, 403) << r.body;
  EXPECT_NE(
      r.body.find(R"(User \"reader\" cannot create resource \"pods/binding\")"),
      std::string::npos)
      << r.body;
  EXPECT_EQ(
      Post("/filter", Fixture("filter_args_node_names.json"), "reader-token")
          .code,
      200);
  EXPECT_EQ(Post("/filter", Fixture("filter_args_node_names.json")).code, 401);

  // Where kube-scheduler's own rules would refuse: named in Error.
  r = Post("/bind",
           BindBody("too-big", GetPod("too-big").metadata.uid, "node-1"),
           "scheduler-token");
  EXPECT_EQ(r.code, 200);
  EXPECT_EQ(
      r.body,
      R"({"Error":"pod default/too-big does not fit node node-1: Insufficient cpu"})");
  r = Post("/bind", BindBody("bind-me", uid, "node-3"), "scheduler-token");
  EXPECT_EQ(
      r.body,
      R"json({"Error":"pod default/bind-me does not fit node node-3: node(s) had untolerated taint(s)"})json");
  EXPECT_EQ(server_->RequestCount("POST", "/binding"), 0);

  r = Post("/bind", bind, "scheduler-token");
  ASSERT_EQ(r.code, 200) << r.body;
  EXPECT_EQ(r.body, R"({"Error":""})");
  EXPECT_EQ(GetPod("bind-me").spec.node_name, "node-1");
  EXPECT_EQ(GetPod("too-big").spec.node_name, "");
  EXPECT_TRUE(WaitUntil(
      [&] {
        return ksched_->Log().find(
                   R"(Successfully bound pod to node pod="default/bind-me" node="node-1" profile="ksched" source="extender" user="system:kube-scheduler")") !=
               std::string::npos;
      },
      seconds(5)))
      << ksched_->Tail();
  const client::HttpResponse metrics = HttpGet(metrics_port, "/metrics");
  EXPECT_NE(metrics.body.find(
                R"(ksched_bindings_total{result="bound",source="extender"} 1)"),
            std::string::npos)
      << metrics.body.substr(0, 2000);

  // Again: bound already, by ksched's cache or, while the informer has not
  // caught up (it still fits node-1 as ksched sees it), the API server's
  // 409.
  r = Post("/bind", BindBody("bind-me", uid, "node-1"), "scheduler-token");
  ASSERT_EQ(r.code, 200);
  EXPECT_TRUE(r.body.find("already bound to node node-1") !=
                  std::string::npos ||
              r.body.find("already assigned to node") != std::string::npos)
      << r.body;
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
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
      << ksched_->Tail();
  const std::string args =
      R"({"Pod":)" + PodJson({.name = "web", .cpu = "500m", .memory = "64Mi"}) +
      R"(,"Nodes":null,"NodeNames":["node-a","node-b"]})";
  client::HttpResponse r = Post("/ksched-packing/prioritize", args);
  ASSERT_EQ(r.code, 200) << r.body << ksched_->Tail();
  EXPECT_EQ(r.body,
            R"([{"Host":"node-a","Score":10},{"Host":"node-b","Score":0}])");
  r = Post("/ksched-packing/filter", args);
  ASSERT_EQ(r.code, 200);
  EXPECT_NE(r.body.find(R"("NodeNames":["node-a","node-b"])"),
            std::string::npos)
      << r.body;
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();

  // ksched's default profile, like kube-scheduler's, ranks the other way.
  port_ = client::testing::FreePort();
  StartWithExtender();
  r = Post("/prioritize", args);
  ASSERT_EQ(r.code, 200) << r.body;
  EXPECT_EQ(r.body,
            R"([{"Host":"node-a","Score":0},{"Host":"node-b","Score":10}])");
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing

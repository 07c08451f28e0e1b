// `ksched simulate --kubeconfig` against the test API server: it reads
// the cluster as the informers do, only lists, and a snapshot it writes
// replays offline to the same placements.
#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fstream>
#include <sstream>

#include "pkg/api/yaml.h"
#include "pkg/util/json.h"
#include "test/cli/run_command.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

class SimulateLiveTest : public ClusterTestBase {};

TEST_F(SimulateLiveTest, ReadsTheClusterAndItsSnapshotReplaysTheSame) {
  CreateNode("node-a", "2");
  CreateNode("node-b", "1");
  CreatePod("running", "1500m");
  ASSERT_EQ(BindElsewhere("running", "node-a"), 201);
  CreatePod("p1", "500m", "default-scheduler");
  CreatePod("p2", "500m", "default-scheduler");
  CreatePod("p3", "800m", "default-scheduler");

  const std::string snapshot = (dir_ / "snapshot.json").string();
  auto live = RunCommand(std::string(KSCHED_BINARY) +
                         " simulate --quiet --all-pods -o json --kubeconfig " +
                         (dir_ / "kubeconfig").string() + " --snapshot-out " +
                         snapshot);
  ASSERT_EQ(live.exit_code, 0) << live.err;
  for (const TestApiServer::Access& a : server_->Accesses()) {
    EXPECT_EQ(a.verb, "list") << a.resource;
  }
  auto offline =
      RunCommand(std::string(KSCHED_BINARY) +
                 " simulate --quiet --all-pods -o json --cluster " + snapshot);
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_EQ(offline.out, live.out);

  rapidjson::Document doc;
  doc.Parse(live.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << live.out;
  std::map<std::string, std::string> placed;
  for (const auto& pod : doc["pods"].GetArray()) {
    placed[pod["name"].GetString()] =
        pod["node"].IsNull() ? "-" : pod["node"].GetString();
  }
  // node-a has 500m left after the running pod, node-b 1 CPU: 1.8 CPU of
  // requests fit in 1.5 CPU of room only two at a time.
  EXPECT_EQ(placed.size(), 3u);
  int unplaced = 0;
  for (const auto& [name, node] : placed) unplaced += node == "-";
  EXPECT_EQ(unplaced, 1) << live.out;
  // Nothing was written to the cluster.
  EXPECT_TRUE(GetPod("p1").spec.node_name.empty());
}

// The recorded v1.35 DRA cluster (two nodes, two GPUs each: 40 GiB on
// node-1, 80 GiB on node-2), a claim that needs 64 GiB, and a pod whose
// claim template no controller has made a claim from yet.
TEST_F(SimulateLiveTest, ReadsDraObjectsAndMakesTemplateClaims) {
  const std::string manifests =
      std::string(KSCHED_SHARED_DIR) + "/apiserver/v1.35/manifests/";
  for (const char* file :
       {"nodes.yaml", "deviceclass.yaml", "resourceslices.yaml",
        "claim-64gi.yaml", "claimtemplate.yaml", "pod-64gi.yaml",
        "pod-template-claim.yaml"}) {
    std::ifstream in(manifests + file);
    std::stringstream text;
    text << in.rdbuf();
    auto docs = api::YamlToJson(text.str());
    ASSERT_TRUE(docs.ok()) << file << ": " << docs.error().message();
    for (const rapidjson::Document& doc : *docs) {
      rapidjson::StringBuffer out;
      rapidjson::Writer<rapidjson::StringBuffer> writer(out);
      doc.Accept(writer);
      const std::string kind = doc["kind"].GetString();
      const std::string collection =
          kind == "Node"            ? "/api/v1/nodes"
          : kind == "Pod"           ? "/api/v1/namespaces/default/pods"
          : kind == "DeviceClass"   ? "/apis/resource.k8s.io/v1/deviceclasses"
          : kind == "ResourceSlice" ? "/apis/resource.k8s.io/v1/resourceslices"
          : kind == "ResourceClaim"
              ? "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"
              : "/apis/resource.k8s.io/v1/namespaces/default/"
                "resourceclaimtemplates";
      auto r = server_->Create(collection, out.GetString());
      ASSERT_EQ(r.code, 201) << file << ": " << r.body;
    }
  }
  // No controller runs here, so dra-pod-tmpl has no claim yet and
  // simulate reads the templates, which the chart does not let ksched's
  // service account list (the scheduler never reads them): simulate's
  // user may, as a user's own kubeconfig would.
  auto policy = ChartPolicy();
  ASSERT_TRUE(policy.ok()) << policy.error().message();
  policy->cluster.push_back({.api_groups = {"resource.k8s.io"},
                             .resources = {"resourceclaimtemplates"},
                             .verbs = {"list"}});
  server_->SetRbac(*policy);
  const std::string snapshot = (dir_ / "dra-snapshot.json").string();
  auto live = RunCommand(std::string(KSCHED_BINARY) +
                         " simulate --quiet --all-pods -o json --kubeconfig " +
                         (dir_ / "kubeconfig").string() + " --snapshot-out " +
                         snapshot);
  ASSERT_EQ(live.exit_code, 0) << live.err;
  for (const TestApiServer::Access& a : server_->Accesses()) {
    EXPECT_EQ(a.verb, "list") << a.resource;
  }
  auto offline =
      RunCommand(std::string(KSCHED_BINARY) +
                 " simulate --quiet --all-pods -o json --cluster " + snapshot);
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_EQ(offline.out, live.out);

  rapidjson::Document doc;
  doc.Parse(live.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << live.out;
  std::map<std::string, std::string> devices;
  for (const auto& pod : doc["pods"].GetArray()) {
    ASSERT_FALSE(pod["node"].IsNull()) << live.out;
    ASSERT_TRUE(pod.HasMember("claims")) << live.out;
    const auto& claim = pod["claims"][0];
    const auto& device = claim["devices"][0];
    devices[pod["name"].GetString()] = std::string(claim["claim"].GetString()) +
                                       " " + device["pool"].GetString() + "/" +
                                       device["device"].GetString();
  }
  ASSERT_EQ(devices.size(), 2u) << live.out;
  // Only node-2's GPUs have 64 GiB, as in the recorded allocation.
  EXPECT_EQ(devices["dra-pod-64gi"], "gpu-claim-64gi node-2/gpu-0");
  // The template's claim, made as the resourceclaim controller names it.
  EXPECT_EQ(devices["dra-pod-tmpl"].rfind("dra-pod-tmpl-gpu-", 0), 0u)
      << devices["dra-pod-tmpl"];
  // Nothing was written to the cluster.
  EXPECT_TRUE(GetPod("dra-pod-64gi").spec.node_name.empty());
}

}  // namespace
}  // namespace ksched::testing

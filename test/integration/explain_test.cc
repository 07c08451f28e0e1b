// `ksched explain` and `kubectl ksched explain` against the test API
// server: what a user types when a pod is pending.
#include <gtest/gtest.h>

#include <filesystem>

#include "pkg/api/yaml.h"
#include "pkg/util/json.h"
#include "test/cli/run_command.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

class ExplainTest : public ClusterTestBase {
 protected:
  // Two 1-CPU nodes; `web` (500m) bound to node-a; `big` (2 CPU) pending
  // for kube-scheduler, the main use: explaining default-scheduler pods.
  void SetUp() override {
    ClusterTestBase::SetUp();
    CreateNode("node-a", "1");
    CreateNode("node-b", "1");
    CreatePod("web", "500m");
    ASSERT_EQ(BindElsewhere("web", "node-a"), 201);
    CreatePod("big", "2", "default-scheduler");
  }

  CommandResult Explain(const std::string& args) {
    return RunCommand(std::string(KSCHED_BINARY) + " explain --kubeconfig " +
                      (dir_ / "kubeconfig").string() + " " + args);
  }

  // Explaining only reads: every request was a list.
  void ExpectOnlyLists() {
    auto accesses = server_->Accesses();
    EXPECT_FALSE(accesses.empty());
    for (const TestApiServer::Access& a : accesses) {
      EXPECT_EQ(a.verb, "list") << a.resource << " " << a.ns << "/" << a.name;
    }
  }
};

TEST_F(ExplainTest, APendingPodIsExplainedPluginByPlugin) {
  auto r = Explain("big");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Pod default/big (profile default-scheduler): "
                       "unschedulable"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("0/2 nodes are available: 2 Insufficient cpu."),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("NodeResourcesFit  2 nodes  (Insufficient cpu 2)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("node-a  NodeResourcesFit  Insufficient cpu"),
            std::string::npos)
      << r.out;
  // kube-scheduler's own default profile, said once on stderr.
  EXPECT_NE(r.err.find("note: explaining with the built-in profile"),
            std::string::npos)
      << r.err;
  // Nothing was bound or written.
  EXPECT_TRUE(GetPod("big").spec.node_name.empty());
  EXPECT_TRUE(Events().empty());
  ExpectOnlyLists();
}

TEST_F(ExplainTest, ABoundPodSaysWhetherItStillFitsAndWhereItWouldGo) {
  CreatePod("db", "400m");
  ASSERT_EQ(BindElsewhere("db", "node-a"), 201);
  auto r = Explain("default/web -o json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << r.out;
  EXPECT_STREQ(doc["currentNode"].GetString(), "node-a");
  // Without itself node-a has the room (db's 400m of 1 CPU), and node-b
  // is empty: both fit, and the emptier node scores higher.
  EXPECT_TRUE(doc["explain"]["summary"]["fitsCurrentNode"].GetBool());
  EXPECT_STREQ(doc["node"].GetString(), "node-b");
  EXPECT_STREQ(doc["explain"]["selected-node"].GetString(), "node-b");
  EXPECT_STREQ(
      doc["explain"]["filter-result"]["node-a"]["NodeResourcesFit"].GetString(),
      "passed");
  EXPECT_TRUE(doc["explain"]["finalscore-result"]["node-b"].IsObject());
  EXPECT_STREQ(GetPod("web").spec.node_name.c_str(), "node-a");
  ExpectOnlyLists();
}

TEST_F(ExplainTest, AsAKubectlPluginItTakesKubectlsConventions) {
  const std::filesystem::path plugin = dir_ / "kubectl-ksched";
  std::filesystem::create_symlink(KSCHED_BINARY, plugin);
  // kubectl hands the plugin its environment: KUBECONFIG, no flag.
  const std::string env = "KUBECONFIG=" + (dir_ / "kubeconfig").string() + " ";
  auto r =
      RunCommand(env + plugin.string() + " explain big -n default -o yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto docs = api::YamlToJson(r.out);
  ASSERT_TRUE(docs.ok()) << docs.error().message() << "\n" << r.out;
  ASSERT_EQ(docs->size(), 1u);
  const rapidjson::Value& doc = (*docs)[0];
  EXPECT_TRUE(doc["node"].IsNull());
  EXPECT_STREQ(
      doc["explain"]["filter-result"]["node-b"]["NodeResourcesFit"].GetString(),
      "Insufficient cpu");
  // The context's namespace ("default" here) is the default namespace.
  r = RunCommand(env + plugin.string() + " explain big");
  EXPECT_EQ(r.exit_code, 0) << r.err;

  r = RunCommand(plugin.string() + " explain --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("kubectl ksched explain [NAMESPACE/]POD"),
            std::string::npos)
      << r.out;
}

TEST_F(ExplainTest, MistakesAreClearErrors) {
  auto r = Explain("nope");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("pods \"nope\" not found in namespace default"),
            std::string::npos)
      << r.err;
  r = Explain("big --profile other");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no profile named other in the configuration "
                       "(profiles: ksched); choose one with --profile"),
            std::string::npos)
      << r.err;
  r = Explain("big -o wide");
  EXPECT_EQ(r.exit_code, 2);
  r = Explain("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("name one pod"), std::string::npos);

  // An API server that answers nothing: a clear error, not a hang.
  server_.reset();
  r = Explain("big");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Error: listing nodes:"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ksched::testing

// `ksched explain` and `kubectl ksched explain` against the test API
// server: what a user types when a pod is pending.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pkg/api/yaml.h"
#include "pkg/client/testing/loopback.h"
#include "pkg/util/json.h"
#include "test/browser/headless_chromium.h"
#include "test/cli/run_command.h"
#include "test/integration/cluster_test_base.h"
#include "test/integration/rbac_manifest.h"

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
  // One change (less cpu) would open both nodes.
  EXPECT_NE(r.out.find("NodeResourcesFit  2      Insufficient cpu  node-a, "
                       "node-b"),
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

TEST_F(ExplainTest, AsAPageItLeadsWithThePodAndDrawsInABrowser) {
  auto r = Explain("big -o html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The page's model: the pod in focus and its explanation, the figures of
  // the JSON output.
  const std::string open =
      R"(<script id="ksched-report" type="application/json">)";
  const size_t begin = r.out.find(open);
  ASSERT_NE(begin, std::string::npos) << r.out.substr(0, 500);
  const size_t end = r.out.find("</script>", begin);
  rapidjson::Document model;
  const std::string json =
      r.out.substr(begin + open.size(), end - begin - open.size());
  model.Parse(json.data(), json.size());
  ASSERT_FALSE(model.HasParseError()) << json.substr(0, 300);
  EXPECT_STREQ(model["focusPod"].GetString(), "default/big");
  ASSERT_EQ(model["explained"].Size(), 1u);
  const auto& x = model["explained"][0];
  EXPECT_STREQ(x["pod"].GetString(), "default/big");
  EXPECT_EQ(std::string(x["message"].GetString())
                .rfind("0/2 nodes are available: 2 Insufficient cpu. ", 0),
            0u)
      << x["message"].GetString();
  EXPECT_EQ(x["summary"]["filteredNodes"].GetInt(), 2);
  EXPECT_EQ(x["matrix"]["rows"].Size(), 2u);

  // In chromium: the explanation comes first, open, with both nodes
  // rejected by NodeResourcesFit in its matrix.
  const std::string page = (dir_ / "explain.html").string();
  std::ofstream(page) << r.out;
  DumpedDom dumped = DumpDom("file://" + page);
  ASSERT_EQ(dumped.exit_code, 0);
  const std::vector<Tag> tags = ParseTags(dumped.dom);
  std::vector<std::string> sections;
  int rejected = 0;
  bool open_block = false;
  for (const Tag& t : tags) {
    if (t.name == "section") sections.push_back(t.Attr("id"));
    if (t.name == "details" && t.Attr("data-pod") == "default/big") {
      open_block = t.Has("open");
    }
    rejected += t.Attr("data-plugin") == "NodeResourcesFit" &&
                t.Attr("class").rfind("fail", 0) == 0 &&
                t.Attr("title").find("Insufficient cpu") != std::string::npos;
    EXPECT_FALSE(t.Has("data-render-error")) << t.Attr("data-render-error");
  }
  ASSERT_FALSE(sections.empty());
  EXPECT_EQ(sections.front(), "explanations");
  EXPECT_TRUE(open_block);
  EXPECT_EQ(rejected, 2);
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

// The running scheduler: --record-failed-decisions on the event, and
// /debug/explain on the secure port for those the chart's explainer role
// is bound to.
TEST_F(ExplainTest, TheRunningSchedulerExplainsOnItsSecurePortAndInEvents) {
  using std::chrono::seconds;
  CreatePod("huge", "4");
  // The chart's ClusterRole, bound as `explain.readers` binds it.
  const std::filesystem::path manifest = dir_ / "with-explainer.yaml";
  {
    std::ifstream chart(std::filesystem::path(KSCHED_SOURCE_DIR) /
                        "manifests/ksched.yaml");
    std::stringstream text;
    text << chart.rdbuf();
    std::ofstream(manifest)
        << text.str()
        << "\n---\napiVersion: rbac.authorization.k8s.io/v1\n"
           "kind: ClusterRoleBinding\nmetadata:\n  name: ksched-explainer\n"
           "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n"
           "  kind: ClusterRole\n  name: ksched-explainer\nsubjects:\n"
           "  - kind: ServiceAccount\n    name: sre\n    namespace: ops\n";
  }
  auto policy = RbacPolicyFor(manifest.string(), "ops", "sre");
  ASSERT_TRUE(policy.ok()) << policy.error().message();
  server_->AddReviewUser("sre-token", {.name = "system:serviceaccount:ops:sre",
                                       .groups = {"system:serviceaccounts",
                                                  "system:serviceaccounts:ops"},
                                       .policy = *policy});
  // Prometheus may read /metrics, not explanations.
  AddChartReviewUser("prometheus-token", "monitoring", "prometheus-k8s");

  const int port = client::testing::FreePort();
  StartKsched({"--secure-port=" + std::to_string(port),
               "--bind-address=127.0.0.1", "--record-failed-decisions"});
  ASSERT_TRUE(WaitUntil([&] { return HttpsGet(port, "/readyz").body == "ok"; },
                        seconds(30)))
      << ksched_->Tail();

  // The event says what to change; the condition keeps kube's words.
  const std::string explained =
      "0/2 nodes are available: 2 Insufficient cpu. no new claims to "
      "deallocate, preemption: 0/2 nodes are available: 2 Preemption is not "
      "helpful for scheduling. Explain: "
      "NodeResourcesFit rejected 2 nodes (Insufficient cpu); closest node-a, "
      "rejected by NodeResourcesFit only (Insufficient cpu).";
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const api::Event& e : Events()) {
          if (e.regarding.name == "huge" && e.reason == "FailedScheduling" &&
              e.note == explained) {
            return true;
          }
        }
        return false;
      },
      seconds(30)))
      << ksched_->Tail();

  const std::string path = "/debug/explain?pod=default/huge";
  EXPECT_EQ(HttpsGet(port, path).code, 401);
  EXPECT_EQ(HttpsGet(port, path, "prometheus-token").code, 403);
  client::HttpResponse text = HttpsGet(port, path, "sre-token");
  ASSERT_EQ(text.code, 200) << text.body;
  EXPECT_NE(text.body.find("Pod default/huge (profile ksched): unschedulable"),
            std::string::npos)
      << text.body;
  EXPECT_NE(text.body.find("NodeResourcesFit  2 nodes  (Insufficient cpu 2)"),
            std::string::npos)
      << text.body;
  client::HttpResponse json =
      HttpsGet(port, path + "&output=json&top=1", "sre-token");
  ASSERT_EQ(json.code, 200) << json.body;
  rapidjson::Document doc;
  doc.Parse(json.body.c_str());
  ASSERT_FALSE(doc.HasParseError()) << json.body;
  EXPECT_STREQ(doc["filter-result"]["node-b"]["NodeResourcesFit"].GetString(),
               "Insufficient cpu");
  ASSERT_EQ(doc["summary"]["closest"].Size(), 1u);
  EXPECT_EQ(doc["summary"]["closest"][0]["nodes"].GetInt(), 2);
  EXPECT_EQ(doc["summary"]["closest"][0]["examples"].Size(), 1u);  // top=1

  EXPECT_EQ(HttpsGet(port, "/debug/explain?pod=default/web", "sre-token").code,
            409);  // bound
  EXPECT_EQ(HttpsGet(port, "/debug/explain?pod=default/big", "sre-token").code,
            409);  // kube-scheduler's
  EXPECT_EQ(HttpsGet(port, "/debug/explain?pod=default/nope", "sre-token").code,
            404);
  EXPECT_EQ(HttpsGet(port, "/debug/explain?pod=huge", "sre-token").code, 400);
  EXPECT_EQ(HttpsGet(port, path + "&top=lots", "sre-token").code, 400);
  // Explaining wrote nothing: still one pod of ours unbound, no binding.
  EXPECT_TRUE(GetPod("huge").spec.node_name.empty());
}

}  // namespace
}  // namespace ksched::testing

// Lists: pagination, selectors and resourceVersion semantics.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "test/apiserver/apiserver_test_util.h"

namespace ksched::testing {
namespace {

class ListTest : public ApiServerTest {
 protected:
  void CreatePods(const std::string& ns, int n, const std::string& prefix) {
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(server_
                    ->Create("/api/v1/namespaces/" + ns + "/pods",
                             PodJson(prefix + std::to_string(i), ns))
                    .code,
                201);
    }
  }
  void CreateNamespace(const std::string& ns) {
    ASSERT_EQ(server_
                  ->Create("/api/v1/namespaces",
                           R"({"metadata":{"name":")" + ns + R"("}})")
                  .code,
              201);
  }
  std::vector<std::string> Names(const rapidjson::Document& list) {
    std::vector<std::string> names;
    for (const auto& item : list["items"].GetArray()) {
      names.push_back(item["metadata"]["name"].GetString());
    }
    return names;
  }
};

TEST_F(ListTest, PagesCoverEveryObjectOnceDespiteConcurrentWrites) {
  CreateNamespace("other");
  CreatePods("default", 23, "p");
  CreatePods("other", 7, "q");
  std::multiset<std::string> seen;
  std::string target = "/api/v1/pods?limit=4";
  std::string first_rv;
  int pages = 0;
  int64_t remaining_first = -1;
  while (true) {
    HttpResult page = Call("GET", target);
    ASSERT_EQ(page.code, 200) << page.body;
    rapidjson::Document list = ParseJsonOrDie(page.body);
    EXPECT_EQ(std::string(list["kind"].GetString()), "PodList");
    const std::string rv = list["metadata"]["resourceVersion"].GetString();
    if (first_rv.empty()) {
      first_rv = rv;
      remaining_first = list["metadata"]["remainingItemCount"].GetInt64();
    }
    // Every page is served from the first page's snapshot.
    EXPECT_EQ(rv, first_rv);
    for (const std::string& name : Names(list)) seen.insert(name);
    ++pages;
    // Writes between pages do not show up in this listing.
    server_->Create("/api/v1/namespaces/default/pods",
                    PodJson("late-" + std::to_string(pages)));
    server_->Delete("/api/v1/namespaces/default/pods/p" +
                    std::to_string(pages) + "?gracePeriodSeconds=0");
    if (!list["metadata"].HasMember("continue")) break;
    target = std::string("/api/v1/pods?limit=4&continue=") +
             list["metadata"]["continue"].GetString();
  }
  EXPECT_EQ(pages, 8);
  EXPECT_EQ(remaining_first, 26);
  EXPECT_EQ(seen.size(), 30u);
  for (const std::string& name : seen) {
    EXPECT_EQ(seen.count(name), 1u) << name;
    EXPECT_EQ(name.rfind("late-", 0), std::string::npos) << name;
  }
}

TEST_F(ListTest, NamespacedListStaysInItsNamespace) {
  CreateNamespace("a");
  CreateNamespace("a-b");
  CreatePods("a", 3, "x");
  CreatePods("a-b", 2, "y");
  rapidjson::Document a =
      ParseJsonOrDie(Call("GET", "/api/v1/namespaces/a/pods?limit=2").body);
  std::vector<std::string> names = Names(a);
  ASSERT_TRUE(a["metadata"].HasMember("continue"));
  rapidjson::Document rest = ParseJsonOrDie(
      Call("GET", std::string("/api/v1/namespaces/a/pods?limit=2&continue=") +
                      a["metadata"]["continue"].GetString())
          .body);
  for (const std::string& n : Names(rest)) names.push_back(n);
  EXPECT_FALSE(rest["metadata"].HasMember("continue"));
  EXPECT_EQ(names, (std::vector<std::string>{"x0", "x1", "x2"}));
}

TEST_F(ListTest, FieldSelectors) {
  CreatePods("default", 4, "p");
  ASSERT_EQ(server_
                ->Create("/api/v1/namespaces/default/pods/p1/binding",
                         BindingJson("p1", "node-a"))
                .code,
            201);
  ASSERT_EQ(server_
                ->Patch("/api/v1/namespaces/default/pods/p2/status",
                        R"({"status":{"phase":"Succeeded"}})",
                        "application/merge-patch+json")
                .code,
            200);
  auto names = [&](const std::string& query) {
    HttpResult r = Call("GET", "/api/v1/pods?" + query);
    EXPECT_EQ(r.code, 200) << r.body;
    return Names(ParseJsonOrDie(r.body));
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names("fieldSelector=spec.nodeName%3D"), (V{"p0", "p2", "p3"}));
  EXPECT_EQ(names("fieldSelector=spec.nodeName%3Dnode-a"), (V{"p1"}));
  EXPECT_EQ(names("fieldSelector=spec.nodeName!%3D"), (V{"p1"}));
  EXPECT_EQ(names("fieldSelector=metadata.name%3Dp3"), (V{"p3"}));
  EXPECT_EQ(names("fieldSelector=metadata.namespace%3Ddefault,"
                  "status.phase!%3DSucceeded,spec.nodeName%3D"),
            (V{"p0", "p3"}));
  EXPECT_EQ(names("fieldSelector=status.phase%3D%3DSucceeded"), (V{"p2"}));
  HttpResult bad = Call("GET", "/api/v1/pods?fieldSelector=spec.foo%3Dx");
  EXPECT_EQ(bad.code, 400);
  EXPECT_EQ(std::string(ParseJsonOrDie(bad.body)["message"].GetString()),
            "field label not supported: spec.foo");
  EXPECT_EQ(Call("GET", "/api/v1/pods?fieldSelector=nonsense").code, 400);
  // A filtered page reports no remainingItemCount.
  rapidjson::Document page = ParseJsonOrDie(
      Call("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3D&limit=1").body);
  EXPECT_TRUE(page["metadata"].HasMember("continue"));
  EXPECT_FALSE(page["metadata"].HasMember("remainingItemCount"));
}

TEST_F(ListTest, LabelSelectors) {
  const std::pair<const char*, const char*> pods[] = {
      {"web-1", R"("app":"web","tier":"front")"},
      {"web-2", R"("app":"web","tier":"back")"},
      {"db-1", R"("app":"db")"},
      {"none", ""}};
  for (const auto& [name, labels] : pods) {
    ASSERT_EQ(server_
                  ->Create("/api/v1/namespaces/default/pods",
                           PodJson(name, "default", "", labels))
                  .code,
              201);
  }
  auto names = [&](const std::string& selector) {
    HttpResult r = Call(
        "GET", "/api/v1/namespaces/default/pods?labelSelector=" + selector);
    EXPECT_EQ(r.code, 200) << r.body;
    return Names(ParseJsonOrDie(r.body));
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names("app%3Dweb"), (V{"web-1", "web-2"}));
  EXPECT_EQ(names("app%3D%3Dweb,tier!%3Dback"), (V{"web-1"}));
  EXPECT_EQ(names("app!%3Dweb"), (V{"db-1", "none"}));
  EXPECT_EQ(names("app%20in%20(db,%20cache)"), (V{"db-1"}));
  EXPECT_EQ(names("app%20notin%20(web)"), (V{"db-1", "none"}));
  EXPECT_EQ(names("tier"), (V{"web-1", "web-2"}));
  EXPECT_EQ(names("!tier"), (V{"db-1", "none"}));
  EXPECT_EQ(Call("GET", "/api/v1/pods?labelSelector=app%20in%20web").code, 400);
  // Label values are validated on write.
  HttpResult bad = Call("POST", "/api/v1/namespaces/default/pods",
                        PodJson("bad", "default", "",
                                R"("app":")" + std::string(64, 'a') + "\""));
  EXPECT_EQ(bad.code, 422);
}

TEST_F(ListTest, ResourceVersionSemantics) {
  CreatePods("default", 3, "p");
  const int64_t before = server_->ResourceVersion();
  CreatePods("default", 2, "later");
  // Exact: the state then.
  rapidjson::Document then = ParseJsonOrDie(
      Call("GET", "/api/v1/namespaces/default/pods?resourceVersion=" +
                      std::to_string(before) + "&resourceVersionMatch=Exact")
          .body);
  EXPECT_EQ(Names(then), (std::vector<std::string>{"p0", "p1", "p2"}));
  EXPECT_EQ(std::string(then["metadata"]["resourceVersion"].GetString()),
            std::to_string(before));
  // "0" is served from the cache, which ignores limit.
  rapidjson::Document cached = ParseJsonOrDie(
      Call("GET", "/api/v1/pods?resourceVersion=0&limit=2").body);
  EXPECT_EQ(cached["items"].Size(), 5u);
  EXPECT_FALSE(cached["metadata"].HasMember("continue"));
  // A future revision is too large; a bad one is refused.
  EXPECT_EQ(Call("GET", "/api/v1/pods?resourceVersion=999999").code, 504);
  EXPECT_EQ(Call("GET", "/api/v1/pods?resourceVersion=abc").code, 400);
  EXPECT_EQ(Call("GET", "/api/v1/pods?resourceVersionMatch=Exact").code, 422);
  // After compaction, old revisions and old continue tokens are gone.
  rapidjson::Document page =
      ParseJsonOrDie(Call("GET", "/api/v1/pods?limit=2").body);
  const std::string token = page["metadata"]["continue"].GetString();
  CreatePods("default", 1, "newest");
  server_->CompactHistory();
  HttpResult old =
      Call("GET", "/api/v1/namespaces/default/pods?resourceVersion=" +
                      std::to_string(before) + "&resourceVersionMatch=Exact");
  EXPECT_EQ(old.code, 410);
  EXPECT_EQ(std::string(ParseJsonOrDie(old.body)["reason"].GetString()),
            "Expired");
  HttpResult expired = Call("GET", "/api/v1/pods?limit=2&continue=" + token);
  EXPECT_EQ(expired.code, 410);
  rapidjson::Document status = ParseJsonOrDie(expired.body);
  // The answer offers an inconsistent continuation, which still works.
  ASSERT_TRUE(status["metadata"].HasMember("continue"));
  HttpResult resumed =
      Call("GET", std::string("/api/v1/pods?limit=10&continue=") +
                      status["metadata"]["continue"].GetString());
  EXPECT_EQ(resumed.code, 200);
  EXPECT_EQ(Names(ParseJsonOrDie(resumed.body)).size(), 4u);
  EXPECT_EQ(Call("GET", "/api/v1/pods?continue=garbage!").code, 400);
}

TEST_F(ListTest, ClusterScopedAndEmptyLists) {
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(
        server_->Create("/api/v1/nodes", NodeJson("node-" + std::to_string(i)))
            .code,
        201);
  }
  rapidjson::Document nodes = ParseJsonOrDie(Call("GET", "/api/v1/nodes").body);
  EXPECT_EQ(std::string(nodes["kind"].GetString()), "NodeList");
  EXPECT_EQ(nodes["items"].Size(), 3u);
  // Items carry no kind or apiVersion, as the real server writes them.
  EXPECT_FALSE(nodes["items"][0].HasMember("kind"));
  rapidjson::Document leases = ParseJsonOrDie(
      Call("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases")
          .body);
  EXPECT_EQ(std::string(leases["kind"].GetString()), "LeaseList");
  EXPECT_EQ(std::string(leases["apiVersion"].GetString()),
            "coordination.k8s.io/v1");
  EXPECT_TRUE(leases["items"].IsArray());
  EXPECT_EQ(leases["items"].Size(), 0u);
}

}  // namespace
}  // namespace ksched::testing

// The test API server against responses recorded from a real
// kube-apiserver v1.32: for each recorded case the same state is seeded,
// the same request sent over HTTPS (as curl, which the recordings used),
// and the answer held against the recording: status line, headers and
// the body field by field (see recording.h for what may differ).
#include "test/apiserver/recording.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "test/apiserver/apiserver_test_util.h"

namespace ksched::testing {
namespace {

constexpr char kCurl[] = "curl/8.5.0";
constexpr char kKubectl[] = "kubectl-client-side-apply";

std::string ReplaceAll(std::string s, const std::string& from,
                       const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos;
       at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

std::string Stringify(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return buffer.GetString();
}

// The n-th (0-based) object of a recorded watch body.
std::string WatchObject(const std::string& recording, size_t n) {
  Recording r = LoadRecording(recording);
  std::istringstream in(r.body);
  std::string line;
  for (size_t i = 0; std::getline(in, line); ++i) {
    if (i == n) {
      rapidjson::Document event = ParseJsonOrDie(line);
      return Stringify(event["object"]);
    }
  }
  ADD_FAILURE() << recording << " has no event " << n;
  return "{}";
}

// The first list item of a recorded list.
std::string ListItem(const std::string& recording) {
  rapidjson::Document list = ParseJsonOrDie(LoadRecording(recording).body);
  return Stringify(list["items"][0]);
}

class RecordingTest : public ApiServerTest {
 protected:
  // The recordings here are of a v1.32 server.
  void SetUp() override { StartServer({.kube_version = "1.32"}); }

  // A recorded object, as its manager would create it, with `edit`
  // applied first (e.g. to unbind a pod).
  std::string Seed(
      const std::string& collection, const std::string& object,
      const std::string& manager,
      const std::function<void(rapidjson::Document&)>& edit = nullptr) {
    rapidjson::Document doc = ParseJsonOrDie(ClientObject(object));
    if (edit) edit(doc);
    TestApiServer::Reply reply = server_->Create(
        collection + "?fieldManager=" + manager, Stringify(doc));
    EXPECT_EQ(reply.code, 201) << reply.body;
    return reply.body;
  }

  // Pods as the recordings' cluster held them: unscheduled, their status
  // as the API server set it on creation.
  void SeedPendingPod(const std::string& recorded_object) {
    Seed("/api/v1/namespaces/default/pods", recorded_object, kKubectl,
         [](rapidjson::Document& pod) {
           pod["spec"].RemoveMember("nodeName");
           pod.RemoveMember("status");
         });
  }
  void SeedPendingPods() {
    SeedPendingPod(LoadRecording("pod_status_patch_strategic_200").body);
    SeedPendingPod(LoadRecording("pod_status_patch_merge_200").body);
    SeedPendingPod(WatchObject("watch_rv1_before_compaction_200", 2));
    SeedPendingPod(LoadRecording("pod_after_binding").body);
  }
  void Bind(const std::string& pod) {
    TestApiServer::Reply reply =
        server_->Create("/api/v1/namespaces/default/pods/" + pod + "/binding",
                        BindingJson(pod, "node-1"));
    EXPECT_EQ(reply.code, 201) << reply.body;
  }

  // Sends the recorded request (as curl) and checks the answer.
  HttpResult Replay(const Recording& recording, const std::string& target,
                    const std::string& body, const std::string& token = "",
                    const std::string& user_agent = kCurl) {
    RequestOptions request;
    request.method = recording.method;
    request.target = target;
    request.body = body;
    request.token = token.empty() ? server_->token() : token;
    request.user_agent = user_agent;
    if (!recording.request_content_type.empty()) {
      request.content_type = recording.request_content_type;
    }
    return Call(request);
  }
  void Check(
      const std::string& name,
      const std::function<std::string(const std::string&)>& target = nullptr,
      const std::string& token = "") {
    SCOPED_TRACE(name);
    Recording recording = LoadRecording(name);
    HttpResult got =
        Replay(recording, target ? target(recording.target) : recording.target,
               recording.request_body, token);
    ExpectSameHead(recording, got);
    ExpectSameBody(recording, got);
  }
};

TEST_F(RecordingTest, Binding) {
  Check("binding_nonexistent_pod_404");
  SeedPendingPod(LoadRecording("pod_after_binding").body);
  Check("binding_success_201");
  Check("pod_after_binding");
  Check("binding_second_time_409");
}

TEST_F(RecordingTest, PodStatusPatches) {
  SeedPendingPods();
  Check("pod_status_patch_merge_200");
  Check("pod_status_patch_strategic_200");
}

TEST_F(RecordingTest, EventCreate) { Check("event_create_events_v1_201"); }

TEST_F(RecordingTest, LeaseLifecycle) {
  Check("lease_create_201");
  TestApiServer::Reply created = server_->Get(
      "/apis/coordination.k8s.io/v1/namespaces/kube-system/"
      "leases/cpp-scheduler");
  rapidjson::Document lease = ParseJsonOrDie(created.body);
  const std::string uid = lease["metadata"]["uid"].GetString();
  const std::string rv = lease["metadata"]["resourceVersion"].GetString();
  // The recorded update names the recorded lease's uid and revision; ours
  // has its own.
  auto ours = [&](const Recording& r) {
    return ReplaceAll(
        ReplaceAll(r.request_body, "32612631-fcfc-497e-ac80-842df5032ee1", uid),
        "\"209\"", "\"" + rv + "\"");
  };
  {
    SCOPED_TRACE("lease_update_put_200");
    Recording r = LoadRecording("lease_update_put_200");
    HttpResult got = Replay(r, r.target, ours(r));
    ExpectSameHead(r, got);
    ExpectSameBody(r, got);
  }
  Check("lease_get");
  {
    // The same update again: its resourceVersion is stale now.
    SCOPED_TRACE("lease_update_stale_rv_409");
    Recording r = LoadRecording("lease_update_stale_rv_409");
    HttpResult got = Replay(r, r.target, ours(r));
    ExpectSameHead(r, got);
    ExpectSameBody(r, got);
  }
}

TEST_F(RecordingTest, NodesList) {
  Seed("/api/v1/nodes", ListItem("nodes_list"), kKubectl);
  Check("nodes_list");
}

TEST_F(RecordingTest, ListsPaginationAndExpiry) {
  // Nothing at revision 1 yet (the first revision is a namespace).
  Check("list_rv1_exact_before_compaction_200");
  SeedPendingPods();
  Bind("bind-me");
  Check("pods_unscheduled_limit2");
  HttpResult first =
      Call("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3D&limit=2");
  const std::string token =
      ParseJsonOrDie(first.body)["metadata"]["continue"].GetString();
  // The recorded continue token is the real server's; ours is ours.
  auto with_our_token = [&](const std::string& target) {
    return target.substr(0, target.find("continue=") + 9) + token;
  };
  Check("pods_unscheduled_limit2_page2", with_our_token);
  // As the recorded cluster, compact past the token's revision.
  server_->Create("/api/v1/namespaces", R"({"metadata":{"name":"later"}})");
  server_->CompactHistory();
  Check("list_rv1_exact_410");
  Check("list_rv1_continue_expired_410", with_our_token);
}

TEST_F(RecordingTest, WatchCreateBindDelete) {
  TestApiServerOptions options;
  options.kube_version = "1.32";
  options.bookmark_interval = std::chrono::seconds(60);
  StartServer(options);
  SeedPendingPods();
  Bind("bind-me");
  Recording recording = LoadRecording("watch_pods_create_bind_delete");
  // The recorded watch ran 8s; 2s shows the same.
  const std::string target =
      "/api/v1/pods?watch=true&allowWatchBookmarks=true&resourceVersion=" +
      std::to_string(server_->ResourceVersion()) + "&timeoutSeconds=2";
  HttpsConnection watch(server_->port(), server_->ca_pem());
  RequestOptions request = Request("GET", target);
  request.user_agent = kCurl;
  HttpResult head = watch.Open(request);
  ExpectSameHead(recording, head);
  WaitForWatches(1);
  Seed("/api/v1/namespaces/default/pods",
       WatchObject("watch_pods_create_bind_delete", 0), kKubectl);
  Bind("watched-pod");
  EXPECT_EQ(server_
                ->Delete("/api/v1/namespaces/default/pods/watched-pod"
                         "?gracePeriodSeconds=0")
                .code,
            200);
  std::vector<std::string> events = ReadEvents(watch, 5);
  ExpectSameEvents(recording, events);
  std::string line;
  EXPECT_EQ(watch.ReadLine(&line, std::chrono::seconds(5)),
            HttpsConnection::LineStatus::kEnd);
}

TEST_F(RecordingTest, WatchReplaysHistoryUntilCompacted) {
  SeedPendingPods();
  Bind("bind-me");
  Seed("/api/v1/namespaces/default/pods",
       WatchObject("watch_pods_create_bind_delete", 0), kKubectl);
  Bind("watched-pod");
  ASSERT_EQ(server_
                ->Delete("/api/v1/namespaces/default/pods/watched-pod"
                         "?gracePeriodSeconds=0")
                .code,
            200);
  {
    SCOPED_TRACE("watch_rv1_before_compaction_200");
    Recording recording = LoadRecording("watch_rv1_before_compaction_200");
    HttpsConnection watch(server_->port(), server_->ca_pem());
    RequestOptions request = Request("GET", recording.target);
    request.user_agent = kCurl;
    ExpectSameHead(recording, watch.Open(request));
    ExpectSameEvents(recording, ReadEvents(watch, 9));
  }
  server_->CompactHistory();
  {
    SCOPED_TRACE("watch_too_old_rv_410");
    Recording recording = LoadRecording("watch_too_old_rv_410");
    HttpsConnection watch(server_->port(), server_->ca_pem());
    RequestOptions request = Request("GET", recording.target);
    request.user_agent = kCurl;
    ExpectSameHead(recording, watch.Open(request));
    ExpectSameEvents(recording, ReadEvents(watch, 1));
    std::string line;
    EXPECT_EQ(watch.ReadLine(&line, std::chrono::seconds(5)),
              HttpsConnection::LineStatus::kEnd);
  }
}

TEST_F(RecordingTest, AuthenticationAndAuthorization) {
  Check("bad_token_401", nullptr, "bogus-token");
  TestApiServerOptions options;
  options.kube_version = "1.32";
  options.user = "system:serviceaccount:default:noperms";
  StartServer(options);
  SeedPendingPods();
  server_->Forbid("list", "nodes");
  server_->Forbid("create", "pods/binding");
  Check("sa_no_rbac_403");
  Check("sa_no_rbac_binding_403");
}

// The same denials from an RBAC policy that grants neither request.
TEST_F(RecordingTest, RbacDenials) {
  TestApiServerOptions options;
  options.kube_version = "1.32";
  options.user = "system:serviceaccount:default:noperms";
  StartServer(options);
  SeedPendingPods();
  server_->SetRbac({.cluster = {{.api_groups = {""},
                                 .resources = {"pods", "nodes/status"},
                                 .verbs = {"*"}}}});
  Check("sa_no_rbac_403");
  Check("sa_no_rbac_binding_403");
}

TEST_F(RecordingTest, VersionAndHealth) {
  Check("version");
  RequestOptions request = Request("GET", "/readyz?verbose");
  request.user_agent = kCurl;
  HttpResult readyz = Call(request);
  EXPECT_EQ(readyz.code, 200);
  std::ifstream recorded(std::string(KSCHED_SHARED_DIR) +
                         "/apiserver/readyz_verbose.txt");
  std::stringstream want;
  want << recorded.rdbuf();
  EXPECT_EQ(readyz.body, want.str());
  EXPECT_EQ(readyz.Header("content-type"), "text/plain; charset=utf-8");
}

// Objects a stock kube-scheduler wrote: what it reads back through the
// test server must look the same.
TEST_F(RecordingTest, WhatKubeSchedulerWrites) {
  const std::string scheduler = "kube-scheduler";
  Seed("/api/v1/namespaces/default/pods",
       LoadRecording("real_kube_scheduler_bound_pod").body, kKubectl,
       [](rapidjson::Document& pod) {
         pod["spec"].RemoveMember("nodeName");
         pod.RemoveMember("status");
       });
  Bind("default-sched-pod");
  Check("real_kube_scheduler_bound_pod");

  Seed("/api/v1/namespaces/default/pods",
       LoadRecording("real_kube_scheduler_unschedulable_pod").body, kKubectl,
       [](rapidjson::Document& pod) { pod.RemoveMember("status"); });
  rapidjson::Document unschedulable = ParseJsonOrDie(
      LoadRecording("real_kube_scheduler_unschedulable_pod").body);
  RequestOptions patch =
      Request("PATCH", "/api/v1/namespaces/default/pods/too-big-pod/status",
              R"({"status":{"conditions":[)" +
                  Stringify(unschedulable["status"]["conditions"][0]) + "]}}");
  patch.content_type = "application/strategic-merge-patch+json";
  patch.user_agent = "kube-scheduler/v1.32.0 (linux/amd64) kubernetes/70d3cc9";
  EXPECT_EQ(Call(patch).code, 200);
  Check("real_kube_scheduler_unschedulable_pod");

  for (const char* name : {"real_kube_scheduler_events_v1",
                           "real_kube_scheduler_failedscheduling_events_v1"}) {
    rapidjson::Document event = ParseJsonOrDie(ListItem(name));
    event.AddMember("apiVersion", "events.k8s.io/v1", event.GetAllocator());
    event.AddMember("kind", "Event", event.GetAllocator());
    Seed("/apis/events.k8s.io/v1/namespaces/default/events", Stringify(event),
         scheduler);
    Check(name);
  }
  Seed("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
       LoadRecording("real_kube_scheduler_lease").body, scheduler);
  Check("real_kube_scheduler_lease");
}

}  // namespace
}  // namespace ksched::testing

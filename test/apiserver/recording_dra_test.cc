// The test API server against the dynamic resource allocation exchanges
// recorded from a real kube-apiserver v1.35.6 (apiserver/v1.35): the
// resource.k8s.io/v1 objects listed, read and watched, the writes a
// scheduler makes to a claim (finalizer, allocation and reservation,
// unreservation by strategic merge patch) with their conflicts and
// refusals, and a claim made from a template with the pod status that
// names it. Each case seeds what the recorded cluster held, replays the
// recorded request (its uids and resourceVersions made ours) and holds the
// answer against the recording (see recording.h for what may differ).
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "test/apiserver/apiserver_test_util.h"
#include "test/apiserver/recording.h"

namespace ksched::testing {
namespace recording_dra_test {
namespace {

constexpr char kRecorder[] = "cpp-client-recorder/1.0";
constexpr char kKubectl[] = "kubectl-client-side-apply";
constexpr char kScheduler[] = "kube-scheduler";
constexpr char kClaims[] =
    "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";
constexpr char kSlices[] = "/apis/resource.k8s.io/v1/resourceslices";
constexpr char kFinalizer[] = "resource.kubernetes.io/delete-protection";

std::string ReplaceAll(std::string s, const std::string& from,
                       const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos;
       at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

std::string Recorded(const std::string& name) {
  return LoadRecording("v1.35/" + name).body;
}

// The recorded pod as its client sent it: without what the real server's
// ServiceAccount admission added (the projected token volume and its
// mounts), which the test server adds again.
void DropTokenVolume(rapidjson::Document& pod) {
  rapidjson::Value& spec = pod["spec"];
  spec.RemoveMember("volumes");
  for (auto& c : spec["containers"].GetArray()) c.RemoveMember("volumeMounts");
}

std::vector<std::string> Lines(const std::string& body) {
  std::vector<std::string> lines;
  std::istringstream in(body);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

class RecordingDraTest : public ApiServerTest {
 protected:
  // Creates a recorded object as `manager` created it, `edit` applied
  // first; returns the server's answer.
  rapidjson::Document Seed(
      const std::string& collection, const std::string& recorded,
      const std::string& manager = kKubectl,
      const std::function<void(rapidjson::Document&)>& edit = nullptr) {
    rapidjson::Document doc = ParseJsonOrDie(ClientObject(recorded));
    if (edit) edit(doc);
    TestApiServer::Reply reply =
        server_->Create(collection + "?fieldManager=" + manager, JsonText(doc));
    EXPECT_EQ(reply.code, 201) << reply.body;
    return ParseJsonOrDie(reply.body);
  }

  // The recorded cluster's nodes, DeviceClass and ResourceSlices.
  void SeedDevices() {
    for (const char* node : {"node-1", "node-2"}) {
      ASSERT_EQ(server_->Create("/api/v1/nodes", NodeJson(node)).code, 201);
    }
    Seed("/apis/resource.k8s.io/v1/deviceclasses", Recorded("get-deviceclass"));
    Seed(kSlices, Recorded("get-resourceslice-node-1"));
    Seed(kSlices, Recorded("get-resourceslice-node-2"));
  }

  // A recorded claim as kubectl created it: no finalizer, no status.
  rapidjson::Document SeedFreshClaim(const std::string& recorded) {
    return Seed(kClaims, recorded, kKubectl, [](rapidjson::Document& claim) {
      claim["metadata"].RemoveMember("finalizers");
      claim.RemoveMember("status");
    });
  }

  // What kube-scheduler's PreBind does to a claim it allocated: the
  // finalizer with an update, then the allocation and reservation with an
  // update of the status. Returns the claim written.
  rapidjson::Document AllocateAsKubeScheduler(const std::string& name,
                                              const std::string& allocated) {
    const std::string path = std::string(kClaims) + "/" + name;
    rapidjson::Document claim = ParseJsonOrDie(server_->Get(path).body);
    auto& a = claim.GetAllocator();
    rapidjson::Value finalizers(rapidjson::kArrayType);
    finalizers.PushBack(rapidjson::StringRef(kFinalizer), a);
    claim["metadata"].AddMember("finalizers", finalizers, a);
    TestApiServer::Reply updated =
        server_->Update(path + "?fieldManager=" + kScheduler, JsonText(claim));
    EXPECT_EQ(updated.code, 200) << updated.body;
    claim = ParseJsonOrDie(updated.body);
    rapidjson::Document want = ParseJsonOrDie(allocated);
    claim["status"].CopyFrom(want["status"], claim.GetAllocator());
    TestApiServer::Reply status = server_->Update(
        path + "/status?fieldManager=" + kScheduler, JsonText(claim));
    EXPECT_EQ(status.code, 200) << status.body;
    return ParseJsonOrDie(status.body);
  }

  HttpResult Replay(const Recording& recording, const std::string& target,
                    const std::string& body) {
    RequestOptions request = Request(recording.method, target, body);
    request.user_agent = kRecorder;
    if (!recording.request_content_type.empty()) {
      request.content_type = recording.request_content_type;
    }
    return Call(request);
  }

  // Replays the recording, its body's recorded uids and resourceVersions
  // replaced by ours (`ours`: recorded text -> our text), and holds the
  // answer against it.
  HttpResult Check(
      const std::string& name,
      const std::vector<std::pair<std::string, std::string>>& ours = {},
      const std::function<std::string(const std::string&)>& target = nullptr) {
    SCOPED_TRACE(name);
    const Recording recording = LoadRecording("v1.35/" + name);
    std::string body = recording.request_body;
    for (const auto& [from, to] : ours) body = ReplaceAll(body, from, to);
    HttpResult got = Replay(
        recording, target ? target(recording.target) : recording.target, body);
    ExpectSameHead(recording, got);
    ExpectSameBody(recording, got);
    return got;
  }

  static std::string Uid(const rapidjson::Value& object) {
    return object["metadata"]["uid"].GetString();
  }
  static std::string Rv(const rapidjson::Value& object) {
    return object["metadata"]["resourceVersion"].GetString();
  }
  static std::string RecordedUid(const std::string& name) {
    return Uid(ParseJsonOrDie(Recorded(name)));
  }
  static std::string RecordedRv(const std::string& name) {
    return Rv(ParseJsonOrDie(Recorded(name)));
  }
};

TEST_F(RecordingDraTest, DeviceClassesAndSlicesAsRecorded) {
  SeedDevices();
  Check("list-deviceclasses");
  Check("get-deviceclass");
  Check("list-resourceslices");
  Check("get-resourceslice-node-1");
  Check("get-resourceslice-node-2");
  HttpResult first = Check("list-resourceslices-limit1");
  const std::string token =
      ParseJsonOrDie(first.body)["metadata"]["continue"].GetString();
  Check("list-resourceslices-limit1-continue", {},
        [&](const std::string& target) {
          return target.substr(0, target.find("continue=") + 9) + token;
        });
}

// The slices of one node or one driver, as informers of a node-local
// driver ask for them: spec.nodeName and spec.driver are selectable.
TEST_F(RecordingDraTest, SlicesSelectedByNodeAndDriver) {
  SeedDevices();
  auto names = [&](const std::string& query) {
    HttpResult list = Call("GET", std::string(kSlices) + "?" + query);
    EXPECT_EQ(list.code, 200) << list.body;
    std::vector<std::string> out;
    const rapidjson::Document doc = ParseJsonOrDie(list.body);
    for (const auto& item : doc["items"].GetArray()) {
      out.push_back(item["metadata"]["name"].GetString());
    }
    return out;
  };
  EXPECT_EQ(names("fieldSelector=spec.nodeName%3Dnode-2"),
            std::vector<std::string>{"node-2-gpu.example.com"});
  EXPECT_EQ(names("fieldSelector=spec.driver%3Dgpu.example.com"),
            (std::vector<std::string>{"node-1-gpu.example.com",
                                      "node-2-gpu.example.com"}));
  EXPECT_TRUE(names("fieldSelector=spec.driver%3Dother.example.com").empty());
  EXPECT_EQ(names("fieldSelector=spec.nodeName%21%3Dnode-2%2Cspec.driver%3D"
                  "gpu.example.com"),
            std::vector<std::string>{"node-1-gpu.example.com"});
  HttpResult bad = Call(
      "GET", std::string(kSlices) + "?fieldSelector=spec.pool.name%3Dnode-1");
  EXPECT_EQ(bad.code, 400) << bad.body;
  EXPECT_EQ(std::string(ParseJsonOrDie(bad.body)["message"].GetString()),
            "field label not supported: spec.pool.name");
}

TEST_F(RecordingDraTest, ClaimsAsKubeSchedulerLeftThem) {
  SeedDevices();
  SeedFreshClaim(Recorded("get-resourceclaim-unallocatable"));
  SeedFreshClaim(Recorded("get-resourceclaim-allocated"));
  AllocateAsKubeScheduler("gpu-claim-64gi",
                          Recorded("get-resourceclaim-allocated"));
  Check("list-resourceclaims");
  Check("get-resourceclaim-allocated");
  Check("get-resourceclaim-unallocatable");
}

TEST_F(RecordingDraTest, WatchOfClaims) {
  TestApiServerOptions options;
  options.bookmark_interval = std::chrono::seconds(60);
  StartServer(options);
  SeedDevices();
  SeedFreshClaim(Recorded("get-resourceclaim-unallocatable"));
  SeedFreshClaim(Recorded("get-resourceclaim-allocated"));
  AllocateAsKubeScheduler("gpu-claim-64gi",
                          Recorded("get-resourceclaim-allocated"));
  const Recording recording = LoadRecording("v1.35/watch-resourceclaims");
  const std::vector<std::string> want = Lines(recording.body);
  ASSERT_EQ(want.size(), 5u);
  const int64_t from = server_->ResourceVersion();
  // What kubectl did while the recorded watch ran; the watch replays it
  // from the list's resourceVersion.
  TestApiServer::Reply labelled = server_->Patch(
      std::string(kClaims) + "/gpu-claim-64gi?fieldManager=kubectl-label",
      R"({"metadata":{"labels":{"recorded":"watch"}}})",
      "application/merge-patch+json");
  ASSERT_EQ(labelled.code, 200) << labelled.body;
  rapidjson::Document event = ParseJsonOrDie(want[1]);
  Seed(kClaims, JsonText(event["object"]), "kubectl-create");
  ASSERT_EQ(server_->Delete(std::string(kClaims) + "/gpu-claim-watch").code,
            200);

  HttpsConnection watch(server_->port(), server_->ca_pem());
  RequestOptions request =
      Request("GET", std::string(kClaims) +
                         "?watch=1&resourceVersion=" + std::to_string(from) +
                         "&timeoutSeconds=2&allowWatchBookmarks=true");
  request.user_agent = kRecorder;
  ExpectSameHead(recording, watch.Open(request));
  // The three changes, then bookmarks until the server ends the watch
  // (the real one sent two in its 5 s).
  std::vector<std::string> got;
  std::string line;
  while (watch.ReadLine(&line, std::chrono::seconds(10)) ==
         HttpsConnection::LineStatus::kLine) {
    if (!line.empty()) got.push_back(line);
  }
  ASSERT_GE(got.size(), 4u);
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i));
    const std::string& w = want[std::min(i, want.size() - 1)];
    EXPECT_EQ(EventType(got[i]), EventType(w));
    ExpectSameJson(ParseJsonOrDie(w), ParseJsonOrDie(got[i]));
  }
}

// kube-scheduler's PreBind and Unreserve on a fresh claim, step by step as
// recorded: finalizer, allocation and reservation, the same update again
// (stale), unreserve by patch (both shapes), and a wrong claim uid.
TEST_F(RecordingDraTest, SchedulerWritesOnAFreshClaim) {
  SeedDevices();
  rapidjson::Document fresh =
      SeedFreshClaim(Recorded("get-resourceclaim-fresh"));
  const std::string recorded_uid = RecordedUid("get-resourceclaim-fresh");
  const std::string uid = Uid(fresh);
  Check("get-resourceclaim-fresh");
  auto ours = [&](const std::string& recorded_rv_of) {
    return std::vector<std::pair<std::string, std::string>>{
        {recorded_uid, uid},
        {"\"resourceVersion\":\"" + RecordedRv(recorded_rv_of) + "\"",
         "\"resourceVersion\":\"" +
             Rv(ParseJsonOrDie(
                 server_->Get(std::string(kClaims) + "/gpu-claim-manual")
                     .body)) +
             "\""}};
  };
  Check("put-resourceclaim-finalizer", ours("get-resourceclaim-fresh"));
  const auto status_rv = ours("put-resourceclaim-finalizer");
  Check("put-resourceclaim-status", status_rv);
  // The identical update: its resourceVersion is stale now.
  Check("put-resourceclaim-status-stale", status_rv);
  Check("patch-resourceclaim-status-unreserve");
  Check("put-resourceclaim-status-rereserve",
        ours("patch-resourceclaim-status-unreserve"));
  Check("patch-resourceclaim-status-unreserve-scheduler-shape",
        {{recorded_uid, uid}});
  Check("patch-resourceclaim-status-unreserve-wrong-uid");
  // Unreserved twice, allocated still; the finalizer stays.
  rapidjson::Document claim = ParseJsonOrDie(
      server_->Get(std::string(kClaims) + "/gpu-claim-manual").body);
  EXPECT_FALSE(claim["status"].HasMember("reservedFor")) << JsonText(claim);
  EXPECT_TRUE(claim["status"].HasMember("allocation")) << JsonText(claim);
}

TEST_F(RecordingDraTest, AllocationForNoRequestOfTheClaimIsInvalid) {
  SeedDevices();
  const std::string request =
      LoadRecording("v1.35/put-resourceclaim-status-invalid").request_body;
  rapidjson::Document recorded = ParseJsonOrDie(request);
  rapidjson::Document claim = SeedFreshClaim(request);
  Check("put-resourceclaim-status-invalid",
        {{Uid(recorded), Uid(claim)},
         {"\"resourceVersion\":\"" + Rv(recorded) + "\"",
          "\"resourceVersion\":\"" + Rv(claim) + "\""}});
}

// What the claim status validation refuses a scheduler: more than 256
// consumers, a consumer twice, a reservation without an allocation, and a
// changed allocation.
TEST_F(RecordingDraTest, ClaimStatusValidation) {
  SeedDevices();
  rapidjson::Document claim =
      SeedFreshClaim(Recorded("get-resourceclaim-fresh"));
  const std::string path = std::string(kClaims) + "/gpu-claim-manual/status";
  rapidjson::Document allocated = ParseJsonOrDie(
      LoadRecording("v1.35/put-resourceclaim-status").request_body);
  auto with_status = [&](const std::string& reserved, bool allocation) {
    rapidjson::Document doc;
    doc.CopyFrom(claim, doc.GetAllocator());
    rapidjson::Document status = ParseJsonOrDie("{" + reserved + "}");
    if (allocation) {
      status.AddMember("allocation",
                       rapidjson::Value(allocated["status"]["allocation"],
                                        status.GetAllocator()),
                       status.GetAllocator());
    }
    doc["status"].CopyFrom(status, doc.GetAllocator());
    doc["metadata"].RemoveMember("resourceVersion");
    return JsonText(doc);
  };
  auto consumers = [](int n, bool duplicate) {
    std::string out = R"("reservedFor":[)";
    for (int i = 0; i < n; ++i) {
      const int id = duplicate && i == n - 1 ? 0 : i;
      out += std::string(i == 0 ? "" : ",") +
             R"({"resource":"pods","name":"p)" + std::to_string(id) +
             R"(","uid":"uid-)" + std::to_string(id) + "\"}";
    }
    return out + "]";
  };
  auto message = [&](const HttpResult& r) {
    EXPECT_EQ(r.code, 422) << r.body;
    rapidjson::Document d = ParseJsonOrDie(r.body);
    return d.HasMember("message") ? std::string(d["message"].GetString())
                                  : std::string();
  };
  EXPECT_EQ(
      message(Call("PUT", path, with_status(consumers(257, false), true))),
      "ResourceClaim.resource.k8s.io \"gpu-claim-manual\" is invalid: "
      "status.reservedFor: Too many: 257: must have at most 256 items");
  HttpResult full = Call("PUT", path, with_status(consumers(256, false), true));
  ASSERT_EQ(full.code, 200) << full.body;
  EXPECT_EQ(ParseJsonOrDie(full.body)["status"]["reservedFor"].Size(), 256u);
  EXPECT_EQ(message(Call("PUT", path, with_status(consumers(3, true), false))),
            "ResourceClaim.resource.k8s.io \"gpu-claim-manual\" is invalid: "
            "[status.reservedFor[2]: Duplicate value: \"uid-0\", "
            "status.reservedFor: Forbidden: may not be specified when "
            "`allocated` is not set]");
  // The allocation is set once.
  rapidjson::Document changed = ParseJsonOrDie(full.body);
  changed["status"]["allocation"]["devices"]["results"][0]["device"] = "gpu-0";
  changed["metadata"].RemoveMember("resourceVersion");
  const std::string text = message(Call("PUT", path, JsonText(changed)));
  EXPECT_EQ(text.rfind("ResourceClaim.resource.k8s.io \"gpu-claim-manual\" "
                       "is invalid: status.allocation: Invalid value: ",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find(": field is immutable"), std::string::npos) << text;
}

// A claim with kube-scheduler's finalizer outlives its deletion until the
// finalizer goes, as the real server keeps it.
TEST_F(RecordingDraTest, DeletingAClaimWaitsForItsFinalizer) {
  SeedDevices();
  SeedFreshClaim(Recorded("get-resourceclaim-fresh"));
  AllocateAsKubeScheduler(
      "gpu-claim-manual",
      LoadRecording("v1.35/put-resourceclaim-status").request_body);
  const std::string path = std::string(kClaims) + "/gpu-claim-manual";
  HttpResult deleted = Call("DELETE", path);
  ASSERT_EQ(deleted.code, 200) << deleted.body;
  rapidjson::Document marked = ParseJsonOrDie(deleted.body);
  EXPECT_EQ(std::string(marked["kind"].GetString()), "ResourceClaim");
  EXPECT_TRUE(marked["metadata"].HasMember("deletionTimestamp"));
  EXPECT_EQ(marked["metadata"]["deletionGracePeriodSeconds"].GetInt(), 0);
  // Still there, and deleting it again changes nothing.
  HttpResult again = Call("DELETE", path);
  ASSERT_EQ(again.code, 200) << again.body;
  EXPECT_EQ(Rv(ParseJsonOrDie(again.body)), Rv(marked));
  rapidjson::Document got = ParseJsonOrDie(Call("GET", path).body);
  EXPECT_EQ(std::string(got["metadata"]["deletionTimestamp"].GetString()),
            std::string(marked["metadata"]["deletionTimestamp"].GetString()));
  // No new consumer while it is being deleted.
  rapidjson::Document more;
  more.CopyFrom(got, more.GetAllocator());
  rapidjson::Value consumer(rapidjson::kObjectType);
  auto& a = more.GetAllocator();
  consumer.AddMember("resource", "pods", a);
  consumer.AddMember("name", "late", a);
  consumer.AddMember("uid", "uid-late", a);
  more["status"]["reservedFor"].PushBack(consumer, a);
  HttpResult refused = Call("PUT", path + "/status", JsonText(more));
  EXPECT_EQ(refused.code, 422) << refused.body;
  // The finalizer removed, the claim is gone.
  got["metadata"].RemoveMember("finalizers");
  HttpResult updated = Call("PUT", path, JsonText(got));
  ASSERT_EQ(updated.code, 200) << updated.body;
  EXPECT_EQ(Call("GET", path).code, 404);
}

// Pods as kube-scheduler (and a binding by hand) left them: bound with the
// nomination cleared, and unschedulable with kube's DRA message.
TEST_F(RecordingDraTest, PodsAsKubeSchedulerLeftThem) {
  SeedDevices();
  const std::string pods = "/api/v1/namespaces/default/pods/";
  auto seed_pod = [&](const std::string& recorded) {
    Seed("/api/v1/namespaces/default/pods", Recorded(recorded), kKubectl,
         [](rapidjson::Document& p) {
           DropTokenVolume(p);
           p["spec"].RemoveMember("nodeName");
           p.RemoveMember("status");
         });
  };
  auto status_patch = [&](const std::string& pod, const std::string& body) {
    RequestOptions patch = Request("PATCH", pods + pod + "/status", body);
    patch.content_type = "application/strategic-merge-patch+json";
    patch.user_agent =
        "kube-scheduler/v1.35.6 (linux/amd64) kubernetes/a3177b3";
    EXPECT_EQ(Call(patch).code, 200);
  };
  auto expect_pod = [&](const std::string& recorded) {
    SCOPED_TRACE(recorded);
    const Recording recording = LoadRecording("v1.35/" + recorded);
    RequestOptions get = Request("GET", recording.target);
    get.user_agent = kRecorder;
    const HttpResult got = Call(get);
    EXPECT_EQ(got.code, recording.code);
    EXPECT_EQ(got.Header("content-type"), recording.Header("content-type"));
    ExpectSameJson(WithTokenVolumeNamed(recording.body),
                   WithTokenVolumeNamed(got.body));
  };

  seed_pod("get-pod-bound");
  Check("post-binding");
  expect_pod("get-pod-bound");

  seed_pod("get-pod-scheduled");
  status_patch("dra-pod-64gi", R"({"status":{"nominatedNodeName":"node-2"}})");
  ASSERT_EQ(server_
                ->Create(pods + "dra-pod-64gi/binding",
                         BindingJson("dra-pod-64gi", "node-2"))
                .code,
            201);
  expect_pod("get-pod-scheduled");

  seed_pod("get-pod-unschedulable");
  rapidjson::Document unschedulable =
      ParseJsonOrDie(Recorded("get-pod-unschedulable"));
  status_patch("dra-pod-200gi",
               R"({"status":{"conditions":[)" +
                   JsonText(unschedulable["status"]["conditions"][0]) + "]}}");
  expect_pod("get-pod-unschedulable");
}

// The resourceclaim controller's two writes for a pod's template claim,
// then the pod as kube-scheduler left it.
TEST_F(RecordingDraTest, ClaimFromATemplateAndThePodNamingIt) {
  SeedDevices();
  rapidjson::Document recorded_pod =
      ParseJsonOrDie(Recorded("get-pod-with-resourceclaimstatuses"));
  rapidjson::Document pod =
      Seed("/api/v1/namespaces/default/pods", JsonText(recorded_pod), kKubectl,
           [](rapidjson::Document& p) {
             DropTokenVolume(p);
             p["spec"].RemoveMember("nodeName");
             p.RemoveMember("status");
           });
  const std::string pod_uid = Uid(pod);
  const std::string recorded_pod_uid = Uid(recorded_pod);

  // The generated name is ours; the rest as recorded.
  const Recording post = LoadRecording("v1.35/post-resourceclaim-generated");
  HttpResult created =
      Replay(post, post.target,
             ReplaceAll(post.request_body, recorded_pod_uid, pod_uid));
  ExpectSameHead(post, created);
  rapidjson::Document claim = ParseJsonOrDie(created.body);
  const std::string name = claim["metadata"]["name"].GetString();
  EXPECT_EQ(name.rfind("dra-pod-tmpl-gpu-", 0), 0u) << name;
  EXPECT_EQ(name.size(), std::string("dra-pod-tmpl-gpu-6m6vv").size());
  {
    rapidjson::Document want = ParseJsonOrDie(post.body);
    rapidjson::Document got = ParseJsonOrDie(
        ReplaceAll(ReplaceAll(created.body, name, "dra-pod-tmpl-gpu-6m6vv"),
                   pod_uid, recorded_pod_uid));
    ExpectSameJson(want, got);
  }

  // Server-side apply of the pod's status, as the controller does it.
  const Recording apply =
      LoadRecording("v1.35/patch-pod-status-resourceclaimstatuses");
  HttpResult applied =
      Replay(apply, apply.target,
             ReplaceAll(apply.request_body, "dra-pod-tmpl-gpu-6m6vv", name));
  EXPECT_EQ(applied.code, apply.code);
  EXPECT_EQ(applied.Header("content-type"), apply.Header("content-type"));
  {
    ExpectSameJson(WithTokenVolumeNamed(apply.body),
                   WithTokenVolumeNamed(ReplaceAll(applied.body, name,
                                                   "dra-pod-tmpl-gpu-6m6vv")));
  }

  // kube-scheduler: the nominated node, the claim, the binding.
  RequestOptions nominate =
      Request("PATCH", "/api/v1/namespaces/default/pods/dra-pod-tmpl/status",
              R"({"status":{"nominatedNodeName":"node-1"}})");
  nominate.content_type = "application/strategic-merge-patch+json";
  nominate.user_agent =
      "kube-scheduler/v1.35.6 (linux/amd64) kubernetes/a3177b3";
  ASSERT_EQ(Call(nominate).code, 200);
  rapidjson::Document generated =
      ParseJsonOrDie(Recorded("get-resourceclaim-generated-allocated"));
  std::string allocated =
      ReplaceAll(JsonText(generated), recorded_pod_uid, pod_uid);
  allocated = ReplaceAll(allocated, "dra-pod-tmpl-gpu-6m6vv", name);
  AllocateAsKubeScheduler(name, allocated);
  ASSERT_EQ(server_
                ->Create("/api/v1/namespaces/default/pods/dra-pod-tmpl/binding",
                         BindingJson("dra-pod-tmpl", "node-1"))
                .code,
            201);
  {
    SCOPED_TRACE("get-pod-with-resourceclaimstatuses");
    HttpResult got =
        Call("GET", "/api/v1/namespaces/default/pods/dra-pod-tmpl");
    ASSERT_EQ(got.code, 200);
    ExpectSameJson(
        WithTokenVolumeNamed(Recorded("get-pod-with-resourceclaimstatuses")),
        WithTokenVolumeNamed(
            ReplaceAll(got.body, name, "dra-pod-tmpl-gpu-6m6vv")));
  }
  {
    SCOPED_TRACE("get-resourceclaim-generated-allocated");
    HttpResult got = Call("GET", std::string(kClaims) + "/" + name);
    ASSERT_EQ(got.code, 200);
    ExpectSameJson(generated,
                   ParseJsonOrDie(ReplaceAll(
                       ReplaceAll(got.body, name, "dra-pod-tmpl-gpu-6m6vv"),
                       pod_uid, recorded_pod_uid)));
  }
}

}  // namespace
}  // namespace recording_dra_test
}  // namespace ksched::testing

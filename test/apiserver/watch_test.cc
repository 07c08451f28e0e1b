// Watches: ordering after a list, selectors, bookmarks, timeouts, cuts,
// and expired revisions.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "test/apiserver/apiserver_test_util.h"

namespace ksched::testing {
namespace {

using LineStatus = HttpsConnection::LineStatus;

class WatchTest : public ApiServerTest {
 protected:
  std::string ListRv(const std::string& path) {
    HttpResult list = Call("GET", path);
    EXPECT_EQ(list.code, 200);
    return ParseJsonOrDie(list.body)["metadata"]["resourceVersion"].GetString();
  }
};

TEST_F(WatchTest, FromAListsRevisionSeesLaterChangesInOrder) {
  ASSERT_EQ(
      server_->Create("/api/v1/namespaces/default/pods", PodJson("old")).code,
      201);
  const std::string rv = ListRv("/api/v1/pods");
  auto watch = OpenWatch("/api/v1/pods?watch=true&resourceVersion=" + rv);
  WaitForWatches(1);
  server_->Create("/api/v1/namespaces/default/pods", PodJson("a"));
  server_->Create("/api/v1/namespaces/default/pods/a/binding",
                  BindingJson("a", "n1"));
  server_->Patch("/api/v1/namespaces/default/pods/old",
                 R"({"metadata":{"labels":{"x":"y"}}})",
                 "application/merge-patch+json");
  server_->Delete("/api/v1/namespaces/default/pods/old");
  std::vector<std::string> events = ReadEvents(*watch, 5);
  ASSERT_EQ(events.size(), 5u);
  const std::vector<std::pair<std::string, std::string>> want = {
      {"ADDED", "a"},
      {"MODIFIED", "a"},
      {"MODIFIED", "old"},
      {"MODIFIED", "old"},  // deletionTimestamp, then gone
      {"DELETED", "old"}};
  // Even an unscheduled pod is marked (deletionTimestamp) before it goes.
  int64_t last_rv = std::stoll(rv);
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(EventType(events[i]), want[i].first) << i;
    EXPECT_EQ(EventObjectName(events[i]), want[i].second) << i;
    const int64_t event_rv = std::stoll(
        ParseJsonOrDie(events[i])["object"]["metadata"]["resourceVersion"]
            .GetString());
    EXPECT_GT(event_rv, last_rv);
    last_rv = event_rv;
  }
}

TEST_F(WatchTest, WithoutRevisionStartsWithTheCurrentState) {
  server_->Create("/api/v1/nodes", NodeJson("n1"));
  server_->Create("/api/v1/nodes", NodeJson("n2"));
  auto watch = OpenWatch("/api/v1/nodes?watch=1");
  std::vector<std::string> events = ReadEvents(*watch, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(EventType(events[0]), "ADDED");
  EXPECT_EQ(EventObjectName(events[0]), "n1");
  EXPECT_EQ(EventObjectName(events[1]), "n2");
}

TEST_F(WatchTest, SelectorsTranslateTransitions) {
  server_->Create("/api/v1/namespaces/default/pods", PodJson("p"));
  const std::string rv = ListRv("/api/v1/pods");
  auto unscheduled = OpenWatch(
      "/api/v1/"
      "pods?watch=true&fieldSelector=spec.nodeName%3D&resourceVersion=" +
      rv);
  auto labelled = OpenWatch(
      "/api/v1/namespaces/default/pods?watch=true&labelSelector=team%3Dred&"
      "resourceVersion=" +
      rv);
  WaitForWatches(2);
  server_->Patch("/api/v1/namespaces/default/pods/p",
                 R"({"metadata":{"labels":{"team":"red"}}})",
                 "application/merge-patch+json");
  server_->Create("/api/v1/namespaces/default/pods/p/binding",
                  BindingJson("p", "n1"));
  server_->Patch("/api/v1/namespaces/default/pods/p",
                 R"({"metadata":{"labels":{"team":"blue"}}})",
                 "application/merge-patch+json");
  // Unscheduled: modified while it matches, DELETED once bound.
  std::vector<std::string> a = ReadEvents(*unscheduled, 2);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(EventType(a[0]), "MODIFIED");
  EXPECT_EQ(EventType(a[1]), "DELETED");
  // Labelled: ADDED once it matches, then MODIFIED, DELETED when it stops.
  std::vector<std::string> b = ReadEvents(*labelled, 3);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(EventType(b[0]), "ADDED");
  EXPECT_EQ(EventType(b[1]), "MODIFIED");
  EXPECT_EQ(EventType(b[2]), "DELETED");
  // Nothing else arrives on either.
  std::string line;
  EXPECT_EQ(unscheduled->ReadLine(&line, std::chrono::milliseconds(300)),
            LineStatus::kTimeout);
  EXPECT_EQ(labelled->ReadLine(&line, std::chrono::milliseconds(300)),
            LineStatus::kTimeout);
}

TEST_F(WatchTest, BookmarksAndTimeout) {
  TestApiServerOptions options;
  options.bookmark_interval = std::chrono::milliseconds(200);
  StartServer(options);
  auto with = OpenWatch(
      "/api/v1/pods?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&"
      "resourceVersion=" +
      std::to_string(server_->ResourceVersion()));
  auto without = OpenWatch(
      "/api/v1/pods?watch=true&timeoutSeconds=1&"
      "resourceVersion=" +
      std::to_string(server_->ResourceVersion()));
  int bookmarks = 0;
  std::string line;
  const auto start = std::chrono::steady_clock::now();
  while (with->ReadLine(&line, std::chrono::seconds(5)) == LineStatus::kLine) {
    rapidjson::Document event = ParseJsonOrDie(line);
    EXPECT_EQ(std::string(event["type"].GetString()), "BOOKMARK");
    const auto& object = event["object"];
    EXPECT_EQ(std::string(object["kind"].GetString()), "Pod");
    EXPECT_EQ(std::string(object["metadata"]["resourceVersion"].GetString()),
              std::to_string(server_->ResourceVersion()));
    // v1.35 omits the zero creationTimestamp (v1.32 wrote null).
    EXPECT_FALSE(object["metadata"].HasMember("creationTimestamp"));
    EXPECT_TRUE(object["spec"]["containers"].IsNull());
    ++bookmarks;
  }
  const auto took = std::chrono::steady_clock::now() - start;
  // The stream ended cleanly at its timeout, with periodic bookmarks and
  // one just before the end.
  EXPECT_GE(bookmarks, 3);
  EXPECT_GE(took, std::chrono::milliseconds(800));
  EXPECT_EQ(without->ReadLine(&line, std::chrono::seconds(5)),
            LineStatus::kEnd);
}

TEST_F(WatchTest, DropWatchesCutsStreamsMidway) {
  auto a = OpenWatch("/api/v1/pods?watch=true");
  auto b = OpenWatch("/api/v1/nodes?watch=true");
  WaitForWatches(2);
  server_->DropWatches();
  std::string line;
  EXPECT_EQ(a->ReadLine(&line, std::chrono::seconds(5)), LineStatus::kCut);
  EXPECT_EQ(b->ReadLine(&line, std::chrono::seconds(5)), LineStatus::kCut);
  EXPECT_EQ(server_->ActiveWatchCount(), 0);
  // New watches work.
  auto c = OpenWatch("/api/v1/pods?watch=true");
  server_->Create("/api/v1/namespaces/default/pods", PodJson("after"));
  ASSERT_EQ(ReadEvents(*c, 1).size(), 1u);
}

TEST_F(WatchTest, CompactedRevisionGivesOneErrorEvent) {
  const int64_t rv = server_->ResourceVersion();
  server_->Create("/api/v1/namespaces/default/pods", PodJson("p"));
  // History since rv is still there.
  auto replay = OpenWatch("/api/v1/pods?watch=true&resourceVersion=" +
                          std::to_string(rv));
  ASSERT_EQ(ReadEvents(*replay, 1).size(), 1u);
  server_->CompactHistory();
  auto expired = OpenWatch("/api/v1/pods?watch=true&resourceVersion=" +
                           std::to_string(rv));
  std::vector<std::string> events = ReadEvents(*expired, 1);
  ASSERT_EQ(events.size(), 1u);
  rapidjson::Document error = ParseJsonOrDie(events[0]);
  EXPECT_EQ(std::string(error["type"].GetString()), "ERROR");
  EXPECT_EQ(error["object"]["code"].GetInt(), 410);
  EXPECT_EQ(std::string(error["object"]["reason"].GetString()), "Expired");
  EXPECT_EQ(std::string(error["object"]["message"].GetString()),
            "too old resource version: " + std::to_string(rv) + " (" +
                std::to_string(server_->ResourceVersion()) + ")");
  std::string line;
  EXPECT_EQ(expired->ReadLine(&line, std::chrono::seconds(5)),
            LineStatus::kEnd);
}

TEST_F(WatchTest, SendInitialEventsEndsWithAMarkedBookmark) {
  server_->Create("/api/v1/namespaces/default/pods", PodJson("p"));
  auto watch = OpenWatch(
      "/api/v1/pods?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&"
      "resourceVersionMatch=NotOlderThan");
  std::vector<std::string> events = ReadEvents(*watch, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(EventType(events[0]), "ADDED");
  rapidjson::Document bookmark = ParseJsonOrDie(events[1]);
  EXPECT_EQ(std::string(bookmark["type"].GetString()), "BOOKMARK");
  EXPECT_EQ(std::string(bookmark["object"]["metadata"]["annotations"]
                                ["k8s.io/initial-events-end"]
                                    .GetString()),
            "true");
  EXPECT_EQ(Call("GET", "/api/v1/pods?watch=true&sendInitialEvents=true").code,
            422);
}

TEST_F(WatchTest, BadSelectorsAreRefusedBeforeStreaming) {
  HttpResult r = Call("GET", "/api/v1/pods?watch=true&fieldSelector=bogus%3Dx");
  EXPECT_EQ(r.code, 400);
  EXPECT_FALSE(r.chunked);
}

}  // namespace
}  // namespace ksched::testing

namespace ksched::testing {
namespace {

TEST_F(WatchTest, WatchOfAPeerThatLeftIsDropped) {
  {
    auto watch = OpenWatch("/api/v1/pods?watch=true");
    WaitForWatches(1);
  }  // the connection closes
  const auto by = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int i = 0;
  while (server_->ActiveWatchCount() > 0 &&
         std::chrono::steady_clock::now() < by) {
    server_->Create("/api/v1/namespaces/default/pods",
                    PodJson("p" + std::to_string(i++)));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server_->ActiveWatchCount(), 0) << "after " << i << " writes";
}

}  // namespace
}  // namespace ksched::testing

// Lists and watches as the API server sends them: query strings, list
// pages and watch streams decoded from the recorded answers of a real
// kube-apiserver, and the framing of events cut into arbitrary chunks.
#include "pkg/client/list_watch.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "pkg/client/resources.h"
#include "pkg/client/rest_list_watch.h"
#include "pkg/client/testing/piece_body.h"
#include "pkg/client/testing/recorded.h"
#include "pkg/client/watch_decoder.h"

namespace ksched::client {
namespace {

using testing::Recorded;

TEST(ListWatchTest, QueriesAreEncodedAsTheServerExpects) {
  // As in the recorded request pods_unscheduled_limit2.
  EXPECT_EQ(ListQuery({.field_selector = "spec.nodeName=", .limit = 2}),
            "?fieldSelector=spec.nodeName%3D&limit=2");
  EXPECT_EQ(ListQuery({}), "");
  EXPECT_EQ(WatchQuery({.resource_version = "199", .timeout_seconds = 8}),
            "?watch=true&allowWatchBookmarks=true&resourceVersion=199&"
            "timeoutSeconds=8");
  EXPECT_EQ(WatchQuery({.field_selector =
                            "status.phase!=Succeeded,status.phase!=Failed",
                        .allow_bookmarks = false}),
            "?watch=true&fieldSelector=status.phase%21%3DSucceeded%2C"
            "status.phase%21%3DFailed");
}

TEST(ListWatchTest, PathsOfNamespacedAndClusterObjects) {
  EXPECT_EQ(CollectionPath(ResourceOf<api::Pod>::kResource, ""),
            "/api/v1/pods");
  EXPECT_EQ(CollectionPath(ResourceOf<api::Pod>::kResource, "default"),
            "/api/v1/namespaces/default/pods");
  EXPECT_EQ(ObjectPath(ResourceOf<api::Pod>::kResource, "default", "bind-me",
                       "binding"),
            "/api/v1/namespaces/default/pods/bind-me/binding");
  EXPECT_EQ(CollectionPath(ResourceOf<api::Node>::kResource, "default"),
            "/api/v1/nodes");
  EXPECT_EQ(CollectionPath(ResourceOf<api::Event>::kResource, "default"),
            "/apis/events.k8s.io/v1/namespaces/default/events");
  EXPECT_EQ(
      ObjectPath(ResourceOf<api::Lease>::kResource, "kube-system", "ksched"),
      "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/"
      "ksched");
}

TEST(ListWatchTest, RecordedListPagesDecode) {
  auto first =
      DecodeListPage<api::Pod>(Recorded("pods_unscheduled_limit2.json"));
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_EQ(first->resource_version, "197");
  EXPECT_EQ(first->continue_token.substr(0, 10), "eyJ2IjoibW");
  ASSERT_EQ(first->items.size(), 2u);
  EXPECT_TRUE(first->items[0].spec.node_name.empty());

  auto last =
      DecodeListPage<api::Pod>(Recorded("pods_unscheduled_limit2_page2.json"));
  ASSERT_TRUE(last.ok()) << last.error().message();
  EXPECT_EQ(last->items.size(), 1u);
  EXPECT_EQ(last->continue_token, "");

  auto nodes = DecodeListPage<api::Node>(Recorded("nodes_list.json"));
  ASSERT_TRUE(nodes.ok()) << nodes.error().message();
  EXPECT_FALSE(nodes->items.empty());
}

TEST(ListWatchTest, BadListsAreErrorsNamingThePlace) {
  EXPECT_FALSE(DecodeListPage<api::Pod>("not json").ok());
  EXPECT_FALSE(DecodeListPage<api::Pod>(R"({"items":{}})").ok());
  auto wrong = DecodeListPage<api::Pod>(
      R"({"items":[{"metadata":{"name":"a"}},{"metadata":{"name":7}}]})");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message().find("items[1].metadata.name"),
            std::string::npos)
      << wrong.error().message();
  auto empty = DecodeListPage<api::Pod>(R"({"items":null})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->items.empty());
}

std::vector<WatchEvent<api::Pod>> DrainStream(std::deque<std::string> pieces,
                                              std::string* error = nullptr) {
  RestWatchStream<api::Pod> stream(
      std::make_unique<testing::PieceBody>(std::move(pieces)));
  std::vector<WatchEvent<api::Pod>> events;
  while (true) {
    auto next = stream.Next();
    if (!next.ok()) {
      if (error != nullptr) *error = next.error().message();
      break;
    }
    if (!next->has_value()) break;
    events.push_back(std::move(**next));
  }
  return events;
}

// The recorded watch, delivered whole and cut into 7-byte pieces: the same
// five events either way.
TEST(ListWatchTest, RecordedWatchDecodesEventByEventWhateverTheChunking) {
  const std::string body = Recorded("watch_pods_create_bind_delete.json");
  ASSERT_FALSE(body.empty());
  std::deque<std::string> pieces;
  for (size_t i = 0; i < body.size(); i += 7)
    pieces.push_back(body.substr(i, 7));

  for (auto& events : {DrainStream({body}), DrainStream(pieces)}) {
    ASSERT_EQ(events.size(), 5u);
    EXPECT_EQ(events[0].type, WatchEventType::kAdded);
    EXPECT_EQ(events[0].object.metadata.name, "watched-pod");
    EXPECT_EQ(events[1].type, WatchEventType::kModified);
    EXPECT_EQ(events[3].type, WatchEventType::kDeleted);
    EXPECT_EQ(events[4].type, WatchEventType::kBookmark);
    EXPECT_EQ(events[4].resource_version, "203");
    EXPECT_EQ(events[0].resource_version,
              events[0].object.metadata.resource_version);
  }
}

TEST(ListWatchTest, RecordedExpiredWatchIsAnErrorEventWith410) {
  auto events = DrainStream({Recorded("watch_too_old_rv_410.json")});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, WatchEventType::kError);
  EXPECT_EQ(events[0].status.code, 410);
  EXPECT_EQ(events[0].status.reason, "Expired");
  EXPECT_EQ(events[0].status.message, "too old resource version: 1 (210)");
}

TEST(ListWatchTest, BrokenStreamsAreErrors) {
  std::string error;
  auto events =
      DrainStream({"{\"type\":\"ADDED\",\"object\":{}}\n{\"ty"}, &error);
  EXPECT_EQ(events.size(), 1u);
  EXPECT_EQ(error, "watch ended inside an event");

  DrainStream({"{\"type\":\"SPLIT\",\"object\":{}}\n"}, &error);
  EXPECT_EQ(error, "watch event of unknown type \"SPLIT\"");
  DrainStream({"[1,2]\n"}, &error);
  EXPECT_EQ(error, "watch event is not a JSON object");
  DrainStream({"{\"type\":\"ADDED\"}\n"}, &error);
  EXPECT_EQ(error, "watch event has no \"object\"");
  DrainStream({"{\"type\":\"ADDED\",\"object\":{\"spec\":[]}}\n"}, &error);
  EXPECT_NE(error.find("object.spec"), std::string::npos) << error;
}

// A watch line may be up to 64 MiB: nesting that deep must not recurse
// through the stack (a thread's stack is 8 MiB).
TEST(ListWatchTest, DeeplyNestedEventIsDecodedWithoutRecursion) {
  const size_t depth = 1 << 20;
  std::string line = "{\"type\":\"ADDED\",\"object\":{\"deep\":";
  line.append(depth, '[');
  line.append(depth, ']');
  line += "}}";
  auto event = DecodeWatchEvent<api::Pod>(line);
  EXPECT_TRUE(event.ok()) << event.error().message();
  line.resize(line.size() - depth);
  EXPECT_FALSE(DecodeWatchEvent<api::Pod>(line).ok());
}

TEST(WatchFramerTest, LinesAcrossChunksBlankLinesAndTheLimit) {
  WatchFramer framer(16);
  std::vector<std::string> lines;
  auto collect = [&](std::string_view line) {
    lines.emplace_back(line);
    return util::Status();
  };
  ASSERT_TRUE(framer.Feed("ab", collect).ok());
  ASSERT_TRUE(framer.Feed("c\n\n  \nde", collect).ok());
  EXPECT_EQ(framer.pending(), 2u);
  ASSERT_TRUE(framer.Feed("f\ng\n", collect).ok());
  EXPECT_EQ(lines, (std::vector<std::string>{"abc", "def", "g"}));

  auto too_long = framer.Feed(std::string(17, 'x'), collect);
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.error().message(), "watch event longer than 16 bytes");
  EXPECT_EQ(framer.pending(), 0u);
}

}  // namespace
}  // namespace ksched::client

#include "pkg/informer/informer.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "pkg/api/pod.h"

namespace ksched::informer {
namespace {

using client::ApiError;
using client::ListOptions;
using client::ListPage;
using client::WatchEvent;
using client::WatchEventType;
using client::WatchOptions;

api::Pod MakePod(const std::string& name, const std::string& rv,
                 const std::string& node = "") {
  api::Pod pod;
  pod.metadata.ns = "default";
  pod.metadata.name = name;
  pod.metadata.resource_version = rv;
  pod.spec.node_name = node;
  return pod;
}

WatchEvent<api::Pod> Event(WatchEventType type, api::Pod pod) {
  WatchEvent<api::Pod> event;
  event.type = type;
  event.resource_version = pod.metadata.resource_version;
  event.object = std::move(pod);
  return event;
}

WatchEvent<api::Pod> Bookmark(const std::string& rv) {
  WatchEvent<api::Pod> event;
  event.type = WatchEventType::kBookmark;
  event.resource_version = rv;
  return event;
}

WatchEvent<api::Pod> Expired() {
  WatchEvent<api::Pod> event;
  event.type = WatchEventType::kError;
  event.status.code = 410;
  event.status.reason = "Expired";
  event.status.message = "too old resource version: 5 (9)";
  return event;
}

ApiError Error(int code, const std::string& reason) {
  ApiError e;
  e.status.code = code;
  e.status.reason = reason;
  e.status.message = reason;
  return e;
}

// A scripted stream: its events, then the end or a broken connection.
struct ScriptedWatch {
  std::vector<WatchEvent<api::Pod>> events;
  std::string failure;  // empty: the server ends the watch
};

class ScriptedSource final : public client::ListerWatcher<api::Pod> {
 public:
  explicit ScriptedSource(util::Cancellation& stop) : stop_(stop) {}

  std::deque<client::ApiOr<ListPage<api::Pod>>> lists;
  std::deque<client::ApiOr<ScriptedWatch>> watches;
  std::vector<ListOptions> list_calls;
  std::vector<WatchOptions> watch_calls;

  client::ApiOr<ListPage<api::Pod>> List(const ListOptions& options) override {
    list_calls.push_back(options);
    if (lists.empty()) return Stop();
    auto next = std::move(lists.front());
    lists.pop_front();
    return next;
  }

  client::ApiOr<std::unique_ptr<client::WatchStream<api::Pod>>> Watch(
      const WatchOptions& options, util::Cancellation&) override {
    watch_calls.push_back(options);
    if (watches.empty()) return Stop();
    auto next = std::move(watches.front());
    watches.pop_front();
    if (!next.ok()) return next.error();
    return std::unique_ptr<client::WatchStream<api::Pod>>(
        std::make_unique<Stream>(std::move(*next)));
  }

 private:
  class Stream final : public client::WatchStream<api::Pod> {
   public:
    explicit Stream(ScriptedWatch script) : script_(std::move(script)) {}
    util::Result<std::optional<WatchEvent<api::Pod>>> Next() override {
      if (next_ < script_.events.size()) {
        return std::optional<WatchEvent<api::Pod>>(script_.events[next_++]);
      }
      if (!script_.failure.empty()) return util::Error(script_.failure);
      return std::optional<WatchEvent<api::Pod>>();
    }

   private:
    ScriptedWatch script_;
    size_t next_ = 0;
  };

  // The script is over: the informer is being stopped.
  ApiError Stop() {
    stop_.Cancel();
    return Error(0, "stopped");
  }
  util::Cancellation& stop_;
};

// What the handlers heard, in order.
class InformerTest : public ::testing::Test {
 protected:
  InformerTest() : source_(new ScriptedSource(stop_)) {}

  void Run(InformerOptions options = {}) {
    options.min_watch_seconds = options.max_watch_seconds = 300;
    informer_ = std::make_unique<Informer<api::Pod>>(
        "pods", std::unique_ptr<ScriptedSource>(source_),
        Handlers<api::Pod>{
            .on_add =
                [this](auto pod) {
                  heard_.push_back("add " + pod->metadata.name + "@" +
                                   pod->metadata.resource_version);
                },
            .on_update =
                [this](auto old_pod, auto new_pod) {
                  heard_.push_back("update " + old_pod->metadata.name + "@" +
                                   old_pod->metadata.resource_version + "->" +
                                   new_pod->metadata.resource_version);
                },
            .on_delete =
                [this](auto pod) {
                  heard_.push_back("delete " + pod->metadata.name + "@" +
                                   pod->metadata.resource_version);
                },
            .transform = transform_},
        options, log_, random_);
    informer_->Run(stop_, [this](std::chrono::nanoseconds d) {
      waits_.push_back(d);
      return stop_.cancelled();
    });
  }

  util::Cancellation stop_;
  ScriptedSource* source_;  // owned by the informer once it runs
  util::RecordingLogger log_;
  util::DefaultRandom random_{7};
  std::unique_ptr<Informer<api::Pod>> informer_;
  std::vector<std::string> heard_;
  std::vector<std::chrono::nanoseconds> waits_;
  std::function<void(api::Pod&)> transform_;
};

TEST_F(InformerTest, ListsPageByPageThenWatchesFromTheListsVersion) {
  source_->lists.push_back(
      ListPage<api::Pod>{{MakePod("a", "3"), MakePod("b", "4")}, "10", "c1"});
  source_->lists.push_back(ListPage<api::Pod>{{MakePod("c", "5")}, "10", ""});
  source_->watches.push_back(ScriptedWatch{
      {Event(WatchEventType::kAdded, MakePod("d", "11")),
       Event(WatchEventType::kModified, MakePod("a", "12", "node-1")),
       Event(WatchEventType::kDeleted, MakePod("b", "13")), Bookmark("20")},
      ""});
  Run({.field_selector = "status.phase!=Succeeded", .page_size = 2});

  ASSERT_EQ(source_->list_calls.size(), 2u);
  EXPECT_EQ(source_->list_calls[0].limit, 2);
  EXPECT_EQ(source_->list_calls[0].continue_token, "");
  EXPECT_EQ(source_->list_calls[0].field_selector, "status.phase!=Succeeded");
  EXPECT_EQ(source_->list_calls[1].continue_token, "c1");
  // The first watch starts at the list's version, with bookmarks; after
  // the server ended it, the next resumes from the bookmark.
  ASSERT_EQ(source_->watch_calls.size(), 2u);
  EXPECT_EQ(source_->watch_calls[0].resource_version, "10");
  EXPECT_TRUE(source_->watch_calls[0].allow_bookmarks);
  EXPECT_EQ(source_->watch_calls[0].timeout_seconds, 300);
  EXPECT_EQ(source_->watch_calls[0].field_selector, "status.phase!=Succeeded");
  EXPECT_EQ(source_->watch_calls[1].resource_version, "20");

  std::vector<std::string> adds(heard_.begin(), heard_.begin() + 3);
  std::sort(adds.begin(), adds.end());
  EXPECT_EQ(adds, (std::vector<std::string>{"add a@3", "add b@4", "add c@5"}));
  EXPECT_EQ(
      std::vector<std::string>(heard_.begin() + 3, heard_.end()),
      (std::vector<std::string>{"add d@11", "update a@3->12", "delete b@4"}));
  EXPECT_TRUE(informer_->HasSynced());
  EXPECT_EQ(informer_->size(), 3u);
  EXPECT_EQ(informer_->Get("default/a")->spec.node_name, "node-1");
  EXPECT_EQ(informer_->Get("default/b"), nullptr);
  EXPECT_TRUE(waits_.empty());
}

// The transform sees every object, listed or watched, before the store
// and the handlers do.
TEST_F(InformerTest, TransformedObjectsAreWhatIsStoredAndHeard) {
  source_->lists.push_back(
      ListPage<api::Pod>{{MakePod("a", "3"), MakePod("b", "4")}, "10", ""});
  source_->watches.push_back(
      ScriptedWatch{{Event(WatchEventType::kAdded, MakePod("c", "11")),
                     Event(WatchEventType::kModified, MakePod("a", "12")),
                     Event(WatchEventType::kDeleted, MakePod("b", "13"))},
                    ""});
  int transformed = 0;
  transform_ = [&transformed](api::Pod& pod) {
    ++transformed;
    pod.metadata.resource_version += "t";
  };
  Run();
  EXPECT_EQ(transformed, 5);
  std::vector<std::string> adds(heard_.begin(), heard_.begin() + 2);
  std::sort(adds.begin(), adds.end());
  EXPECT_EQ(adds, (std::vector<std::string>{"add a@3t", "add b@4t"}));
  EXPECT_EQ(std::vector<std::string>(heard_.begin() + 2, heard_.end()),
            (std::vector<std::string>{"add c@11t", "update a@3t->12t",
                                      "delete b@4t"}));
  EXPECT_EQ(informer_->Get("default/a")->metadata.resource_version, "12t");
}

// A 410 ERROR event: the history is gone. The relist tells the handlers
// what changed meanwhile, deletions included.
TEST_F(InformerTest, ExpiredWatchRelistsAndReportsTheDifference) {
  source_->lists.push_back(ListPage<api::Pod>{
      {MakePod("kept", "3"), MakePod("changed", "4"), MakePod("gone", "5")},
      "10",
      ""});
  source_->watches.push_back(ScriptedWatch{{Expired()}, ""});
  source_->lists.push_back(ListPage<api::Pod>{
      {MakePod("kept", "3"), MakePod("changed", "30"), MakePod("new", "31")},
      "40",
      ""});
  Run();

  ASSERT_EQ(source_->list_calls.size(), 2u);
  EXPECT_EQ(informer_->lists(), 2);
  std::vector<std::string> after(heard_.begin() + 3, heard_.end());
  std::sort(after.begin(), after.end());
  EXPECT_EQ(after, (std::vector<std::string>{"add new@31", "delete gone@5",
                                             "update changed@4->30"}));
  ASSERT_EQ(source_->watch_calls.size(), 2u);
  EXPECT_EQ(source_->watch_calls[1].resource_version, "40");
  EXPECT_TRUE(waits_.empty());
}

TEST_F(InformerTest, WatchAnswered410RelistsToo) {
  source_->lists.push_back(ListPage<api::Pod>{{}, "10", ""});
  source_->watches.push_back(Error(410, "Expired"));
  source_->lists.push_back(ListPage<api::Pod>{{MakePod("a", "50")}, "50", ""});
  Run();
  EXPECT_EQ(source_->list_calls.size(), 2u);
  EXPECT_EQ(heard_, (std::vector<std::string>{"add a@50"}));
}

// A dropped connection resumes from the last version seen, after a
// backoff that grows while failures repeat and resets after a clean end.
TEST_F(InformerTest, DroppedWatchesResumeFromTheLastVersionWithBackoff) {
  source_->lists.push_back(ListPage<api::Pod>{{}, "10", ""});
  source_->watches.push_back(ScriptedWatch{
      {Event(WatchEventType::kAdded, MakePod("a", "11"))}, "connection reset"});
  source_->watches.push_back(Error(0, "connection refused"));
  source_->watches.push_back(Error(503, "ServiceUnavailable"));
  source_->watches.push_back(ScriptedWatch{{}, ""});
  source_->watches.push_back(ScriptedWatch{{}, "connection reset"});
  Run();

  ASSERT_EQ(source_->watch_calls.size(), 6u);
  for (size_t i = 1; i < source_->watch_calls.size(); ++i) {
    EXPECT_EQ(source_->watch_calls[i].resource_version, "11") << i;
  }
  EXPECT_EQ(source_->list_calls.size(), 1u);
  ASSERT_EQ(waits_.size(), 4u);
  // 0.8 s, 1.6 s, 3.2 s with up to 100% jitter; then a clean end resets.
  EXPECT_GE(waits_[0], std::chrono::milliseconds(800));
  EXPECT_LE(waits_[0], std::chrono::milliseconds(1600));
  EXPECT_GE(waits_[1], std::chrono::milliseconds(1600));
  EXPECT_GE(waits_[2], std::chrono::milliseconds(3200));
  EXPECT_LE(waits_[3], std::chrono::milliseconds(1600));
  EXPECT_EQ(heard_, (std::vector<std::string>{"add a@11"}));
}

TEST_F(InformerTest, FailedListsBackOffAndNothingSyncsUntilOneSucceeds) {
  source_->lists.push_back(Error(500, "InternalError"));
  source_->lists.push_back(Error(403, "Forbidden"));
  Run();
  EXPECT_FALSE(informer_->HasSynced());
  EXPECT_EQ(waits_.size(), 2u);
  EXPECT_GE(waits_[1], std::chrono::milliseconds(1600));
  EXPECT_FALSE(log_.lines().empty());
}

// The snapshot behind a continue token expired mid-list: the list starts
// again in one answer, and nothing from the abandoned pages is reported.
TEST_F(InformerTest, ExpiredContinueTokenRestartsTheListWhole) {
  source_->lists.push_back(ListPage<api::Pod>{{MakePod("a", "3")}, "10", "c1"});
  source_->lists.push_back(Error(410, "Expired"));
  source_->lists.push_back(
      ListPage<api::Pod>{{MakePod("a", "3"), MakePod("b", "60")}, "60", ""});
  Run({.page_size = 1});
  ASSERT_EQ(source_->list_calls.size(), 3u);
  EXPECT_EQ(source_->list_calls[2].limit, 0);
  EXPECT_EQ(source_->list_calls[2].continue_token, "");
  EXPECT_EQ(heard_.size(), 2u);
  EXPECT_EQ(source_->watch_calls[0].resource_version, "60");
}

}  // namespace
}  // namespace ksched::informer

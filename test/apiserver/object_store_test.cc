// The object store on its own: what it keeps of an object reads back as
// written, selectors see the same object through the stored selectable
// members as through the whole object, and lists of many objects page
// through every key exactly once.
#include "test/apiserver/object_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "test/apiserver/resources.h"
#include "test/apiserver/selectors.h"

namespace ksched::testing::apiserver {
namespace {

const ResourceInfo& StorePods() { return *FindResource("", "v1", "pods"); }
const ResourceInfo& StoreNodes() { return *FindResource("", "v1", "nodes"); }

JsonDocument ParseOrDie(const std::string& text) {
  JsonDocument doc;
  std::string error;
  EXPECT_TRUE(ParseJson(text, &doc, &error)) << error << ": " << text;
  return doc;
}

class ObjectStoreTest : public ::testing::Test {
 protected:
  ObjectStoreTest() : store_([](const StoreEvent&) {}, 0) {}

  ObjectPtr Create(const ResourceInfo& resource, const std::string& json) {
    JsonDocument doc = ParseOrDie(json);
    const std::string key =
        StoreKey(resource, StringAt(doc, {"metadata", "namespace"}),
                 StringAt(doc, {"metadata", "name"}));
    std::optional<ObjectPtr> created =
        store_.Commit(resource, key, nullptr, &doc);
    EXPECT_TRUE(created.has_value()) << key;
    return created.value_or(nullptr);
  }

  ObjectStore store_;
};

// Numbers a default-precision parse may round, strings that need escapes,
// large integers, empty containers, duplicate-free nesting.
constexpr char kAwkwardPod[] =
    R"({"metadata":{"name":"p","namespace":"default","uid":"u-1",)"
    R"("labels":{"app":"web","tier":"front"},)"
    R"("annotations":{"quote":"a \"b\" \\ c\n\t\u00e9\u2603",)"
    R"("nul":"x\u0000y"}},)"
    R"("spec":{"nodeName":"n1","hostNetwork":true,)"
    R"("priority":-2147483648,"big":18446744073709551615,)"
    R"("neg":-9223372036854775808,)"
    R"("ratios":[0.1,0.30000000000000004,1e-7,123456789.12345679,)"
    R"(2.2250738585072014e-308,1.7976931348623157e308,-0.0,5e-324],)"
    R"("empty":{},"none":[],"null":null}})";

TEST_F(ObjectStoreTest, ObjectReadsBackAsWritten) {
  JsonDocument written = ParseOrDie(kAwkwardPod);
  ObjectPtr object = Create(StorePods(), kAwkwardPod);
  ASSERT_NE(object, nullptr);
  EXPECT_EQ(object->ns, "default");
  EXPECT_EQ(object->name, "p");
  EXPECT_EQ(object->uid, "u-1");
  EXPECT_EQ(object->rv, store_.CurrentRv());

  JsonDocument read = object->Parse();
  ASSERT_FALSE(read.HasParseError());
  // The store's one change: the revision it stamped.
  EXPECT_EQ(StringAt(read, {"metadata", "resourceVersion"}),
            std::to_string(object->rv));
  SetString(EnsureObject(written, "metadata", written.GetAllocator()),
            "resourceVersion", std::to_string(object->rv),
            written.GetAllocator());
  EXPECT_TRUE(read == written) << object->json;
  // And parsing again and serializing gives the same text, as every
  // update that starts from the stored state relies on.
  EXPECT_EQ(ToJson(read), object->json);
  EXPECT_EQ(ToJson(object->Parse()), object->json);
}

TEST_F(ObjectStoreTest, UpdatesAndTombstoneKeepIdentityAndContent) {
  ObjectPtr first = Create(StorePods(), kAwkwardPod);
  ASSERT_NE(first, nullptr);
  const std::string key = StoreKey(StorePods(), "default", "p");

  JsonDocument next = first->Parse();
  SetString(EnsureObject(next, "spec", next.GetAllocator()), "nodeName", "n2",
            next.GetAllocator());
  std::optional<ObjectPtr> updated =
      store_.Commit(StorePods(), key, first, &next);
  ASSERT_TRUE(updated.has_value());
  EXPECT_EQ((*updated)->uid, first->uid);
  EXPECT_EQ((*updated)->created, first->created);
  EXPECT_EQ(StringAt((*updated)->Parse(), {"spec", "nodeName"}), "n2");
  EXPECT_EQ((*updated)->json, ToJson(next));
  // A stale expectation is refused, and changes nothing.
  JsonDocument stale = first->Parse();
  EXPECT_FALSE(store_.Commit(StorePods(), key, first, &stale).has_value());

  std::optional<ObjectPtr> gone =
      store_.Commit(StorePods(), key, *updated, nullptr);
  ASSERT_TRUE(gone.has_value());
  EXPECT_EQ(store_.Get(StorePods(), key), nullptr);
  // The tombstone is the last state stamped with the deletion's revision.
  JsonDocument last = (*updated)->Parse();
  SetString(EnsureObject(last, "metadata", last.GetAllocator()),
            "resourceVersion", std::to_string((*gone)->rv),
            last.GetAllocator());
  EXPECT_TRUE((*gone)->Parse() == last);
  EXPECT_EQ((*gone)->selectable, (*updated)->selectable);
  EXPECT_EQ((*gone)->uid, first->uid);
  EXPECT_EQ(store_.GetLatestIncludingDeleted(StorePods(), key), *gone);
}

TEST_F(ObjectStoreTest, SelectableHoldsOnlyWhatSelectorsRead) {
  ObjectPtr pod = Create(
      StorePods(),
      R"({"metadata":{"name":"p","namespace":"ns","uid":"u","labels":{"a":"b"},)"
      R"("annotations":{"big":"xxxxxxxxxxxxxxxx"}},)"
      R"("spec":{"nodeName":"n","schedulerName":"s","containers":[{"name":"c"}]},)"
      R"("status":{"phase":"Running","conditions":[]}})");
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(pod->selectable,
            R"({"metadata":{"name":"p","namespace":"ns","labels":{"a":"b"}},)"
            R"("spec":{"nodeName":"n","schedulerName":"s"},)"
            R"("status":{"phase":"Running"}})");
  ObjectPtr node = Create(StoreNodes(), R"({"metadata":{"name":"n"}})");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->selectable, R"({"metadata":{"name":"n"}})");
}

TEST_F(ObjectStoreTest, SelectorsMatchSelectableAsTheWholeObject) {
  const std::vector<std::string> pods = {
      R"({"metadata":{"name":"a","namespace":"x","labels":{"app":"web","n":"5"}},)"
      R"("spec":{"nodeName":"n1","hostNetwork":true,"restartPolicy":"Always"},)"
      R"("status":{"phase":"Running","podIP":"10.0.0.1"}})",
      R"({"metadata":{"name":"b","namespace":"y","labels":{"app":7}},)"
      R"("spec":{"schedulerName":"ksched"},"status":{"phase":"Pending"}})",
      R"({"metadata":{"name":"c","namespace":"x"},"spec":"odd",)"
      R"("status":{"phase":"Succeeded","nominatedNodeName":"n2"}})",
      R"({"metadata":{"name":"d","namespace":"x","labels":"odd"},)"
      R"("spec":{"nodeName":{"nested":1},"serviceAccountName":"sa"}})",
  };
  const std::vector<std::string> field_selectors = {
      "",
      "spec.nodeName=",
      "spec.nodeName!=",
      "spec.nodeName=n1",
      "status.phase!=Succeeded,status.phase!=Failed",
      "spec.hostNetwork=false",
      "spec.hostNetwork=true",
      "metadata.name=b",
      "metadata.namespace=x,spec.schedulerName=ksched",
      "status.nominatedNodeName=n2",
      "spec.serviceAccountName=sa",
      "status.podIP=10.0.0.1",
      "spec.restartPolicy=Always"};
  const std::vector<std::string> label_selectors = {
      "",     "app=web",         "app!=web", "app",
      "!app", "app in (web,db)", "n>4",      "n<4"};
  for (const std::string& json : pods) {
    ObjectPtr pod = Create(StorePods(), json);
    ASSERT_NE(pod, nullptr);
    const JsonDocument whole = pod->Parse();
    const JsonDocument selectable = pod->ParseSelectable();
    for (const std::string& text : field_selectors) {
      FieldSelector fields;
      std::string error;
      ASSERT_TRUE(fields.Parse(text, StorePods(), &error)) << error;
      EXPECT_EQ(fields.Matches(selectable), fields.Matches(whole))
          << text << " on " << json;
    }
    for (const std::string& text : label_selectors) {
      LabelSelector labels;
      std::string error;
      ASSERT_TRUE(labels.Parse(text, &error)) << error;
      EXPECT_EQ(labels.Matches(selectable), labels.Matches(whole))
          << text << " on " << json;
    }
  }
}

// Many objects, in several namespaces, listed in many small pages from one
// snapshot while writes go on: each key once, in key order, with the
// remaining count right on every page, and the whole listing quick.
TEST_F(ObjectStoreTest, LargeListPagesThroughEveryKeyOnce) {
  constexpr int kLimit = 25;
  constexpr int kPerNamespace = 20'000;
  const std::vector<std::string> namespaces = {"a", "b", "c"};
  for (const std::string& ns : namespaces) {
    for (int i = 0; i < kPerNamespace; ++i) {
      ASSERT_NE(Create(StorePods(), R"({"metadata":{"name":"pod-)" +
                                        std::to_string(i) +
                                        R"(","namespace":")" + ns + R"("}})"),
                nullptr);
    }
  }
  const int total = kPerNamespace * static_cast<int>(namespaces.size());
  for (const std::string& ns : {std::string(), std::string("b")}) {
    // What the first page's snapshot holds (earlier listings wrote too).
    int expected = 0;
    for (const ObjectPtr& object : store_.Snapshot(StorePods())) {
      if (ns.empty() || object->ns == ns) ++expected;
    }
    EXPECT_GE(expected, ns.empty() ? total : kPerNamespace - 100);
    ObjectStore::ListRequest request{.ns = ns, .limit = kLimit};
    request.count_remaining = true;
    std::vector<std::string> keys;
    int64_t snapshot = 0;
    int pages = 0;
    const auto start = std::chrono::steady_clock::now();
    while (true) {
      ObjectStore::ListResult page = store_.List(StorePods(), request);
      ASSERT_FALSE(page.too_old);
      if (snapshot == 0) snapshot = page.rv;
      EXPECT_EQ(page.rv, snapshot);
      ++pages;
      for (const ObjectPtr& item : page.items) {
        keys.push_back(StoreKey(StorePods(), item->ns, item->name));
      }
      if (page.next_key.empty()) {
        EXPECT_EQ(page.remaining, -1);
        break;
      }
      EXPECT_EQ(page.items.size(), static_cast<size_t>(kLimit));
      EXPECT_EQ(page.remaining, expected - static_cast<int64_t>(keys.size()));
      if (pages % 100 == 0) {
        // The same page again (a client's retry) counts the same.
        ObjectStore::ListResult again = store_.List(StorePods(), request);
        EXPECT_EQ(again.items, page.items);
        EXPECT_EQ(again.remaining, page.remaining);
        EXPECT_EQ(again.next_key, page.next_key);
      }
      // Writes between pages: neither shows in the pinned snapshot.
      const std::string victim = "pod-" + std::to_string(pages * 7);
      const std::string victim_key = StoreKey(StorePods(), "b", victim);
      if (ObjectPtr current = store_.Get(StorePods(), victim_key)) {
        ASSERT_TRUE(store_.Commit(StorePods(), victim_key, current, nullptr)
                        .has_value());
      }
      ASSERT_NE(Create(StorePods(), R"({"metadata":{"name":"late-)" +
                                        std::to_string(pages) + ns +
                                        R"(","namespace":"b"}})"),
                nullptr);
      request.at_rv = snapshot;
      request.start_key = page.next_key;
    }
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(pages, (expected + kLimit - 1) / kLimit);
    ASSERT_EQ(static_cast<int>(keys.size()), expected);
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
    EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(),
              keys.size());
    for (const std::string& key : keys) {
      EXPECT_TRUE(ns.empty() || key.rfind(ns + "/", 0) == 0) << key;
    }
    // Each page starts at its key, and counts what remains from the count
    // of the page before it: some tens of milliseconds here. Counting the
    // rest of the range on every page took seconds (2,400 pages of 25 from
    // 60,000 objects); the bound leaves room for sanitizer builds.
    EXPECT_LT(took, std::chrono::seconds(2));
  }
}

}  // namespace
}  // namespace ksched::testing::apiserver

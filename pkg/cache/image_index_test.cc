#include "pkg/cache/image_index.h"

#include <gtest/gtest.h>

#include "pkg/framework/testing/wrappers.h"

namespace ksched::cache {
namespace {

using framework::ImageStateSummary;
using ksched::testing::NodeBuilder;

constexpr int64_t kMb = 1024 * 1024;

TEST(ImageIndexTest, CountsNodesPerImageName) {
  api::Node a =
      NodeBuilder("a").Image("nginx:1.27", 70).Image("redis:7", 40).Obj();
  api::Node b = NodeBuilder("b").Image("nginx:1.27", 70).Obj();
  ImageIndex index;
  index.AddNode(a);
  index.AddNode(b);
  EXPECT_EQ(index.size(), 2u);
  EXPECT_EQ(*index.Find("nginx:1.27"), (ImageStateSummary{70, 2}));
  EXPECT_EQ(*index.Find("redis:7"), (ImageStateSummary{40, 1}));

  auto summaries = index.Summaries(a);
  ASSERT_EQ(summaries.size(), 2u);
  EXPECT_EQ(*summaries.Find("nginx:1.27"), (ImageStateSummary{70, 2}));
  EXPECT_EQ(*summaries.Find("redis:7"), (ImageStateSummary{40, 1}));
  EXPECT_TRUE(index.Summaries(NodeBuilder("c").Obj()).empty());
}

TEST(ImageIndexTest, RemovingTheLastNodeDropsTheName) {
  api::Node a =
      NodeBuilder("a").Image("nginx:1.27", 70).Image("redis:7", 40).Obj();
  api::Node b = NodeBuilder("b").Image("nginx:1.27", 70).Obj();
  ImageIndex index;
  index.AddNode(a);
  index.AddNode(b);
  index.RemoveNode(a);
  EXPECT_EQ(index.size(), 1u);
  EXPECT_EQ(index.Find("redis:7"), nullptr);
  EXPECT_EQ(*index.Find("nginx:1.27"), (ImageStateSummary{70, 1}));
  index.RemoveNode(b);
  EXPECT_EQ(index.size(), 0u);
}

TEST(ImageIndexTest, NameListedTwiceOnANodeCountsOnce) {
  // A tag and a digest often name one image; the same tag may also appear
  // under two entries of status.images.
  api::Node n = NodeBuilder("n")
                    .Image("gcr.io/80:latest", 80 * kMb)
                    .Image("gcr.io/80:latest", 81 * kMb)
                    .Obj();
  ImageIndex index;
  index.AddNode(n);
  EXPECT_EQ(*index.Find("gcr.io/80:latest"), (ImageStateSummary{80 * kMb, 1}));
  index.RemoveNode(n);
  EXPECT_EQ(index.Find("gcr.io/80:latest"), nullptr);
}

TEST(ImageIndexTest, FirstReportedSizeWins) {
  ImageIndex index;
  index.AddNode(NodeBuilder("a").Image("img", 100).Obj());
  index.AddNode(NodeBuilder("b").Image("img", 200).Obj());
  EXPECT_EQ(*index.Find("img"), (ImageStateSummary{100, 2}));
  // Every node sees the cluster-wide summary, not its own size.
  EXPECT_EQ(
      *index.Summaries(NodeBuilder("b").Image("img", 200).Obj()).Find("img"),
      (ImageStateSummary{100, 2}));
}

}  // namespace
}  // namespace ksched::cache

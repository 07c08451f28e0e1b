#include "pkg/plugins/nodedeclaredfeatures/feature_set.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace ksched::plugins::nodedeclaredfeatures {
namespace {

using Names = std::vector<std::string>;

// After kube's TestFeatureMapper: TryMap keeps the known features, MapSorted
// refuses an unknown one, and Unmap gives the names back in order.
TEST(FeatureMapperTest, MapsSortedNames) {
  const FeatureMapper mapper({"d", "b", "c", "a"});
  ASSERT_EQ(mapper.features(), (Names{"a", "b", "c", "d"}));
  struct Case {
    std::string name;
    Names input;
    std::string error;  // of MapSorted; empty for none
    std::set<size_t> want;
  };
  const std::vector<Case> cases = {
      {"Empty input", {}, "", {}},
      {"Single valid feature", {"a"}, "", {0}},
      {"Multiple valid features", {"a", "c"}, "", {0, 2}},
      {"All features", {"a", "b", "c", "d"}, "", {0, 1, 2, 3}},
      {"Unknown feature (start)", {"0", "a"}, "unknown feature 0", {0}},
      {"Unknown feature (middle)",
       {"a", "ab", "b"},
       "unknown feature ab",
       {0, 1}},
      {"Unknown feature (end)", {"d", "e"}, "unknown feature e", {3}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const FeatureSet set = mapper.TryMap(c.input);
    ASSERT_EQ(set.size(), 4u);
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(set.Get(i), c.want.count(i) == 1) << "feature " << i;
    }
    util::Result<FeatureSet> strict = mapper.MapSorted(c.input);
    if (c.error.empty()) {
      ASSERT_TRUE(strict.ok()) << strict.error().message();
      EXPECT_EQ(*strict, set);
    } else {
      ASSERT_FALSE(strict.ok());
      EXPECT_EQ(strict.error().message(), c.error);
    }
    util::Result<Names> names = mapper.Unmap(set);
    ASSERT_TRUE(names.ok());
    Names want;
    for (size_t i : c.want) want.push_back(mapper.features()[i]);
    EXPECT_EQ(*names, want);
    if (c.error.empty()) {
      EXPECT_EQ(*names, c.input);
    }
  }
}

TEST(FeatureMapperTest, UnsortedInputLosesWhatTheMergeStepsOver) {
  // The API server keeps a node's list sorted; kube's single merge pass
  // misses a feature listed after a later one, and so does this.
  const FeatureMapper mapper({"a", "b", "c"});
  EXPECT_EQ(*mapper.Unmap(mapper.TryMap({"c", "a"})), (Names{"c"}));
}

TEST(FeatureMapperTest, UnmapRefusesASetOfAnotherSize) {
  const FeatureMapper mapper({"a", "b"});
  util::Result<Names> names = mapper.Unmap(FeatureSet(3));
  ASSERT_FALSE(names.ok());
  EXPECT_EQ(names.error().message(),
            "feature size mismatch! s.size=3; len(m.registeredFeatures)=2");
}

TEST(FeatureSetTest, SubsetEmptyAndString) {
  FeatureSet needs(70);  // two words
  FeatureSet has(70);
  EXPECT_TRUE(needs.IsEmpty());
  EXPECT_TRUE(*needs.IsSubsetOf(has));
  needs.Set(0);
  needs.Set(65);
  EXPECT_FALSE(needs.IsEmpty());
  EXPECT_FALSE(*needs.IsSubsetOf(has));
  has.Set(0);
  EXPECT_FALSE(*needs.IsSubsetOf(has));
  has.Set(65);
  has.Set(3);
  EXPECT_TRUE(*needs.IsSubsetOf(has));
  EXPECT_FALSE(*has.IsSubsetOf(needs));
  EXPECT_NE(needs, has);

  FeatureSet small(5);
  small.Set(1);
  small.Set(4);
  EXPECT_EQ(small.String(), "01001");

  util::Result<bool> mismatch = small.IsSubsetOf(FeatureSet(0));
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.error().message(), "bitmap size mismatch; 5 != 0");
}

}  // namespace
}  // namespace ksched::plugins::nodedeclaredfeatures

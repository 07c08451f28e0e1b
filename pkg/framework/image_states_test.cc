#include "pkg/framework/image_states.h"

#include <gtest/gtest.h>

#include "pkg/framework/testing/wrappers.h"

namespace ksched::framework {
namespace {

TEST(ImageStatesTest, CountsNodesPerImageName) {
  std::vector<NodeInfoPtr> nodes = {
      testing::MakeNodeInfo(testing::NodeBuilder("a")
                                .Image("nginx:1.27", 70)
                                .Image("redis:7", 40)
                                .Obj()),
      testing::MakeNodeInfo(
          testing::NodeBuilder("b").Image("nginx:1.27", 70).Obj()),
      testing::MakeNodeInfo(testing::NodeBuilder("c").Obj()),
  };
  SetImageStates(nodes);
  ASSERT_EQ(nodes[0]->image_states().size(), 2u);
  EXPECT_EQ(*nodes[0]->image_states().Find("nginx:1.27"),
            (ImageStateSummary{70, 2}));
  EXPECT_EQ(*nodes[0]->image_states().Find("redis:7"),
            (ImageStateSummary{40, 1}));
  EXPECT_EQ(*nodes[1]->image_states().Find("nginx:1.27"),
            (ImageStateSummary{70, 2}));
  EXPECT_TRUE(nodes[2]->image_states().empty());
}

}  // namespace
}  // namespace ksched::framework

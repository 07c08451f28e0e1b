#include "pkg/plugins/imagelocality/image_locality.h"

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins {
namespace {

constexpr int64_t kMb = 1024 * 1024;

api::ContainerImage Image(std::vector<std::string> names, int64_t mb) {
  return {std::move(names), mb * kMb};
}

api::Node ImageNode(std::string name, std::vector<api::ContainerImage> images) {
  api::Node node = testing::NodeBuilder(std::move(name)).Obj();
  node.status.images = std::move(images);
  return node;
}

// NodeInfos with image states as the scheduler cache computes them: every
// reported name of an image, with how many nodes report that name.
std::vector<framework::NodeInfoPtr> WithImageStates(
    const std::vector<api::Node>& nodes) {
  std::map<std::string, std::set<std::string>> holders;
  for (const api::Node& n : nodes) {
    for (const auto& image : n.status.images) {
      for (const auto& name : image.names)
        holders[name].insert(n.metadata.name);
    }
  }
  std::vector<framework::NodeInfoPtr> infos;
  for (const api::Node& n : nodes) {
    auto info = testing::MakeNodeInfo(n);
    api::FlatMap<framework::ImageStateSummary> states;
    for (const auto& image : n.status.images) {
      for (const auto& name : image.names) {
        states.Set(name,
                   {image.size_bytes, static_cast<int>(holders[name].size())});
      }
    }
    info->set_image_states(std::move(states));
    infos.push_back(info);
  }
  return infos;
}

api::Pod PodWithImages(std::vector<std::string> images,
                       std::vector<std::string> init_images = {}) {
  api::Pod pod = testing::PodBuilder("p").Obj();
  for (auto& image : images) {
    api::Container& c = pod.spec.containers.emplace_back();
    c.name = "c" + std::to_string(pod.spec.containers.size());
    c.image = std::move(image);
  }
  for (auto& image : init_images) {
    api::Container& c = pod.spec.init_containers.emplace_back();
    c.name = "i" + std::to_string(pod.spec.init_containers.size());
    c.image = std::move(image);
  }
  return pod;
}

// "<index>_<case name>" with what gtest does not allow in names as '_'.
template <typename Case>
std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string out = std::to_string(info.index) + "_";
  for (char ch : info.param.name) {
    out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return out;
}

struct ScoreCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<int64_t> expected;
  friend void PrintTo(const ScoreCase& c, std::ostream* os) { *os << c.name; }
};

// Cases from kube-scheduler's TestImageLocalityPriority (the comments give
// kube's arithmetic), plus explicit tags and a pod without containers.
std::vector<ScoreCase> ScoreCases() {
  const std::vector<api::ContainerImage> node403002000 = {
      Image({"gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"}, 40),
      Image({"gcr.io/300:latest", "gcr.io/300:v1"}, 300),
      Image({"gcr.io/2000:latest"}, 2000),
  };
  const std::vector<api::ContainerImage> node25010 = {
      Image({"gcr.io/250:latest"}, 250),
      Image({"gcr.io/10:latest", "gcr.io/10:v1"}, 10),
  };
  const std::vector<api::ContainerImage> node60040900 = {
      Image({"gcr.io/600:latest"}, 600),
      Image({"gcr.io/40:latest"}, 40),
      Image({"gcr.io/900:latest"}, 900),
  };
  const std::vector<api::ContainerImage> node300600900 = {
      Image({"gcr.io/300:latest"}, 300),
      Image({"gcr.io/600:latest"}, 600),
      Image({"gcr.io/900:latest"}, 900),
  };
  const std::vector<api::ContainerImage> node400030 = {
      Image({"gcr.io/4000:latest"}, 4000),
      Image({"gcr.io/30:latest"}, 30),
  };
  const std::vector<api::ContainerImage> node203040 = {
      Image({"gcr.io/20:latest"}, 20),
      Image({"gcr.io/30:latest"}, 30),
      Image({"gcr.io/40:latest"}, 40),
  };
  return {
      // node1: 40M/2 < 23M, min. node2: 100*(250M/2-23M)/(2000M-23M) = 5.
      {"two images spread on two nodes, prefer the larger image one",
       PodWithImages({"gcr.io/40", "gcr.io/250"}),
       {ImageNode("node1", node403002000), ImageNode("node2", node25010)},
       {0, 5}},
      // node1: 100*((40M+300M)/2-23M)/(2000M-23M) = 7.
      {"two images on one node, prefer this node",
       PodWithImages({"gcr.io/40", "gcr.io/300"}),
       {ImageNode("node1", node403002000), ImageNode("node2", node25010)},
       {7, 0}},
      // node1: 4000M/2 >= 2000M, max. node2: 10M/2 < 23M, min.
      {"if exceed limit, use limit",
       PodWithImages({"gcr.io/10", "gcr.io/4000"}),
       {ImageNode("node1", node400030), ImageNode("node2", node25010)},
       {100, 0}},
      // node1: 100*(4000M/3-23M)/(2000M-23M) = 66.
      {"if exceed limit, use limit (with node which has no images present)",
       PodWithImages({"gcr.io/10", "gcr.io/4000"}),
       {ImageNode("node1", node400030), ImageNode("node2", node25010),
        ImageNode("node3", {})},
       {66, 0, 0}},
      // node1: 100*(600M*2/3+900M*2/3-23M)/(3000M-23M) = 32;
      // node2: 100*(300M/3+600M*2/3+900M*2/3-23M)/(3000M-23M) = 36.
      {"pod with multiple large images, node2 is preferred",
       PodWithImages({"gcr.io/300", "gcr.io/600", "gcr.io/900"}),
       {ImageNode("node1", node60040900), ImageNode("node2", node300600900),
        ImageNode("node3", {})},
       {32, 36, 0}},
      // node1: 100*(30M/2+40M-23M)/(2000M-23M) = 1.
      {"pod with multiple small images",
       PodWithImages({"gcr.io/30", "gcr.io/40"}),
       {ImageNode("node1", node203040), ImageNode("node2", node400030)},
       {1, 0}},
      // An image volume counts as an image (v1.36): node1 has gcr.io/300,
      // 100*(300M/2-23M)/(1000M-23M) = 12; node2 only gcr.io/30, 0.
      {"pod with ImageVolume",
       [] {
         api::Pod pod = PodWithImages({"gcr.io/30"});
         api::Volume& v = pod.spec.volumes.emplace_back();
         v.name = "imageVolume";
         v.image.emplace().reference = "gcr.io/300";
         return pod;
       }(),
       {ImageNode("node1", node300600900), ImageNode("node2", node400030)},
       {12, 0}},
      // node1: 100*(300M/2-23M)/(2000M-23M) = 6.
      {"include InitContainers: two images spread on two nodes, prefer the "
       "larger image one",
       PodWithImages({"gcr.io/30"}, {"gcr.io/300"}),
       {ImageNode("node1", node403002000), ImageNode("node2", node203040)},
       {6, 0}},
      {"an explicit tag matches that tag only",
       PodWithImages({"gcr.io/300:v1"}),
       {ImageNode("node1", node403002000), ImageNode("node2", node300600900)},
       // Only node1 reports ":v1": 100*(300M/2-23M)/(1000M-23M) = 12.
       {12, 0}},
      {"a pod without containers scores zero",
       PodWithImages({}),
       {ImageNode("node1", node403002000)},
       {0}},
  };
}

class ImageLocalityScoreTest : public ::testing::TestWithParam<ScoreCase> {};

TEST_P(ImageLocalityScoreTest, Score) {
  const ScoreCase& c = GetParam();
  auto infos = WithImageStates(c.nodes);
  testing::FakeHandle handle(infos);
  auto plugin = NewImageLocality(nullptr, handle);
  ASSERT_TRUE(plugin.ok());
  auto* score = dynamic_cast<framework::ScorePlugin*>(plugin->get());
  ASSERT_NE(score, nullptr);
  EXPECT_FALSE(score->HasNormalizeScore());
  auto pod =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(c.pod));
  framework::CycleState state;
  std::vector<int64_t> got;
  for (const auto& info : infos) {
    int64_t value = -1;
    framework::Status s = score->Score(state, *pod, *info, &value);
    EXPECT_TRUE(s.IsSuccess()) << s.Message();
    got.push_back(value);
  }
  EXPECT_EQ(got, c.expected);
}

INSTANTIATE_TEST_SUITE_P(TestImageLocalityPriority, ImageLocalityScoreTest,
                         ::testing::ValuesIn(ScoreCases()),
                         CaseName<ScoreCase>);

struct NameCase {
  std::string name;
  std::string input;
  std::string output;
  friend void PrintTo(const NameCase& c, std::ostream* os) { *os << c.name; }
};

// kube-scheduler's TestNormalizedImageName, plus registry ports and
// registry-less paths.
std::vector<NameCase> NameCases() {
  const std::string digest =
      "sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2";
  return {
      {"add :latest postfix 1", "root", "root:latest"},
      {"add :latest postfix 2", "gcr.io:5000/root", "gcr.io:5000/root:latest"},
      {"keep it as is 1", "root:tag", "root:tag"},
      {"keep it as is 2", "root@" + digest, "root@" + digest},
      {"registry port and tag", "gcr.io:5000/root:v2", "gcr.io:5000/root:v2"},
      {"path without tag", "library/nginx", "library/nginx:latest"},
  };
}

class NormalizedImageNameTest : public ::testing::TestWithParam<NameCase> {};

TEST_P(NormalizedImageNameTest, Normalizes) {
  EXPECT_EQ(NormalizedImageName(GetParam().input), GetParam().output);
}

INSTANTIATE_TEST_SUITE_P(TestNormalizedImageName, NormalizedImageNameTest,
                         ::testing::ValuesIn(NameCases()), CaseName<NameCase>);

}  // namespace
}  // namespace ksched::plugins

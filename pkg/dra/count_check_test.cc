// CountCheck against the search it stands in for: on thousands of random
// clusters and claim sets (devices of two models, some without the
// attribute a selector reads so CEL fails, taints, shared devices, slices
// for other nodes and for all of them, devices taken), Allocate with the
// check gives the code and message Allocate without it gives. The kube
// table (allocator_test.cc) runs every case both ways as well.
#include "pkg/dra/count_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "pkg/dra/allocator.h"
#include "pkg/dra/allocator_testing.h"

namespace ksched::dra::allocator_testing {
namespace count_check_test_detail {
namespace {

using Code = AllocateResult::Code;
using Verdict = CountCheck::Verdict;

struct RandomCase {
  std::vector<api::ResourceSlice> slices;
  std::vector<DeviceId> taken;
  std::vector<api::DeviceClass> classes;
  std::vector<WrapClaim> claims;
};

api::DeviceSelector ModelIs(const std::string& model) {
  return CelSelector("device.attributes[\"" + std::string(kDriverA) +
                     "\"].model == \"" + model + "\"");
}

RandomCase MakeCase(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  RandomCase c;
  c.classes = {Class(kClassA, kDriverA), Class(kClassB, kDriverB)};
  api::DeviceClass any;
  any.metadata.name = "class-any";
  c.classes.push_back(any);

  const char* nodes[] = {kNode1, kNode1, kNode1, kNode2, kNodeSelectionAll};
  const char* drivers[] = {kDriverA, kDriverA, kDriverB};
  const int num_slices = 1 + pick(3);
  for (int s = 0; s < num_slices; ++s) {
    const std::string name = "slice-" + std::to_string(s);
    WrapSlice slice = Slice(name, nodes[pick(5)], "pool-" + std::to_string(s),
                            drivers[pick(3)]);
    const int num_devices = pick(9);
    for (int d = 0; d < num_devices; ++d) {
      AttributeMap attributes;
      const int model = pick(5);
      if (model < 2) {
        attributes.emplace_back("model", StringValue("h100"));
      } else if (model < 4) {
        attributes.emplace_back("model", StringValue("a100"));
      }  // else none: a selector reading it fails
      WrapDevice device = Device("dev-" + std::to_string(d), {}, attributes);
      if (pick(12) == 0) {
        device = device.WithTaints(
            api::DeviceTaint{.key = "example.com/unhealthy",
                             .value = "ecc",
                             .effect = api::DeviceTaintEffect::kNoSchedule});
      }
      if (pick(15) == 0) device = device.WithAllowMultipleAllocations();
      slice.spec.devices.push_back(device);
      if (pick(4) == 0) {
        c.taken.push_back({slice.spec.driver, slice.spec.pool.name,
                           "dev-" + std::to_string(d)});
      }
    }
    c.slices.push_back(slice);
  }

  const char* class_names[] = {kClassA, kClassA, kClassB, "class-any"};
  const int num_claims = pick(3) == 0 ? 2 : 1;
  for (int i = 0; i < num_claims; ++i) {
    WrapClaim claim = Claim("claim-" + std::to_string(i));
    const int num_requests = pick(3) == 0 ? 2 : 1;
    for (int r = 0; r < num_requests; ++r) {
      std::vector<api::DeviceSelector> selectors;
      const int selector = pick(4);
      if (selector == 1) selectors.push_back(ModelIs("h100"));
      if (selector == 2) selectors.push_back(ModelIs("a100"));
      claim.spec.devices.requests.push_back(Request("req-" + std::to_string(r),
                                                    class_names[pick(4)],
                                                    1 + pick(4), selectors));
    }
    if (pick(4) == 0) {
      api::DeviceConstraint same_model;
      same_model.match_attribute = std::string(kDriverA) + "/model";
      claim.spec.devices.constraints.push_back(same_model);
    }
    c.claims.push_back(claim);
  }
  return c;
}

std::unique_ptr<Allocator> MakeAllocator(const RandomCase& c) {
  auto classes =
      std::make_shared<std::vector<std::shared_ptr<const api::DeviceClass>>>();
  for (const api::DeviceClass& cls : c.classes) {
    classes->push_back(std::make_shared<const api::DeviceClass>(cls));
  }
  std::vector<std::shared_ptr<const api::ResourceSlice>> slices;
  for (const api::ResourceSlice& s : c.slices) {
    slices.push_back(std::make_shared<const api::ResourceSlice>(s));
  }
  return std::make_unique<Allocator>(
      Features{}, DeviceIdSet(c.taken.begin(), c.taken.end()),
      [classes](
          std::string_view name) -> std::shared_ptr<const api::DeviceClass> {
        for (const auto& cls : *classes) {
          if (cls->metadata.name == name) return cls;
        }
        return nullptr;
      },
      std::make_shared<const SliceIndex>(std::move(slices)), nullptr);
}

TEST(CountCheckTest, AnswersAsTheSearchOnRandomClusters) {
  std::mt19937 rng(20261129);
  int verdicts[3] = {0, 0, 0};
  int errors = 0;
  const api::Node node = Node(kNode1, kRegion1);
  for (int i = 0; i < 3000; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const RandomCase c = MakeCase(rng);
    std::vector<const api::ResourceClaim*> claims;
    for (const WrapClaim& claim : c.claims) claims.push_back(&claim);
    AllocateLimits limits;
    limits.build_results = false;

    std::unique_ptr<Allocator> counting = MakeAllocator(c);
    std::unique_ptr<const CountCheck> check = counting->MakeCountCheck(claims);
    ASSERT_NE(check, nullptr);  // every claim here is one it can count
    AllocateResult counted = counting->Allocate(node, node.metadata.name,
                                                claims, limits, check.get());
    AllocateResult searched = MakeAllocator(c)->Allocate(node, claims, limits);
    EXPECT_EQ(counted.code, searched.code);
    EXPECT_EQ(counted.message, searched.message);
    errors += searched.code == Code::kError;
    // Answered without a search: no step of it ran.
    if (counted.code == Code::kNoFit && counted.allocate_one_invocations == 0) {
      ++verdicts[static_cast<int>(Verdict::kNoFit)];
    } else if (counted.code == Code::kAllocated &&
               counted.allocate_one_invocations == 0) {
      ++verdicts[static_cast<int>(Verdict::kFits)];
    } else {
      ++verdicts[static_cast<int>(Verdict::kSearch)];
    }
  }
  // The cases reach every verdict and some CEL errors, or the comparison
  // above would prove little.
  EXPECT_GT(verdicts[static_cast<int>(Verdict::kNoFit)], 300);
  EXPECT_GT(verdicts[static_cast<int>(Verdict::kFits)], 50);
  EXPECT_GT(verdicts[static_cast<int>(Verdict::kSearch)], 300);
  EXPECT_GT(errors, 50);
  std::printf("verdicts: %d without a search, %d fit, %d searched; %d errors\n",
              verdicts[0], verdicts[1], verdicts[2], errors);
}

// NodesThatMayFit against the search: on a node it leaves out, the search
// (without the count check) cannot allocate the claims either, and never
// fails with an error there; every node it may keep is one with slices of
// its own.
TEST(CountCheckTest, NodesLeftOutAreOnesTheSearchCannotAllocateOn) {
  std::mt19937 rng(20261130);
  int listed = 0;
  int left_out_checked = 0;
  const api::Node nodes[] = {Node(kNode1, kRegion1), Node(kNode2, kRegion1),
                             Node("node-without-slices", kRegion1)};
  for (int i = 0; i < 3000; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const RandomCase c = MakeCase(rng);
    std::vector<const api::ResourceClaim*> claims;
    for (const WrapClaim& claim : c.claims) claims.push_back(&claim);
    std::unique_ptr<Allocator> allocator = MakeAllocator(c);
    std::unique_ptr<const CountCheck> check = allocator->MakeCountCheck(claims);
    ASSERT_NE(check, nullptr);
    auto may_fit = allocator->NodesThatMayFit(*check);
    bool all_nodes_slice = false;
    for (const api::ResourceSlice& s : c.slices) {
      all_nodes_slice |= s.spec.all_nodes.value_or(false);
    }
    if (all_nodes_slice) {
      // A slice every node sees: no node can be left out by name.
      EXPECT_EQ(may_fit, nullptr);
      continue;
    }
    if (may_fit == nullptr) continue;
    ++listed;
    for (std::string_view name : *may_fit) {
      bool own = false;
      for (const api::ResourceSlice& s : c.slices) {
        own |= s.spec.node_name.value_or("") == name;
      }
      EXPECT_TRUE(own) << name;
    }
    AllocateLimits limits;
    limits.build_results = false;
    for (const api::Node& node : nodes) {
      if (std::find(may_fit->begin(), may_fit->end(), node.metadata.name) !=
          may_fit->end()) {
        continue;
      }
      ++left_out_checked;
      AllocateResult searched =
          MakeAllocator(c)->Allocate(node, claims, limits);
      EXPECT_EQ(searched.code, Code::kNoFit)
          << node.metadata.name << ": " << searched.message;
      AllocateResult counted = allocator->Allocate(node, node.metadata.name,
                                                   claims, limits, check.get());
      EXPECT_EQ(counted.code, Code::kNoFit) << node.metadata.name;
    }
  }
  // Enough cases give a list, and leave nodes out, to prove something.
  EXPECT_GT(listed, 500);
  EXPECT_GT(left_out_checked, 1000);
  std::printf("%d claim sets had a candidate list; %d nodes left out checked\n",
              listed, left_out_checked);
}

}  // namespace
}  // namespace count_check_test_detail
}  // namespace ksched::dra::allocator_testing

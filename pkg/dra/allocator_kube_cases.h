// The test table of Kubernetes' structured allocator
// (k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting,
// v1.35), ported case by case with kube's names. allocator_test.cc runs
// them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/dra/allocator_testing.h"

namespace ksched::dra::allocator_testing {

struct KubeCase {
  std::string name;
  Features features = NoFeatures();
  std::vector<WrapClaim> claims;
  std::vector<DeviceId> allocated;
  std::vector<api::DeviceClass> classes;
  std::vector<api::ResourceSlice> slices;
  std::optional<api::Node> node;
  // Compared as a multiset (kube's ConsistOf); empty: no allocation.
  std::vector<Expected> expect_results;
  // A substring of the expected error; empty: no error.
  std::string expect_error;
  // allocateOne calls, when the case checks them.
  int64_t expect_num_allocate_one_invocations = 0;
};

const std::vector<KubeCase>& KubeCases();

}  // namespace ksched::dra::allocator_testing

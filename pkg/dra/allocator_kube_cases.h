// The test table of Kubernetes' structured allocator
// (k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting),
// ported case by case with kube's names: v1.35's cases in
// allocator_kube_cases.cc, the rest of v1.36's in
// allocator_kube_cases_v136.cc. allocator_test.cc runs them.
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
  // kube's allocatedSharedDeviceIDs (device ids only: the share ids do not
  // change what the allocator does) and allocatedCapacityDevices.
  std::vector<DeviceId> allocated_shared;
  std::vector<std::pair<DeviceId, QuantityMap>> allocated_capacity;
  std::vector<api::DeviceClass> classes;
  std::vector<api::ResourceSlice> slices;
  std::optional<api::Node> node;
  // Compared as a multiset (kube's ConsistOf); empty: no allocation.
  std::vector<Expected> expect_results;
  // A substring of the expected error; empty: no error.
  std::string expect_error;
  // allocateOne calls, when the case checks them.
  int64_t expect_num_allocate_one_invocations = 0;
  // ksched's count, where it takes fewer steps than kube's allocator to
  // the same answer: before searching a request it counts the free
  // devices that match it and gives up at once when there are fewer than
  // it asks for (AllocatorSearch::EnoughCandidates). 0: kube's count.
  int64_t ksched_num_allocate_one_invocations = 0;
};

const std::vector<KubeCase>& KubeCases();
// The cases of v1.36's table that KubeCases() lacks.
const std::vector<KubeCase>& KubeCasesV136();

}  // namespace ksched::dra::allocator_testing
